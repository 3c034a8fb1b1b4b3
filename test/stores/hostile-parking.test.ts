// Hostile records among valid ones, through a real belt into the SQLite and PostgreSQL dead-letter
// stores (issue: "one hostile message kills a consumer on the PostgreSQL dead-letter store"): NUL
// and `\u0000` escapes, lone surrogates, Latin-1 and replaced header bytes, bytes that are not
// UTF-8. Every valid message is handled, every hostile one parked exactly once with its bytes, and
// nothing escapes as an unhandled rejection.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgres, PostgresDeadLetterStore } from '@keiyaku/postgres';
import { createMessaging, type DeadLetterStore, type Logger, type Messaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { HOSTILE_TEXT, hostilePayload } from '@keiyaku/runtime/testing';
import { migrateSqlite, openSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { scratch, waitFor } from '../helpers.js';
import { freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

const HOSTILE = 120;
const VALID = 40;

const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

const text = new TextEncoder();
/** Payloads a broker may carry that no contract accepts. */
const PAYLOADS: readonly Uint8Array[] = [
  hostilePayload(),
  text.encode('{"bookId":"\\u0000","copyId":"\\ud800"}'),
  text.encode(`{"copyId":${JSON.stringify(HOSTILE_TEXT)}}`),
  Uint8Array.from([0x00, 0x00, 0x00]),
  new Uint8Array(0),
  Uint8Array.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]),
];

const logged: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => void logged.push(m), error: (m) => void logged.push(m) };
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const hosts: Messaging[] = [];
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  process.off('unhandledRejection', onUnhandled);
});

async function run(store: DeadLetterStore): Promise<void> {
  const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const host = createMessaging({ logger, transport, deadLetters: store, shutdownBudgetMs: 2_000 });
  hosts.push(host);
  const handled: string[] = [];
  const groupId = 'inventory.hostile-parking';
  host.subscribe(BookIntegrationEvents, { groupId, handle: (m) => void handled.push(m.copyId) }, { deadLetter: { maxRetries: 0 } });
  await host.start();
  await host.publisher(BookIntegrationEvents, { lingerMs: 0 }).publish(borrowed('template'));
  await waitFor(() => handled.length === 1, 'the template message is handled', 15_000);
  const template = transport.published(BookIntegrationEvents)[0]!.record;

  // Hostile headers ride on every record, valid ones too; hostile payloads only on the hostile ones.
  const sent = new Map<string, Uint8Array>(); // ce_id → payload of each hostile record
  const records = [];
  for (let i = 0; i < HOSTILE + VALID; i++) {
    const valid = i % 4 === 3;
    const id = `${valid ? 'valid' : 'hostile'}-${i}`;
    const headers: Record<string, string> = {
      ...template.headers,
      ce_id: id,
      [`x-nul\u0000${i}`]: `\u0000\\u0000${HOSTILE_TEXT}`,
      'x-latin1': '\u00e9\u00ff',
      'x-replaced': '\ufffd\ufffd',
      'x-wtf16': '\udce9',
    };
    const value = valid
      ? Uint8Array.from(text.encode(JSON.stringify({ ...JSON.parse(Buffer.from(template.value).toString()), copyId: id })))
      : PAYLOADS[i % PAYLOADS.length]!;
    if (!valid) sent.set(id, value);
    records.push({ address: template.address, key: `key\u0000\ud800${i % 3}`, headers, value });
  }
  await transport.producer().send(records);

  const validCount = records.length - sent.size;
  await waitFor(
    async () => handled.length === 1 + validCount && (await store.count({ groupId })) === sent.size,
    () => `all ${validCount} valid handled (${handled.length - 1}) and ${sent.size} hostile parked; log: ${logged.slice(-3).join(' | ')}`,
    30_000,
  );
  expect(unhandled).toEqual([]);
  const parked = await store.list({ groupId });
  expect(parked).toHaveLength(sent.size); // each parked once
  for (const p of parked) {
    const payload = sent.get(p.headers['ce_id']!);
    expect(payload, `parked ${p.headers['ce_id']} was sent`).toBeDefined();
    expect(Buffer.compare(Buffer.from(p.payload), Buffer.from(payload!))).toBe(0);
    expect(['key\u0000\ud8000', 'key\u0000\ud8001', 'key\u0000\ud8002']).toContain(p.key);
    expect(p.headers['x-wtf16']).toBe('\udce9');
  }
  expect(new Set(parked.map((p) => p.headers['ce_id'])).size).toBe(sent.size);
  // Every valid one handled once (order holds per key, and keys spread over partitions).
  expect(handled.slice(1).sort()).toEqual(
    records
      .filter((_, i) => i % 4 === 3)
      .map((r) => r.headers['ce_id'])
      .sort(),
  );
}

describe('hostile records through the belt into a dead-letter store', () => {
  const dir = scratch('hostile-parking');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`SQLite: ${VALID} valid handled, ${HOSTILE} hostile parked once each`, async () => {
    const db = openSqlite(join(dir, 'hostile.db'));
    migrateSqlite(db, { components: ['dead-letters'] });
    try {
      await run(new SqliteDeadLetterStore(db));
    } finally {
      for (const host of hosts.splice(0)) await host.stop();
      db.close();
    }
  });

  (postgresUrl === '' ? it.skip : it)(
    `PostgreSQL: ${VALID} valid handled, ${HOSTILE} hostile parked once each${postgresSkipNote}`,
    async () => {
      const database = await freshDatabase('hostile_parking');
      try {
        await migratePostgres(database.pool, { components: ['dead-letters'] });
        await run(new PostgresDeadLetterStore(database.pool));
      } finally {
        for (const host of hosts.splice(0)) await host.stop();
        await database.drop();
      }
    },
  );
});
