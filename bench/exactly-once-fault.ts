/**
 * `npm run fault:exactly-once`: consume → change state → publish, once per message, across
 * SIGKILLs of every process and of the broker. Modelled on Kafka's own TransactionsTest (seeded
 * messages, hard bounces, a concurrent read_committed reader, equal input and output sets):
 *
 *   service A (writer)  ─ N domain changes + outbox rows, PostgreSQL
 *   A's dispatcher      ─ transactional, SIGKILLed and restarted with the same transactional id ─▶ topic `in`
 *   service B           ─ inbox subscription: one effect row + one outbox row per message, in the
 *                         inbox's transaction; B's transactional dispatcher ─▶ topic `out`;
 *                         the whole process SIGKILLed mid-batch and restarted
 *   reader (here)       ─ a plain read_committed consumer of `out`, reading all along
 *   the broker          ─ SIGKILLed once and restarted (a broker of this run's own, from scripts/kafka)
 *
 * Afterwards: B's effect rows are exactly the N ids (counted per id, on a table without a unique
 * constraint that would hide a second one), the reader saw the N ids on `out` once each, and no
 * `read_committed` read (of `out` by the reader, of `in` at the end) returned a record of a
 * transaction that was never committed (see `instrumentedTransport` in bench/fault-kit.ts).
 * Prints progress on stderr and one line on stdout:
 *
 *   exactly-once: N sent, N effects, 0 lost, 0 duplicated effects, K kills
 *
 * and exits non-zero when anything is lost or duplicated, an aborted record was read, fewer kills
 * than asked landed, or a bound was hit. Loopback only; bounded in count and time.
 * Environment: POSTGRES_URL (required: A's database, and B's with EXACTLY_ONCE_B_STORE=postgres);
 * EXACTLY_ONCE_B_STORE postgres (default) | sqlite (B's inbox, effects and outbox in one SQLite file;
 * A stays on PostgreSQL); EXACTLY_ONCE_COUNT (default 20 000); EXACTLY_ONCE_TIMEOUT_S (default
 * 120 + count/50); EXACTLY_ONCE_KAFKA_PORT (default: free ports; never KAFKA_PORT, which may name a
 * shared broker); KAFKA_VERSION as scripts/kafka takes it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { BookIntegrationEvents } from '../generated/index.js';
import { KafkaTransport } from '../runtime/kafka/index.js';
import { PostgresInboxStore, PostgresOutbox } from '../runtime/postgres/index.js';
import { SqliteInboxStore, SqliteOutbox } from '../runtime/sqlite/index.js';
import { CommittedReader } from './exactly-once-reader.js';
import {
  createDatabase,
  ownBroker,
  type ReadRecord,
  type Role,
  readTopic,
  Supervisor,
  sleep,
  TRANSACTION_HEADER,
  watchLines,
} from './fault-kit.js';

export interface ExactlyOnceOptions {
  /** PostgreSQL server: A's database, and B's unless `bStore` is `sqlite` (fresh databases, dropped after). */
  readonly postgresUrl: string;
  readonly bStore: 'postgres' | 'sqlite';
  readonly count: number;
  /** SIGKILLs of A's dispatcher, of service B, of the broker (defaults 3, 3, 1). */
  readonly dispatcherKills?: number;
  readonly serviceKills?: number;
  readonly brokerKills?: number;
  readonly timeoutMs: number;
  /** The port of this run's own broker (+1, +2 taken too); default: free ports. */
  readonly kafkaPort?: string;
  readonly log?: (line: string) => void;
}

export interface ExactlyOnceResult {
  readonly sent: number;
  /** B's effect rows. */
  readonly effects: number;
  /** Ids without an effect row. */
  readonly lost: number;
  /** Effect rows beyond the first of their id. */
  readonly duplicatedEffects: number;
  /** Ids the reader of `out` never saw, and records it read beyond the first of their id. */
  readonly outLost: number;
  readonly outDuplicates: number;
  /** Records of transactions never committed that a read_committed read returned (must be 0). */
  readonly abortedRead: number;
  /** Records of transactions never committed found in the logs of `in` and `out` (evidence the kills left some). */
  readonly abortedInLog: number;
  /** Committed duplicates on `in` (a dispatcher killed after its commit, before marking rows): the inbox skips them. */
  readonly inDuplicates: number;
  readonly kills: { readonly dispatcher: number; readonly service: number; readonly broker: number };
  /** Processes that exited without being killed (restarted). */
  readonly unexpectedExits: number;
  /** The bound that was hit, if one was. */
  readonly boundHit?: string;
  readonly durationMs: number;
}

/** The steps of each transaction a dispatcher reported: `sent`, `committing`, `committed`. */
type TransactionSteps = Map<string, 'sent' | 'committing' | 'committed'>;

function stepsListener(steps: TransactionSteps): (line: string) => void {
  return (line) => {
    const [step, tag] = line.split(' ');
    if (tag !== undefined && (step === 'sent' || step === 'committing' || step === 'committed') && steps.get(tag) !== 'committed')
      steps.set(tag, step === 'sent' && steps.has(tag) ? steps.get(tag)! : step);
  };
}

/** Transactions that were never asked to commit: their records must stay invisible to read_committed readers. */
const aborted = (steps: TransactionSteps): Set<string> => new Set([...steps].filter(([, s]) => s === 'sent').map(([t]) => t));
const countTagged = (records: Iterable<ReadRecord>, tags: Set<string>): number => {
  let n = 0;
  for (const r of records) if (tags.has(r.headers[TRANSACTION_HEADER] ?? '')) n++;
  return n;
};

/**
 * Which transactions the copies of the first few duplicated ids came in, and what their
 * dispatcher said of each: two committed transactions mean a dispatcher killed after its commit
 * and before it marked the rows published, which sent them again.
 */
function explainDuplicates(records: Iterable<ReadRecord>, counts: ReadonlyMap<string, number>, steps: TransactionSteps): string {
  const copies = new Map<string, string[]>();
  for (const r of records) {
    const id = r.headers['ce_id'] ?? '';
    if ((counts.get(id) ?? 0) < 2) continue;
    const tag = r.headers[TRANSACTION_HEADER] ?? 'no transaction';
    copies.set(id, [...(copies.get(id) ?? []), `${tag} (${steps.get(tag) ?? 'not reported'})`]);
  }
  return [...copies]
    .slice(0, 3)
    .map(([id, tags]) => `${id} in ${tags.join(', ')}`)
    .join('; ');
}

/** B's database from the parent's side: set up before, counted during and after the run. */
interface StoreB {
  readonly url: string;
  /** Effect rows per copy id. */
  effects(): Promise<Map<string, number>>;
  backlog(): Promise<number>;
  close(): Promise<void>;
}

async function postgresB(serverUrl: string): Promise<StoreB> {
  const database = await createDatabase(serverUrl, 'keiyaku_eo_b');
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => {});
  // No unique constraint on copy_id: a second effect of one message must be counted, not refused.
  await pool.query('CREATE TABLE effects (seq bigserial PRIMARY KEY, copy_id text NOT NULL, message_id text NOT NULL)');
  const outbox = new PostgresOutbox(pool);
  await outbox.migrate();
  await new PostgresInboxStore(pool).migrate();
  return {
    url: database.url,
    async effects() {
      const { rows } = await pool.query<{ copy_id: string; n: string }>('SELECT copy_id, count(*) AS n FROM effects GROUP BY copy_id');
      return new Map(rows.map((r) => [r.copy_id, Number(r.n)]));
    },
    backlog: async () => (await outbox.counts()).pending,
    async close() {
      await outbox.close();
      await pool.end();
      await database.drop();
    },
  };
}

async function sqliteB(): Promise<StoreB> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-exactly-once-'));
  const file = join(dir, 'service-b.db');
  const db = new Database(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE effects (seq INTEGER PRIMARY KEY, copy_id TEXT NOT NULL, message_id TEXT NOT NULL)');
  const outbox = new SqliteOutbox(db);
  outbox.migrate();
  new SqliteInboxStore(db).migrate();
  const count = db.prepare<[], { copy_id: string; n: number }>('SELECT copy_id, count(*) AS n FROM effects GROUP BY copy_id');
  return {
    url: file,
    effects: async () => new Map(count.all().map((r) => [r.copy_id, r.n])),
    backlog: async () => (await outbox.counts()).pending,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** High watermarks of `topic`, per partition. */
async function ends(brokers: string, topic: string): Promise<Map<number, bigint>> {
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** What a run sets up before its processes start, and takes down after. */
interface Fixture {
  readonly broker: Awaited<ReturnType<typeof ownBroker>>;
  readonly urlA: string;
  readonly outboxA: PostgresOutbox;
  readonly storeB: StoreB;
  readonly namespace: string;
  readonly topics: { readonly in: string; readonly out: string };
  close(): Promise<void>;
}

/** A broker of the run's own, A's and B's databases, and both topics, provisioned as the channel's bindings say. */
async function setUp(options: ExactlyOnceOptions): Promise<Fixture> {
  const undo: (() => Promise<unknown>)[] = [];
  const close = async (): Promise<void> => {
    for (const step of undo.reverse()) await step().catch(() => undefined);
  };
  try {
    const broker = await ownBroker(options.kafkaPort);
    undo.push(() => broker.stop());
    const databaseA = await createDatabase(options.postgresUrl, 'keiyaku_eo_a');
    undo.push(() => databaseA.drop());
    const poolA = new pg.Pool({ connectionString: databaseA.url, max: 2 });
    poolA.on('error', () => {});
    undo.push(() => poolA.end());
    const outboxA = new PostgresOutbox(poolA);
    undo.push(() => outboxA.close());
    await poolA.query('CREATE TABLE loans (copy_id text PRIMARY KEY, book_id text NOT NULL)');
    await outboxA.migrate();
    const storeB = options.bStore === 'postgres' ? await postgresB(options.postgresUrl) : await sqliteB();
    undo.push(() => storeB.close());
    const namespace = `eo${randomUUID().slice(0, 8)}`;
    for (const ns of [`${namespace}-in`, `${namespace}-out`]) {
      const transport = new KafkaTransport({ brokers: broker.brokers.split(','), namespace: ns });
      await transport.provision(BookIntegrationEvents.address, BookIntegrationEvents.bindings);
      await transport.close();
    }
    const topics = { in: `${namespace}-in.${BookIntegrationEvents.address}`, out: `${namespace}-out.${BookIntegrationEvents.address}` };
    return { broker, urlA: databaseA.url, outboxA, storeB, namespace, topics, close };
  } catch (error) {
    await close();
    throw error;
  }
}

type Kills = { dispatcher: number; service: number; broker: number };

/**
 * The faults, concurrently: A's dispatcher is killed on a step of its sends (mid-transaction, or
 * committed and not yet marked published, in turns); B on the line it prints with a transaction
 * open (at once, or a moment later); the broker once, after both were killed once. No process is
 * killed while the broker is down. Resolves with the bound hit, if one was.
 */
async function faults(
  fixture: Fixture,
  supervisor: Supervisor,
  targets: { readonly dispatcher: Role; readonly service: Role },
  done: { readonly dispatcher: () => Promise<boolean>; readonly service: () => Promise<boolean> },
  want: Kills,
  kills: Kills,
): Promise<string | undefined> {
  const log = supervisor.log;
  let brokerDown = false;
  let boundHit: string | undefined;
  const killLoop = async (event: 'dispatcher' | 'service'): Promise<void> => {
    while (kills[event] < want[event] && !supervisor.ending) {
      await sleep(500 + Math.floor(Math.random() * 1_000));
      while (brokerDown && !supervisor.ending) await sleep(100);
      const nth = kills[event];
      const match =
        event === 'service'
          ? (line: string) => line === 'tx'
          : nth % 2 === 0
            ? (line: string) => line === 'sent' || line.startsWith('sent ')
            : (line: string) => line === 'sent' || line.startsWith('committed ');
      if (!(await watchLines(targets[event].child, match).next(0, done[event]))) {
        boundHit ??= `the stream ended before ${event} kill ${nth + 1} (raise EXACTLY_ONCE_COUNT)`;
        return;
      }
      if (supervisor.ending) return;
      if (event === 'service' && nth % 2 === 1) await sleep(Math.floor(Math.random() * 300));
      await targets[event].kill('SIGKILL');
      kills[event]++;
      log(`${event === 'dispatcher' ? "A's dispatcher" : 'service B'} SIGKILLed (${kills[event]}); restarting`);
      await targets[event].restart();
    }
  };
  const brokerLoop = async (): Promise<void> => {
    while (kills.broker < want.broker && !supervisor.ending) {
      while ((kills.dispatcher < Math.min(1, want.dispatcher) || kills.service < Math.min(1, want.service)) && !supervisor.ending)
        await sleep(100);
      if (supervisor.ending) return;
      brokerDown = true;
      await fixture.broker.command('kill');
      kills.broker++;
      log('broker SIGKILLed; restarting it in 3 s');
      await sleep(3_000);
      await fixture.broker.command('start');
      brokerDown = false;
      log('broker back');
    }
  };
  await Promise.all([killLoop('dispatcher'), killLoop('service'), brokerLoop()]);
  return boundHit;
}

/** The checks, once every process has stopped and the reader has reached the end of `out`. */
async function check(
  fixture: Fixture,
  reader: CommittedReader,
  steps: { readonly in: TransactionSteps; readonly out: TransactionSteps },
  count: number,
  log: (line: string) => void,
): Promise<Omit<ExactlyOnceResult, 'kills' | 'unexpectedExits' | 'boundHit' | 'durationMs'>> {
  const brokers = fixture.broker.brokers;
  const effects = await fixture.storeB.effects();
  const ids = Array.from({ length: count }, (_, i) => i);
  const lost = ids.filter((i) => !effects.has(`C-${i}`)).length;
  let effectRows = 0;
  let duplicatedEffects = 0;
  for (const n of effects.values()) {
    effectRows += n;
    duplicatedEffects += n - 1;
  }
  const outCounts = reader.counts();
  const outLost = ids.filter((i) => !outCounts.has(`out-in-${i}`)).length;
  const outDuplicates = [...outCounts.values()].reduce((sum, n) => sum + n - 1, 0);
  if (outDuplicates > 0) log(`duplicates on out: ${explainDuplicates(reader.records.values(), outCounts, steps.out)}`);
  const inCommitted = await readTopic(brokers, fixture.topics.in, 'read_committed');
  const inIds = new Set(inCommitted.map((r) => r.headers['ce_id']));
  const abortedIn = aborted(steps.in);
  const abortedOut = aborted(steps.out);
  const abortedRead = countTagged(inCommitted, abortedIn) + countTagged(reader.records.values(), abortedOut);
  const abortedInLog =
    countTagged(await readTopic(brokers, fixture.topics.in, 'read_uncommitted'), abortedIn) +
    countTagged(await readTopic(brokers, fixture.topics.out, 'read_uncommitted'), abortedOut);
  log(
    `in: ${inCommitted.length} committed records, ${inIds.size} ids; out: ${reader.records.size} records, ${outCounts.size} ids; ` +
      `${abortedIn.size + abortedOut.size} transactions never committed, ${abortedInLog} of their records in the logs, ${abortedRead} read`,
  );
  return {
    sent: count,
    effects: effectRows,
    lost,
    duplicatedEffects,
    outLost,
    outDuplicates,
    abortedRead,
    abortedInLog,
    inDuplicates: inCommitted.length - inIds.size,
  };
}

/**
 * Runs the fault: sets up, starts the processes, kills them on schedule, waits until everything
 * arrived (or a bound is hit), stops them, checks, and takes everything down.
 */
export async function runExactlyOnceFault(options: ExactlyOnceOptions): Promise<ExactlyOnceResult> {
  const log = options.log ?? (() => {});
  const began = Date.now();
  const deadline = began + options.timeoutMs;
  const want = { dispatcher: options.dispatcherKills ?? 3, service: options.serviceKills ?? 3, broker: options.brokerKills ?? 1 };
  const kills = { dispatcher: 0, service: 0, broker: 0 };
  const fixture = await setUp(options);
  const { broker, namespace, storeB } = fixture;
  log(`broker ${broker.brokers} (this run's own); B on ${options.bStore}, A on postgres; ${options.count} changes`);
  const supervisor = new Supervisor(log, deadline);
  const reader = new CommittedReader(broker.brokers, fixture.topics.out);
  const steps = { in: new Map() as TransactionSteps, out: new Map() as TransactionSteps };
  let writerDone = false;
  let progress: NodeJS.Timeout | undefined;
  try {
    await reader.start();
    const common = { KAFKA_BROKERS: broker.brokers, EO_IN: `${namespace}-in`, EO_OUT: `${namespace}-out` };
    const child = 'exactly-once-child.ts';
    const dispatcher = supervisor.role(
      child,
      'dispatcher',
      { ...common, EO_A_URL: fixture.urlA, EO_TRANSACTIONAL_ID: `${namespace}-a-dispatcher` },
      stepsListener(steps.in),
    );
    const service = supervisor.role(
      child,
      'service-b',
      { ...common, EO_B_STORE: storeB.url, EO_TRANSACTIONAL_ID: `${namespace}-b-dispatcher` },
      stepsListener(steps.out),
    );
    const writer = supervisor.role(
      child,
      'writer',
      { EO_A_URL: fixture.urlA, EO_COUNT: String(options.count), EO_WRITE_MS: String(Math.max(40_000, options.count * 2)) },
      (line) => {
        if (line === 'done') writerDone = true;
      },
      { finished: () => writerDone, essential: true },
    );
    await Promise.all([dispatcher.restart(), service.restart()]);
    await writer.restart();
    log('services started; writing');

    const everythingOut = async (): Promise<boolean> => writerDone && reader.counts().size >= options.count;
    const aDrained = async (): Promise<boolean> => writerDone && (await fixture.outboxA.counts()).pending === 0;
    progress = setInterval(() => {
      void storeB.effects().then(
        (effects) =>
          log(
            `progress: ${effects.size} ids with effects, ${reader.counts().size} ids on out (${Math.round((Date.now() - began) / 1000)} s)`,
          ),
        () => undefined,
      );
    }, 5_000);
    let boundHit = await faults(
      fixture,
      supervisor,
      { dispatcher, service },
      { dispatcher: aDrained, service: everythingOut },
      want,
      kills,
    );

    // Drain: every id through to `out`, both outboxes empty.
    for (;;) {
      supervisor.throwIfFailed();
      if ((await everythingOut()) && (await aDrained()) && (await storeB.backlog()) === 0) break;
      if (Date.now() > deadline) {
        boundHit ??= `not everything arrived in ${options.timeoutMs / 1000} s`;
        break;
      }
      await sleep(200);
    }
    await supervisor.stopAll('SIGTERM');
    const outEnds = await ends(broker.brokers, fixture.topics.out);
    while (!reader.caughtUp(outEnds) && Date.now() < deadline + 30_000) await sleep(100);
    if (!reader.caughtUp(outEnds)) boundHit ??= 'the reader did not reach the end of out';
    await reader.stop();
    log(`checking (reader replaced ${reader.replaced} times)`);
    return {
      ...(await check(fixture, reader, steps, options.count, log)),
      kills,
      unexpectedExits: supervisor.unexpectedExits,
      ...(boundHit === undefined ? {} : { boundHit }),
      durationMs: Date.now() - began,
    };
  } finally {
    clearInterval(progress);
    await supervisor.stopAll('SIGKILL');
    await reader.stop();
    await fixture.close();
  }
}

/** Why the run failed, or undefined when it proved what it should. */
export function exactlyOnceFailure(result: ExactlyOnceResult, options: ExactlyOnceOptions): string | undefined {
  const problems: string[] = [];
  if (result.lost > 0) problems.push(`${result.lost} ids without an effect`);
  if (result.duplicatedEffects > 0) problems.push(`${result.duplicatedEffects} duplicated effects`);
  if (result.outLost > 0) problems.push(`${result.outLost} ids never read on out`);
  if (result.outDuplicates > 0) problems.push(`${result.outDuplicates} duplicates read on out`);
  if (result.abortedRead > 0) problems.push(`${result.abortedRead} records of aborted transactions read`);
  const { dispatcher, service, broker } = result.kills;
  if (dispatcher < (options.dispatcherKills ?? 3) || service < (options.serviceKills ?? 3) || broker < (options.brokerKills ?? 1))
    problems.push(`only ${dispatcher} dispatcher, ${service} service and ${broker} broker kills landed`);
  if (result.boundHit !== undefined) problems.push(result.boundHit);
  return problems.length === 0 ? undefined : problems.join('; ');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const postgresUrl = process.env['POSTGRES_URL'] ?? '';
  if (postgresUrl === '') {
    process.stderr.write(
      'exactly-once: set POSTGRES_URL to a PostgreSQL server (service A writes there; scripts/postgres start runs one)\n',
    );
    process.exit(2);
  }
  const bStore = process.env['EXACTLY_ONCE_B_STORE'] ?? 'postgres';
  if (bStore !== 'postgres' && bStore !== 'sqlite') {
    process.stderr.write(`exactly-once: EXACTLY_ONCE_B_STORE is ${bStore}; use postgres or sqlite\n`);
    process.exit(2);
  }
  const count = Number(process.env['EXACTLY_ONCE_COUNT'] ?? 20_000);
  const options: ExactlyOnceOptions = {
    postgresUrl,
    bStore,
    count,
    timeoutMs: Number(process.env['EXACTLY_ONCE_TIMEOUT_S'] ?? 120 + count / 50) * 1000,
    ...(process.env['EXACTLY_ONCE_KAFKA_PORT'] ? { kafkaPort: process.env['EXACTLY_ONCE_KAFKA_PORT'] } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const result = await runExactlyOnceFault(options).catch((error: unknown) => {
    process.stderr.write(`exactly-once FAILED: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
  const kills = result.kills.dispatcher + result.kills.service + result.kills.broker;
  process.stderr.write(
    `B on ${bStore}: ${result.outDuplicates} duplicates on out, ${result.inDuplicates} committed duplicates on in (skipped by the inbox), ` +
      `${result.unexpectedExits} unexpected exits, ${Math.round(result.durationMs / 1000)} s\n`,
  );
  process.stdout.write(
    `exactly-once: ${result.sent} sent, ${result.effects} effects, ${result.lost} lost, ${result.duplicatedEffects} duplicated effects, ${kills} kills\n`,
  );
  const failed = exactlyOnceFailure(result, options);
  if (failed !== undefined) {
    process.stderr.write(`exactly-once FAILED: ${failed}\n`);
    process.exitCode = 1;
  }
}
