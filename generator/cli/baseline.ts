/**
 * The earlier contract to compare with: a file or folder on disk, a git ref (read through
 * git, every referenced file as it was at that ref, without touching the work tree), or the
 * versions recorded in a history file (for the transitive modes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { OptionError } from '../errors.js';
import { compileContract } from '../index.js';
import { referencedFiles } from '../load/source-locator.js';
import type { ContractModel } from '../model/contract-model.js';

export interface Baseline {
  readonly label: string;
  readonly model: ContractModel;
}

/** `--against` a git ref where the contract does not exist yet: nothing can break. */
export interface FirstContract {
  readonly label: string;
  readonly first: true;
  /** Why there is nothing to compare with, for the notice the CLI shows. */
  readonly notice: string;
}

export class BaselineError extends OptionError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(message: string, diagnostics: readonly Diagnostic[] = []) {
    super('--against', message);
    this.diagnostics = diagnostics;
  }
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

async function compileOrThrow(spec: string, cwd: string, label: string, options: BaselineOptions): Promise<ContractModel> {
  const compiled = await compileContract(spec, { cwd, ...(options.allowRefOutside === true ? { allowRefOutside: true } : {}) });
  if (compiled.model === undefined) {
    throw new BaselineError(
      `the baseline contract (${label}) is not valid; check against a valid earlier version`,
      compiled.diagnostics.filter((d) => d.severity === 'error'),
    );
  }
  return compiled.model;
}

/** How the baseline is read: as the working contract is (`--allow-ref-outside`). */
export interface BaselineOptions {
  readonly allowRefOutside?: boolean;
}

/**
 * Loads `against` (path or git ref) for the contract `spec` of the working directory `cwd`.
 * When `against` is a git ref at which the contract file does not exist yet (the pull request
 * that adds the contract), there is nothing to break: a {@link FirstContract}.
 */
export async function loadBaseline(
  against: string,
  spec: string,
  cwd: string,
  options: BaselineOptions = {},
): Promise<Baseline | FirstContract> {
  const onDisk = resolve(cwd, against);
  if (existsSync(onDisk)) {
    let file = onDisk;
    if (statSync(onDisk).isDirectory()) {
      const found = ['asyncapi.yaml', 'asyncapi.yml', 'asyncapi.json'].map((f) => join(onDisk, f)).find((f) => existsSync(f));
      if (found === undefined) throw new BaselineError(`${against} is a folder without asyncapi.yaml, asyncapi.yml or asyncapi.json`);
      file = found;
    }
    return { label: relative(cwd, file) || file, model: await compileOrThrow(file, cwd, against, options) };
  }
  let root: string;
  try {
    root = git(['rev-parse', '--show-toplevel'], cwd).trim();
  } catch {
    throw new BaselineError(`${against} is not a file, and ${cwd} is not in a git repository to read it as a ref`);
  }
  try {
    git(['rev-parse', '--verify', '--quiet', `${against}^{commit}`], cwd);
  } catch {
    throw new BaselineError(
      `${against} is neither a file nor a git ref (try origin/main, a tag or a commit; in CI, fetch it first: git fetch origin main)`,
    );
  }
  const specInRepo = relative(root, resolve(cwd, spec)).split('\\').join('/');
  try {
    git(['cat-file', '-e', `${against}:${specInRepo}`], root);
  } catch {
    return {
      label: `${against}:${specInRepo}`,
      first: true,
      notice: `${specInRepo} does not exist at ${against}: this is the first version of the contract, so nothing can break`,
    };
  }
  const temp = mkdtempSync(join(tmpdir(), 'keiyaku-baseline-'));
  try {
    const fetched = new Set<string>();
    const fetch = (path: string, required: boolean): void => {
      if (fetched.has(path)) return;
      fetched.add(path);
      let text: string;
      try {
        text = git(['show', `${against}:${path}`], root);
      } catch {
        if (required) throw new BaselineError(`${path} does not exist at ${against}; is this the first version of the contract?`);
        return;
      }
      const target = join(temp, ...path.split('/'));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
      for (const file of referencedFiles(text)) fetch(posix.normalize(posix.join(posix.dirname(path), file)), false);
      // A .proto file's imports resolve from the contract's folder (docs/protobuf.md); well-known ones are not in the repository.
      if (path.endsWith('.proto'))
        for (const file of protoImports(text)) fetch(posix.normalize(posix.join(posix.dirname(specInRepo), file)), false);
    };
    fetch(specInRepo, true);
    return { label: `${against}:${specInRepo}`, model: await compileOrThrow(join(temp, ...specInRepo.split('/')), temp, against, options) };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The files a `.proto` file imports (`import "protos/common.proto";`, `import public …`, `import weak …`). */
function protoImports(text: string): string[] {
  return [...text.matchAll(/^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm)].map((m) => m[1]!);
}

export interface HistoryEntry {
  readonly version: string;
  readonly recordedAt: string;
  readonly model: ContractModel;
}

/** Earlier versions recorded by `keiyaku check --record`, newest first. */
export function readHistory(file: string): HistoryEntry[] {
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { versions?: HistoryEntry[] };
    return [...(parsed.versions ?? [])].reverse();
  } catch (cause) {
    throw new OptionError('--history', `${file} is not a keiyaku history file: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Appends (or replaces, for the same info.version) the current contract in the history file. */
export function recordHistory(file: string, model: ContractModel, now: Date): void {
  const versions = readHistory(file)
    .reverse()
    .filter((e) => e.version !== model.info.version);
  versions.push({ version: model.info.version, recordedAt: now.toISOString(), model });
  writeFileSync(file, `${JSON.stringify({ $schema: 'keiyaku-history/v1', versions }, null, 2)}\n`);
}
