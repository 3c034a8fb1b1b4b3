// The consumer of the platformatic driver against the real broker, on a transport of its own
// (records written with the kafkajs driver): where a group starts, commits only after the belt
// acknowledged, read_committed, pause per partition, and headers decoded in linear time.

import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createKafkaTransport, type KafkaDriverTransport, type KafkaTransportOptions } from '@keiyaku/kafka';
import type { IncomingRecord, OutgoingRecord, TransportConsumer } from '@keiyaku/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlatformaticClients } from '../../runtime/kafka/platformatic/client.js';
import { PlatformaticTransportConsumer } from '../../runtime/kafka/platformatic/consumer.js';
import { kafkaBrokers, kafkaSkipReason, testLogger } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const groupProtocol = process.env['KAFKA_GROUP_PROTOCOL'] === 'consumer' ? 'consumer' : 'classic';
// The broker started by scripts/kafka has a SASL/PLAIN listener on its port + 2 (as in kafka-auth.test.ts).
const saslBroker =
  process.env['KAFKA_SASL_BROKERS'] ??
  (kafkaBrokers === '' || process.env['KAFKA_BROKERS']
    ? ''
    : kafkaBrokers.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 2}`));
const saslSkip = saslBroker === '' ? 'an external broker without KAFKA_SASL_BROKERS' : '';
if (saslSkip !== '' && kafkaBrokers !== '') {
  if (process.env['CI']) throw new Error(`the SASL case of the platformatic consumer cannot run in CI: ${saslSkip}`);
  process.stdout.write(`skipped: the platformatic consumer's rejected-credential case (${saslSkip})\n`);
}
const transports: KafkaDriverTransport[] = [];
afterAll(async () => {
  await Promise.allSettled(transports.map((t) => t.close()));
});

/** A kafkajs-driver transport to write with, and the platformatic clients a consumer reads through. */
function setUp(options: Partial<KafkaTransportOptions> = {}): { writer: KafkaDriverTransport; clients: PlatformaticClients } {
  const writer = createKafkaTransport({
    driver: 'kafkajs',
    brokers: kafkaBrokers.split(','),
    clientId: 'keiyaku-tests',
    namespace: `t${randomUUID().slice(0, 8)}`,
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 500,
    maxWaitTimeInMs: 100,
    logger: testLogger,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    ...options,
  });
  transports.push(writer);
  const clients: PlatformaticClients = {
    options: { ...writer.options, groupProtocol },
    logger: writer.logger,
    topic: (address) => writer.topic(address),
    group: (groupId) => writer.group(groupId),
    provision: (address, bindings) => writer.provision(address, bindings),
    contentMode: (address) => writer.contentMode(address),
    load: () => import('@platformatic/kafka'),
    baseOptions: () => ({
      clientId: 'keiyaku-tests',
      bootstrapBrokers: [...writer.options.brokers],
      retries: 3,
      retryDelay: 200,
      timeout: 5_000,
      ...(writer.options.sasl?.mechanism === 'plain'
        ? { sasl: { mechanism: 'PLAIN' as const, username: writer.options.sasl.username, password: writer.options.sasl.password } }
        : {}),
    }),
  };
  return { writer, clients };
}

const record = (address: string, id: string, key = id, headers: Record<string, string> = { ce_id: id }): OutgoingRecord => ({
  address,
  key,
  value: new TextEncoder().encode(id),
  headers,
});
const text = (r: IncomingRecord): string => new TextDecoder().decode(r.value);

function consumer(clients: PlatformaticClients, address: string, groupId: string, batchSize = 500, isolation?: 'read_uncommitted') {
  return new PlatformaticTransportConsumer(clients, { address, groupId, batchSize, ...(isolation ? { isolation } : {}) }, () => {});
}

/** Polls `c` until `count` records arrived (acknowledging each), or fails after `timeoutMs`. */
async function take(c: TransportConsumer, count: number, timeoutMs = 30_000): Promise<IncomingRecord[]> {
  const seen: IncomingRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (seen.length < count) {
    if (Date.now() > deadline) throw new Error(`timed out after ${seen.length} of ${count} records: ${seen.map(text).join(',')}`);
    for (const r of await c.poll(AbortSignal.timeout(1_000))) {
      seen.push(r);
      c.ack(r);
    }
  }
  return seen;
}

run(`the platformatic consumer on a real broker (${groupProtocol} group protocol)${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('a new group reads from the earliest record; a restarted member resumes from what was committed, not before', async () => {
    const { writer, clients } = setUp();
    const address = `pc.${randomUUID().slice(0, 8)}`;
    await writer.provision(address, { kafka: { partitions: 3 } });
    const producer = writer.producer();
    await producer.send(Array.from({ length: 30 }, (_, i) => record(address, `a${i}`, `k${i % 7}`)));
    const first = consumer(clients, address, 'resume');
    const read = await take(first, 30);
    expect(new Set(read.map(text)).size).toBe(30);
    expect(read[0]).toMatchObject({ address, headers: { ce_id: expect.any(String) } });
    await first.commit();
    const positions = first.positions();
    expect(positions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(positions.reduce((n, p) => n + Number(p.committed ?? 0), 0)).toBe(30);
    expect(positions.every((p) => p.lag === 0)).toBe(true);
    await first.close();

    await producer.send(Array.from({ length: 5 }, (_, i) => record(address, `b${i}`)));
    const second = consumer(clients, address, 'resume');
    expect((await take(second, 5)).map(text).sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    // Nothing more: what the first member committed is not read again.
    expect(await second.poll(AbortSignal.timeout(1_500))).toEqual([]);
    await second.close();
    await producer.close();
  });

  it('acknowledged but uncommitted records are read again by the next member; fromBeginning: false starts at the end', async () => {
    const { writer, clients } = setUp();
    const address = `pc.${randomUUID().slice(0, 8)}`;
    await writer.provision(address, { kafka: { partitions: 1 } });
    const producer = writer.producer();
    await producer.send(['x1', 'x2', 'x3'].map((id) => record(address, id)));
    const first = consumer(clients, address, 'uncommitted');
    await take(first, 3);
    await first.close(); // no commit
    const again = consumer(clients, address, 'uncommitted');
    expect((await take(again, 3)).map(text)).toEqual(['x1', 'x2', 'x3']);
    expect(again.uncommitted?.()).toEqual([{ address, partition: 0, offset: '3' }]);
    await again.close();

    const { clients: latest } = setUp({ namespace: writer.options.namespace!, fromBeginning: false });
    const late = consumer(latest, address, 'latest');
    await waitAssigned(late);
    await producer.send([record(address, 'new')]);
    expect((await take(late, 1)).map(text)).toEqual(['new']);
    await late.close();
    await producer.close();
  });

  it('read_committed skips aborted transactions and steps over the markers (no lag left); read_uncommitted reads all', async () => {
    const { writer, clients } = setUp();
    const address = `pc.${randomUUID().slice(0, 8)}`;
    await writer.provision(address, { kafka: { partitions: 1 } });
    const tx = writer.transactionalProducer(`w-${randomUUID().slice(0, 8)}`);
    const committed = await tx.begin();
    await committed.send([record(address, 'c1'), record(address, 'c2')]);
    await committed.commit();
    const aborted = await tx.begin();
    await aborted.send([record(address, 'a1'), record(address, 'a2')]);
    await aborted.abort();
    const last = await tx.begin();
    await last.send([record(address, 'end')]);
    await last.commit();
    await tx.close();

    const reader = consumer(clients, address, 'committed');
    expect((await take(reader, 3)).map(text)).toEqual(['c1', 'c2', 'end']);
    await reader.commit();
    // 2 + marker + 2 aborted + marker + 1 + marker: the committed offset is the end of the partition.
    await expect.poll(() => reader.positions()[0]).toMatchObject({ committed: '8', highWatermark: '8', lag: 0 });
    await reader.close();

    const all = consumer(clients, address, 'uncommitted', 500, 'read_uncommitted');
    expect((await take(all, 5)).map(text)).toEqual(['c1', 'c2', 'a1', 'a2', 'end']);
    await all.close();
  });

  it('a paused partition is not fetched while the others flow; resumed, it continues where it stopped', async () => {
    const { writer, clients } = setUp();
    const address = `pc.${randomUUID().slice(0, 8)}`;
    await writer.provision(address, { kafka: { partitions: 2 } });
    const c = consumer(clients, address, 'pause');
    await waitAssigned(c);
    c.pause(0);
    const producer = writer.producer();
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    await producer.send(keys.map((k) => record(address, k, k)));
    const seen = await take(c, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const r of await c.poll(AbortSignal.timeout(200))) seen.push(r);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.partition === 1)).toBe(true);
    expect(seen.length).toBeLessThan(keys.length); // murmur2 puts some of these keys on partition 0
    c.resume(0);
    const rest = await take(c, keys.length - seen.length);
    expect(rest.every((r) => r.partition === 0)).toBe(true);
    expect([...seen, ...rest].map(text).sort()).toEqual([...keys].sort());
    await c.close();
    await producer.close();
  });

  it('decodes a record with 8,000 headers whole, in linear time: the event loop is not blocked for long', async () => {
    // The writer's own header limit (maxHeaders, default 1,000) is raised: this record stands for one from a writer
    // keiyaku does not control.
    const { writer, clients } = setUp({ maxHeaders: 10_000 });
    const address = `pc.${randomUUID().slice(0, 8)}`;
    await writer.provision(address, { kafka: { partitions: 1 } });
    const headers: Record<string, string> = {};
    for (let i = 0; i < 8_000; i++) headers[`h${i}`] = `v${i}`;
    const producer = writer.producer();
    await producer.send([record(address, 'many', 'many', headers)]);
    await producer.close();
    const c = consumer(clients, address, 'headers');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const [got] = await take(c, 1);
    delay.disable();
    const maxMs = delay.max / 1e6;
    process.stdout.write(`8,000 headers: longest event-loop delay while consuming ${maxMs.toFixed(1)} ms\n`);
    expect(Object.keys(got!.headers)).toHaveLength(8_000);
    expect(got!.headers['h7999']).toBe('v7999');
    expect(maxMs).toBeLessThan(1_000);
    await c.close();
  });

  it.skipIf(saslSkip !== '')(
    `a rejected credential faults the consumer (not ready) instead of retrying as an outage${saslSkip ? ` (${saslSkip})` : ''}`,
    async () => {
      const { clients } = setUp({ brokers: [saslBroker], sasl: { mechanism: 'plain', username: 'keiyaku', password: 'wrong' } });
      const c = consumer(clients, 'pc.auth', 'auth');
      await expect.poll(() => c.status().fault, { timeout: 30_000 }).toMatch(/SASL|[Aa]uthentication/);
      await expect(c.poll(AbortSignal.timeout(100))).rejects.toMatchObject({ name: 'TransportError', retriable: false });
      expect(c.status().cutOffSince).toBeUndefined();
      await c.close();
    },
  );
});

async function waitAssigned(c: TransportConsumer): Promise<void> {
  await expect.poll(() => c.positions().length, { timeout: 30_000 }).toBeGreaterThan(0);
  // Where the partitions start is looked up right after the assignment; give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('the group protocol option', () => {
  it('the kafkajs driver refuses the KIP-848 consumer protocol, naming the fix', () => {
    expect(() => createKafkaTransport({ driver: 'kafkajs', brokers: ['127.0.0.1:9'], groupProtocol: 'consumer' })).toThrow(
      expect.objectContaining({ code: 'kafka_group_protocol_unsupported', message: expect.stringContaining('platformatic') }),
    );
    expect(createKafkaTransport({ driver: 'kafkajs', brokers: ['127.0.0.1:9'], groupProtocol: 'classic' }).driver).toBe('kafkajs');
  });
});
