// The publish timeout (librdkafka's message.timeout.ms, set through the configuration's properties)
// on a real broker that goes away: a send tells its caller with a PublishTimeoutError once the
// timeout has passed, however long kafkajs would keep retrying; a producer replaced by a rebuild
// while a send is in flight on it has told that caller within the same bound; after the broker
// is back, sends succeed again. The test halts and restarts a broker of its own (KAFKA_HALT_PORT,
// else free ports; one already running on KAFKA_HALT_PORT is restarted, not stopped, at the end).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type KafkaDriverTransport, PublishTimeoutError } from '@keiyaku/kafka';
import { createMessaging, type Logger, PublishError, TransportError } from '@keiyaku/runtime';
import { createTransport } from '@keiyaku/runtime/config';
import { afterAll, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { repoRoot, waitFor } from '../helpers.js';
import { portFromEnv } from '../setup/ports.js';
import { kafkaDriver, kafkaSkipReason } from './kafka-env.js';

const canRunBroker =
  spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0 && spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status === 0;
const reason = kafkaSkipReason || (canRunBroker ? '' : 'this test halts and restarts its own broker and needs java and mvn');
const port = reason ? '' : await portFromEnv('KAFKA_HALT_PORT', 3);
const env = { ...process.env, KAFKA_PORT: port };
const kafka = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'kafka'), [command], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const wasRunning = !reason && spawnSync(join(repoRoot, 'scripts', 'kafka'), ['status'], { env, stdio: 'ignore' }).status === 0;

afterAll(() => {
  if (reason) return;
  if (wasRunning) kafka('start');
  else kafka('stop');
});

const TIMEOUT_MS = 3_000;
const SLACK_MS = 2_000;

const record = (i: number) => ({
  address: 'library.book-integration-events',
  key: `book-${i % 3}`,
  value: new TextEncoder().encode(`{"n":${i}}`),
  headers: { ce_id: `id-${i}` },
});

/** How long `promise` took to settle, and what it settled with. */
async function timed(promise: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const start = Date.now();
  try {
    await promise;
    return { ms: Date.now() - start, error: undefined };
  } catch (error) {
    return { ms: Date.now() - start, error };
  }
}

(reason ? describe.skip : describe)(`Kafka publish timeout${reason ? ` (${reason})` : ''}`, () => {
  it('tells the caller after message.timeout.ms while the broker is down, also across a producer rebuild', async () => {
    const brokers = kafka('start').split('\n').pop()!;
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
    };
    const transport = (await createTransport(
      {
        transport: 'kafka',
        kafka: {
          bootstrapServers: brokers,
          // The driver comes from the configuration, as in a service.
          ...(kafkaDriver === 'kafkajs' ? {} : { driver: kafkaDriver }),
          namespace: `timeout${Date.now()}`,
          rebuildAfterMs: 1_000,
          properties: {
            'message.timeout.ms': TIMEOUT_MS,
            'socket.connection.setup.timeout.ms': 1_000,
            // kafkajs alone would keep retrying far longer than the publish timeout.
            retries: 1_000,
            'retry.backoff.ms': 200,
            'retry.backoff.max.ms': 1_000,
          },
        },
      },
      { logger },
    )) as KafkaDriverTransport;
    expect(transport.options.publishTimeoutMs).toBe(TIMEOUT_MS);
    await transport.provision('library.book-integration-events', {});
    const producer = transport.producer();
    await producer.send([record(0)]);

    kafka('halt');
    try {
      // 1. A send on the live producer: told after the timeout, with a typed, retriable error.
      const first = await timed(producer.send([record(1)]));
      expect(first.error).toBeInstanceOf(PublishTimeoutError);
      expect(first.error).toBeInstanceOf(TransportError);
      expect(first.error).toMatchObject({ code: 'publish_timeout', retriable: true, timeoutMs: TIMEOUT_MS, transport: 'kafka' });
      expect(first.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(first.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);

      // 2. A send in flight on a producer that a rebuild replaces: its caller is told within the same bound.
      await waitFor(() => !transport.health().ready, 'the producer knows it is cut off', 10_000);
      const inFlight = timed(producer.send([record(2)]));
      await new Promise((resolve) => setTimeout(resolve, 1_200)); // past rebuildAfterMs
      const onNewProducer = timed(producer.send([record(3)])); // this send replaces the producer
      const [old, fresh] = await Promise.all([inFlight, onNewProducer]);
      // The producer was rebuilt (its health counts it, whatever the driver logs).
      expect((transport.health().details as { rebuilds: number }).rebuilds).toBeGreaterThanOrEqual(1);
      expect(old.error).toBeInstanceOf(PublishTimeoutError);
      expect(old.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(fresh.error).toBeInstanceOf(PublishTimeoutError);
      expect(fresh.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);

      // 3. Through a publisher: with one attempt, the caller's publish rejects with the timeout as the cause.
      const messaging = createMessaging({ transport, logger });
      const books = messaging.publisher(BookIntegrationEvents, { maxAttempts: 1 });
      const published = await timed(
        books.publish(
          BookBorrowed.create({
            bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
            copyId: 'C-1',
            borrower: { memberId: 'M-1001' },
            borrowedAt: '2026-11-02T10:15:00Z',
            dueAt: '2026-11-23T10:15:00Z',
            channel: 'desk',
          }),
        ),
      );
      expect(published.error).toBeInstanceOf(PublishError);
      expect((published.error as PublishError).cause).toBeInstanceOf(PublishTimeoutError);
      expect(published.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    } finally {
      kafka('start');
    }

    // 4. The broker is back: sends succeed again.
    await waitFor(
      async () => {
        try {
          await producer.send([record(4)]);
          return true;
        } catch {
          return false;
        }
      },
      'a send succeeds after the broker is back',
      60_000,
    );
    await transport.close();
  }, 180_000);
});
