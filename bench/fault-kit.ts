/**
 * What the fault runs (bench/outbox-fault.ts, bench/exactly-once-fault.ts) share: a broker of their
 * own from scripts/kafka, a fresh PostgreSQL or MySQL database, child processes started through tsx and
 * read line by line, and reading a topic to its end.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { OutgoingRecord, Transport, TransportTransaction } from '../runtime/index.js';
import { freePort } from '../test/setup/ports.js';

export const root = join(import.meta.dirname, '..');
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** A database of its own on the server of `serverUrl`, dropped (with its connections) by `drop`. */
export async function createDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A MySQL / MariaDB database of its own on the server of `serverUrl` (`mysql://…`), dropped by `drop`. */
export async function createMysqlDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = async (sql: string): Promise<void> => {
    const connection = await mysql.createConnection(serverUrl);
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  };
  await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS \`${name}\``) };
}

/**
 * A child process running `script` (a bench/ file) through tsx on the sources. Its stdout is read
 * line by line: `lines` gets each one, `started` resolves on the first `started` line and rejects
 * when the process exits first or takes longer than a minute. Its stderr is kept for errors.
 */
export function spawnChild(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  lines: (line: string) => void,
): { child: ChildProcess; started: Promise<void>; stderr(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=keiyaku-source', join(root, 'bench', script), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
  });
  let partial = '';
  let onStarted: (() => void) | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    const all = (partial + chunk.toString()).split('\n');
    partial = all.pop()!;
    for (const line of all) {
      if (line === 'started') onStarted?.();
      lines(line);
    }
  });
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} ${args.join(' ')} did not start in 60 s: ${stderr}`)), 60_000);
    onStarted = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} ${args.join(' ')} exited (${code ?? signal}) before it started: ${stderr}`));
    });
  });
  started.catch(() => undefined);
  return { child, started, stderr: () => stderr };
}

/** The line of a child's stderr that says why it failed. */
export const firstError = (stderr: string): string => {
  const lines = stderr.trim().split('\n');
  // An uncaught exception ends with Node's version line: its error line says more.
  return lines.find((l) => l.includes(' failed: ')) ?? lines.find((l) => /^\s*(\w*Error|Uncaught)\b/.test(l)) ?? lines.pop() ?? '';
};

/** A child process of one role, started again when it exits without being killed by the run. */
export interface Role {
  readonly child: ChildProcess;
  /** Starts it (again) and resolves once it works. */
  restart(): Promise<void>;
  /** Sends `signal` and waits for the exit (a SIGKILL follows after 20 s). */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a fault run's processes and keeps them running, as a service supervisor would: one that
 * cannot start (its broker is down) is started again a second later, one that exits by itself is
 * counted and started again, except an `essential` one, whose exit fails the run. Once `ending`,
 * nothing is started any more.
 */
export class Supervisor {
  readonly log: (line: string) => void;
  readonly #deadline: number;
  readonly #roles: Role[] = [];
  ending = false;
  unexpectedExits = 0;
  #failure: Error | undefined;

  constructor(log: (line: string) => void, deadline: number) {
    this.log = log;
    this.#deadline = deadline;
  }

  role(
    script: string,
    name: string,
    env: Readonly<Record<string, string>>,
    onLine: (line: string) => void,
    options: { readonly finished?: () => boolean; readonly essential?: boolean } = {},
  ): Role {
    const supervisor = this;
    let killing = false;
    let child: ChildProcess | undefined;
    const role: Role = {
      get child() {
        return child!;
      },
      async restart() {
        for (;;) {
          if (supervisor.ending) return;
          const spawned = spawnChild(script, [name], env, onLine);
          child = spawned.child;
          try {
            await spawned.started;
          } catch (error) {
            if (options.essential || supervisor.ending || Date.now() > supervisor.#deadline) throw error;
            supervisor.log(`${name} did not start (${firstError(spawned.stderr())}); starting it again`);
            await sleep(1_000);
            continue;
          }
          spawned.child.once('exit', (code, signal) => {
            if (killing || supervisor.ending || child !== spawned.child || (code === 0 && options.finished?.())) return;
            supervisor.unexpectedExits++;
            supervisor.log(`${name} exited by itself (${code ?? signal}): ${firstError(spawned.stderr())}`);
            if (options.essential) supervisor.#failure ??= new Error(`${name} failed: ${spawned.stderr()}`);
            else
              void role.restart().catch((error: unknown) => {
                supervisor.#failure ??= error as Error;
              });
          });
          return;
        }
      },
      async kill(signal) {
        if (child === undefined) return;
        const target = child;
        killing = true;
        target.kill(signal);
        // A clean stop is bounded too.
        const hard = setTimeout(() => target.kill('SIGKILL'), 20_000);
        await exited(target);
        clearTimeout(hard);
        killing = false;
      },
    };
    this.#roles.push(role);
    return role;
  }

  /** Throws what failed the run: an essential process that exited, or one that could not be started again. */
  throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }

  /** Stops every process with `signal` (and nothing is started again). */
  async stopAll(signal: NodeJS.Signals): Promise<void> {
    this.ending = true;
    for (const role of this.#roles) await role.kill(signal).catch(() => undefined);
  }
}

/**
 * Counts the lines of `child` that `match`, from the moment it is watched, so none printed while
 * the fault sleeps or reads a backlog is missed. `next(after, done)` resolves with true on the
 * first matching line past the `after`-th, with false once `done()` holds (nothing more will
 * come), and rejects if the process exits or nothing comes in 60 s.
 */
export function watchLines(
  child: ChildProcess,
  match: (line: string) => boolean,
): { count(): number; next(after: number, done: () => Promise<boolean>): Promise<boolean> } {
  let count = 0;
  let partial = '';
  let exitedWith: string | undefined;
  const wake = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (match(line)) count++;
    for (const w of wake) w();
  });
  child.once('exit', (code, signal) => {
    exitedWith = `${code ?? signal}`;
    for (const w of wake) w();
  });
  return {
    count: () => count,
    next: (after, done) =>
      new Promise<boolean>((resolve, reject) => {
        const deadline = Date.now() + 60_000;
        let settled = false;
        const finish = (error: Error | undefined, value: boolean): void => {
          if (settled) return;
          settled = true;
          wake.delete(check);
          clearInterval(poll);
          if (error) reject(error);
          else resolve(value);
        };
        const check = (): void => {
          if (count > after) finish(undefined, true);
          else if (exitedWith !== undefined) finish(new Error(`the process exited (${exitedWith}) before the line awaited`), false);
        };
        const poll = setInterval(() => {
          if (Date.now() > deadline) finish(new Error('the line awaited did not come in 60 s while work was pending'), false);
          else
            void done().then(
              (d) => d && count <= after && finish(undefined, false),
              (error: unknown) => finish(error as Error, false),
            );
        }, 100);
        wake.add(check);
        check();
      }),
  };
}

/**
 * A broker of the run's own, from scripts/kafka, on `port` (else on free ports: broker, controller,
 * SASL) with its data under .kafka/<port>: never the broker other tests share, so it may be killed.
 * With `nodes` > 1 a cluster of that many (3 ports each, in a row); `brokers` is then the bootstrap
 * list and `command('kill-node', '2')` / `command('start-node', '2')` act on one node.
 */
export async function ownBroker(
  port?: string,
  nodes = 1,
): Promise<{
  brokers: string;
  /** Runs a scripts/kafka command (`kill`, `start`, `stop`, `kill-node N`, …) on this broker. */
  command(name: string, ...args: string[]): Promise<string>;
  stop(): Promise<void>;
  /** Stops it at once, for a process about to exit on an uncaught exception. */
  stopSync(): void;
}> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KAFKA_PORT: port ?? String(await freePort(3 * nodes)),
    KAFKA_BROKERS_COUNT: String(nodes),
  };
  delete env['KAFKA_STATE_DIR'];
  const command = async (name: string, ...args: string[]): Promise<string> =>
    (await promisify(execFile)(join(root, 'scripts', 'kafka'), [name, ...args], { env, encoding: 'utf8' })).stdout.trim();
  // A start that failed half-way (one node of a cluster up) leaves nothing running behind.
  const started = await command('start').catch(async (error: unknown) => {
    await command('stop').catch(() => '');
    throw error;
  });
  const brokers = started.split('\n').pop()!;
  return {
    brokers,
    command,
    stop: async () => void (await command('stop').catch(() => '')),
    stopSync: () => void spawnSync(join(root, 'scripts', 'kafka'), ['stop'], { env, stdio: 'ignore' }),
  };
}

/** One record as a fault run reads it back. */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly value: string;
}

/**
 * Reads `topic` from its start to the high watermarks it has when called, with `read_committed`
 * (records of aborted or open transactions left out) or `read_uncommitted` (every record in the
 * log). Progress is taken from the end of each fetched batch, not from the last record: with
 * transactions the last offset of a partition is a commit or abort marker, never a record.
 */
export async function readTopic(
  brokers: string,
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted',
  timeoutMs = 120_000,
): Promise<ReadRecord[]> {
  const kafka = new Kafka({ brokers: brokers.split(','), clientId: 'fault-reader', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((p) => p.high !== p.low).map((p) => [p.partition, BigInt(p.high)]));
  const records: ReadRecord[] = [];
  const consumer = kafka.consumer({
    groupId: `fault-reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
    readUncommitted: isolation === 'read_uncommitted',
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      if (remaining.size === 0) return resolve();
      const timer = setTimeout(() => reject(new Error(`reading ${topic} took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
        if (BigInt(payload.lastOffset) + 1n >= (remaining.get(payload.partition) ?? 0n)) remaining.delete(payload.partition);
        if (remaining.size === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          records.push(recordOf(partition, message));
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

export function recordOf(
  partition: number,
  message: { offset: string; key: Buffer | null; value: Buffer | null; headers?: Record<string, unknown> },
): ReadRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) if (value !== undefined) headers[name] = String(value);
  return {
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? '',
    headers,
    value: message.value?.toString() ?? '',
  };
}

/** What an {@link instrumentedTransport} reports, one line each on the child's stdout. */
export const TRANSACTION_HEADER = 'fault_transaction';

/**
 * The transport a fault run's dispatcher sends through: `kafka` itself, with each step of a send
 * printed and followed by a pause (`pauseMs`, 50 by default), so a SIGKILL sent on that line lands right after it.
 * - plain sends: `sent` once the broker acknowledged a batch (kill: acknowledged, not yet marked published);
 * - transactions: every record gets a {@link TRANSACTION_HEADER} header naming its transaction
 *   (`<pid>-<n>`), and the steps print `sent <tx>` (kill: the transaction is left open, to be aborted),
 *   `committing <tx>` (just before the commit is asked for) and `committed <tx>` (kill: committed, not
 *   yet marked published). A transaction with `sent` and no `committing` line was never committed:
 *   a `read_committed` reader must never see its records.
 */
export function instrumentedTransport(kafka: Transport, print: (line: string) => void, pauseMs = 50): Transport {
  const pause = () => (pauseMs > 0 ? sleep(pauseMs) : Promise.resolve());
  let transactions = 0;
  const transactional = kafka.transactionalProducer?.bind(kafka);
  return {
    name: kafka.name,
    capabilities: kafka.capabilities,
    provision: (address, bindings) => kafka.provision!(address, bindings),
    consumer: (options) => kafka.consumer(options),
    ...(kafka.destination ? { destination: kafka.destination.bind(kafka) } : {}),
    ...(kafka.health ? { health: kafka.health.bind(kafka) } : {}),
    ...(kafka.useLogger ? { useLogger: kafka.useLogger.bind(kafka) } : {}),
    close: () => kafka.close(),
    producer() {
      const producer = kafka.producer();
      return {
        async send(records) {
          await producer.send(records);
          print('sent');
          await pause();
        },
        close: () => producer.close(),
      };
    },
    ...(transactional
      ? {
          transactionalProducer(transactionalId: string) {
            const producer = transactional(transactionalId);
            return {
              transactionalId: producer.transactionalId,
              close: () => producer.close(),
              ...(producer.lastNote ? { lastNote: producer.lastNote.bind(producer) } : {}),
              async begin(): Promise<TransportTransaction> {
                const transaction = await producer.begin();
                const tag = `${process.pid}-${++transactions}`;
                let sent = false;
                return {
                  async send(records: readonly OutgoingRecord[]) {
                    await transaction.send(records.map((r) => ({ ...r, headers: { ...r.headers, [TRANSACTION_HEADER]: tag } })));
                    sent = true;
                    print(`sent ${tag}`);
                    await pause();
                  },
                  sendOffsets: (groupId, offsets) => transaction.sendOffsets(groupId, offsets),
                  ...(transaction.note ? { note: transaction.note.bind(transaction) } : {}),
                  async commit() {
                    if (sent) print(`committing ${tag}`);
                    await transaction.commit();
                    if (sent) {
                      print(`committed ${tag}`);
                      await pause();
                    }
                  },
                  abort: () => transaction.abort(),
                };
              },
            };
          },
        }
      : {}),
  };
}
