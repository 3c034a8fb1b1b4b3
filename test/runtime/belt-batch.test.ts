// Batch subscriptions on the in-memory transport with a manual clock: gathering up to maxSize or
// maxWaitMs, the stall of a failing batch, routing inside a batch, the shutdown budget, tracing,
// transactions, and what a batch subscription refuses. The transport conformance cases
// (runtime/testing/batch-conformance.ts) run on every transport.

import {
  BatchSubscriptionError,
  createMessaging,
  InMemoryDeadLetterStore,
  InMemoryInboxStore,
  ManualClock,
  type Messaging,
  silentLogger,
} from '@keiyaku/runtime';
import type { BatchContext } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsBatchHandler,
  type BookIntegrationEventsMessage,
  BookReturned,
  DueDateReminder,
  MemberNotifications,
} from '../../generated/index.js';
import { recordingLogger, waitFor } from '../helpers.js';
import { registerSdk } from '../ops/trace-hop.js';

const BOOK = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: BOOK,
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
const returned = (copyId: string) =>
  BookReturned.create({ bookId: BOOK, copyId, memberId: 'M-1001', returnedAt: '2026-11-20T10:15:00Z', condition: 'good' });

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function rig(options: { transport?: InMemoryTransport; clock?: ManualClock; shutdownBudgetMs?: number } = {}) {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
  const transport = options.transport ?? new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const deadLetters = new InMemoryDeadLetterStore();
  const host = createMessaging({
    logger: silentLogger,
    transport,
    deadLetters,
    clock,
    random: () => 0.5,
    shutdownBudgetMs: options.shutdownBudgetMs ?? 1_000,
  });
  hosts.push(host);
  const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
  return { clock, transport, deadLetters, host, publisher };
}

const copies = (batch: readonly { readonly message: BookIntegrationEventsMessage }[]) => batch.map((i) => i.message.copyId);

describe('batch subscriptions', () => {
  it('hand a lane maxSize messages at once, or what came within maxWaitMs of the first', async () => {
    const { clock, host, publisher } = rig();
    const batches: string[][] = [];
    const seen: { context: BatchContext; offsets: (string | undefined)[] }[] = [];
    const subscription = host.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'inventory.batch',
        handleBatch(batch, context) {
          seen.push({ context, offsets: batch.map((i) => i.context.offset) });
          batches.push(copies(batch));
        },
      },
      { batch: { maxSize: 4, maxWaitMs: 1_000 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3'), borrowed('C-4'), borrowed('C-5')]);
    await waitFor(() => batches.length === 1 && clock.pending === 1, 'a full batch, then the wait for more');
    expect(batches).toEqual([['C-1', 'C-2', 'C-3', 'C-4']]);
    await clock.advance(999);
    expect(batches).toHaveLength(1);
    await publisher.publish(borrowed('C-6'));
    await waitFor(() => subscription.metrics().partitions.some((p) => p.consumed === 6), 'C-6 joins the batch being gathered');
    await clock.advance(1);
    await waitFor(() => batches.length === 2, 'the partial batch, when its wait is over');
    expect(batches).toEqual([
      ['C-1', 'C-2', 'C-3', 'C-4'],
      ['C-5', 'C-6'],
    ]);
    expect(seen.map((s) => s.offsets)).toEqual([
      ['0', '1', '2', '3'],
      ['4', '5'],
    ]);
    const partition = subscription.metrics().partitions.find((p) => p.consumed > 0)!.partition;
    for (const { context } of seen) expect(context).toMatchObject({ channel: 'bookIntegrationEvents', partition, attempt: 1 });
    expect(subscription.health()).toMatchObject({ processed: 6, stalls: [] });
  });

  it('stall a lane at the first record of a failing batch and retry the batch whole', async () => {
    const { clock, host, publisher } = rig();
    const calls: { copies: string[]; attempt: number }[] = [];
    let healthy = false;
    const subscription = host.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'inventory.batch',
        handleBatch(batch, context) {
          calls.push({ copies: copies(batch), attempt: context.attempt });
          if (!healthy) throw new Error(`inventory database down (attempt ${context.attempt})`);
        },
      },
      { retry: { initialMs: 1_000, maxMs: 8_000, jitter: 0 }, batch: { maxSize: 3, maxWaitMs: 50 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3')]);
    await waitFor(() => calls.length === 1 && clock.pending === 1, 'the first failure');
    await clock.advance(1_000);
    await waitFor(() => calls.length === 2 && clock.pending === 1, 'the second failure');
    expect(subscription.health().stalls).toEqual([
      expect.objectContaining({
        offset: '0',
        type: 'BookBorrowed',
        attempts: 2,
        reason: 'a batch of 3 messages failed: Error: inventory database down (attempt 2)',
      }),
    ]);
    expect(subscription.health().state).toBe('stalled');
    healthy = true;
    await clock.advance(2_000);
    await waitFor(() => calls.length === 3, 'the third attempt');
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    for (const call of calls) expect(call.copies).toEqual(['C-1', 'C-2', 'C-3']);
    await waitFor(() => subscription.health().stalls.length === 0, 'the stall ends');
    expect(subscription.health()).toMatchObject({ state: 'running', processed: 3, parked: 0 });
    expect(subscription.metrics().partitions.find((p) => p.consumed > 0)).toMatchObject({ handled: 3, failed: 2, retried: 2 });
  });

  it('split a batch that fails past its retries: skipped records counted once, the poison one parked, the others handled', async () => {
    const logger = recordingLogger();
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ logger, transport, deadLetters, clock: new ManualClock(), shutdownBudgetMs: 1_000 });
    hosts.push(host);
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
    const calls: string[][] = [];
    const handled: string[] = [];
    const subscription = host.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'inventory.loans',
        accepts: ['BookBorrowed'],
        handleBatch(batch) {
          calls.push(copies(batch));
          if (batch.some((i) => i.message.copyId === 'poison')) throw new TypeError('no shelf for a poison copy');
          handled.push(...copies(batch));
        },
      },
      { deadLetter: { maxRetries: 0 }, batch: { maxSize: 4, maxWaitMs: 1_000 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), returned('C-1'), borrowed('poison'), returned('C-2'), borrowed('C-3'), borrowed('C-4')]);
    await waitFor(() => handled.length === 3 && subscription.health().parked === 1, 'three handled and one parked');
    // No retries: the batch once, then each message alone; the returns are skipped once, not again in the split.
    expect(calls).toEqual([['C-1', 'poison', 'C-3', 'C-4'], ['C-1'], ['poison'], ['C-3'], ['C-4']]);
    expect(handled).toEqual(['C-1', 'C-3', 'C-4']);
    expect(subscription.health()).toMatchObject({ processed: 3, skipped: 2, parked: 1, stalls: [] });
    const [parked] = await deadLetters.list();
    expect(parked).toMatchObject({ type: 'BookBorrowed', attempts: 1, offset: '2' });
    expect(parked!.error).toMatchObject({ name: 'TypeError', message: 'no shelf for a poison copy' });
    const split = logger.lines.filter((l) => l.message.startsWith('a batch failed after its retries'));
    expect(split).toHaveLength(1);
    expect(split[0]!.fields).toMatchObject({ groupId: 'inventory.loans', offset: '0', messages: 4, attempts: 1 });
  });

  it('skip types the handler does not accept inside a batch, and acknowledge them with it', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { host, publisher } = rig({ transport });
    const batches: string[][] = [];
    const handler: BookIntegrationEventsBatchHandler = {
      groupId: 'inventory.returns',
      accepts: ['BookReturned'],
      handleBatch(batch) {
        for (const item of batch) expect(item.type).toBe('BookReturned');
        batches.push(copies(batch));
      },
    };
    const subscription = host.subscribeBatch(BookIntegrationEvents, handler, { batch: { maxSize: 2, maxWaitMs: 1_000 } });
    await host.start();
    await publisher.publishMany([borrowed('C-1'), returned('C-2'), borrowed('C-3'), returned('C-4')]);
    await waitFor(() => batches.length === 1, 'the two returns are handled');
    expect(batches).toEqual([['C-2', 'C-4']]);
    expect(subscription.health()).toMatchObject({ processed: 2, skipped: 2 });
    await host.stop();
    const again = rig({ transport });
    const later: string[][] = [];
    again.host.subscribeBatch(
      BookIntegrationEvents,
      { ...handler, handleBatch: (batch) => void later.push(copies(batch)) },
      { batch: { maxSize: 1 } },
    );
    await again.host.start();
    await again.publisher.publish(returned('C-5'));
    await waitFor(() => later.length === 1, 'the new return is handled');
    expect(later).toEqual([['C-5']]);
  });

  it('abandon a batch handler past the shutdown budget, leaving its batch unacknowledged', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { host, publisher } = rig({ transport, clock: new ManualClock(), shutdownBudgetMs: 200 });
    let aborted = false;
    let started = false;
    host.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'inventory.batch',
        handleBatch: (_batch, context) =>
          new Promise<void>((resolve) => {
            started = true;
            context.signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            });
          }),
      },
      { batch: { maxSize: 2 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2')]);
    await waitFor(() => started, 'the batch handler runs');
    await host.stop();
    expect(aborted).toBe(true);
    const again = rig({ transport });
    const later: string[][] = [];
    again.host.subscribeBatch(
      BookIntegrationEvents,
      { groupId: 'inventory.batch', handleBatch: (batch) => void later.push(copies(batch)) },
      { batch: { maxSize: 2 } },
    );
    await again.host.start();
    await waitFor(() => later.length === 1, 'the batch comes again');
    expect(later).toEqual([['C-1', 'C-2']]);
  });

  it('trace each attempt at a batch in one process span linked to every message it holds', async () => {
    const traced = registerSdk();
    try {
      const host = createMessaging({ logger: silentLogger, transport: new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }) });
      hosts.push(host);
      const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
      let calls = 0;
      host.subscribeBatch(
        BookIntegrationEvents,
        {
          groupId: 'inventory.batch',
          handleBatch() {
            calls++;
          },
        },
        { batch: { maxSize: 3, maxWaitMs: 5_000 } },
      );
      await host.start();
      await trace.getTracer('test').startActiveSpan('request', async (root) => {
        await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3')]);
        root.end();
      });
      await waitFor(() => calls === 1, 'the batch is handled');
      await waitFor(() => traced.exporter.getFinishedSpans().some((s) => s.name.startsWith('process ')), 'the process span ended');
      const spans = traced.exporter.getFinishedSpans();
      const processes = spans.filter((s) => s.name === `process ${publisher.address}`);
      expect(processes).toHaveLength(1);
      const sends = spans.filter((s) => s.name === `send ${publisher.address}`).map((s) => s.spanContext().spanId);
      expect(sends.length).toBeGreaterThan(0);
      const links = processes[0]!.links.map((l) => l.context.spanId);
      expect(links).toHaveLength(3);
      for (const link of links) expect(sends).toContain(link);
      expect(processes[0]!.attributes).toMatchObject({
        'messaging.batch.message_count': 3,
        'keiyaku.handler.attempt': 1,
        'messaging.consumer.group.name': 'inventory.batch',
      });
    } finally {
      await traced.shutdown();
    }
  });

  it("run in transactions: a batch's outputs commit with its offsets, a failed attempt's never appear", async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { host, publisher, clock } = rig({ transport });
    const memberId = 'M-1001';
    const reminders = host.publisher(MemberNotifications, { parameters: { memberId } });
    const calls: string[][] = [];
    const subscription = host.subscribeBatch(
      BookIntegrationEvents,
      {
        groupId: 'reminders.batch-tx',
        async handleBatch(batch, context) {
          calls.push(copies(batch));
          const loans = batch.map((i) => ({ bookId: BOOK, title: i.message.copyId, dueAt: '2026-11-23T10:15:00Z' }));
          await reminders.publish(DueDateReminder.create({ memberId, loans }));
          if (context.attempt === 1 && copies(batch).includes('C-3')) throw new Error('the reminder service is down');
        },
      },
      { transactional: true, retry: { initialMs: 1, maxMs: 2, jitter: 0 }, batch: { maxSize: 2 } },
    );
    await host.start();
    expect(subscription.transactionalId).toBeDefined();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3'), borrowed('C-4')]);
    const titles = () =>
      transport.published(MemberNotifications, `library.members.${memberId}.notifications`).map((p) => p.message.loans.map((l) => l.title));
    await waitFor(() => calls.length === 2 && clock.pending === 1, 'the second batch failed once');
    await clock.advance(1);
    await waitFor(
      () => titles().length === 2,
      () => `two reminders committed (calls ${JSON.stringify(calls)})`,
      10_000,
    );
    // The failed attempt's reminder was dropped; the retry's committed, once.
    expect(calls).toEqual([
      ['C-1', 'C-2'],
      ['C-3', 'C-4'],
      ['C-3', 'C-4'],
    ]);
    expect(titles()).toEqual([
      ['C-1', 'C-2'],
      ['C-3', 'C-4'],
    ]);
    await waitFor(
      () => subscription.health().positions.reduce((sum, p) => sum + Number(p.committed ?? 0), 0) === 4,
      'the offsets committed',
    );
    expect(titles()).toHaveLength(2);
  });

  it('refuse an inbox, retry tiers and sizes that cannot be, naming the fix', () => {
    const { host } = rig();
    const handler: BookIntegrationEventsBatchHandler = { groupId: 'inventory.batch', handleBatch() {} };
    const refusal = (options: object) => {
      try {
        host.subscribeBatch(BookIntegrationEvents, handler, options as never);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const inbox = refusal({ inbox: new InMemoryInboxStore() });
    expect(inbox).toBeInstanceOf(BatchSubscriptionError);
    expect(inbox).toMatchObject({ code: 'batch_with_inbox', message: expect.stringContaining('Subscribe a per-message handler') });
    expect(refusal({ retryLater: { tiers: [1_000] } })).toMatchObject({
      code: 'batch_with_retry_later',
      message: expect.stringContaining('a per-message handler (`subscribe`) with `retryLater`'),
    });
    expect(refusal({ batch: { maxSize: 0 } })).toMatchObject({ code: 'batch_invalid', message: expect.stringContaining('batch.maxSize') });
    expect(refusal({ batch: { maxWaitMs: -1 } })).toMatchObject({ code: 'batch_invalid' });
    expect(refusal({ batch: { maxSize: 1, maxWaitMs: 0 } })).toBeUndefined();
    expect(host.subscriptions).toHaveLength(1);
  });
});
