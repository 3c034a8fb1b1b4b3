// Redrive against a broker that creates topics on first use (auto.create.topics.enable=true,
// Kafka's default): its own broker on free ports (scripts/kafka with KAFKA_AUTO_CREATE_TOPICS=true).
// A parked message goes to its channel's bindings.kafka.topic (with the namespace), never to the
// channel's address, which such a broker would happily create; a missing topic is refused and
// nothing is created; a send the broker refuses leaves the record parked; and ten concurrent
// redrives of one record through the operations page (token and CSRF) publish it once.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKafkaTransport } from '@keiyaku/kafka';
import { createMessaging, type ParkRequest, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { serveOperations } from '@keiyaku/runtime/ops';
import { migrateSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { repoRoot, scratch } from '../helpers.js';
import { freePort } from '../setup/ports.js';
import { kafkaDriver } from './kafka-driver.js';

const canRunBroker =
  spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0 && spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status === 0;
const reason = canRunBroker ? '' : 'redrive against auto.create.topics.enable=true starts its own broker and needs java and mvn';
if (reason && process.env['CI']) throw new Error(`${reason}; under CI a real broker is required`);

const env = { ...process.env, KAFKA_PORT: reason ? '' : String(await freePort(3)), KAFKA_AUTO_CREATE_TOPICS: 'true' };
const kafkaScript = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'kafka'), [command], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const CONTRACT = `asyncapi: 3.0.0
info:
  title: Fleet
  version: 1.0.0
defaultContentType: application/json
channels:
  courierLocationPings:
    address: courier.location-pings
    messages:
      LocationPing:
        $ref: "#/components/messages/LocationPing"
    bindings:
      kafka:
        topic: fleet.courier-location-pings.v1
        partitions: 1
operations:
  publishPings:
    action: send
    channel:
      $ref: "#/channels/courierLocationPings"
components:
  messages:
    LocationPing:
      name: LocationPing
      payload:
        type: object
        required: [courierId, lat, lon]
        properties:
          courierId: { type: string }
          lat: { type: number }
          lon: { type: number }
          note: { type: string }
`;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
/** `keiyaku dead-letters …` from the sources, in `cwd`, with only `vars` as keiyaku configuration. */
function cli(args: readonly string[], cwd: string, vars: Record<string, string>): Promise<Result> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([n]) => !n.startsWith('KEIYAKU_') && n !== 'KAFKA_BROKERS'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(repoRoot, 'generator', 'cli', 'run.ts'), 'dead-letters', ...args],
      { cwd, env: { ...clean, ...vars }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

function ping(note = ''): Pick<ParkRequest, 'payload' | 'headers' | 'key'> {
  const id = randomUUID();
  return {
    payload: new TextEncoder().encode(JSON.stringify({ courierId: 'K-17', lat: 52.52, lon: 13.4, ...(note ? { note } : {}) })),
    headers: {
      ce_specversion: '1.0',
      ce_id: id,
      ce_type: 'LocationPing',
      ce_source: 'fleet',
      ce_time: '2026-12-01T20:00:00.000Z',
      'content-type': 'application/json',
    },
    key: 'K-17',
  };
}

function parkRequest(fields: Pick<ParkRequest, 'payload' | 'headers' | 'key'>, over: Partial<ParkRequest> = {}): ParkRequest {
  return {
    channel: 'courierLocationPings',
    address: 'courier.location-pings',
    groupId: 'dispatch.courier-positions',
    type: 'LocationPing',
    ...fields,
    error: { name: 'Error', message: 'positions database unavailable' },
    attempts: 5,
    firstFailureAt: new Date(0),
    lastFailureAt: new Date(1),
    ...over,
  };
}

(reason ? describe.skip : describe)(`redrive on a broker that creates topics on first use${reason ? ` (${reason})` : ''}`, () => {
  let brokers = '';
  let kafka: Kafka;
  let admin: Admin;
  const dir = reason ? '' : scratch('kafka-redrive');
  beforeAll(async () => {
    brokers = kafkaScript('start').split('\n').pop()!;
    kafka = new Kafka({ brokers: [brokers], clientId: 'keiyaku-tests-redrive', logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
  }, 300_000);
  afterAll(async () => {
    await admin?.disconnect();
    if (!reason) kafkaScript('stop');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the broker does create topics on first use (the condition the other tests rely on)', async () => {
    const topic = `probe-${randomUUID().slice(0, 8)}`;
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'x' }] });
    await producer.disconnect();
    expect(await admin.listTopics()).toContain(topic);
  });

  it('keiyaku dead-letters redrive goes to bindings.kafka.topic with the namespace, never to the address; a missing topic is refused and not created; a refused send keeps the record', async () => {
    const project = join(dir, 'fleet');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'asyncapi.yaml'), CONTRACT);
    const file = join(project, 'fleet.db');
    const db = new Database(file);
    migrateSqlite(db);
    const store = new SqliteDeadLetterStore(db);
    const namespace = `ns${randomUUID().slice(0, 6)}`;
    const topic = `${namespace}.fleet.courier-location-pings.v1`;
    const wrong = `${namespace}.courier.location-pings`;
    const vars = {
      KEIYAKU_TRANSPORT: 'kafka',
      KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: brokers,
      KEIYAKU_KAFKA_NAMESPACE: namespace,
      // The CLI picks its driver from the configuration, as a service does.
      ...(kafkaDriver === 'kafkajs' ? {} : { KEIYAKU_KAFKA_DRIVER: kafkaDriver }),
    };
    try {
      const parked = await store.park(parkRequest(ping()), new Date());
      const dry = await cli(['redrive', parked.id, '--store', file, '--dry-run', '--json'], project, vars);
      expect(JSON.parse(dry.stdout)).toMatchObject({
        ok: false,
        target: { address: 'courier.location-pings', destination: topic, exists: false },
      });
      expect(dry.code).toBe(2);
      const missing = await cli(['redrive', parked.id, '--store', file, '--yes'], project, vars);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `kafka ${topic} (the address courier.location-pings of channel courierLocationPings) does not exist`,
      );
      expect(await store.get(parked.id)).toBeDefined();
      // Neither the binding's topic nor the address was created by asking or sending.
      const after = await admin.listTopics();
      expect(after).not.toContain(topic);
      expect(after).not.toContain(wrong);

      await admin.createTopics({
        topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '2048' }] }],
        waitForLeaders: true,
      });
      // The broker refuses a record over the topic's limit: no acknowledgement, so the record stays.
      const big = await store.park(parkRequest(ping('x'.repeat(4_000))), new Date());
      const refused = await cli(['redrive', big.id, '--store', file, '--yes'], project, vars);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/republishing parked message .* to kafka .* failed: .*(too large|larger)/i);
      expect(await store.get(big.id)).toBeDefined();

      const done = await cli(['redrive', parked.id, '--store', file, '--yes'], project, vars);
      expect(done.stdout).toContain(
        `republished parked message ${parked.id} (LocationPing on courierLocationPings, group dispatch.courier-positions) to Kafka topic ${topic} (address courier.location-pings) and removed it`,
      );
      expect(done.code).toBe(0);
      expect(await store.get(parked.id)).toBeUndefined();
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['1']);
      expect(await admin.listTopics()).not.toContain(wrong);
    } finally {
      db.close();
    }
  }, 240_000);

  it('ten concurrent redrives of one dead letter through the operations page (token and CSRF) publish it once', async () => {
    const TOKEN = 'redrive-token-0123456789abcdef';
    const db = new Database(join(dir, 'ops.db'));
    migrateSqlite(db);
    const store = new SqliteDeadLetterStore(db);
    const namespace = `ops${randomUUID().slice(0, 6)}`;
    const topic = `${namespace}.library.book-integration-events`;
    const transport = createKafkaTransport({
      driver: kafkaDriver,
      brokers: [brokers],
      namespace,
      logger: silentLogger,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
    const host = createMessaging({ transport, deadLetters: store, logger: silentLogger });
    host.publisher(BookIntegrationEvents);
    const server = await serveOperations(host, { port: 0, token: TOKEN });
    try {
      const memory = new InMemoryTransport();
      const source = createMessaging({ transport: memory, logger: silentLogger });
      await source.publisher(BookIntegrationEvents, { lingerMs: 0 }).publish(borrowed('C-ops'));
      const [sent] = memory.published(BookIntegrationEvents);
      await source.stop();
      const parked = await store.park(
        {
          channel: 'bookIntegrationEvents',
          address: 'library.book-integration-events',
          groupId: 'inventory.book-availability',
          type: 'BookBorrowed',
          payload: sent!.record.value,
          headers: sent!.record.headers,
          ...(sent!.record.key === undefined ? {} : { key: sent!.record.key }),
          error: { name: 'Error', message: 'inventory database unavailable' },
          attempts: 3,
          firstFailureAt: new Date(0),
          lastFailureAt: new Date(1),
        },
        new Date(),
      );
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const page = await (await fetch(`${server.url}/dead-letters/${parked.id}`)).text();
      const csrf = new RegExp(`action="/dead-letters/${parked.id}/redrive"[^]*?name="csrf" value="([^"]+)"`).exec(page)![1]!;
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${server.url}/dead-letters/${parked.id}/redrive`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
            body: new URLSearchParams({ csrf, token: TOKEN }).toString(),
          }).then((r) => r.status),
        ),
      );
      expect(responses.filter((s) => s === 303)).toHaveLength(1);
      expect(responses.filter((s) => s !== 303).every((s) => s === 404 || s === 409)).toBe(true);
      expect((await admin.fetchTopicOffsets(topic)).map((o) => o.high)).toEqual(['1']);
      expect(await store.get(parked.id)).toBeUndefined();
    } finally {
      await server.close();
      await host.stop();
      db.close();
    }
  }, 240_000);
});
