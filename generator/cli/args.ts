/**
 * Command-line parsing for `keiyaku`: every option gets its default in one place, and an
 * unknown flag is an {@link OptionError} that quotes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FORMATS, type Format } from '../compat/render.js';
import type { Policy } from '../compat/schema-diff.js';
import { OptionError } from '../errors.js';
import { MODES, type Mode, POLICIES } from '../model/vocabulary.js';

export type Command = 'generate' | 'validate' | 'scaffold' | 'check' | 'dead-letters' | 'mock' | 'help' | 'version';

export interface CliOptions {
  readonly command: Command;
  readonly spec: string;
  readonly out: string;
  readonly check: boolean;
  readonly watch: boolean;
  readonly strict: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  /** Also run the AsyncAPI parser's full Spectral rulesets (style and best-practice rules; seconds, not milliseconds). */
  readonly lint?: boolean;
  /** `scaffold mapper`: the domain events file, the union's name, the channel id. */
  readonly events?: string;
  readonly eventType?: string;
  readonly channel?: string;
  /** `scaffold mapper`: the mapper file. */
  readonly mapperFile?: string;
  /** `check`: the baseline, mode, policy, output format, history file and whether to record. */
  readonly against?: string;
  readonly mode?: Mode;
  readonly policy?: Policy;
  readonly format?: Format;
  readonly history?: string;
  readonly record?: boolean;
  /** Config file that was read, if any. */
  readonly config?: string;
  /** Let the contract's `$ref`s read files outside its folder tree (`--allow-ref-outside`, config `allowRefOutside`). */
  readonly allowRefOutside?: boolean;
  /**
   * The config file's `runtime` object: the service's runtime configuration (the object
   * `configure()` takes, docs/configuration.md), checked where it is used; the KEIYAKU_* variables win over it.
   */
  readonly runtime?: Readonly<Record<string, unknown>>;
  /** `dead-letters`: the action and id as given, and its own options. */
  readonly deadLetters?: DeadLettersArgs;
  /** `mock`: its flags as given (checked by the command itself). */
  readonly mock?: MockArgs;
}

/** The flags of `keiyaku mock`, as given (checked further by the command itself). */
export interface MockArgs {
  readonly positionals: readonly string[];
  readonly channel?: string;
  readonly count?: string;
  readonly rate?: string;
  readonly seed?: string;
  readonly param?: string;
  readonly dryRun: boolean;
  readonly noExamples: boolean;
}

/** The arguments of `keiyaku dead-letters` (checked further by the command itself). */
export interface DeadLettersArgs {
  /** The action and the id, as given (`redrive`, `<id>`). */
  readonly positionals: readonly string[];
  readonly store?: string;
  readonly channel?: string;
  readonly group?: string;
  readonly yes: boolean;
  readonly dryRun: boolean;
  /** Flags given that only some actions take. */
  readonly given: readonly string[];
  /** @deprecated Kafka bootstrap servers: use KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS. */
  readonly brokers?: string;
  /** @deprecated The Kafka namespace: use KEIYAKU_KAFKA_NAMESPACE. */
  readonly namespace?: string;
}

export const DEFAULTS = { spec: 'asyncapi.yaml', out: 'generated', format: 'text', history: 'contract.history.json' } as const;
export const CONFIG_FILE = 'keiyaku.config.json';

interface FlagSpec {
  readonly takes: 'value' | 'boolean';
  readonly commands: readonly Command[];
}

const FLAGS: Record<string, FlagSpec> = {
  spec: { takes: 'value', commands: ['generate', 'validate', 'scaffold', 'check', 'dead-letters', 'mock'] },
  against: { takes: 'value', commands: ['check'] },
  mode: { takes: 'value', commands: ['check'] },
  policy: { takes: 'value', commands: ['check'] },
  format: { takes: 'value', commands: ['check'] },
  history: { takes: 'value', commands: ['check'] },
  record: { takes: 'boolean', commands: ['check'] },
  out: { takes: 'value', commands: ['generate', 'scaffold'] },
  config: { takes: 'value', commands: ['generate', 'validate', 'scaffold', 'check', 'dead-letters', 'mock'] },
  events: { takes: 'value', commands: ['scaffold'] },
  type: { takes: 'value', commands: ['scaffold'] },
  channel: { takes: 'value', commands: ['scaffold', 'dead-letters', 'mock'] },
  generated: { takes: 'value', commands: ['scaffold'] },
  check: { takes: 'boolean', commands: ['generate'] },
  watch: { takes: 'boolean', commands: ['generate'] },
  strict: { takes: 'boolean', commands: ['generate', 'validate'] },
  quiet: { takes: 'boolean', commands: ['generate', 'validate', 'check'] },
  json: { takes: 'boolean', commands: ['generate', 'validate', 'dead-letters', 'mock'] },
  verbose: { takes: 'boolean', commands: ['generate', 'validate', 'check'] },
  lint: { takes: 'boolean', commands: ['generate', 'validate'] },
  'allow-ref-outside': { takes: 'boolean', commands: ['generate', 'validate', 'scaffold', 'check'] },
  store: { takes: 'value', commands: ['dead-letters'] },
  group: { takes: 'value', commands: ['dead-letters'] },
  yes: { takes: 'boolean', commands: ['dead-letters'] },
  'dry-run': { takes: 'boolean', commands: ['dead-letters', 'mock'] },
  count: { takes: 'value', commands: ['mock'] },
  rate: { takes: 'value', commands: ['mock'] },
  seed: { takes: 'value', commands: ['mock'] },
  param: { takes: 'value', commands: ['mock'] },
  'no-examples': { takes: 'boolean', commands: ['mock'] },
  brokers: { takes: 'value', commands: ['dead-letters'] },
  namespace: { takes: 'value', commands: ['dead-letters'] },
};
const SHORT: Record<string, string> = { s: 'spec', o: 'out', q: 'quiet' };
const COMMANDS: readonly Command[] = ['generate', 'validate', 'check', 'scaffold', 'dead-letters', 'mock'];
const CONFIG_KEYS = new Set(['spec', 'out', 'strict', 'allowRefOutside', 'runtime']);

export const USAGE = `Usage: keiyaku <command> [options]

Commands:
  generate          load the contract and write typed code (default output: generated/)
  validate          load the contract and report problems; writes nothing
  check             compare the contract with an earlier one; exit 1 on a breaking change:
                    --against <git ref | file | folder | registry:<url>> [--mode backward|forward|full|…-transitive|none]
                    [--policy strict|lenient] [--format text|json|github|junit] [--record] [--history file];
                    without --mode, each channel in the direction its operations imply
                    (send: forward, receive: backward, both or none: full); registry:<url> compares
                    each Avro and Protobuf payload with the latest version of its subject
  scaffold mapper   write (or complete) a mapper from a domain event union to a channel:
                    --events <file> --type <Union> --channel <channel id> --out <mapper file>
                    [--generated <dir>]; adds missing cases, never rewrites your code
  dead-letters      list|show|redrive|remove parked messages and dead outbox rows:
                    --store <sqlite file | postgres or mysql url> (see keiyaku dead-letters --help)
  mock              publish schema-valid messages of a channel (its examples, then built values):
                    --channel <id> [--count N] [--rate R] [--seed S] [--dry-run] (see keiyaku mock --help)

Options:
  -s, --spec <file>   contract file (default: asyncapi.yaml, or "spec" in ${CONFIG_FILE})
  -o, --out <dir>     output directory for generate (default: generated)
      --check         do not write; exit 1 when the output directory is stale
      --watch         regenerate when the contract or a file it references changes
      --strict        treat warnings as errors
      --config <file> read defaults from this file (default: ${CONFIG_FILE} if present)
  -q, --quiet         print errors only (check: its findings and summary line only)
      --json          print a machine-readable result on stdout
      --verbose       also print informational findings
      --lint          also run the AsyncAPI parser's full Spectral rulesets (style and best-practice
                      rules; takes seconds; the default checks the AsyncAPI JSON Schema in milliseconds)
      --allow-ref-outside
                      let $refs read files outside the contract's folder (refused by default)
  -h, --help          show this help
  -v, --version       show the version

Exit codes: 0 success, 1 stale output (--check) or a breaking change (check), 2 invalid contract or usage.`;

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The candidate closest to `name` (case-insensitive), when within `maxDistance` edits: for "did you mean". */
function nearest(name: string, candidates: Iterable<string>, maxDistance: number): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The flag closest to `name` (edit distance ≤ 2). */
function closest(name: string): string | undefined {
  return nearest(name, Object.keys(FLAGS), 2);
}

/** The key of keiyaku.config.json closest to `key` (case-insensitive edit distance ≤ 3). */
function closestConfigKey(key: string): string | undefined {
  return nearest(key, CONFIG_KEYS, 3);
}

function readConfig(path: string, explicit: boolean): Record<string, unknown> {
  if (!existsSync(path)) {
    if (explicit) throw new OptionError('--config', `config file ${path} does not exist`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new OptionError('--config', `${path} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new OptionError('--config', `${path} must hold a JSON object`);
  // Every problem of the file at once, an unknown key with the closest known one.
  const problems: { key: string; message: string }[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (!CONFIG_KEYS.has(key)) {
      const guess = closestConfigKey(key);
      problems.push({
        key,
        message: `unknown option "${key}"${guess ? `; did you mean "${guess}"?` : ''} (known: ${[...CONFIG_KEYS].join(', ')})`,
      });
      continue;
    }
    if (key === 'runtime') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        problems.push({ key, message: '"runtime" must be an object: the service\'s runtime configuration, as configure() takes it' });
      continue;
    }
    const expected = key === 'strict' || key === 'allowRefOutside' ? 'boolean' : 'string';
    if (typeof value !== expected) problems.push({ key, message: `"${key}" must be a ${expected}` });
  }
  if (problems.length === 1) throw new OptionError(problems[0]!.key, `${path}: ${problems[0]!.message}`);
  if (problems.length > 1)
    throw new OptionError(
      problems[0]!.key,
      `${path} has ${problems.length} problems:\n${problems.map((p) => `  - ${p.message}`).join('\n')}`,
    );
  return parsed as Record<string, unknown>;
}

export function parseArgs(argv: readonly string[], cwd: string): CliOptions {
  const read = readCommandLine(argv);
  if (read === 'help' || read === 'version') return { ...base(), command: read };
  const { command, subcommand, values, positionals } = read;
  checkCombinations(command, subcommand, values);
  const configPath = typeof values['config'] === 'string' ? resolve(cwd, values['config']) : resolve(cwd, CONFIG_FILE);
  const config = readConfig(configPath, typeof values['config'] === 'string');
  const pick = (key: 'spec' | 'out'): string => (values[key] as string | undefined) ?? (config[key] as string | undefined) ?? DEFAULTS[key];
  return {
    command,
    ...commandOptions(command, values, positionals),
    spec: pick('spec'),
    out:
      command === 'scaffold'
        ? ((values['generated'] as string | undefined) ?? (config['out'] as string | undefined) ?? DEFAULTS.out)
        : pick('out'),
    check: values['check'] === true,
    watch: values['watch'] === true,
    strict: values['strict'] === true || config['strict'] === true,
    quiet: values['quiet'] === true,
    json: values['json'] === true,
    verbose: values['verbose'] === true,
    ...(values['lint'] === true ? { lint: true } : {}),
    ...(values['allow-ref-outside'] === true || config['allowRefOutside'] === true ? { allowRefOutside: true } : {}),
    ...(existsSync(configPath) ? { config: configPath } : {}),
    ...(config['runtime'] === undefined ? {} : { runtime: config['runtime'] as Readonly<Record<string, unknown>> }),
  };
}

/** The command line as read, before the checks that need the whole of it. */
interface CommandLine {
  readonly command: Command;
  readonly subcommand: string | undefined;
  readonly values: Readonly<Record<string, string | boolean>>;
  readonly positionals: readonly string[];
}

/** Reads the command, its flags and positionals left to right; the first problem throws. No command: help. */
function readCommandLine(argv: readonly string[]): CommandLine | 'help' | 'version' {
  const values: Record<string, string | boolean> = {};
  let command: Command | undefined;
  let subcommand: string | undefined;
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '-v' || arg === '--version') return 'version';
    if (!arg.startsWith('-')) {
      if (command === 'dead-letters' || command === 'mock') {
        positionals.push(arg);
        continue;
      }
      if (command === 'scaffold' && subcommand === undefined) {
        if (arg !== 'mapper') throw new OptionError(arg, `unknown scaffold "${arg}" (scaffolds: mapper)`);
        subcommand = arg;
        continue;
      }
      if (command !== undefined) throw new OptionError(arg, `unexpected argument "${arg}"; pass the contract with --spec ${arg}`);
      if (!COMMANDS.includes(arg as Command)) {
        throw new OptionError(arg, `unknown command "${arg}" (commands: ${COMMANDS.join(', ')})`);
      }
      command = arg as Command;
      continue;
    }
    const [rawName, inline] = arg.startsWith('--')
      ? (arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined])
      : [SHORT[arg.slice(1)] ?? arg.slice(1), undefined];
    const spec = FLAGS[rawName];
    if (spec === undefined) {
      const suggestion = closest(rawName);
      throw new OptionError(arg, `unknown option "${arg}"${suggestion ? `; did you mean --${suggestion}?` : ''} (see keiyaku --help)`);
    }
    if (spec.takes === 'boolean') {
      if (inline !== undefined) throw new OptionError(arg, `option --${rawName} takes no value`);
      values[rawName] = true;
    } else {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('-')))
        throw new OptionError(arg, `option --${rawName} needs a value`);
      values[rawName] = value;
    }
  }
  return command === undefined ? 'help' : { command, subcommand, values, positionals };
}

/** Flags of another command, missing required flags, values out of their choices, flags that exclude each other. */
function checkCombinations(command: Command, subcommand: string | undefined, values: Readonly<Record<string, string | boolean>>): void {
  for (const name of Object.keys(values)) {
    if (!FLAGS[name]!.commands.includes(command))
      throw new OptionError(`--${name}`, `option --${name} does not apply to "keiyaku ${command}"`);
  }
  if (command === 'scaffold') {
    if (subcommand === undefined) throw new OptionError('scaffold', 'say what to scaffold: keiyaku scaffold mapper …');
    for (const required of ['events', 'type', 'channel', 'out']) {
      if (typeof values[required] !== 'string')
        throw new OptionError(`--${required}`, `keiyaku scaffold mapper needs --${required} (see keiyaku --help)`);
    }
  }
  if (command === 'check') {
    const choices: Record<string, readonly string[]> = { mode: MODES, policy: POLICIES, format: FORMATS };
    for (const [flag, allowed] of Object.entries(choices)) {
      const value = values[flag];
      if (typeof value === 'string' && !allowed.includes(value))
        throw new OptionError(`--${flag}`, `--${flag} ${value} is not one of ${allowed.join(', ')}`);
    }
    if (typeof values['against'] !== 'string' && values['record'] !== true && !String(values['mode'] ?? '').endsWith('-transitive')) {
      throw new OptionError(
        '--against',
        'keiyaku check needs --against <git ref | file | folder | registry:<url>> (or a -transitive --mode with a history file)',
      );
    }
  }
  if (values['check'] && values['watch']) throw new OptionError('--watch', 'options --check and --watch cannot be combined');
  if (values['json'] && values['watch']) throw new OptionError('--watch', 'options --json and --watch cannot be combined');
}

/** The options of one command: scaffold's, check's or dead-letters'. */
function commandOptions(
  command: Command,
  values: Readonly<Record<string, string | boolean>>,
  positionals: readonly string[],
): Partial<CliOptions> {
  if (command === 'scaffold')
    return {
      events: values['events'] as string,
      eventType: values['type'] as string,
      channel: values['channel'] as string,
      mapperFile: values['out'] as string,
    };
  if (command === 'check')
    return {
      ...(typeof values['against'] === 'string' ? { against: values['against'] } : {}),
      ...(typeof values['mode'] === 'string' ? { mode: values['mode'] as Mode } : {}),
      ...(typeof values['policy'] === 'string' ? { policy: values['policy'] as Policy } : {}),
      format: (values['format'] as Format | undefined) ?? DEFAULTS.format,
      history: (values['history'] as string | undefined) ?? DEFAULTS.history,
      record: values['record'] === true,
    };
  if (command === 'dead-letters')
    return {
      deadLetters: {
        positionals: [...positionals],
        ...(typeof values['store'] === 'string' ? { store: values['store'] } : {}),
        ...(typeof values['channel'] === 'string' ? { channel: values['channel'] } : {}),
        ...(typeof values['group'] === 'string' ? { group: values['group'] } : {}),
        yes: values['yes'] === true,
        dryRun: values['dry-run'] === true,
        given: Object.keys(values),
        ...(typeof values['brokers'] === 'string' ? { brokers: values['brokers'] } : {}),
        ...(typeof values['namespace'] === 'string' ? { namespace: values['namespace'] } : {}),
      },
    };
  if (command === 'mock') {
    const text = (name: string): { [key: string]: string } => (typeof values[name] === 'string' ? { [name]: values[name] } : {});
    return {
      mock: {
        positionals: [...positionals],
        ...text('channel'),
        ...text('count'),
        ...text('rate'),
        ...text('seed'),
        ...text('param'),
        dryRun: values['dry-run'] === true,
        noExamples: values['no-examples'] === true,
      },
    };
  }
  return {};
}

function base(): Omit<CliOptions, 'command'> {
  return { spec: DEFAULTS.spec, out: DEFAULTS.out, check: false, watch: false, strict: false, quiet: false, json: false, verbose: false };
}
