// The command line of `keiyaku mock`: its usage, its errors, and the options it reads.
import { relative } from 'node:path';
import { KeiyakuError } from '../../errors.js';
import { parseArgs } from '../args.js';

export const MOCK_USAGE = `Usage: keiyaku mock --channel <id> [--count N] [--rate R] [--seed S] [--dry-run] [options]

Publishes schema-valid messages of one channel to the service's broker, so a consumer can be
exercised before its producer exists: the contract's examples first (each message's examples, then
its payload schema's), then values built from the schemas (formats, enums, patterns, bounds, …),
one message type after the other. The same --seed gives the same messages.

Options:
  --channel <id>      the channel (its id in the contract, or its name in generated code; required)
  --count <n>         how many messages (default 10)
  --rate <r>          at most r messages per second (default: as fast as the broker takes them)
  --seed <s>          the seed of every random choice, an integer (default 1)
  --param <k=v,…>     values of the channel's address parameters (default: the parameter's default,
                      else one of its enum per message, else one built value for the run)
  --no-examples       build every message; do not publish the contract's examples
  --dry-run           print the messages as JSON lines on stdout; connect to nothing
  --json              print a machine-readable summary on stdout (not with --dry-run)
  --spec <file>       the contract (default asyncapi.yaml, or "spec" in keiyaku.config.json)
  --config <file>     read defaults from this file (default: keiyaku.config.json if present)

The broker comes from the service's configuration, as configure() reads it: the "runtime" object of
keiyaku.config.json, with the KEIYAKU_* variables over it — KEIYAKU_TRANSPORT=kafka with
KEIYAKU_KAFKA_BOOTSTRAP_SERVERS (and the service's KEIYAKU_KAFKA_NAMESPACE, SASL, TLS settings), or
KEIYAKU_TRANSPORT=iggy with KEIYAKU_IGGY_ADDRESS (docs/configuration.md). The memory transport is
refused: it lives inside one process, so no consumer would see the messages; use --dry-run to see them.

Every message is checked against the contract before the first is sent; an example the contract's
own schema refuses stops the run (nothing sent).

Exit codes: 0 published (or printed), 2 bad arguments, an invalid contract, a schema no message can be
built for, an example its schema refuses, or no configured broker (nothing sent); 1 a send that failed.`;

/** A usage, contract or configuration problem: one line, exit 2, nothing sent. */
export class MockCommandError extends KeiyakuError {
  override readonly name = 'MockCommandError';
  constructor(message: string, cause?: unknown) {
    super('mock_failed', message, cause === undefined ? {} : { cause });
  }
}

export interface MockCommandOptions {
  readonly spec: string;
  readonly channel: string;
  readonly count: number;
  /** Messages per second; undefined: no pacing. */
  readonly rate?: number;
  readonly seed: number;
  readonly parameters: Readonly<Record<string, string>>;
  readonly examples: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  /** The `runtime` object of keiyaku.config.json and where it came from: the transport's configuration under the KEIYAKU_* variables. */
  readonly runtime?: { readonly config: Readonly<Record<string, unknown>>; readonly file: string };
}

export const MAX_COUNT = 1_000_000;

function integer(flag: string, text: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max)
    throw new MockCommandError(`--${flag} ${text} is not an integer from ${min} to ${max}`);
  return Number(text);
}

function parameters(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new MockCommandError(`--param ${text}: write each parameter as name=value, separated by commas`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

/** The command line, read by the CLI's one flag parser (args.ts), then checked for what mock needs. */
export function parse(argv: readonly string[], cwd: string): MockCommandOptions | 'help' {
  if (argv.includes('-h') || argv.includes('--help')) return 'help';
  const parsed = parseArgs(['mock', ...argv], cwd);
  const args = parsed.mock!;
  if (args.positionals.length > 0) throw new MockCommandError(`unexpected argument "${args.positionals[0]}"`);
  if (args.channel === undefined) throw new MockCommandError('keiyaku mock needs --channel <channel id> (see keiyaku mock --help)');
  if (args.dryRun && parsed.json)
    throw new MockCommandError('options --dry-run and --json cannot be combined: --dry-run prints JSON lines');
  let rate: number | undefined;
  if (args.rate !== undefined) {
    rate = Number(args.rate);
    if (!Number.isFinite(rate) || rate <= 0)
      throw new MockCommandError(`--rate ${args.rate} is not a positive number of messages per second`);
  }
  return {
    spec: parsed.spec,
    channel: args.channel,
    count: args.count === undefined ? 10 : integer('count', args.count, 1, MAX_COUNT),
    ...(rate === undefined ? {} : { rate }),
    seed: args.seed === undefined ? 1 : integer('seed', args.seed, 0, 2 ** 53 - 1),
    parameters: parameters(args.param),
    examples: !args.noExamples,
    dryRun: args.dryRun,
    json: parsed.json,
    ...(parsed.runtime === undefined || parsed.config === undefined
      ? {}
      : { runtime: { config: parsed.runtime, file: `${relative(cwd, parsed.config) || parsed.config} runtime` } }),
  };
}
