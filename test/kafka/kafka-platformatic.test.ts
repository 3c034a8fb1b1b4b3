// What only the platformatic driver has to prove: a key lands on the partition kafkajs puts it on,
// records carry the same bytes whichever driver wrote them, SASL credentials map onto its client,
// and a service without @platformatic/kafka is told how to install it. The shared behaviour is
// proven by the other Kafka suites with KAFKA_DRIVER=platformatic.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createKafkaTransport, type KafkaDriverTransport, PlatformaticKafkaTransport } from '@keiyaku/kafka';
import type { OutgoingRecord } from '@keiyaku/runtime';
import { AuthenticationError, MultipleErrors, NetworkError, ProtocolError } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isAuthentication,
  isConnectivity,
  isFenced,
  isLeadershipPending,
  isTopicExists,
  toTransportError,
} from '../../runtime/kafka/platformatic/errors.js';
import { kafkaBrokers, kafkaSkipReason, testLogger } from './kafka-env.js';

const opened: KafkaDriverTransport[] = [];
afterAll(async () => {
  await Promise.allSettled(opened.map((t) => t.close()));
});

function transport(driver: 'kafkajs' | 'platformatic', namespace: string, more: Record<string, unknown> = {}): KafkaDriverTransport {
  const made = createKafkaTransport({
    driver,
    brokers: kafkaBrokers.split(','),
    clientId: 'keiyaku-tests',
    namespace,
    logger: testLogger,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    ...more,
  });
  opened.push(made);
  return made;
}

interface Seen {
  readonly partition: number;
  readonly key: string | undefined;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/** Every record of `topic`, read from the start with a plain kafkajs consumer, by value. */
async function readAll(topic: string, count: number): Promise<Map<string, Seen>> {
  const kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-reader', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const seen = new Map<string, Seen>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${seen.size} of ${count} records of ${topic}`)), 30_000);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
          const value = message.value?.toString('utf8') ?? '';
          seen.set(value, { partition, key: message.key?.toString('utf8'), value, headers });
          if (seen.size >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

const keys = [
  '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  'a',
  'Bücher',
  '日本',
  '😀x',
  ...Array.from({ length: 195 }, (_, i) => `book-${i * 7919}`),
];

(kafkaSkipReason ? describe.skip : describe)(`Kafka platformatic driver${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('puts every key on the partition kafkajs puts it on, with the same headers, in one topic written by both drivers', async () => {
    const namespace = `t${randomUUID().slice(0, 8)}`;
    const address = 'library.partitioning';
    const bindings = { kafka: { partitions: 6 } };
    const drivers = ['kafkajs', 'platformatic'] as const;
    for (const driver of drivers) {
      const t = transport(driver, namespace);
      await t.provision(address, bindings);
      const records: OutgoingRecord[] = keys.map((key) => ({
        address,
        key,
        value: new TextEncoder().encode(`${driver}|${key}`),
        headers: { ce_id: `${driver}-${key}`, ce_type: 'library.book.borrowed', 'x-ünicode': 'wert ✓' },
      }));
      await t.producer().send(records);
    }
    const seen = await readAll(`${namespace}.${address}`, keys.length * drivers.length);
    const partitions = new Set<number>();
    for (const key of keys) {
      const byKafkajs = seen.get(`kafkajs|${key}`);
      const byPlatformatic = seen.get(`platformatic|${key}`);
      expect(byPlatformatic?.partition, key).toBe(byKafkajs?.partition);
      expect(byPlatformatic?.key).toBe(key);
      expect(byPlatformatic?.headers).toEqual({ ...byKafkajs?.headers, ce_id: `platformatic-${key}` });
      partitions.add(byKafkajs!.partition);
    }
    // The keys spread over the topic: equal partitions are not all partition 0.
    expect(partitions.size).toBe(6);
  });

  it('writes structured content mode as the kafkajs driver does: the same value bytes and headers', async () => {
    const namespace = `t${randomUUID().slice(0, 8)}`;
    const address = 'library.structured';
    const headers = {
      ce_id: 'id-1',
      ce_type: 'library.book.borrowed',
      ce_source: '/library',
      ce_specversion: '1.0',
      'content-type': 'application/json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    for (const driver of ['kafkajs', 'platformatic'] as const) {
      const t = transport(driver, namespace, { contentMode: 'structured' });
      await t.provision(address, { kafka: { partitions: 1 } });
      await t.producer().send([{ address, key: driver, value: new TextEncoder().encode(`{"by":"${driver}"}`), headers }]);
    }
    const seen = [...(await readAll(`${namespace}.${address}`, 2)).values()];
    const by = (driver: string): Seen => seen.find((s) => s.key === driver)!;
    expect(by('platformatic').headers).toEqual(by('kafkajs').headers);
    expect(by('platformatic').value).toBe(by('kafkajs').value.replace('"by":"kafkajs"', '"by":"platformatic"'));
    expect(JSON.parse(by('platformatic').value)).toMatchObject({ id: 'id-1', specversion: '1.0', data: { by: 'platformatic' } });
  });

  it('is the transport createKafkaTransport makes for driver platformatic, and reports health as the kafkajs one', async () => {
    const t = transport('platformatic', `t${randomUUID().slice(0, 8)}`);
    expect(t).toBeInstanceOf(PlatformaticKafkaTransport);
    expect(t.driver).toBe('platformatic');
    await t.provision('library.health', { kafka: { partitions: 2 } });
    await t.producer().send([{ address: 'library.health', key: 'k', value: new Uint8Array([1]), headers: {} }]);
    expect(t.health()).toMatchObject({
      name: 'kafka',
      ready: true,
      details: { rebuilds: 0, producers: [{ role: 'producer', rebuilds: 0 }] },
    });
    expect(await t.destinationExists('library.health', {})).toBe(true);
    expect(await t.destinationExists('library.never-created', {})).toBe(false);
  });

  it('refuses a SASL mechanism it does not speak, naming the ones it does', () => {
    expect(
      () =>
        new PlatformaticKafkaTransport({
          brokers: ['127.0.0.1:9'],
          sasl: { mechanism: 'aws', authorizationIdentity: 'x', accessKeyId: 'a', secretAccessKey: 's' },
        }),
    ).toThrow(expect.objectContaining({ code: 'kafka_sasl_unsupported', message: expect.stringMatching(/plain, scram-sha-256/) }));
  });

  it('tells a service without @platformatic/kafka to install it (and importing @keiyaku/kafka does not need it)', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(import.meta.dirname, 'platformatic-missing-child.ts')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toMatchObject({
      name: 'KeiyakuError',
      code: 'kafka_driver_missing',
      message: expect.stringContaining('npm install @platformatic/kafka'),
    });
  });
});

// The broker started by scripts/kafka has a SASL/PLAIN listener on its port + 2.
const saslReason =
  kafkaSkipReason ||
  (process.env['KAFKA_BROKERS'] && !process.env['KAFKA_SASL_BROKERS'] ? 'an external broker without KAFKA_SASL_BROKERS' : '');
const saslBrokers = process.env['KAFKA_SASL_BROKERS'] ?? kafkaBrokers.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 2}`);

(saslReason ? describe.skip : describe)(`Kafka platformatic driver over SASL PLAIN${saslReason ? ` (${saslReason})` : ''}`, () => {
  it('provisions and publishes with the right credentials', async () => {
    const t = transport('platformatic', `t${randomUUID().slice(0, 8)}`, {
      brokers: saslBrokers.split(','),
      sasl: { mechanism: 'plain', username: 'keiyaku', password: 'keiyaku-secret' },
    });
    await t.provision('library.sasl', { kafka: { partitions: 1 } });
    await t.producer().send([{ address: 'library.sasl', key: 'k', value: new TextEncoder().encode('v'), headers: { ce_id: '1' } }]);
    expect(await t.destinationExists('library.sasl', {})).toBe(true);
  });

  it('fails a publish with a rejected credential at once, as a non-retriable error', async () => {
    const t = transport('platformatic', `t${randomUUID().slice(0, 8)}`, {
      brokers: saslBrokers.split(','),
      sasl: { mechanism: 'plain', username: 'keiyaku', password: 'wrong' },
      retry: { retries: 1, initialRetryTime: 100 },
    });
    const sent = t.producer().send([{ address: 'library.sasl', key: 'k', value: new Uint8Array([1]), headers: {} }]);
    await expect(sent).rejects.toMatchObject({ name: 'TransportError', retriable: false });
  });
});

describe('what a @platformatic/kafka error means', () => {
  // Errors as the client builds them: a retried operation's MultipleErrors holds each attempt's error,
  // a failed connection holds its cause, a broker's answer is a ProtocolError with the error's name.
  const attempts = (...errors: Error[]) => new MultipleErrors('produce failed 2 times.', errors);

  it('tells an outage from a rejected credential, a fenced producer and a moving leader', () => {
    const refused = attempts(
      new NetworkError('Connection to 127.0.0.1:9 failed.', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      }),
    );
    const rejected = attempts(
      new NetworkError('Connection to 127.0.0.1:9 failed.', {
        cause: new AuthenticationError('SASL authentication failed.', { cause: new ProtocolError('SASL_AUTHENTICATION_FAILED') }),
      }),
    );
    const fenced = attempts(new ProtocolError('PRODUCER_FENCED'));
    const moving = attempts(new ProtocolError('NOT_LEADER_OR_FOLLOWER'));
    expect([refused, rejected, fenced, moving].map(isConnectivity)).toEqual([true, false, false, false]);
    expect([refused, rejected, fenced, moving].map(isAuthentication)).toEqual([false, true, false, false]);
    expect([refused, rejected, fenced, moving].map(isFenced)).toEqual([false, false, true, false]);
    expect([refused, rejected, fenced, moving].map(isLeadershipPending)).toEqual([false, false, false, true]);
    expect(isTopicExists(attempts(new ProtocolError('TOPIC_ALREADY_EXISTS')))).toBe(true);
  });

  it('becomes a TransportError naming the causes, not retriable for a rejected credential', () => {
    const rejected = toTransportError(
      attempts(new NetworkError('Connection to b:9092 failed.', { cause: new AuthenticationError('SASL authentication failed.') })),
      'library.books',
    );
    expect(rejected).toMatchObject({ name: 'TransportError', retriable: false, address: 'library.books' });
    expect(rejected.message).toBe('produce failed 2 times. (Connection to b:9092 failed: SASL authentication failed)');
    expect(toTransportError(attempts(new NetworkError('Connection to b:9092 failed.')))).toMatchObject({ retriable: true });
  });
});
