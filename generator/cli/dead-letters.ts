/**
 * `keiyaku dead-letters list|show|redrive|remove`: operates on what a service set aside —
 * messages its subscriptions parked (the dead-letter store) and outbox rows that went dead
 * (the transactional outbox) — in a SQLite file or a PostgreSQL database.
 *
 * Every source of set-aside items implements {@link DeadSource}; ids carry their source
 * (`outbox:<row>` for outbox rows, the parked message's id otherwise), so one listing covers
 * both. Nothing is changed unless the action succeeds: redrive validates before it sends and
 * removes the parked record only after the broker acknowledged the republish.
 */
import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { PostgresOutbox } from '@keiyaku/postgres';
import {
  type DeadLetterStore,
  type Logger,
  missingDestination,
  type ParkedMessage,
  payloadText,
  planRedrive,
  type RedriveOptions,
  type RedriveTarget,
  redrive,
  type Transport,
} from '@keiyaku/runtime';
import type { OutboxAdmin, OutboxRow } from '@keiyaku/runtime/adapter';
import type { SqliteOutbox } from '@keiyaku/sqlite';
import { isKeiyakuError, KeiyakuError } from '../errors.js';
import { parseArgs } from './args.js';

export interface DeadLettersIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Asks a question on the terminal; resolves with the answer, or undefined when there is no input. */
  readonly prompt?: (question: string) => Promise<string | undefined>;
  /** The environment the transport's configuration is read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const DEAD_LETTERS_USAGE = `Usage: keiyaku dead-letters <action> [id] --store <sqlite file | postgres url> [options]

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
  --store <s>       a SQLite database file, or a postgres://… URL (required)
  --channel <id>    only this channel
  --group <id>      only parked messages of this consumer group (outbox rows have none)
  --json            print a machine-readable result on stdout
  --yes             do not ask for confirmation (redrive, remove)
  --dry-run         redrive: check it and print where it would go; send and change nothing
  --spec <file>     redrive: the contract (default asyncapi.yaml, or "spec" in keiyaku.config.json)
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

type Action = 'list' | 'show' | 'redrive' | 'remove';

interface Options {
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
function parse(argv: readonly string[], cwd: string): Options | 'help' {
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
    throw new DeadLettersError('keiyaku dead-letters needs --store <sqlite file | postgres://user:password@host:port/database>');
  if (action !== 'redrive')
    for (const flag of ['spec', 'brokers', 'namespace', 'dry-run'])
      if (args.given.includes(flag)) throw new DeadLettersError(`option --${flag} applies to redrive only`);
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

/** One set-aside item, whatever its source. */
export interface DeadItem {
  /** `outbox:<row>` for an outbox row, else the parked message's id. */
  readonly id: string;
  readonly kind: 'parked' | 'outbox';
  readonly channel: string;
  readonly address: string;
  readonly groupId?: string;
  readonly type: string;
  readonly key?: string;
  readonly attempts: number;
  readonly error: string;
  /** When it was parked, or when the outbox row went dead. */
  readonly at: Date;
  readonly payload: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, unknown>>;
}

export interface DeadFilter {
  readonly channel?: string;
  readonly groupId?: string;
}

/** Where set-aside items live: the dead-letter store, the outbox, … */
export interface DeadSource {
  readonly kind: DeadItem['kind'];
  list(filter: DeadFilter): Promise<readonly DeadItem[]>;
  /** `id` as listed (with its prefix); undefined when this source does not have it. */
  get(id: string): Promise<DeadItem | undefined>;
  remove(item: DeadItem): Promise<boolean>;
}

function fromParked(p: ParkedMessage): DeadItem {
  return {
    id: p.id,
    kind: 'parked',
    channel: p.channel,
    address: p.address,
    groupId: p.groupId,
    type: p.type,
    ...(p.key === undefined ? {} : { key: p.key }),
    attempts: p.attempts,
    error: `${p.error.name}: ${p.error.message}`,
    at: p.parkedAt,
    payload: p.payload,
    headers: p.headers,
    details: {
      ...(p.partition === undefined ? {} : { partition: p.partition }),
      ...(p.offset === undefined ? {} : { offset: p.offset }),
      firstFailureAt: p.firstFailureAt.toISOString(),
      lastFailureAt: p.lastFailureAt.toISOString(),
      ...(p.error.stack === undefined ? {} : { stack: p.error.stack }),
    },
  };
}

class ParkedSource implements DeadSource {
  readonly kind = 'parked';
  constructor(readonly store: DeadLetterStore) {}
  async list(filter: DeadFilter): Promise<readonly DeadItem[]> {
    return (await this.store.list(filter)).map(fromParked);
  }
  async get(id: string): Promise<DeadItem | undefined> {
    if (id.startsWith('outbox:')) return undefined;
    const parked = await this.store.get(id);
    return parked === undefined ? undefined : fromParked(parked);
  }
  remove(item: DeadItem): Promise<boolean> {
    return this.store.remove(item.id);
  }
}

const OUTBOX_PREFIX = 'outbox:';

function fromOutbox(row: OutboxRow): DeadItem {
  return {
    id: `${OUTBOX_PREFIX}${row.id}`,
    kind: 'outbox',
    channel: row.channel,
    address: row.address,
    type: row.type,
    ...(row.key === undefined ? {} : { key: row.key }),
    attempts: row.attempts,
    error: row.lastError ?? '',
    at: new Date(row.finishedAt ?? row.createdAt),
    payload: row.payload,
    headers: row.headers,
    details: { messageId: row.messageId, state: row.state, createdAt: new Date(row.createdAt).toISOString() },
  };
}

class OutboxSource implements DeadSource {
  readonly kind = 'outbox';
  constructor(readonly outbox: OutboxAdmin) {}
  async list(filter: DeadFilter): Promise<readonly DeadItem[]> {
    // Outbox rows belong to no consumer group: a group filter leaves them out.
    if (filter.groupId !== undefined) return [];
    const rows = await this.outbox.list({
      state: 'dead',
      ...(filter.channel === undefined ? {} : { channel: filter.channel }),
      limit: 100_000,
    });
    return rows.map(fromOutbox);
  }
  async get(id: string): Promise<DeadItem | undefined> {
    if (!id.startsWith(OUTBOX_PREFIX)) return undefined;
    const local = id.slice(OUTBOX_PREFIX.length);
    if (!/^\d+$/.test(local)) return undefined;
    const row = await this.outbox.get(local);
    return row === undefined || row.state !== 'dead' ? undefined : fromOutbox(row);
  }
  remove(item: DeadItem): Promise<boolean> {
    return this.outbox.remove(item.id.slice(OUTBOX_PREFIX.length));
  }
  reset(item: DeadItem): Promise<boolean> {
    return this.outbox.reset(item.id.slice(OUTBOX_PREFIX.length));
  }
}

interface OpenedStore {
  readonly description: string;
  readonly sources: readonly DeadSource[];
  close(): Promise<void>;
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db`, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

const reason = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

interface StorePackages {
  '@keiyaku/sqlite': typeof import('@keiyaku/sqlite');
  '@keiyaku/postgres': typeof import('@keiyaku/postgres');
  '@keiyaku/kafka': typeof import('@keiyaku/kafka');
}

/** Loads a store or transport package (optional peers of keiyaku); a missing one is named with its install command. */
async function optionalPackage<N extends keyof StorePackages>(name: N, purpose: string): Promise<StorePackages[N]> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as StorePackages[N];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(name))
      throw new DeadLettersError(`${purpose} needs the package ${name}: npm i -D ${name} (nothing changed)`);
    throw error;
  }
}

/** An error a database driver raised (pg's DatabaseError carries a SQLSTATE code; better-sqlite3's is a SqliteError). */
function isDriverError(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown; severity?: unknown };
  return e?.name === 'SqliteError' || (typeof e?.code === 'string' && typeof e?.severity === 'string');
}

async function openStore(store: string, cwd: string): Promise<OpenedStore> {
  if (/^postgres(ql)?:\/\//.test(store)) return openPostgres(store);
  return openSqliteFile(resolve(cwd, store), store);
}

async function openPostgres(url: string): Promise<OpenedStore> {
  const shown = redact(url);
  const { createPostgresPool, PostgresDeadLetterStore, PostgresOutbox } = await optionalPackage('@keiyaku/postgres', 'a postgres:// store');
  const pool = createPostgresPool(url, { max: 2, connectionTimeoutMillis: 5_000 });
  let tables: { dead: boolean; outbox: boolean };
  try {
    const { rows } = await pool.query<{ dead: boolean; outbox: boolean }>(
      "SELECT to_regclass('keiyaku_dead_letters') IS NOT NULL AS dead, to_regclass('keiyaku_outbox') IS NOT NULL AS outbox",
    );
    tables = rows[0]!;
  } catch (error) {
    await pool.end().catch(() => {});
    throw new DeadLettersError(`cannot reach PostgreSQL at ${shown}: ${reason(error)}`, error);
  }
  const sources: DeadSource[] = [];
  let outbox: PostgresOutbox | undefined;
  if (tables.dead) sources.push(new ParkedSource(new PostgresDeadLetterStore(pool)));
  if (tables.outbox) {
    outbox = new PostgresOutbox(pool);
    sources.push(new OutboxSource(outbox));
  }
  if (sources.length === 0) {
    await pool.end();
    throw new DeadLettersError(
      `${shown} has no keiyaku dead-letter or outbox tables (keiyaku_dead_letters, keiyaku_outbox); is this the service's database?`,
    );
  }
  return {
    description: shown,
    sources,
    async close() {
      await outbox?.close().catch(() => {});
      await pool.end();
    },
  };
}

async function openSqliteFile(path: string, shown: string): Promise<OpenedStore> {
  if (!existsSync(path)) throw new DeadLettersError(`no SQLite database at ${shown} (for PostgreSQL pass a postgres://… URL)`);
  if (!statSync(path).isFile()) throw new DeadLettersError(`${shown} is not a file`);
  const { openSqlite, SqliteDeadLetterStore, SqliteOutbox } = await optionalPackage('@keiyaku/sqlite', 'a SQLite file');
  let db: ReturnType<typeof openSqlite>;
  let tables: Set<string>;
  try {
    db = openSqlite(path, { fileMustExist: true });
    tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'keiyaku_%'")
        .all()
        .map((r) => r.name),
    );
  } catch (error) {
    throw new DeadLettersError(`cannot read ${shown} as a SQLite database: ${reason(error)}`, error);
  }
  const sources: DeadSource[] = [];
  let outbox: SqliteOutbox | undefined;
  if (tables.has('keiyaku_dead_letters')) sources.push(new ParkedSource(new SqliteDeadLetterStore(db)));
  if (tables.has('keiyaku_outbox')) {
    outbox = new SqliteOutbox(db);
    sources.push(new OutboxSource(outbox));
  }
  if (sources.length === 0) {
    db.close();
    throw new DeadLettersError(
      `${shown} has no keiyaku dead-letter or outbox tables (keiyaku_dead_letters, keiyaku_outbox); is this the service's database?`,
    );
  }
  return {
    description: shown,
    sources,
    async close() {
      if (db.open) db.close();
    },
  };
}

async function find(opened: OpenedStore, id: string): Promise<{ item: DeadItem; source: DeadSource }> {
  for (const source of opened.sources) {
    const item = await source.get(id);
    if (item !== undefined) return { item, source };
  }
  throw new DeadLettersError(
    `no parked message or dead outbox row with id ${id} in ${opened.description} (see keiyaku dead-letters list --store …)`,
  );
}

function describeItem(item: DeadItem): string {
  return `${item.kind === 'parked' ? 'parked message' : 'dead outbox row'} ${item.id} (${item.type || 'no type'} on ${item.channel}${item.groupId ? `, group ${item.groupId}` : ''})`;
}

function payloadForJson(item: DeadItem): { payload?: string; payloadBase64?: string } {
  const text = payloadText(item);
  return text === undefined ? { payloadBase64: Buffer.from(item.payload).toString('base64') } : { payload: text };
}

function toJson(item: DeadItem, full: boolean): Record<string, unknown> {
  return {
    id: item.id,
    kind: item.kind,
    channel: item.channel,
    address: item.address,
    ...(item.groupId === undefined ? {} : { groupId: item.groupId }),
    type: item.type,
    ...(item.key === undefined ? {} : { key: item.key }),
    attempts: item.attempts,
    error: item.error,
    at: item.at.toISOString(),
    ...(full ? { headers: item.headers, ...payloadForJson(item), ...item.details } : {}),
  };
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n');
}

const oneLine = (text: string, max = 80): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

async function confirm(io: DeadLettersIo, options: Options, question: string): Promise<boolean> {
  if (options.yes) return true;
  const answer = await io.prompt?.(`${question} [y/N] `);
  return answer !== undefined && /^(y|yes)$/i.test(answer.trim());
}

// ---- redrive of a parked message: the runtime's one redrive, with the service's transport ----
// (the generator, ajv and the transport load only for a redrive, so list/show/remove start fast)

const DEPRECATED_KAFKA_BROKERS = 'KAFKA_BROKERS';

/**
 * The environment the transport is configured from: the process's, with the deprecated flags
 * and KAFKA_BROKERS mapped onto the KEIYAKU_* variables they stand for (each with a warning).
 */
function transportEnvironment(
  o: Options,
  env: Readonly<Record<string, string | undefined>>,
  warn: (text: string) => void,
): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = { ...env };
  // Not a keiyaku variable: the configuration must not see it.
  delete vars[DEPRECATED_KAFKA_BROKERS];
  const legacy = env[DEPRECATED_KAFKA_BROKERS];
  let brokers = o.brokers;
  if (brokers !== undefined)
    warn("--brokers is deprecated: set KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS (the service's own configuration)");
  else if (legacy && !vars['KEIYAKU_TRANSPORT'] && !vars['KEIYAKU_KAFKA_BOOTSTRAP_SERVERS']) {
    warn(
      `${DEPRECATED_KAFKA_BROKERS} is deprecated for keiyaku dead-letters: set KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS`,
    );
    brokers = legacy;
  }
  if (brokers !== undefined) {
    vars['KEIYAKU_TRANSPORT'] = 'kafka';
    vars['KEIYAKU_KAFKA_BOOTSTRAP_SERVERS'] = brokers;
  }
  if (o.namespace !== undefined) {
    warn('--namespace is deprecated: set KEIYAKU_KAFKA_NAMESPACE');
    vars['KEIYAKU_KAFKA_NAMESPACE'] = o.namespace;
  }
  return vars;
}

/**
 * The transport of the service's configuration (configure()'s rules: keiyaku.config.json's `runtime` object
 * when there is one, every KEIYAKU_* variable over it); memory is refused.
 */
async function redriveTransport(o: Options, io: DeadLettersIo): Promise<{ transport: Transport; where: string }> {
  const warn = (text: string): void => io.stderr(`keiyaku: warning: ${text}\n`);
  const env = transportEnvironment(o, io.env ?? process.env, warn);
  const { createTransport, resolveConfig } = await import('@keiyaku/runtime/config');
  const resolved =
    o.runtime === undefined
      ? resolveConfig(undefined, { env })
      : resolveConfig(o.runtime.config, { env, withEnvironment: true, file: o.runtime.file });
  if (resolved.transport === 'memory')
    throw new DeadLettersError(
      "redrive republishes to the service's broker: set KEIYAKU_TRANSPORT=kafka with KEIYAKU_KAFKA_BOOTSTRAP_SERVERS (and the " +
        "service's KEIYAKU_KAFKA_NAMESPACE, SASL, TLS or Event Hubs settings), or KEIYAKU_TRANSPORT=iggy with KEIYAKU_IGGY_ADDRESS " +
        '(nothing changed)',
    );
  // Warnings and errors of the transport (an unreachable broker) reach the operator; the rest is noise here.
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => warn(message),
    error: (message, fields) => io.stderr(`keiyaku: ${message}${fields?.['error'] ? `: ${String(fields['error'])}` : ''}\n`),
  };
  const transport = await createTransport(resolved, { logger });
  const where = resolved.kafka ? resolved.kafka.brokers.join(',') : resolved.iggy ? `${resolved.iggy.host}:${resolved.iggy.port}` : '';
  return { transport, where: `${resolved.transport} at ${String(where)}` };
}

function describeTarget(target: RedriveTarget): string {
  const kind = target.transport === 'kafka' ? 'Kafka topic' : target.transport === 'iggy' ? 'Iggy stream/topic' : target.transport;
  return `${kind} ${target.destination}${target.destination === target.address ? '' : ` (address ${target.address})`}`;
}

function targetJson(target: RedriveTarget): Record<string, unknown> {
  return { ...target, exists: target.exists ?? null };
}

/** Redrives a parked message with the runtime's one redrive; returns the exit code. */
async function redriveParked(o: Options, io: DeadLettersIo, store: DeadLetterStore, item: DeadItem): Promise<number> {
  const { compileContract } = await import('../index.js');
  const compiled = await compileContract(o.spec, { cwd: io.cwd });
  if (compiled.model === undefined) {
    const first = compiled.diagnostics.find((d) => d.severity === 'error');
    throw new DeadLettersError(`${o.spec} is not a valid contract${first ? `: ${first.message}` : ''}; nothing changed`);
  }
  const model = compiled.model;
  const { contractChannels } = await import('./contract-channels.js');
  const channels = contractChannels(model);
  const { transport, where } = await redriveTransport(o, io);
  try {
    const options: RedriveOptions = {
      transport,
      deadLetters: store,
      channel: (id) => channels.get(id) ?? channels.get(model.channels.find((c) => c.identifier === id)?.id ?? ''),
      unknownChannel: () =>
        `which ${o.spec} does not have (channels: ${model.channels.map((c) => c.id).join(', ')}); pass the contract the service runs with --spec`,
    };
    const target = await planRedrive(item.id, options);
    const line = `${describeItem(item)} goes to ${describeTarget(target)} on ${where}`;
    if (o.dryRun) {
      if (o.json) io.stdout(`${JSON.stringify({ ok: target.exists !== false, dryRun: true, target: targetJson(target) }, null, 2)}\n`);
      else io.stdout(`keiyaku: dry run: ${line}${target.exists === undefined ? ' (whether it exists is not known)' : ''}; nothing sent\n`);
      if (target.exists === false) {
        if (!o.json) io.stderr(`keiyaku: ${missingDestination(target).message}\n`);
        return 2;
      }
      return 0;
    }
    if (target.exists === false) throw missingDestination(target);
    if (!o.json) io.stderr(`keiyaku: ${line}\n`);
    if (!(await confirm(io, o, `republish ${describeItem(item)} to ${describeTarget(target)}, then remove it?`))) {
      io.stderr('keiyaku: not confirmed; nothing changed\n');
      return 1;
    }
    const result = await redrive(item.id, options);
    if (o.json)
      io.stdout(
        `${JSON.stringify({ ok: true, redriven: item.id, topic: result.target.destination, target: targetJson(result.target), removed: result.removed }, null, 2)}\n`,
      );
    else
      io.stdout(
        `keiyaku: republished ${describeItem(item)} to ${describeTarget(result.target)}${result.removed ? ' and removed it' : '; it was already removed by someone else'}\n`,
      );
    return 0;
  } finally {
    await transport.close().catch(() => {});
  }
}

export async function runDeadLetters(argv: readonly string[], io: DeadLettersIo): Promise<number> {
  let options: Options | 'help';
  try {
    options = parse(argv, io.cwd);
  } catch (error) {
    io.stderr(`keiyaku: ${reason(error)}\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(`${DEAD_LETTERS_USAGE}\n`);
    return 0;
  }
  const o = options;
  let opened: OpenedStore | undefined;
  const fail = (error: unknown): number => {
    if (o.json)
      io.stdout(
        `${JSON.stringify({ ok: false, error: { code: (error as { code?: string }).code ?? 'failed', message: reason(error) } }, null, 2)}\n`,
      );
    else io.stderr(`keiyaku: ${reason(error)}\n`);
    return 2;
  };
  try {
    opened = await openStore(o.store, io.cwd);
    const filter: DeadFilter = {
      ...(o.channel === undefined ? {} : { channel: o.channel }),
      ...(o.group === undefined ? {} : { groupId: o.group }),
    };
    if (o.action === 'list') {
      const items = (await Promise.all(opened.sources.map((s) => s.list(filter)))).flat().sort((a, b) => a.at.getTime() - b.at.getTime());
      if (o.json) {
        io.stdout(
          `${JSON.stringify({ ok: true, store: opened.description, count: items.length, items: items.map((i) => toJson(i, false)) }, null, 2)}\n`,
        );
      } else if (items.length === 0) {
        io.stdout(`keiyaku: nothing parked or dead in ${opened.description}${o.channel || o.group ? ' matching the filter' : ''}\n`);
      } else {
        const rows = [
          ['ID', 'KIND', 'CHANNEL', 'GROUP', 'TYPE', 'ATTEMPTS', 'AT', 'ERROR'],
          ...items.map((i) => [
            i.id,
            i.kind,
            i.channel,
            i.groupId ?? '-',
            i.type || '-',
            String(i.attempts),
            i.at.toISOString(),
            oneLine(i.error),
          ]),
        ];
        io.stdout(`${table(rows)}\n${items.length} item${items.length === 1 ? '' : 's'} in ${opened.description}\n`);
      }
      return 0;
    }
    const { item, source } = await find(opened, o.id!);
    if (o.action === 'show') {
      if (o.json) io.stdout(`${JSON.stringify({ ok: true, item: toJson(item, true) }, null, 2)}\n`);
      else {
        const json = toJson(item, true);
        const lines = Object.entries(json)
          .filter(([k]) => k !== 'headers' && k !== 'payload' && k !== 'payloadBase64' && k !== 'stack')
          .map(([k, v]) => `${k}: ${String(v)}`);
        lines.push('headers:', ...Object.entries(item.headers).map(([k, v]) => `  ${k}: ${v}`));
        const text = payloadText(item);
        lines.push(
          text === undefined ? `payload (base64, not UTF-8): ${Buffer.from(item.payload).toString('base64')}` : `payload: ${text}`,
        );
        if (typeof json['stack'] === 'string') lines.push('stack:', json['stack']);
        io.stdout(`${lines.join('\n')}\n`);
      }
      return 0;
    }
    if (o.action === 'remove') {
      if (!(await confirm(io, o, `remove ${describeItem(item)} for good?`))) {
        io.stderr('keiyaku: not confirmed; nothing changed\n');
        return 1;
      }
      const removed = await source.remove(item);
      if (!removed) throw new DeadLettersError(`${item.id} was removed by someone else meanwhile; nothing changed`);
      if (o.json) io.stdout(`${JSON.stringify({ ok: true, removed: item.id }, null, 2)}\n`);
      else io.stdout(`keiyaku: removed ${describeItem(item)}\n`);
      return 0;
    }
    // redrive
    if (source instanceof OutboxSource) {
      if (!(await confirm(io, o, `put ${describeItem(item)} back to pending, so the dispatcher publishes it again?`))) {
        io.stderr('keiyaku: not confirmed; nothing changed\n');
        return 1;
      }
      if (!(await source.reset(item))) throw new DeadLettersError(`${item.id} is no longer dead (changed meanwhile); nothing changed`);
      if (o.json) io.stdout(`${JSON.stringify({ ok: true, redriven: item.id, how: 'reset to pending' }, null, 2)}\n`);
      else io.stdout(`keiyaku: ${item.id} is pending again; the outbox dispatcher will publish it\n`);
      return 0;
    }
    return await redriveParked(o, io, (source as ParkedSource).store, item);
  } catch (error) {
    // Store and driver errors are the operator's to read; anything else is a bug (internal error).
    if (isKeiyakuError(error) || isDriverError(error)) return fail(error);
    throw error;
  } finally {
    await opened?.close();
  }
}
