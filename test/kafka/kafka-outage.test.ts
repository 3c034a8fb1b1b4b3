// Fault test: the broker goes away in the middle of a stream and comes back. Publishers
// retry, the consumer knows it is cut off, does not commit, rebuilds its client in place
// and resumes from committed offsets. Every message must arrive: zero lost.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createKafkaTransport } from '@keiyaku/kafka';
import { createMessaging, type Logger } from '@keiyaku/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { repoRoot, waitFor } from '../helpers.js';
import { portFromEnv } from '../setup/ports.js';
import { kafkaDriver, kafkaSkipReason } from './kafka-env.js';

const canRunBroker =
  spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0 && spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status === 0;
const reason = kafkaSkipReason || (canRunBroker ? '' : 'the outage test starts and stops its own broker and needs java and mvn');
// Its own broker on KAFKA_OUTAGE_PORT, else on free ports (never the one the other test files share).
const env = { ...process.env, KAFKA_PORT: reason ? '' : await portFromEnv('KAFKA_OUTAGE_PORT', 3) };
const kafka = (command: string): string =>
  execFileSync(join(repoRoot, 'scripts', 'kafka'), [command], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

afterAll(() => {
  if (!reason) kafka('stop');
});

(reason ? describe.skip : describe)(`Kafka outage and recovery${reason ? ` (${reason})` : ''}`, () => {
  it('loses nothing when the broker is SIGKILLed mid-stream and restarted', async () => {
    const brokers = kafka('start').split('\n').pop()!;
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
    };
    const transport = createKafkaTransport({
      driver: kafkaDriver,
      brokers: [brokers],
      namespace: 'outage',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      maxWaitTimeInMs: 100,
      rebuildAfterMs: 3_000,
      maxRebuildIntervalMs: 10_000,
      retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 1_000 },
      client: { connectionTimeout: 1_000, requestTimeout: 5_000 },
      logger,
    });
    const host = createMessaging({ transport, logger });
    // What the transport says of itself during the outage (its health, whatever the driver logs).
    let cutOffSeen = false;
    let rebuilds = 0;
    const sampler = setInterval(() => {
      const health = transport.health();
      if (!health.ready) cutOffSeen = true;
      rebuilds = Math.max(rebuilds, (health.details as { rebuilds: number }).rebuilds);
    }, 100);
    const received = new Map<string, number>();
    host.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.book-availability',
      handle(message) {
        received.set(message.copyId, (received.get(message.copyId) ?? 0) + 1);
      },
    });
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, {
      key: (m) => m.bookId,
      maxBatchCount: 500,
      maxAttempts: 8,
      retry: { initialMs: 250, maxMs: 2_000 },
    });
    const TOTAL = 20_000;
    const CHUNK = 500;
    let callerRetries = 0;
    const message = (i: number) =>
      BookBorrowed.create({
        bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 24).padStart(12, '0')}`,
        copyId: `C-${i}`,
        borrower: { memberId: 'M-1001' },
        borrowedAt: '2026-11-02T10:15:00Z',
        dueAt: '2026-11-23T10:15:00Z',
        channel: 'desk',
      });
    // A send that finally fails reaches the caller; this caller publishes the chunk again (at least once).
    const sendChunk = async (from: number): Promise<void> => {
      const chunk = Array.from({ length: Math.min(CHUNK, TOTAL - from) }, (_, k) => message(from + k));
      for (;;) {
        try {
          await publisher.publishMany(chunk);
          return;
        } catch {
          callerRetries++;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    let killed = false;
    for (let from = 0; from < TOTAL; from += CHUNK) {
      if (!killed && from >= TOTAL / 4) {
        await waitFor(() => received.size >= TOTAL / 8, 'the consumer is flowing before the kill', 60_000);
        kafka('kill'); // SIGKILL mid-stream, data kept
        killed = true;
        setTimeout(() => kafka('start'), 5_000); // and back after five seconds
      }
      await sendChunk(from);
    }
    try {
      await waitFor(() => received.size === TOTAL, `all ${TOTAL} messages arrive`, 120_000);
    } catch (error) {
      const { Kafka } = await import('kafkajs');
      const admin = new Kafka({ brokers: [brokers], logLevel: 0 }).admin();
      await admin.connect();
      const groups = await admin.describeGroups([transport.group('inventory.book-availability')]);
      await admin.disconnect();
      const health = JSON.stringify({
        members: groups.groups[0]?.members.map((m) => [m.clientId, m.memberId, m.clientHost]),
        state: groups.groups[0]?.state,
        positions: host.health().subscriptions[0]?.positions.map((p) => p.partition),
      });
      throw new Error(
        `${(error as Error).message}: received ${received.size}; health ${health}; log tail:\n${lines.slice(-25).join('\n')}`,
      );
    }
    await host.stop();
    clearInterval(sampler);

    const lost = Array.from({ length: TOTAL }, (_, i) => `C-${i}`).filter((id) => !received.has(id));
    const duplicates = [...received.values()].reduce((n, c) => n + c - 1, 0);
    expect(lost).toEqual([]);
    // The outage was seen: the transport reported itself cut off from the brokers while the broker was down.
    expect(cutOffSeen).toBe(true);
    process.stdout.write(
      `fault test: ${TOTAL} published; broker SIGKILLed and restarted mid-stream; ${TOTAL - lost.length} consumed at least once, ${lost.length} lost, ${duplicates} duplicates, ${callerRetries} chunk re-publishes by the caller, ${rebuilds} client rebuilds (${kafkaDriver} driver)\n`,
    );
  }, 300_000);
});
