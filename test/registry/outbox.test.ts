// The outbox with framed payloads: the rows hold the framed bytes (computed in the transaction, with
// the schema id read before it), the dispatcher copies them and a subscription reads them. SQLite
// writes synchronously, so a framed channel is prepared first and refused until it is; PostgreSQL
// writes prepare themselves.
import { PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SchemaRegistryClient, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';
import { avroChannel } from './contract.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** The frame head of the latest version of `subject`. */
async function headOf(subject: string): Promise<number[]> {
  const id = ((await registryCall('GET', `/subjects/${encodeURIComponent(subject)}/versions/latest`)).body as { id: number }).id;
  return [0, (id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
}

/** Dispatches the outbox over a memory transport to a subscription of `channel`; resolves with the book ids it reads. */
async function deliver(outbox: SqliteOutbox | PostgresOutbox, channel: ReturnType<typeof avroChannel>['channel'], expected: number) {
  const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const host = createMessaging({ transport, logger: silentLogger });
  const seen: string[] = [];
  host.subscribe(channel, { groupId: 'outbox-readers', handle: (message) => void seen.push(message.bookId) });
  host.host(outbox.dispatcher({ transport, logger: silentLogger }, { pollIntervalMs: 10 }));
  await host.start();
  try {
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(expected);
  } finally {
    await host.stop();
  }
  return { seen, transport };
}

run(`the outbox with framed payloads${registrySkipNote}`, () => {
  it('SQLite: refuses a framed write until the channel is prepared, then stores the framed bytes and delivers them', async () => {
    const topic = testSubject('shelving');
    const { channel, Shelved, codec } = avroChannel(topic, 1);
    const framed = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true });
    const db = new Database(':memory:');
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(framed);
    const message = Shelved.create({ bookId: 'O-1', copies: 1 });
    expect(() => db.transaction(() => writer.write(db, message))()).toThrow(
      expect.objectContaining({
        code: 'outbox_not_prepared',
        message: expect.stringContaining("await the outbox channel's prepare() first"),
      }),
    );
    expect(await outbox.list({ state: 'pending' })).toEqual([]);
    await writer.prepare();
    db.transaction(() => writer.writeMany(db, [message, Shelved.create({ bookId: 'O-2', copies: 2 })]))();
    const rows = await outbox.list({ state: 'pending' });
    expect([...rows[0]!.payload]).toEqual([...(await headOf(`${topic}-value`)), ...codec.encode(message)]);
    const { seen } = await deliver(outbox, withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl })), 2);
    expect(seen).toEqual(['O-1', 'O-2']);
    db.close();
  });

  (postgresUrl === '' ? it.skip : it)(`PostgreSQL: a write reads the schema id itself${postgresSkipNote}`, async () => {
    const db = await freshDatabase('outbox_registry');
    databases.push(db);
    const outbox = new PostgresOutbox(db.pool);
    await outbox.migrate();
    const topic = testSubject('shelving');
    const { channel, Shelved, codec } = avroChannel(topic, 1);
    const writer = outbox.channel(withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true }));
    const message = Shelved.create({ bookId: 'G-1', copies: 1 });
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await writer.write(client, message);
      await writer.writeMany(client, [Shelved.create({ bookId: 'G-2', copies: 2 })]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const rows = await outbox.list({ state: 'pending' });
    expect([...rows[0]!.payload]).toEqual([...(await headOf(`${topic}-value`)), ...codec.encode(message)]);
    const { seen } = await deliver(outbox, withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl })), 2);
    expect(seen).toEqual(['G-1', 'G-2']);
    await outbox.close();
  });
});
