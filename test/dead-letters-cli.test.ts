// `keiyaku dead-letters` run as the real binary against real SQLite files, a real PostgreSQL and
// a real Kafka broker: list, show, remove and redrive parked messages and dead outbox rows;
// bad arguments, unreachable stores and unknown ids exit non-zero and change nothing.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgres, PostgresDeadLetterStore, PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, type DeadLetterStore, type ParkRequest } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { migrateSqlite, SqliteDeadLetterStore, SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { binPath, repoRoot, scratch, withoutKafkajsTimeoutWarning } from './helpers.js';
import { kafkaBrokers, kafkaSkipReason } from './kafka/kafka-env.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from './postgres/postgres-env.js';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
/** The environment without any broker or keiyaku configuration of the test run's own. */
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('KEIYAKU_') && name !== 'KAFKA_BROKERS' && name !== 'KAFKA_SASL_BROKERS'),
);
/**
 * Runs `keiyaku dead-letters …` as the built binary (`npm test` builds first; it starts on a third of
 * the CPU the sources through tsx take, and this file starts it ~60 times), writing `input` to its
 * stdin (the confirmation answer), with `env` added to a clean environment.
 */
function cli(args: readonly string[], input = '', options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [binPath, 'dead-letters', ...args],
      { cwd: options.cwd ?? repoRoot, env: { ...cleanEnv, ...options.env }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}
const json = (r: Result) => JSON.parse(r.stdout) as Record<string, unknown> & { items: { id: string; kind: string; type: string }[] };

const dir = scratch('dead-letters-cli');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid BookBorrowed exactly as it went over the wire: payload bytes and headers from the real publisher. */
const bookBorrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00.000Z',
    dueAt: '2026-11-23T10:15:00.000Z',
    channel: 'self-service',
  });
async function wireBookBorrowed(copyId: string): Promise<{ payload: Uint8Array; headers: Record<string, string> }> {
  const transport = new InMemoryTransport();
  const host = createMessaging({ transport });
  await host.publisher(BookIntegrationEvents).publish(bookBorrowed(copyId));
  const [sent] = transport.published(BookIntegrationEvents);
  await host.stop();
  return { payload: sent!.record.value, headers: { ...sent!.record.headers } };
}

function parkRequest(overrides: Partial<ParkRequest> = {}): ParkRequest {
  return {
    channel: 'bookIntegrationEvents',
    address: 'library.book-integration-events',
    groupId: 'inventory.book-availability',
    type: 'BookBorrowed',
    payload: new TextEncoder().encode('{"copyId":"C-1"}'),
    headers: { ce_type: 'BookBorrowed', ce_id: 'id-1' },
    key: 'book-1',
    error: { name: 'Error', message: 'inventory database unavailable' },
    attempts: 3,
    firstFailureAt: new Date(Date.UTC(2026, 10, 30, 8)),
    lastFailureAt: new Date(Date.UTC(2026, 10, 30, 9)),
    ...overrides,
  };
}

describe('keiyaku dead-letters on SQLite', () => {
  const file = join(dir, 'service.db');
  let db: Database.Database;
  let store: DeadLetterStore;
  let outbox: SqliteOutbox;
  const ids: string[] = [];
  beforeAll(async () => {
    db = new Database(file);
    migrateSqlite(db);
    store = new SqliteDeadLetterStore(db);
    ids.push((await store.park(parkRequest(), new Date(Date.UTC(2026, 10, 30, 10)))).id);
    ids.push(
      (
        await store.park(
          parkRequest({ groupId: 'notifications.late-fees', payload: new Uint8Array([0xff, 0x00]), type: '' }),
          new Date(Date.UTC(2026, 10, 30, 11)),
        )
      ).id,
    );
    ids.push((await store.park(parkRequest({ channel: 'otherChannel' }), new Date(Date.UTC(2026, 10, 30, 12)))).id);
    outbox = new SqliteOutbox(db);
    outbox.migrate();
  });
  afterAll(() => db?.close());

  it('lists parked messages oldest first, as a table or JSON, filtered by channel and group', async () => {
    const text = await cli(['list', '--store', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+KIND\s+CHANNEL\s+GROUP\s+TYPE\s+ATTEMPTS\s+AT\s+ERROR/);
    expect(text.stdout).toContain('3 items in');
    const all = await cli(['list', '--store', file, '--json']);
    expect(json(all).items.map((i) => i.id)).toEqual(ids);
    const group = await cli(['list', '--store', file, '--json', '--group', 'notifications.late-fees']);
    expect(json(group).items.map((i) => i.id)).toEqual([ids[1]]);
    const channel = await cli(['list', '--store', file, '--json', '--channel', 'otherChannel']);
    expect(json(channel).items.map((i) => i.id)).toEqual([ids[2]]);
    const none = await cli(['list', '--store', file, '--channel', 'nothingHere']);
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toMatch(/nothing parked or dead in .* matching the filter/);
  });

  it('shows one in full; a payload that is not UTF-8 comes as base64', async () => {
    const shown = await cli(['show', ids[0]!, '--store', file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('payload: {"copyId":"C-1"}');
    expect(shown.stdout).toContain('  ce_id: id-1');
    expect(shown.stdout).toContain('error: Error: inventory database unavailable');
    const binary = JSON.parse((await cli(['show', ids[1]!, '--store', file, '--json'])).stdout);
    expect(binary.item).toMatchObject({ id: ids[1], payloadBase64: Buffer.from([0xff, 0x00]).toString('base64') });
  });

  it('removes only after confirmation: "n" or no answer changes nothing, "y" or --yes removes', async () => {
    const victim = (await store.park(parkRequest({ channel: 'removal' }), new Date())).id;
    const declined = await cli(['remove', victim, '--store', file], 'n\n');
    expect(declined.code).toBe(1);
    expect(declined.stderr).toMatch(/remove parked message .* for good\? \[y\/N\] keiyaku: not confirmed; nothing changed/);
    expect(await store.get(victim)).toBeDefined();
    expect((await cli(['remove', victim, '--store', file], '')).code).toBe(1);
    expect(await store.get(victim)).toBeDefined();
    const confirmed = await cli(['remove', victim, '--store', file], 'y\n');
    expect(confirmed).toMatchObject({ code: 0 });
    expect(confirmed.stdout).toContain(`removed parked message ${victim}`);
    expect(await store.get(victim)).toBeUndefined();
    const second = (await store.park(parkRequest({ channel: 'removal' }), new Date())).id;
    expect(JSON.parse((await cli(['remove', second, '--store', file, '--yes', '--json'])).stdout)).toEqual({ ok: true, removed: second });
    expect(await store.count({ channel: 'removal' })).toBe(0);
  });

  it('an unknown id is a clear error, exit 2, and nothing changes', async () => {
    const before = await store.count();
    for (const action of ['show', 'remove', 'redrive']) {
      const result = await cli([action, 'no-such-id', '--store', file, '--yes']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/no parked message or dead outbox row with id no-such-id in .*service\.db/);
    }
    expect((await cli(['show', 'outbox:999', '--store', file])).code).toBe(2);
    expect(await store.count()).toBe(before);
  });

  it('bad arguments are clear errors with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['list'], /needs --store/],
      [['purge', '--store', file], /unknown action "purge" \(actions: list, show, redrive, remove\)/],
      [['list', '--store', file, '--force'], /unknown option "--force"/],
      [['list', 'abc', '--store', file], /list takes no id/],
      [['show', '--store', file], /show needs the id/],
      [['list', '--store', file, '--brokers', 'x:1'], /--brokers applies to redrive only/],
      [['show', ids[0]!, '--store', file, '--dry-run'], /--dry-run applies to redrive only/],
      [['list', '--store', file, '--stor', 'x'], /unknown option "--stor"; did you mean --store\?/],
      [['list', '--store'], /--store needs a value/],
      [[], /say what to do/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: keiyaku dead-letters <action>');
  });

  it('a missing file, a directory, a non-database and a database without keiyaku tables are errors, and nothing is created', async () => {
    const missing = join(dir, 'missing.db');
    const gone = await cli(['list', '--store', missing]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/no SQLite database at .*missing\.db/);
    expect(existsSync(missing)).toBe(false);
    expect((await cli(['list', '--store', dir])).stderr).toMatch(/is not a file/);
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'this is not a database, just some text that is long enough to have a header');
    expect((await cli(['list', '--store', text])).stderr).toMatch(/cannot read .*notes\.txt as a SQLite database: file is not a database/);
    const empty = join(dir, 'empty.db');
    new Database(empty).close();
    const bare = await cli(['list', '--store', empty]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/has no keiyaku dead-letter or outbox tables/);
  });

  it('redrive checks against the contract and needs a configured broker: an invalid payload, an unknown channel or no broker change nothing', async () => {
    const unreachable = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:1' };
    const invalid = await cli(['redrive', ids[0]!, '--store', file, '--yes'], '', { env: unreachable });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(
      /parked message .* still does not decode: BookBorrowed: payload is not valid at .*bookId.*; it stays parked/,
    );
    const untyped = await cli(['redrive', ids[1]!, '--store', file, '--yes'], '', { env: unreachable });
    expect(untyped.stderr).toMatch(/still does not decode: channel bookIntegrationEvents has no message type ""/);
    const elsewhere = await cli(['redrive', ids[2]!, '--store', file, '--yes'], '', { env: unreachable });
    expect(elsewhere.stderr).toMatch(
      /belongs to channel otherChannel, which asyncapi\.yaml does not have \(channels: bookIntegrationEvents, memberNotifications, copyLookups, copyLookupAnswers\)/,
    );
    const { payload, headers } = await wireBookBorrowed('C-valid');
    const valid = (await store.park(parkRequest({ payload, headers }), new Date())).id;
    const noBroker = await cli(['redrive', valid, '--store', file, '--yes']);
    expect(noBroker.code).toBe(2);
    expect(noBroker.stderr).toMatch(/redrive republishes to the service's broker: set KEIYAKU_TRANSPORT=kafka .*\(nothing changed\)/);
    const typo = await cli(['redrive', valid, '--store', file, '--yes'], '', { env: { KEIYAKU_TRANSPORT: 'kafak' } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/KEIYAKU_TRANSPORT/);
    const badSpec = await cli(['redrive', valid, '--store', file, '--yes', '--spec', 'missing.yaml'], '', { env: unreachable });
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toMatch(/missing\.yaml is not a valid contract/);
    expect(await store.get(ids[0]!)).toBeDefined();
    expect(await store.get(ids[2]!)).toBeDefined();
    expect(await store.get(valid)).toBeDefined();
    await store.remove(valid);
  });

  it('lists dead outbox rows beside parked messages; redrive puts one back to pending, remove deletes it', async () => {
    const writer = outbox.channel(BookIntegrationEvents);
    db.transaction(() => {
      writer.write(db, bookBorrowed('C-outbox'));
    })();
    const [row] = await outbox.list({ state: 'pending' });
    await outbox.failed(row!.id, { attempts: 10, error: 'broker refused: record too large', next: 'dead', now: Date.now() });
    const listed = json(await cli(['list', '--store', file, '--json']));
    const item = listed.items.find((i) => i.kind === 'outbox')!;
    expect(item).toMatchObject({ id: `outbox:${row!.id}`, type: 'BookBorrowed' });
    expect(
      json(await cli(['list', '--store', file, '--json', '--group', 'inventory.book-availability'])).items.some((i) => i.kind === 'outbox'),
    ).toBe(false);
    const shown = await cli(['show', item.id, '--store', file]);
    expect(shown.stdout).toContain('error: broker refused: record too large');
    const declined = await cli(['redrive', item.id, '--store', file], 'no\n');
    expect(declined.code).toBe(1);
    expect((await outbox.get(row!.id))!.state).toBe('dead');
    const redriven = await cli(['redrive', item.id, '--store', file, '--yes']);
    expect(redriven).toMatchObject({ code: 0 });
    expect(redriven.stdout).toContain(`${item.id} is pending again`);
    expect(await outbox.get(row!.id)).toMatchObject({ state: 'pending', attempts: 0 });
    // Not dead any more: not listed, not found.
    expect((await cli(['show', item.id, '--store', file])).code).toBe(2);
    await outbox.failed(row!.id, { attempts: 10, error: 'again', next: 'dead', now: Date.now() });
    expect((await cli(['remove', item.id, '--store', file, '--yes'])).code).toBe(0);
    expect(await outbox.get(row!.id)).toBeUndefined();
  });
});

(postgresUrl === '' ? describe.skip : describe)(`keiyaku dead-letters on PostgreSQL${postgresSkipNote}`, () => {
  let database: FreshDatabase;
  let store: PostgresDeadLetterStore;
  beforeAll(async () => {
    database = await freshDatabase('dead_letters_cli');
    await migratePostgres(database.pool);
    store = new PostgresDeadLetterStore(database.pool);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lists, shows and removes parked messages; an unknown id or an unreachable server changes nothing', async () => {
    const a = await store.park(parkRequest(), new Date(Date.UTC(2026, 10, 30, 10)));
    const b = await store.park(parkRequest({ groupId: 'notifications.late-fees' }), new Date(Date.UTC(2026, 10, 30, 11)));
    const listed = json(await cli(['list', '--store', database.url, '--json']));
    expect(listed.items.map((i) => i.id)).toEqual([a.id, b.id]);
    expect(String(listed['store'])).not.toContain(':keiyaku@');
    expect(
      json(await cli(['list', '--store', database.url, '--json', '--group', 'notifications.late-fees'])).items.map((i) => i.id),
    ).toEqual([b.id]);
    expect((await cli(['show', a.id, '--store', database.url])).stdout).toContain('payload: {"copyId":"C-1"}');
    const unknown = await cli(['remove', randomUUID(), '--store', database.url, '--yes']);
    expect(unknown.code).toBe(2);
    expect(await store.count()).toBe(2);
    expect((await cli(['remove', a.id, '--store', database.url, '--yes'])).code).toBe(0);
    expect(await store.get(a.id)).toBeUndefined();
    const down = await cli(['list', '--store', 'postgres://keiyaku:secret@127.0.0.1:1/keiyaku']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/cannot reach PostgreSQL at postgres:\/\/keiyaku@127\.0\.0\.1:1\/keiyaku: .*ECONNREFUSED/);
    expect(down.stderr).not.toContain('secret');
    const wrongDb = new URL(database.url);
    wrongDb.pathname = '/no_such_database';
    expect((await cli(['list', '--store', wrongDb.toString()])).stderr).toMatch(/database "no_such_database" does not exist/);
    expect(await store.count()).toBe(1);
  });

  it('redrives a dead outbox row back to pending', async () => {
    const outbox = new PostgresOutbox(database.pool);
    await outbox.migrate();
    const writer = outbox.channel(BookIntegrationEvents);
    await writer.write(database.pool, bookBorrowed('C-pg-outbox'));
    const [row] = await outbox.list({ state: 'pending' });
    await outbox.failed(row!.id, { attempts: 10, error: 'poison', next: 'dead', now: Date.now() });
    const item = json(await cli(['list', '--store', database.url, '--json'])).items.find((i) => i.kind === 'outbox')!;
    expect(item.id).toBe(`outbox:${row!.id}`);
    expect((await cli(['redrive', item.id, '--store', database.url, '--yes'])).code).toBe(0);
    expect(await outbox.get(row!.id)).toMatchObject({ state: 'pending', attempts: 0 });
    await outbox.close();
  });
});

/** Reads the one record on `topic` (key, value and headers). */
async function readOne(
  kafka: Kafka,
  topic: string,
  group: string,
): Promise<{ value: string; headers: Record<string, string>; key: string }> {
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    return await new Promise((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) =>
          resolve({
            value: message.value!.toString('utf8'),
            key: message.key!.toString('utf8'),
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          }),
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

// The broker started by scripts/kafka has a SASL/PLAIN listener on its port + 2.
const saslBrokers =
  process.env['KAFKA_SASL_BROKERS'] ?? (kafkaBrokers === '' ? '' : kafkaBrokers.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 2}`));

(kafkaBrokers === '' ? describe.skip : describe)(
  `keiyaku dead-letters redrive over Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`,
  () => {
    const file = join(dir, 'redrive.db');
    let db: Database.Database;
    let store: SqliteDeadLetterStore;
    let kafka: Kafka;
    let admin: Admin;
    const topics: string[] = [];
    beforeAll(async () => {
      db = new Database(file);
      migrateSqlite(db);
      store = new SqliteDeadLetterStore(db);
      kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-cli', logLevel: logLevel.NOTHING });
      admin = kafka.admin();
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.deleteTopics({ topics }).catch(() => {});
      await admin?.disconnect();
      db?.close();
    });
    const parkValid = async (copyId: string) => {
      const { payload, headers } = await wireBookBorrowed(copyId);
      return {
        parked: await store.park(parkRequest({ payload, headers, key: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b' }), new Date()),
        payload,
        headers,
      };
    };

    it('deprecated --brokers/--namespace still work with a warning: a missing topic is refused, --dry-run shows the target and sends nothing, then it republishes and removes', async () => {
      const namespace = `cli${randomUUID().slice(0, 8)}`;
      const topic = `${namespace}.library.book-integration-events`;
      topics.push(topic);
      const { parked, payload, headers } = await parkValid('C-redrive');
      const flags = ['--store', file, '--brokers', kafkaBrokers, '--namespace', namespace];
      // No topic yet: refused before anything is sent (a redrive never creates a topic), the record stays.
      const failed = await cli(['redrive', parked.id, ...flags, '--yes']);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain(
        'keiyaku: warning: --brokers is deprecated: set KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS',
      );
      expect(failed.stderr).toContain('keiyaku: warning: --namespace is deprecated: set KEIYAKU_KAFKA_NAMESPACE');
      expect(failed.stderr).toContain(
        `kafka ${topic} (the address library.book-integration-events of channel bookIntegrationEvents) does not exist`,
      );
      expect(await store.get(parked.id)).toBeDefined();
      expect(await admin.listTopics()).not.toContain(topic);

      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const dry = await cli(['redrive', parked.id, ...flags, '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(
        `keiyaku: dry run: parked message ${parked.id} (BookBorrowed on bookIntegrationEvents, group inventory.book-availability) goes to Kafka topic ${topic} (address library.book-integration-events) on kafka at ${kafkaBrokers}; nothing sent`,
      );
      const dryJson = JSON.parse((await cli(['redrive', parked.id, ...flags, '--dry-run', '--json'])).stdout);
      expect(dryJson).toMatchObject({
        ok: true,
        dryRun: true,
        target: { transport: 'kafka', destination: topic, exists: true, messageId: headers['ce_id'] },
      });
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['0']);
      expect(await store.get(parked.id)).toBeDefined();

      const declined = await cli(['redrive', parked.id, ...flags], 'n\n');
      expect(declined.code).toBe(1);
      const done = await cli(['redrive', parked.id, ...flags], 'y\n');
      expect(done.stderr).toContain(`goes to Kafka topic ${topic}`);
      expect(done.stderr).toMatch(/republish parked message .* to Kafka topic .*, then remove it\? \[y\/N\]/);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain(`to Kafka topic ${topic} (address library.book-integration-events) and removed it`);
      expect(await store.get(parked.id)).toBeUndefined();
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['1']);
      const received = await readOne(kafka, topic, `${namespace}.check`);
      expect(received.value).toBe(new TextDecoder().decode(payload));
      expect(received.key).toBe('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b');
      expect(received.headers).toMatchObject({ ce_type: 'BookBorrowed', ce_id: headers['ce_id'], 'keiyaku-redriven-from': parked.id });
    }, 180_000);

    it('takes the broker from KEIYAKU_* variables (no warning) and the deprecated KAFKA_BROKERS with a warning', async () => {
      const namespace = `cli${randomUUID().slice(0, 8)}`;
      const topic = `${namespace}.library.book-integration-events`;
      topics.push(topic);
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const { payload, headers } = await wireBookBorrowed('C-env');
      // Parked by the service with its broker topic: a redrive configured with another namespace is refused.
      const parked = await store.park(parkRequest({ payload, headers, topic }), new Date());
      const other = await cli(['redrive', parked.id, '--store', file, '--yes'], '', {
        env: { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: 'elsewhere' },
      });
      expect(other.code).toBe(2);
      expect(other.stderr).toContain(
        `was read from ${topic}, but the address library.book-integration-events of channel bookIntegrationEvents resolves to kafka elsewhere.library.book-integration-events here`,
      );
      expect(await store.get(parked.id)).toBeDefined();
      const legacy = await cli(['redrive', parked.id, '--store', file, '--dry-run', '--namespace', namespace], '', {
        env: { KAFKA_BROKERS: kafkaBrokers },
      });
      expect(legacy.code).toBe(0);
      expect(legacy.stderr).toContain('KAFKA_BROKERS is deprecated for keiyaku dead-letters');
      const env = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: namespace };
      const done = await cli(['redrive', parked.id, '--store', file, '--yes', '--json'], '', { env });
      expect(withoutKafkajsTimeoutWarning(done.stderr)).toBe('');
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, redriven: parked.id, topic, removed: true });
      expect(await store.get(parked.id)).toBeUndefined();
    }, 180_000);

    it('concurrent redrives of one record from several processes: the store claims it, exactly one republishes', async () => {
      const namespace = `cli${randomUUID().slice(0, 8)}`;
      const topic = `${namespace}.library.book-integration-events`;
      topics.push(topic);
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const { parked } = await parkValid('C-race');
      const env = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: namespace };
      const results = await Promise.all(
        Array.from({ length: 4 }, () => cli(['redrive', parked.id, '--store', file, '--yes'], '', { env })),
      );
      expect(results.filter((r) => r.code === 0)).toHaveLength(1);
      for (const r of results.filter((x) => x.code !== 0)) {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/being redriven by someone else right now|no parked message( or dead outbox row)? with id/);
      }
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['1']);
      expect(await store.get(parked.id)).toBeUndefined();
    }, 180_000);

    it('reaches a SASL listener through KEIYAKU_KAFKA_PROPERTY_* settings; a wrong password changes nothing', async () => {
      const namespace = `sasl${randomUUID().slice(0, 8)}`;
      const topic = `${namespace}.library.book-integration-events`;
      topics.push(topic);
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const { parked } = await parkValid('C-sasl');
      const env = (password: string) => ({
        KEIYAKU_TRANSPORT: 'kafka',
        KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: saslBrokers,
        KEIYAKU_KAFKA_NAMESPACE: namespace,
        KEIYAKU_KAFKA_PROPERTY_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
        KEIYAKU_KAFKA_PROPERTY_SASL_MECHANISM: 'PLAIN',
        KEIYAKU_KAFKA_PROPERTY_SASL_USERNAME: 'keiyaku',
        KEIYAKU_KAFKA_PROPERTY_SASL_PASSWORD: password,
        KEIYAKU_KAFKA_PROPERTY_RETRIES: '1',
      });
      const refused = await cli(['redrive', parked.id, '--store', file, '--yes'], '', { env: env('wrong-password') });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/SASL|[Aa]uthentication/);
      expect(refused.stderr).not.toContain('wrong-password');
      expect(await store.get(parked.id)).toBeDefined();
      const done = await cli(['redrive', parked.id, '--store', file, '--yes'], '', { env: env('keiyaku-secret') });
      expect(done.stdout).toContain(`to Kafka topic ${topic}`);
      expect(done.code).toBe(0);
      expect(await store.get(parked.id)).toBeUndefined();
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['1']);
    }, 180_000);

    it('finds the contract where keiyaku.config.json says ("spec": "contract/asyncapi.yaml")', async () => {
      const project = scratch('dead-letters-config');
      mkdirSync(join(project, 'contract'));
      copyFileSync(join(repoRoot, 'asyncapi.yaml'), join(project, 'contract', 'asyncapi.yaml'));
      cpSync(join(repoRoot, 'schemas'), join(project, 'contract', 'schemas'), { recursive: true });
      const { parked } = await parkValid('C-config');
      const env = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: 'cfg' };
      const without = await cli(['redrive', parked.id, '--store', file, '--dry-run'], '', { env, cwd: project });
      expect(without.code).toBe(2);
      expect(without.stderr).toMatch(/asyncapi\.yaml is not a valid contract/);
      writeFileSync(join(project, 'keiyaku.config.json'), JSON.stringify({ spec: 'contract/asyncapi.yaml' }));
      const dry = await cli(['redrive', parked.id, '--store', file, '--dry-run', '--json'], '', { env, cwd: project });
      expect(JSON.parse(dry.stdout)).toMatchObject({
        dryRun: true,
        target: { channel: 'bookIntegrationEvents', destination: 'cfg.library.book-integration-events' },
      });
      expect(await store.get(parked.id)).toBeDefined();
      await store.remove(parked.id);
      rmSync(project, { recursive: true, force: true });
    }, 120_000);

    it('takes the transport from keiyaku.config.json\'s "runtime" object, the KEIYAKU_* variables over it; a mistake in it names the file', async () => {
      const project = scratch('dead-letters-runtime-config');
      const { parked } = await parkValid('C-runtime');
      const config = (runtime: unknown) =>
        writeFileSync(join(project, 'keiyaku.config.json'), JSON.stringify({ spec: join(repoRoot, 'asyncapi.yaml'), runtime }));
      config({ transport: 'kafka', kafka: { bootstrapServers: kafkaBrokers, namespace: 'rt' } });
      const fromFile = await cli(['redrive', parked.id, '--store', file, '--dry-run', '--json'], '', { env: {}, cwd: project });
      expect(withoutKafkajsTimeoutWarning(fromFile.stderr)).toBe('');
      expect(JSON.parse(fromFile.stdout)).toMatchObject({ dryRun: true, target: { destination: 'rt.library.book-integration-events' } });
      const overridden = await cli(['redrive', parked.id, '--store', file, '--dry-run', '--json'], '', {
        env: { KEIYAKU_KAFKA_NAMESPACE: 'env' },
        cwd: project,
      });
      expect(JSON.parse(overridden.stdout)).toMatchObject({ target: { destination: 'env.library.book-integration-events' } });
      config({ transport: 'kafka', kafka: { bootstrapServer: kafkaBrokers } });
      const wrong = await cli(['redrive', parked.id, '--store', file, '--dry-run'], '', { env: {}, cwd: project });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('keiyaku.config.json runtime');
      expect(wrong.stderr).toContain('bootstrapServer');
      config('kafka');
      const notObject = await cli(['redrive', parked.id, '--store', file, '--dry-run'], '', { env: {}, cwd: project });
      expect(notObject.code).toBe(2);
      expect(notObject.stderr).toContain('"runtime" must be an object');
      expect(await store.get(parked.id)).toBeDefined();
      await store.remove(parked.id);
      rmSync(project, { recursive: true, force: true });
    }, 120_000);
  },
);
