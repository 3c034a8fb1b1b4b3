// retryLater on the memory transport, the parts the conformance cases do not reach: the names and
// bindings of the tiers, the options it refuses, the last-error header's bound, a tier that holds
// its record on the (manual) clock without polling for it, a publish to a tier that fails (the
// lane stalls, nothing is lost), and the figures health and /metrics show.
import {
  createMessaging,
  delayLabel,
  InMemoryDeadLetterStore,
  ManualClock,
  type MessageContext,
  type Messaging,
  type OutgoingRecord,
  type ParkedMessage,
  type ParkRequest,
  RETRY_HEADERS,
  RetryLaterError,
  retryTiers,
  type TransportProducer,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { prometheusText, readiness } from '@keiyaku/runtime/ops';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, type BookIntegrationEventsMessage } from '../../generated/index.js';
import { clipError } from '../../runtime/belt/retry-later.js';
import { MAX_ERROR_BYTES } from '../../runtime/belt/retry-tiers.js';
import { recordingLogger, waitFor } from '../helpers.js';

const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

describe('retry tiers: names and options', () => {
  it('names each tier after the address, the group and the delay, keeping stream, partitions and replicas', () => {
    expect([200, 1_000, 30_000, 300_000, 3_600_000, 1_500].map(delayLabel)).toEqual(['200ms', '1s', '30s', '5m', '1h', '1500ms']);
    const tiers = retryTiers(
      'library.books',
      {
        kafka: { topic: 'books-v2', partitions: 6, replicas: 3, configs: { 'cleanup.policy': 'compact' }, key: 'bookId' },
        iggy: { stream: 'library', topic: 'books', partitions: 4 },
      },
      'search.book-index',
      { tiers: [1_000, 300_000] },
    );
    expect(tiers).toEqual([
      {
        tier: 1,
        delayMs: 1_000,
        address: 'library.books.retry.search.book-index.1s',
        bindings: {
          kafka: { topic: 'books-v2.retry.search.book-index.1s', partitions: 6, replicas: 3 },
          iggy: { stream: 'library', topic: 'books.retry.search.book-index.1s', partitions: 4 },
        },
      },
      {
        tier: 2,
        delayMs: 300_000,
        address: 'library.books.retry.search.book-index.5m',
        bindings: {
          kafka: { topic: 'books-v2.retry.search.book-index.5m', partitions: 6, replicas: 3 },
          iggy: { stream: 'library', topic: 'books.retry.search.book-index.5m', partitions: 4 },
        },
      },
    ]);
    expect(retryTiers('orders', {}, 'g', { tiers: [200] })).toEqual([
      { tier: 1, delayMs: 200, address: 'orders.retry.g.200ms', bindings: {} },
    ]);
  });

  it('refuses what it cannot run, with a typed error', () => {
    const host = createMessaging({ transport: new InMemoryTransport(), logger: recordingLogger() });
    hosts.push(host);
    const handler = (groupId: string) => ({ groupId, handle() {} });
    const refused = (groupId: string, options: Parameters<typeof host.subscribe>[2]) => {
      try {
        host.subscribe(BookIntegrationEvents, handler(groupId), options);
      } catch (error) {
        expect(error).toBeInstanceOf(RetryLaterError);
        return (error as RetryLaterError).message;
      }
      throw new Error('not refused');
    };
    expect(refused('a', { retryLater: { tiers: [] } })).toBe('retryLater needs at least one tier');
    expect(refused('b', { retryLater: { tiers: [0] } })).toContain('positive whole milliseconds; got 0');
    expect(refused('c', { retryLater: { tiers: [1.5] } })).toContain('got 1.5');
    expect(refused('d', { retryLater: { tiers: [1_000, 1_000] } })).toContain('the tier 1s twice');
    expect(refused('e', { retryLater: { tiers: [1_000], immediateRetries: -1 } })).toContain('immediateRetries');
    expect(refused('f', { retryLater: { tiers: [1_000] }, deadLetter: { maxRetries: 1 } })).toContain('retryLater and deadLetter');
    expect(refused('g', { retryLater: { tiers: [1_000] }, transactional: true })).toContain('transactional');
    expect(refused('billing/late fees', { retryLater: { tiers: [1_000] } })).toContain('"billing/late fees"');
  });

  it('cuts the last error to what an Iggy header carries, on a character boundary', () => {
    const long = `Error: ${'é'.repeat(400)}`;
    const cut = clipError(long);
    expect(new TextEncoder().encode(cut).length).toBeLessThanOrEqual(MAX_ERROR_BYTES);
    expect(cut.endsWith('é…')).toBe(true);
    expect(clipError('Error: short')).toBe('Error: short');
  });
});

/** A memory transport whose producers fail the first `failures` sends to a retry address. */
class FlakyRetryAddresses extends InMemoryTransport {
  failures: number;
  attempts = 0;
  constructor(failures: number, clock?: ManualClock) {
    super({ defaultPartitions: 1, idleWaitMs: 5, ...(clock ? { now: () => clock.now() } : {}) });
    this.failures = failures;
  }
  override producer(): TransportProducer {
    const inner = super.producer();
    return {
      send: async (records: readonly OutgoingRecord[]) => {
        if (records.some((r) => r.address.includes('.retry.'))) {
          this.attempts++;
          if (this.failures > 0) {
            this.failures--;
            throw new Error('broker unreachable');
          }
        }
        return inner.send(records);
      },
      close: () => inner.close(),
    };
  }
}

describe('retry tiers on the belt', () => {
  it('holds a record on the clock until it is due, without handling it early, and shows it waiting', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
    const transport = new FlakyRetryAddresses(0, clock);
    const host = createMessaging({ transport, logger: recordingLogger(), clock, deadLetters: new InMemoryDeadLetterStore() });
    hosts.push(host);
    const seen: { copyId: string; tier: string | undefined; at: number }[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'search.index',
        handle(message: BookIntegrationEventsMessage, context: MessageContext) {
          const tier = context.headers[RETRY_HEADERS.tier];
          seen.push({ copyId: 'copyId' in message ? message.copyId : '', tier, at: clock.now() });
          if (tier === undefined && 'copyId' in message && message.copyId === 'C-1') throw new Error('index busy');
        },
      },
      { retryLater: { tiers: [60_000] } },
    );
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2')]);
    await waitFor(() => subscription.health().retryTiers?.[0]?.waiting === 1, 'the tier holds C-1');
    // C-2 behind it on the same partition went through; C-1 waits for the clock, not for a poll.
    expect(seen.map((s) => [s.copyId, s.tier])).toEqual([
      ['C-1', undefined],
      ['C-2', undefined],
    ]);
    expect(clock.pending).toBeGreaterThanOrEqual(1);
    await clock.advance(30_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const tier = subscription.health().retryTiers![0]!;
    expect(tier).toMatchObject({ tier: 1, waiting: 1, oldestWaitingAgeMs: 30_000, depth: 1, movedOn: 0, processed: 0, ready: true });
    expect(seen).toHaveLength(2);
    await clock.advance(30_000);
    await waitFor(() => seen.length === 3, 'C-1 is handled on the tier once due');
    expect(seen[2]).toEqual({ copyId: 'C-1', tier: '1', at: Date.UTC(2026, 10, 30, 8, 1, 0) });
    await waitFor(() => subscription.health().retryTiers?.[0]?.waiting === 0, 'the tier holds nothing');
    const metrics = await prometheusText(host);
    expect(metrics).toMatch(
      /keiyaku_retry_tier_depth\{channel="bookIntegrationEvents",address="[^"]+",topic="[^"]+",group="search\.index",tier="1",tier_topic="[^"]+\.retry\.search\.index\.1m"\} [01]/,
    );
  });

  it('stalls the lane while the publish to a tier fails, then moves the record on: nothing is lost', async () => {
    const transport = new FlakyRetryAddresses(3);
    const logger = recordingLogger();
    const host = createMessaging({ transport, logger, deadLetters: new InMemoryDeadLetterStore() });
    hosts.push(host);
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'search.flaky',
        handle(message: BookIntegrationEventsMessage, context: MessageContext) {
          const copyId = 'copyId' in message ? message.copyId : '';
          if (context.headers[RETRY_HEADERS.tier] === undefined && copyId === 'C-1') throw new Error('index busy');
          handled.push(`${copyId}@${context.headers[RETRY_HEADERS.tier] ?? 0}`);
        },
      },
      { retry: { initialMs: 30, maxMs: 30, jitter: 0 }, retryLater: { tiers: [100] } },
    );
    await host.start();
    await host.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 }).publishMany([borrowed('C-1'), borrowed('C-2')]);
    await waitFor(() => subscription.health().stalls.length === 1, 'the lane stalls at C-1');
    const [stall] = subscription.health().stalls;
    expect(stall!.reason).toMatch(
      /^publishing it to the retry address \S+\.retry\.search\.flaky\.100ms failed \(\d+ times?; trying again\): Error: broker unreachable/,
    );
    expect(subscription.health().ready).toBe(false);
    expect(handled).toEqual([]); // C-2 waits behind the record that could not be moved on
    await waitFor(() => handled.length === 2, 'C-2 on the channel and C-1 on the tier are handled');
    expect(handled).toEqual(['C-2@0', 'C-1@1']);
    expect(transport.attempts).toBe(4);
    expect(subscription.health().stalls).toEqual([]);
    expect(subscription.health().ready).toBe(true);
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.startsWith('belt blocked: publishing a failed message'))).toBe(true);
  });

  it('a tier whose park fails makes the subscription not ready, naming the tier, until the store parks the record once', async () => {
    class FlakyStore extends InMemoryDeadLetterStore {
      failures = 2;
      override async park(request: ParkRequest, parkedAt: Date): Promise<ParkedMessage> {
        if (this.failures-- > 0) throw new Error('store unavailable');
        return super.park(request, parkedAt);
      }
    }
    const deadLetters = new FlakyStore();
    const transport = new FlakyRetryAddresses(0);
    const host = createMessaging({ transport, logger: recordingLogger(), deadLetters });
    hosts.push(host);
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'search.poison',
        handle() {
          throw new Error('never indexes');
        },
      },
      { retry: { initialMs: 300, maxMs: 300, jitter: 0 }, retryLater: { tiers: [20] } },
    );
    await host.start();
    await host.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 }).publish(borrowed('C-9'));
    await waitFor(() => subscription.health().retryTiers?.[0]?.stalls.length === 1, 'tier 1 stalls at the failing park');
    const health = subscription.health();
    expect(health.state).toBe('running');
    expect(health.ready).toBe(false);
    const reasons = readiness(host.health()).reasons;
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^subscription search\.poison on bookIntegrationEvents: retry tier 1 \(\S+\.retry\.search\.poison\.20ms\) is stalled: the dead-letter store failed to park it/,
    );
    await waitFor(() => subscription.health().retryTiers?.[0]?.parked === 1, 'the store parks it', 10_000);
    expect(await deadLetters.count({ groupId: 'search.poison' })).toBe(1);
    expect(subscription.health().ready).toBe(true);
  });

  it('parks bytes that do not decode at once, at the channel address, without going through the tiers', async () => {
    const transport = new FlakyRetryAddresses(0);
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ transport, logger: recordingLogger(), deadLetters });
    hosts.push(host);
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'search.bytes',
        handle: (message: BookIntegrationEventsMessage) => void handled.push('copyId' in message ? message.copyId : ''),
      },
      { retryLater: { tiers: [20], immediateRetries: 3 } },
    );
    await host.start();
    const producer = transport.producer();
    await producer.send([
      {
        address: BookIntegrationEvents.address,
        key: 'k',
        value: new Uint8Array([0xff, 0x00]),
        headers: { ce_specversion: '1.0', ce_id: 'broken', ce_type: 'BookBorrowed' },
      },
    ]);
    await producer.close();
    await host.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 }).publish(borrowed('C-5'));
    await waitFor(() => handled.length === 1 && subscription.health().parked === 1, 'C-5 is handled and the broken record parked');
    const [parked] = await deadLetters.list({ groupId: 'search.bytes' });
    expect(parked).toMatchObject({ address: BookIntegrationEvents.address, attempts: 1, offset: '0' });
    expect(parked!.error.name).toBe('ContractDecodeError');
    expect(transport.attempts).toBe(0); // nothing was published to a tier
    expect(subscription.health().retryTiers![0]!.processed).toBe(0);
  });

  it('a record parked after the last tier redrives to the channel', async () => {
    const transport = new FlakyRetryAddresses(0);
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ transport, logger: recordingLogger(), deadLetters });
    hosts.push(host);
    let fixed = false;
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'search.redrive',
        handle(_message: BookIntegrationEventsMessage, context: MessageContext) {
          if (!fixed) throw new Error('index broken');
          handled.push(context.address);
        },
      },
      { retryLater: { tiers: [20] } },
    );
    await host.start();
    await host.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 }).publish(borrowed('C-6'));
    await waitFor(() => subscription.health().retryTiers?.[0]?.parked === 1, 'parked after tier 1');
    const [parked] = await deadLetters.list({ groupId: 'search.redrive' });
    expect(parked).toMatchObject({ address: BookIntegrationEvents.address, topic: BookIntegrationEvents.address, attempts: 2 });
    fixed = true;
    await host.redrive(parked!.id);
    await waitFor(() => handled.length === 1, 'the redriven record is handled on the channel');
    expect(handled).toEqual([BookIntegrationEvents.address]);
    expect(await deadLetters.count()).toBe(0);
  });
});
