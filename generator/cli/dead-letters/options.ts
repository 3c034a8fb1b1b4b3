// The command line of `keiyaku dead-letters`: its usage, its errors, and the options it reads.
import { relative } from 'node:path';
import { KeiyakuError } from '../../errors.js';
import { parseArgs } from '../args.js';

export interface DeadLettersIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Asks a question on the terminal; resolves with the answer, or undefined when there is no input. */
  readonly prompt?: (question: string) => Promise<string | undefined>;
  /** The environment the transport's configuration is read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const DEAD_LETTERS_USAGE = `Usage: keiyaku dead-letters <action> [id] --store <sqlite file | postgres url | mysql url> [options]

Parked messages (a subscription's dead-letter store) and dead outbox rows, in one place.

Actions:
  list              the parked messages and dead outbox rows, oldest first
  show <id>         one of them in full (headers, payload, error)
  redrive <id>      a parked message: check it against the contract again, say where it goes (the
                    topic its channel's consumers read: binding, namespace, parameters), republish
                    it there and remove it once the broker acknowledged; a destination that does not
                    exist is refused. An outbox row (outbox:<n>): put it back to pending so the
                    dispatcher publishes it again
  remove <id>       delete it for good

Options:
  --store <s>       a SQLite database file, or a postgres://… or mysql://… URL (required)
  --channel <id>    only this channel
  --group <id>      only parked messages of this consumer group (outbox rows have none)
  --json            print a machine-readable result on stdout
  --yes             do not ask for confirmation (redrive, remove)
  --dry-run         redrive: check it and print where it would go; send and change nothing
  --spec <file>     redrive, show: the contract (default asyncapi.yaml, or "spec" in keiyaku.config.json);
                    show decodes an Avro or Protobuf payload with its channel's codec from it
  --config <file>   read defaults from this file (default: keiyaku.config.json if present)

The broker comes from the service's configuration, as configure() reads it: the "runtime" object of
keiyaku.config.json (the object configure() takes), with the KEIYAKU_* variables over it —
KEIYAKU_TRANSPORT=kafka with KEIYAKU_KAFKA_BOOTSTRAP_SERVERS, KEIYAKU_KAFKA_NAMESPACE, SASL, TLS and
Event Hubs settings, or KEIYAKU_TRANSPORT=iggy with KEIYAKU_IGGY_ADDRESS, … (docs/configuration.md).
Deprecated, still accepted with a warning: --brokers <list> (KEIYAKU_KAFKA_BOOTSTRAP_SERVERS),
--namespace <ns> (KEIYAKU_KAFKA_NAMESPACE) and the variable KAFKA_BROKERS.

Exit codes: 0 success, 1 not confirmed (nothing changed), 2 bad arguments, unreachable store, unknown id,
a payload the contract rejects or a destination that does not exist (nothing changed).`;

/** A usage, store or contract problem: printed as one line, exit 2, nothing changed. */
export class DeadLettersError extends KeiyakuError {
  override readonly name = 'DeadLettersError';
  constructor(message: string, cause?: unknown) {
    super('dead_letters_failed', message, cause === undefined ? {} : { cause });
  }
}

export type Action = 'list' | 'show' | 'redrive' | 'remove';

export interface Options {
  readonly action: Action;
  readonly id?: string;
  readonly store: string;
  readonly channel?: string;
  readonly group?: string;
  readonly json: boolean;
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly spec: string;
  /** The `runtime` object of keiyaku.config.json and that file's path: the transport's configuration under the KEIYAKU_* variables. */
  readonly runtime?: { readonly config: Readonly<Record<string, unknown>>; readonly file: string };
  /** @deprecated KEIYAKU_KAFKA_BOOTSTRAP_SERVERS */
  readonly brokers?: string;
  /** @deprecated KEIYAKU_KAFKA_NAMESPACE */
  readonly namespace?: string;
}

const ACTIONS: readonly Action[] = ['list', 'show', 'redrive', 'remove'];

/** The command line, read by the CLI's one flag parser (args.ts), then checked for what dead-letters needs. */
export function parse(argv: readonly string[], cwd: string): Options | 'help' {
  if (argv.includes('-h') || argv.includes('--help')) return 'help';
  const parsed = parseArgs(['dead-letters', ...argv], cwd);
  const args = parsed.deadLetters!;
  const [action, id, ...rest] = args.positionals;
  if (action === undefined) throw new DeadLettersError(`say what to do: keiyaku dead-letters ${ACTIONS.join('|')} --store …`);
  if (!ACTIONS.includes(action as Action)) throw new DeadLettersError(`unknown action "${action}" (actions: ${ACTIONS.join(', ')})`);
  if (action === 'list' && id !== undefined) throw new DeadLettersError(`unexpected argument "${id}": list takes no id`);
  if (action !== 'list' && id === undefined)
    throw new DeadLettersError(`keiyaku dead-letters ${action} needs the id of a message (see keiyaku dead-letters list)`);
  if (rest.length > 0) throw new DeadLettersError(`unexpected argument "${rest[0]}"`);
  if (args.store === undefined)
    throw new DeadLettersError(
      'keiyaku dead-letters needs --store <sqlite file | postgres://user:password@host:port/database | mysql://…>',
    );
  if (action !== 'redrive')
    for (const flag of ['brokers', 'namespace', 'dry-run'])
      if (args.given.includes(flag)) throw new DeadLettersError(`option --${flag} applies to redrive only`);
  if (action !== 'redrive' && action !== 'show' && args.given.includes('spec'))
    throw new DeadLettersError('option --spec applies to redrive and show only');
  return {
    action: action as Action,
    ...(id === undefined ? {} : { id }),
    store: args.store,
    ...(args.channel === undefined ? {} : { channel: args.channel }),
    ...(args.group === undefined ? {} : { group: args.group }),
    json: parsed.json,
    yes: args.yes,
    dryRun: args.dryRun,
    spec: parsed.spec,
    ...(parsed.runtime === undefined || parsed.config === undefined
      ? {}
      : { runtime: { config: parsed.runtime, file: `${relative(cwd, parsed.config) || parsed.config} runtime` } }),
    ...(args.brokers === undefined ? {} : { brokers: args.brokers }),
    ...(args.namespace === undefined ? {} : { namespace: args.namespace }),
  };
}

export const reason = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

export async function confirm(io: DeadLettersIo, options: Options, question: string): Promise<boolean> {
  if (options.yes) return true;
  const answer = await io.prompt?.(`${question} [y/N] `);
  return answer !== undefined && /^(y|yes)$/i.test(answer.trim());
}
