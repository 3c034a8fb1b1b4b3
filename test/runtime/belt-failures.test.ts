// What a bad message gets on the belt: undecodable bytes are parked at once under a dead-letter
// policy (and block without one), a store that fails to park blocks the lane and is asked again
// (the record parked once, the process alive), decode errors name every problem, parked records
// carry the broker's topic, and types the channel does not declare are skipped and logged once.

import {
  createMessaging,
  type DeadLetterStore,
  InMemoryDeadLetterStore,
  ManualClock,
  type Messaging,
  type ParkedMessage,
  type ParkRequest,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { recordingLogger, waitFor } from '../helpers.js';

const valid = {
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-1',
  borrower: { memberId: 'M-1001' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk' as const,
};
const borrowed = (copyId: string) => BookBorrowed.create({ ...valid, copyId });
/** A BookBorrowed record whose payload breaks three rules: an empty copyId, a date that is not one, a channel outside the enum. */
const threeProblems = new TextEncoder().encode(JSON.stringify({ ...valid, copyId: '', dueAt: 'soon', channel: 'pigeon' }));

/** A store that fails its first `failures` parks; with `lose`, those fail after the record is stored (the answer is lost). */
class FlakyStore extends InMemoryDeadLetterStore {
  parks = 0;
  failures: number;
  readonly lose: boolean;
  constructor(failures: number, options: { lose?: boolean } = {}) {
    super();
    this.failures = failures;
    this.lose = options.lose ?? false;
  }
  override async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
    this.parks++;
    if (this.failures > 0) {
      this.failures--;
      if (this.lose) await super.park(request, parkedAt);
      throw new Error(`store unavailable (park ${this.parks})`);
    }
    return super.park(request, parkedAt);
  }
}

/** Memory with names of its own, as a namespaced Kafka topic would be. */
class NamespacedMemory extends InMemoryTransport {
  override destination(address: string): string {
    return `staging.${address}`;
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  process.off('unhandledRejection', onUnhandled);
});

function rig(options: { deadLetters?: DeadLetterStore; transport?: InMemoryTransport } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
  const transport = options.transport ?? new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const deadLetters = options.deadLetters ?? new InMemoryDeadLetterStore();
  const logger = recordingLogger();
  const host = createMessaging({ logger, transport, deadLetters, clock, random: () => 0.5, shutdownBudgetMs: 1_000 });
  hosts.push(host);
  const publisher = host.publisher(BookIntegrationEvents, { key: () => 'one-key', lingerMs: 0 });
  const raw = async (value: Uint8Array, type: string | undefined, id: string) => {
    const producer = transport.producer();
    await producer.send([
      {
        address: BookIntegrationEvents.address,
        key: 'one-key',
        value,
        headers: { ce_specversion: '1.0', ce_id: id, ...(type === undefined ? {} : { ce_type: type }) },
      },
    ]);
    await producer.close();
  };
  return { clock, transport, deadLetters, host, publisher, logger, raw };
}

describe('undecodable records', () => {
  it('are parked at once under a dead-letter policy, with every problem named and the allowed values of the enum', async () => {
    const { clock, host, publisher, deadLetters, logger, raw } = rig();
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle: (m) => void handled.push(m.copyId) },
      // The default schedule: 1 s, 5 s, 30 s, 2 min, 10 min — a handler failure would block ~13 min.
      { deadLetter: { maxRetries: 5 } },
    );
    await host.start();
    await raw(threeProblems, 'BookBorrowed', 'bad-1');
    await publisher.publish(borrowed('C-after'));
    await waitFor(() => handled.length === 1, 'the record after the bad one is handled');
    expect(clock.now()).toBe(Date.UTC(2026, 10, 30, 8, 0, 0)); // no backoff was slept
    expect(clock.pending).toBe(0);
    const [parked, ...rest] = await deadLetters.list();
    expect(rest).toEqual([]);
    expect(parked).toMatchObject({ type: 'BookBorrowed', attempts: 1, offset: '0', error: { name: 'ContractDecodeError' } });
    const message = parked!.error.message;
    expect(message).toContain('$.copyId');
    expect(message).toContain('at $.dueAt: must match format "date-time"');
    expect(message).toContain('at $.channel: must be equal to one of the allowed values: "desk", "self-service", "app"');
    expect(subscription.health()).toMatchObject({ parked: 1, processed: 1, stalls: [], state: 'running' });
    const metrics = subscription.metrics().partitions[0]!;
    expect(metrics).toMatchObject({ parked: 1, retried: 0, failed: 1, handled: 1 });
    const parkedLine = logger.lines.find((l) => l.message.startsWith('parked a message'));
    expect(parkedLine?.level).toBe('warn');
    expect(String(parkedLine?.fields['error'])).toContain('at $.channel: must be equal to one of the allowed values');
    expect(unhandled).toEqual([]);
  });

  it('block the lane without a dead-letter policy (nothing is skipped by default), the reason naming every problem', async () => {
    const { clock, host, publisher, deadLetters, logger, raw } = rig();
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle: (m) => void handled.push(m.copyId) },
      { retry: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } },
    );
    await host.start();
    await raw(threeProblems, 'BookBorrowed', 'bad-1');
    await publisher.publish(borrowed('C-after'));
    await waitFor(() => clock.pending === 1, 'the lane waits in its backoff');
    for (let i = 0; i < 3; i++) {
      await clock.advance(1_000);
      await waitFor(() => subscription.health().stalls[0]?.attempts === i + 2, `attempt ${i + 2}`);
    }
    expect(handled).toEqual([]);
    expect(await deadLetters.count()).toBe(0);
    const [stall] = subscription.health().stalls;
    expect(stall!.reason).toMatch(
      /^ContractDecodeError: BookBorrowed: payload is not valid at \$\.copyId: .*; also at \$\.dueAt: .*; at \$\.channel: must be equal to one of the allowed values: "desk", "self-service", "app"$/,
    );
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'belt blocked: the record does not decode; the belt is stopped at this record and retries it',
    ]);
  });
});

describe('a dead-letter store that fails to park', () => {
  it('blocks the lane with the reason in health and the log, asks again on the backoff and parks the record once', async () => {
    const store = new FlakyStore(3);
    const { clock, host, publisher, logger } = rig({ deadLetters: store });
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.book-availability',
        handle(m) {
          if (m.copyId === 'poison') throw new TypeError('no shelf for a poison copy');
          handled.push(m.copyId);
        },
      },
      { deadLetter: { maxRetries: 0 }, retry: { initialMs: 2_000, multiplier: 2, maxMs: 8_000, jitter: 0 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('poison'), borrowed('C-3')]);
    await waitFor(() => store.parks === 1 && clock.pending === 1, 'the first park failed and the lane waits');
    let health = subscription.health();
    expect(health.state).toBe('stalled');
    expect(health.stalls).toEqual([
      expect.objectContaining({
        offset: '1',
        attempts: 1,
        reason: expect.stringMatching(
          /^the dead-letter store failed to park it \(1 time; trying again\): Error: store unavailable \(park 1\); parking because TypeError: no shelf for a poison copy$/,
        ),
      }),
    ]);
    expect(host.health().ready).toBe(false);
    expect(handled).toEqual(['C-1']);
    const warned = logger.lines.find((l) => l.message.startsWith('belt blocked: the dead-letter store failed'));
    expect(warned?.fields).toMatchObject({ parkAttempt: 1, retryInMs: 2_000, error: 'Error: store unavailable (park 1)' });
    // The blocking retry's backoff between parks: 2 s, 4 s, 8 s.
    for (const [delay, parks] of [
      [2_000, 2],
      [4_000, 3],
    ] as const) {
      await clock.advance(delay - 1);
      expect(store.parks).toBe(parks - 1);
      await clock.advance(1);
      await waitFor(() => store.parks === parks && clock.pending === 1, `park ${parks}`);
    }
    expect(subscription.health().stalls[0]!.reason).toContain('(3 times; trying again)');
    await clock.advance(8_000);
    await waitFor(() => handled.length === 2, 'the belt moves on once parked');
    expect(handled).toEqual(['C-1', 'C-3']);
    expect(store.parks).toBe(4);
    const parked = await store.list();
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ offset: '1', attempts: 1, error: { name: 'TypeError', message: 'no shelf for a poison copy' } });
    health = subscription.health();
    expect(health).toMatchObject({ state: 'running', stalls: [], parked: 1, processed: 2 });
    expect(unhandled).toEqual([]);
  });

  it('does not park twice when a failed park had stored the record (its answer was lost)', async () => {
    const store = new FlakyStore(1, { lose: true });
    const { clock, host, raw, publisher, logger } = rig({ deadLetters: store });
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle: (m) => void handled.push(m.copyId) },
      { deadLetter: { maxRetries: 3 }, retry: { initialMs: 500, jitter: 0 } },
    );
    await host.start();
    await raw(new Uint8Array([0xff, 0x00]), 'BookBorrowed', 'garbage');
    await publisher.publish(borrowed('C-after'));
    await waitFor(() => store.parks === 1 && clock.pending === 1, 'the park failed after storing');
    await clock.advance(500);
    await waitFor(() => handled.length === 1, 'the belt moves on');
    expect(store.parks).toBe(1); // found, not parked again
    expect(await store.list()).toHaveLength(1);
    expect(subscription.health()).toMatchObject({ parked: 1, stalls: [] });
    expect(logger.lines.some((l) => l.message.startsWith('the message was parked by an earlier attempt'))).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it('keeps the process alive when the store never parks: the lane stays blocked, and stop() ends it unacknowledged', async () => {
    const store = new FlakyStore(Number.POSITIVE_INFINITY);
    const { clock, host, raw } = rig({ deadLetters: store });
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle() {} },
      { deadLetter: { maxRetries: 0 }, retry: { initialMs: 100, maxMs: 100, jitter: 0 } },
    );
    await host.start();
    await raw(new Uint8Array([0x7b]), 'BookBorrowed', 'garbage');
    for (let parks = 1; parks <= 5; parks++) {
      await waitFor(() => store.parks === parks && clock.pending === 1, `park ${parks}`);
      await clock.advance(100);
    }
    expect(subscription.health().stalls[0]!.reason).toContain('failed to park it');
    await host.stop();
    expect(subscription.health().positions.every((p) => p.committed === undefined || p.committed === '0')).toBe(true);
    expect(await store.count()).toBe(0);
    expect(unhandled).toEqual([]);
  });
});

describe('an error of the belt itself', () => {
  it('fails the subscription with the reason and an error line, never an unhandled rejection', async () => {
    /** A consumer whose partitions cannot be paused: the belt's own step fails, not the handler. */
    class Unpausable extends InMemoryTransport {
      override consumer(options: Parameters<InMemoryTransport['consumer']>[0]) {
        const consumer = super.consumer(options);
        consumer.pause = () => {
          throw new Error('pause is broken');
        };
        return consumer;
      }
    }
    const { host, publisher, logger } = rig({ transport: new Unpausable({ defaultPartitions: 1, idleWaitMs: 5 }) });
    const subscription = host.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.book-availability',
      handle() {
        throw new Error('handler down');
      },
    });
    await host.start();
    await publisher.publish(borrowed('C-1'));
    await waitFor(() => subscription.health().state === 'failed', 'the subscription reports failed');
    expect(subscription.health().lastError).toBe('Error: pause is broken');
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => [l.message, l.fields['error']])).toEqual([
      ['a lane of the belt failed; its record stays unacknowledged', 'Error: pause is broken'],
    ]);
    expect(host.health().ready).toBe(false);
    expect(unhandled).toEqual([]);
  });
});

describe('parked records and health name the broker topic', () => {
  it('fills topic from the transport beside the contract address', async () => {
    const transport = new NamespacedMemory({ defaultPartitions: 1, idleWaitMs: 5 });
    const { host, raw, deadLetters } = rig({ transport });
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'inventory.book-availability', handle() {} },
      { deadLetter: { maxRetries: 0 } },
    );
    await host.start();
    await raw(new Uint8Array([0x7b]), 'BookBorrowed', 'garbage');
    await waitFor(async () => (await deadLetters.count()) === 1, 'parked');
    const [parked] = await deadLetters.list();
    expect(parked).toMatchObject({ address: 'library.book-integration-events', topic: 'staging.library.book-integration-events' });
    expect(subscription.health()).toMatchObject({
      address: 'library.book-integration-events',
      topic: 'staging.library.book-integration-events',
    });
    expect(subscription.metrics().topic).toBe('staging.library.book-integration-events');
  });
});

describe('message types the channel does not declare', () => {
  it('are acknowledged and counted as skipped, and logged once per type (forward compatibility)', async () => {
    const { host, raw, publisher, logger, deadLetters } = rig();
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      { groupId: 'notifications.returns', accepts: ['BookReturned'], handle: (m) => void handled.push(m.copyId) },
      { deadLetter: { maxRetries: 0 } },
    );
    await host.start();
    for (const [i, type] of ['ShelfMoved', 'ShelfMoved', 'ShelfRenamed', 'ShelfMoved', 'ShelfRenamed'].entries())
      await raw(new Uint8Array([0xff]), type, `future-${i}`);
    await publisher.publish(borrowed('not-accepted')); // a declared type this handler does not accept: a debug line only
    await waitFor(() => subscription.health().skipped === 6, 'all six skipped');
    const unknown = logger.lines.filter((l) => l.message.includes('does not declare'));
    expect(unknown.map((l) => [l.level, l.fields['type']])).toEqual([
      ['warn', 'ShelfMoved'],
      ['warn', 'ShelfRenamed'],
    ]);
    expect(unknown[0]!.fields).toMatchObject({ channel: 'bookIntegrationEvents', groupId: 'notifications.returns', offset: '0' });
    expect(logger.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toHaveLength(2);
    expect(await deadLetters.count()).toBe(0);
    expect(handled).toEqual([]);
    expect(subscription.health()).toMatchObject({ parked: 0, processed: 0, stalls: [] });
    await waitFor(
      () => subscription.health().positions.some((p) => p.committed === '6'),
      () => `committed past them: ${JSON.stringify(subscription.health().positions)}`,
    );
  });

  it('logs at most 100 distinct unknown types, then says once that it stops listing them', async () => {
    const { host, raw, logger } = rig();
    const subscription = host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle() {} });
    await host.start();
    for (let i = 0; i < 105; i++) await raw(new Uint8Array(), `Future${i}`, `future-${i}`);
    await waitFor(() => subscription.health().skipped === 105, 'all skipped');
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(101);
    expect(warnings[100]!.message).toContain('more than 100 message types');
  });
});
