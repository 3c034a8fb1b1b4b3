// Commits that keep failing (a broker cut off: the Kafka consumer refuses to commit while it is)
// must show, but not as a flood: every poll commits, so an outage of minutes used to write ten
// warnings a second. The first failure is a warning, then at most one per stall-log interval with
// the failures in between counted, and the recovery is one info line.
import { createMessaging, ManualClock, type Messaging, TransportError } from '@keiyaku/runtime';
import type { ConsumerOptions, Transport, TransportConsumer } from '@keiyaku/runtime/adapter';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { type LogLine as Line, recordingLogger, waitFor } from '../helpers.js';

/** The memory transport, with consumers whose commits fail while `down`. */
class CutOffTransport extends InMemoryTransport {
  down = true;
  commits = { failed: 0, done: 0 };
  override consumer(options: ConsumerOptions): TransportConsumer {
    const inner = super.consumer(options);
    const commit = async (): Promise<void> => {
      if (this.down) {
        this.commits.failed++;
        throw new TransportError('memory', 'not committing while cut off from the brokers');
      }
      await inner.commit();
      this.commits.done++;
    };
    return new Proxy(inner, {
      get: (target, key) => {
        if (key === 'commit') return commit;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

describe('commits that keep failing', () => {
  it('warn once, then at most once per interval with the failures counted, and say when commits succeed again', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
    const transport: Transport & CutOffTransport = new CutOffTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const logger = recordingLogger();
    const host = createMessaging({ logger, transport, clock, shutdownBudgetMs: 1_000 });
    hosts.push(host);
    const handled: string[] = [];
    host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.commits', handle: (m) => void handled.push(m.copyId) },
      { batchSize: 1, stallLogIntervalMs: 30_000 },
    );
    const publisher = host.publisher(BookIntegrationEvents, { key: () => 'one-key', lingerMs: 0 });
    await host.start();
    for (let i = 0; i < 5; i++) await publisher.publish(borrowed(`C-${i}`));
    await waitFor(() => handled.length === 5 && transport.commits.failed >= 5, 'five handled, their commits failing');

    const commitLines = (level: Line['level']) => logger.lines.filter((l) => l.level === level && l.message.includes('commit'));
    expect(commitLines('warn').map((l) => l.message)).toEqual(['commit failed; will retry with the next commit']);
    expect(commitLines('debug').length).toBeGreaterThanOrEqual(4);

    await clock.advance(30_000);
    const failedBefore = transport.commits.failed;
    await publisher.publish(borrowed('C-5'));
    await waitFor(() => transport.commits.failed > failedBefore, 'a commit after the interval');
    const again = commitLines('warn');
    expect(again.map((l) => l.message)).toEqual([
      'commit failed; will retry with the next commit',
      'commits still failing; will retry with the next commit',
    ]);
    expect(again[1]!.fields.failingMs).toBeGreaterThanOrEqual(30_000);
    const quietBefore = logger.lines
      .slice(0, logger.lines.indexOf(again[1]!))
      .filter((l) => l.level === 'debug' && l.message.includes('commit')).length;
    expect(again[1]!.fields.failuresSinceLastWarning).toBe(quietBefore);

    transport.down = false;
    await publisher.publish(borrowed('C-6'));
    await waitFor(() => transport.commits.done > 0, 'a commit once the broker is back');
    const recovered = commitLines('info');
    expect(recovered.map((l) => l.message)).toEqual(['commits succeed again']);
    expect(recovered[0]!.fields.failedCommits).toBe(transport.commits.failed);
    expect(handled).toEqual(['C-0', 'C-1', 'C-2', 'C-3', 'C-4', 'C-5', 'C-6']);
  });
});
