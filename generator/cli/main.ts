/**
 * The `keiyaku` command line. The only place that prints: library code returns data
 * and throws typed errors; this module renders them once.
 *
 * Start-up matters (`--version`, `--help`, `check` in every CI run): this module imports only
 * what every command needs; the parser, the emitter (prettier, handlebars), the compatibility
 * checker and the scaffolder (ts-morph) are loaded by the commands that use them.
 */
import { type FSWatcher, mkdirSync, watch as watchFile, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { type Diagnostic, formatDiagnostic, hasErrors } from '../diagnostics.js';
import { isKeiyakuError } from '../errors.js';
import type { GenerateFromFileResult } from '../index.js';
import { type CliOptions, parseArgs, USAGE } from './args.js';
import type { Baseline } from './baseline.js';
import { compareOutput, type Drift, hasDrift, writeOutput } from './output.js';
import { packageVersion } from './package-version.js';

export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /**
   * Resolves when watch mode should stop (Ctrl-C). Read only by `--watch`: the process entry
   * installs its SIGINT/SIGTERM listeners when it is read, so every other command keeps Node's
   * default behaviour (a signal ends it at once).
   */
  readonly stopSignal?: Promise<void>;
  /** Asks a question (`keiyaku dead-letters` confirmations); resolves with the answer, undefined without input. */
  readonly prompt?: (question: string) => Promise<string | undefined>;
  /** The environment `check --against registry:` reads its KEIYAKU_SCHEMA_REGISTRY_* settings from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const EXIT = { ok: 0, stale: 1, invalid: 2 } as const;

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'dead-letters') return (await import('./dead-letters.js')).runDeadLetters(argv.slice(1), io);
  if (argv[0] === 'mock') return (await import('./mock.js')).runMock(argv.slice(1), io);
  let options: CliOptions;
  try {
    options = parseArgs(argv, io.cwd);
  } catch (error) {
    if (isKeiyakuError(error)) {
      io.stderr(`keiyaku: ${error.message}\n`);
      return EXIT.invalid;
    }
    throw error;
  }
  if (options.command === 'help') {
    io.stdout(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (options.command === 'version') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (options.command === 'scaffold') return runScaffold(options, io);
  if (options.command === 'check') return runCheck(options, io);
  if (options.watch) return watchLoop(options, io);
  return runOnce(options, io);
}

/** How the contract is loaded: from the working directory, with the options that change reading it. */
function loadOptions(options: CliOptions, io: CliIo): { cwd: string; lint?: boolean; allowRefOutside?: boolean } {
  return {
    cwd: io.cwd,
    ...(options.lint === true ? { lint: true } : {}),
    ...(options.allowRefOutside === true ? { allowRefOutside: true } : {}),
  };
}

function render(diagnostics: readonly Diagnostic[], options: CliOptions, io: CliIo): void {
  for (const d of diagnostics) {
    if (d.severity === 'info' && !options.verbose) continue;
    if (d.severity !== 'error' && options.quiet && !(options.strict && d.severity === 'warning')) continue;
    io.stderr(`${formatDiagnostic(d)}\n`);
  }
}

function counts(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  return {
    errors: diagnostics.filter((d) => d.severity === 'error').length,
    warnings: diagnostics.filter((d) => d.severity === 'warning').length,
  };
}

/** One generate/validate run; `onInputs` learns the files the contract was read from (for watch mode). */
async function runOnce(options: CliOptions, io: CliIo, onInputs?: (inputs: readonly string[]) => void): Promise<number> {
  const started = performance.now();
  const outDir = resolve(io.cwd, options.out);
  const outDisplay = relative(io.cwd, outDir) || '.';
  let result: GenerateFromFileResult;
  try {
    const { validateFile, generateFromFile } = await import('../index.js');
    result =
      options.command === 'validate'
        ? await validateFile(options.spec, loadOptions(options, io))
        : await generateFromFile(options.spec, loadOptions(options, io));
  } catch (error) {
    return fatal(error, options, io);
  }
  onInputs?.(result.inputs);
  const failed = hasErrors(result.diagnostics, options.strict);
  const { errors, warnings } = counts(result.diagnostics);
  const elapsed = Math.round(performance.now() - started);
  const summary = {
    channels: result.model?.channels.length ?? 0,
    messages: result.model ? Object.keys(result.model.messages).length : 0,
    files: result.files.length,
  };
  let drift: Drift | undefined;
  if (!failed && options.command === 'generate') {
    try {
      if (options.check) drift = compareOutput(outDir, result.files);
      else writeOutput(outDir, result.files);
    } catch (error) {
      return fatal(error, options, io);
    }
  }
  const exitCode = failed ? EXIT.invalid : drift && hasDrift(drift) ? EXIT.stale : EXIT.ok;
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          ok: exitCode === EXIT.ok,
          command: options.command,
          spec: options.spec,
          out: options.command === 'generate' ? outDisplay : undefined,
          ...summary,
          errors,
          warnings,
          durationMs: elapsed,
          diagnostics: result.diagnostics,
          ...(drift ? { drift } : {}),
          written: options.command === 'generate' && !options.check && !failed ? result.files.map((f) => f.path) : [],
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  render(result.diagnostics, options, io);
  if (failed) {
    const why = errors > 0 ? `${errors} error${errors === 1 ? '' : 's'}` : `${warnings} warning${warnings === 1 ? '' : 's'} (--strict)`;
    io.stderr(`keiyaku: ${options.spec} is not valid: ${why}; nothing written.\n`);
    return exitCode;
  }
  if (drift && hasDrift(drift)) {
    for (const path of drift.stale) io.stderr(`stale:   ${outDisplay}/${path}\n`);
    for (const path of drift.missing) io.stderr(`missing: ${outDisplay}/${path}\n`);
    for (const path of drift.extra) io.stderr(`extra:   ${outDisplay}/${path}\n`);
    io.stderr(`keiyaku: ${outDisplay}/ does not match ${options.spec}; run \`keiyaku generate\` and commit the result.\n`);
    return exitCode;
  }
  if (!options.quiet) {
    const verb = options.command === 'validate' ? 'valid' : options.check ? 'up to date' : `wrote ${summary.files} files to ${outDisplay}/`;
    io.stdout(
      `keiyaku: ${options.spec}: ${summary.channels} channels, ${summary.messages} messages, ${warnings} warnings; ${verb} (${elapsed} ms)\n`,
    );
  }
  return exitCode;
}

async function runCheck(options: CliOptions, io: CliIo): Promise<number> {
  const [
    { compileContract },
    { BaselineError, loadBaseline, readHistory, recordHistory },
    contractDiff,
    { render: renderCheck },
    { isRegistryBaseline, loadRegistryBaseline },
  ] = await Promise.all([
    import('../index.js'),
    import('./baseline.js'),
    import('../compat/contract-diff.js'),
    import('../compat/render.js'),
    import('./registry-baseline.js'),
  ]);
  const { acknowledge, compareAll, DEFAULT_POLICY, planChannels } = contractDiff;
  try {
    // The working contract and the baseline load side by side (each file parsed once); a registry's
    // baseline is the working contract with the registered payloads, so it waits for it.
    const fromRegistry = options.against !== undefined && isRegistryBaseline(options.against);
    const baselineLoad =
      options.against !== undefined && !fromRegistry
        ? loadBaseline(options.against, options.spec, io.cwd, loadOptions(options, io)).then(
            (b) => ({ ok: true as const, b }),
            (e: unknown) => ({ ok: false as const, e }),
          )
        : undefined;
    const compiled = await compileContract(options.spec, loadOptions(options, io));
    if (compiled.model === undefined) {
      await baselineLoad;
      render(compiled.diagnostics, options, io);
      io.stderr(`keiyaku: ${options.spec} is not valid; nothing to check.\n`);
      return EXIT.invalid;
    }
    const current = compiled.model;
    // No --mode and no contract-wide x-keiyaku mode: each channel in the direction its operations imply.
    const mode = options.mode ?? current.compatibility?.mode;
    const modeFrom = options.mode !== undefined ? '--mode' : mode !== undefined ? 'x-keiyaku.compatibility of the contract' : undefined;
    const policy = options.policy ?? current.compatibility?.policy ?? DEFAULT_POLICY;
    const historyFile = resolve(io.cwd, options.history!);
    const baselines: Baseline[] = [];
    const notices: string[] = [];
    const labels: string[] = [];
    if (baselineLoad !== undefined) {
      const loaded = await baselineLoad;
      if (!loaded.ok) throw loaded.e;
      labels.push(loaded.b.label);
      if ('first' in loaded.b) notices.push(loaded.b.notice);
      else baselines.push(loaded.b);
    }
    if (fromRegistry) {
      const registry = await loadRegistryBaseline(options.against!, current, {
        env: io.env ?? process.env,
        ...(options.runtime === undefined ? {} : { runtime: options.runtime }),
        ...(options.config === undefined ? {} : { file: relative(io.cwd, options.config) }),
      });
      labels.push(registry.label);
      notices.push(...registry.notices);
      baselines.push(registry);
    }
    if (mode?.endsWith('-transitive'))
      for (const entry of readHistory(historyFile)) {
        const label = `${relative(io.cwd, historyFile)}@${entry.version}`;
        labels.push(label);
        baselines.push({ label, model: entry.model });
      }
    const compareOptions = { mode, modeFrom, policy, locate: compiled.locate };
    const findings = compareAll(
      baselines.map((b) => b.model),
      current,
      compareOptions,
    );
    const result = acknowledge(findings, current);
    const against = labels.join(', ') || '(nothing)';
    const plan = planChannels(baselines[0]?.model ?? current, current, compareOptions);
    const context = { against, mode: mode ?? 'per channel', policy, plan, notices, quiet: options.quiet };
    io.stdout(renderCheck(options.format!, result, context, options.verbose));
    if (options.record) {
      recordHistory(historyFile, current, new Date());
      if (!options.quiet) io.stderr(`keiyaku: recorded ${current.info.version} in ${relative(io.cwd, historyFile)}\n`);
    }
    return result.breaking > 0 ? EXIT.stale : EXIT.ok;
  } catch (error) {
    if (error instanceof BaselineError && error.diagnostics.length > 0) render(error.diagnostics, options, io);
    return fatal(error, options, io);
  }
}

async function runScaffold(options: CliOptions, io: CliIo): Promise<number> {
  const [{ compileContract }, { scaffoldMapper }] = await Promise.all([import('../index.js'), import('../scaffold/mapper.js')]);
  try {
    const compiled = await compileContract(options.spec, loadOptions(options, io));
    if (compiled.model === undefined) {
      render(compiled.diagnostics, options, io);
      io.stderr(`keiyaku: ${options.spec} is not valid; fix it before scaffolding.\n`);
      return EXIT.invalid;
    }
    const channel = compiled.model.channels.find((c) => c.id === options.channel || c.identifier === options.channel);
    if (channel === undefined) {
      io.stderr(
        `keiyaku: ${options.spec} has no channel "${options.channel}" (channels: ${compiled.model.channels.map((c) => c.id).join(', ')})\n`,
      );
      return EXIT.invalid;
    }
    const result = scaffoldMapper({
      eventsFile: options.events!,
      eventType: options.eventType!,
      channelIdentifier: channel.identifier,
      generatedDir: options.out,
      outFile: options.mapperFile!,
      cwd: io.cwd,
    });
    const shown = relative(io.cwd, result.path);
    if (result.content === undefined) {
      if (!options.quiet) io.stdout(`keiyaku: ${shown} already maps every ${options.eventType}; unchanged\n`);
      return EXIT.ok;
    }
    mkdirSync(dirname(result.path), { recursive: true });
    writeFileSync(result.path, result.content);
    if (!options.quiet) {
      const what = result.created ? `created ${shown} with` : `added to ${shown}`;
      io.stdout(
        `keiyaku: ${what} ${result.added.length} case${result.added.length === 1 ? '' : 's'} (${result.added.join(', ')}), switching on event.${result.discriminant}\n`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    return fatal(error, options, io);
  }
}

function fatal(error: unknown, options: CliOptions, io: CliIo): number {
  if (!isKeiyakuError(error)) throw error;
  if (options.json) io.stdout(`${JSON.stringify({ ok: false, error: { code: error.code, message: error.message } }, null, 2)}\n`);
  else io.stderr(`keiyaku: ${error.message}\n`);
  return EXIT.invalid;
}

async function watchLoop(options: CliOptions, io: CliIo): Promise<number> {
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running = Promise.resolve();
  const closeWatchers = (): void => {
    for (const w of watchers) w.close();
    watchers = [];
  };
  const arm = async (): Promise<void> => {
    if (stopped) return;
    let inputs: readonly string[] = [];
    await runOnce(options, io, (read) => {
      inputs = read;
    });
    if (stopped) return;
    closeWatchers();
    const targets = inputs.length > 0 ? inputs : [resolve(io.cwd, options.spec)];
    watchers = targets.flatMap((file) => {
      try {
        return [watchFile(file, () => schedule())];
      } catch {
        return [];
      }
    });
    if (!options.quiet) io.stdout(`keiyaku: watching ${targets.length} file${targets.length === 1 ? '' : 's'} for changes\n`);
  };
  const schedule = (): void => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(arm);
    }, 100);
  };
  running = arm();
  await (io.stopSignal ?? new Promise<void>(() => {}));
  stopped = true;
  if (timer) clearTimeout(timer);
  closeWatchers();
  await running;
  closeWatchers();
  return EXIT.ok;
}
