/**
 * `npm run bench:batch`: batch handlers against per-message handlers, over the memory transport,
 * in one process with alternating rounds (a noisy neighbour hits both alike).
 *
 * 1. The belt alone: ROWS records (4 partitions, so 4 lanes) through a handler that does nothing,
 *    per message (`subscribe`) and in batches of up to 100 (`subscribeBatch`, maxWaitMs 5).
 *    Throughput ratio batch / per message (goal >= 0.9x: gathering costs no more than it saves).
 * 2. A handler with a cost per call: each call writes its messages to SQLite (a file, WAL, one
 *    transaction per call: one row per call per message, or all rows of a batch in one). Ratio
 *    (goal >= 2x).
 *
 * BATCH_BENCH_ROWS (default 50 000), BATCH_BENCH_ROUNDS (default 5), after two warm-up rounds of each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BookIntegrationEvents, type BookIntegrationEventsMessage } from '../generated/index.js';
import { type BatchItem, createMessaging, type Subscription } from '../runtime/index.js';
import { InMemoryTransport } from '../runtime/memory/index.js';
import { borrowed } from './outbox-rounds.js';
import { verdict } from './stats.js';

const ROWS = Number(process.env['BATCH_BENCH_ROWS'] ?? 50_000);
const ROUNDS = Number(process.env['BATCH_BENCH_ROUNDS'] ?? 5);
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

type Mode = 'message' | 'batch';
type Work = 'none' | 'sqlite';

const dir = mkdtempSync(join(tmpdir(), 'keiyaku-batch-bench-'));
const db = new Database(join(dir, 'effects.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE effects (group_id TEXT NOT NULL, copy_id TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO effects (group_id, copy_id) VALUES (?, ?)');
const writeAll = db.transaction((groupId: string, copyIds: readonly string[]) => {
  for (const copyId of copyIds) insert.run(groupId, copyId);
});

// The records, once: every round reads them with a group of its own.
const transport = new InMemoryTransport({ defaultPartitions: 4, idleWaitMs: 1 });
const source = createMessaging({ transport });
await source.publisher(BookIntegrationEvents, { key: (m) => m.bookId }).publishMany(Array.from({ length: ROWS }, (_, i) => borrowed(i)));

/** Handles every record once with a new group; returns records per second. */
async function round(mode: Mode, work: Work, n: number): Promise<number> {
  const groupId = `bench.${work}.${mode}.${n}`;
  const messaging = createMessaging({ transport, shutdownBudgetMs: 5_000 });
  const handleBatch = (batch: readonly BatchItem<BookIntegrationEventsMessage>[]): void => {
    if (work === 'sqlite')
      writeAll(
        groupId,
        batch.map((item) => item.message.copyId),
      );
  };
  const subscription: Subscription<BookIntegrationEventsMessage> =
    mode === 'batch'
      ? messaging.subscribeBatch(BookIntegrationEvents, { groupId, handleBatch }, { batchSize: 500, batch: { maxSize: 100, maxWaitMs: 5 } })
      : messaging.subscribe(
          BookIntegrationEvents,
          { groupId, handle: (m) => (work === 'sqlite' ? writeAll(groupId, [m.copyId]) : undefined) },
          { batchSize: 500 },
        );
  const started = performance.now();
  await messaging.start();
  while (subscription.health().processed < ROWS) await new Promise((resolve) => setTimeout(resolve, 1));
  const seconds = (performance.now() - started) / 1000;
  await messaging.stop();
  return ROWS / seconds;
}

try {
  for (const work of ['none', 'sqlite'] as const) {
    for (const warm of [-1, -2]) for (const mode of ['message', 'batch'] as const) await round(mode, work, warm); // warm-up: the JIT
    const rates: Record<Mode, number[]> = { message: [], batch: [] };
    for (let n = 0; n < ROUNDS; n++) for (const mode of ['message', 'batch'] as const) rates[mode].push(await round(mode, work, n));
    const total = (mode: Mode) => (ROWS * ROUNDS) / rates[mode].reduce((sum, rate) => sum + ROWS / rate, 0);
    const ratio = (total('batch') / total('message')).toFixed(2);
    const what = work === 'none' ? 'a handler that does nothing' : 'a handler writing to SQLite, one transaction per call';
    const goal = work === 'none' ? 0.9 : 2;
    out(`batch handlers: ${ROWS} records × ${ROUNDS} rounds, memory transport, 4 partitions; ${what}`);
    out(
      `  per message: ${total('message') | 0} msg/s; in batches of up to 100: ${total('batch') | 0} msg/s; ratio ${ratio}x (goal >= ${goal}x: ${verdict(ratio, goal)})`,
    );
  }
  const rows = Number(
    (db.prepare("SELECT count(*) AS n FROM effects WHERE group_id LIKE 'bench.sqlite.batch.%'").get() as { n: number }).n,
  );
  if (rows !== ROWS * (ROUNDS + 2)) throw new Error(`the batch rounds wrote ${rows} rows, not ${ROWS * (ROUNDS + 2)}`);
} finally {
  await source.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
