// Transactional subscriptions over the memory transport: the handler publishes with the service's
// ordinary publishers; its outputs and the offsets of the records it handled commit together in
// one transaction per belt commit. Outputs appear only at the commit; a failed attempt's outputs
// never appear (the retry's do, once); a failed commit restarts the belt from the committed
// offsets, and after the replay every output is there exactly once; a fenced producer fails the
// subscription, saying why.
import {
  createMessaging,
  InMemoryInboxStore,
  type Messaging,
  type MessagingOptions,
  type Subscription,
  TransactionalSubscriptionError,
} from '@keiyaku/runtime';
import type { TransactionalProducer, TransportTransaction } from '@keiyaku/runtime/adapter';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, type BookIntegrationEventsMessage, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { recordingLogger, waitFor } from '../helpers.js';

const MEMBER = 'M-1001';
const OUT = `library.members.${MEMBER}.notifications`;

/** The memory transport with a hook on every transaction's commit (to hold it, or fail it). */
class HookedTransport extends InMemoryTransport {
  beforeCommit: (n: number) => Promise<void> | void = () => undefined;
  beforeSend: (n: number) => void = () => undefined;
  commits = 0;
  sends = 0;
  override transactionalProducer(id: string): TransactionalProducer {
    const inner = super.transactionalProducer(id);
    return {
      transactionalId: inner.transactionalId,
      close: () => inner.close(),
      begin: async (): Promise<TransportTransaction> => {
        const txn = await inner.begin();
        return {
          send: async (records) => {
            this.beforeSend(++this.sends);
            await txn.send(records);
          },
          sendOffsets: (groupId, offsets) => txn.sendOffsets(groupId, offsets),
          abort: () => txn.abort(),
          commit: async () => {
            await this.beforeCommit(++this.commits);
            await txn.commit();
          },
        };
      },
    };
  }
}

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function host(transport: InMemoryTransport, options: Partial<MessagingOptions> = {}) {
  const logger = recordingLogger();
  const messaging = createMessaging({ transport, logger, shutdownBudgetMs: 1_000, ...options });
  hosts.push(messaging);
  return { messaging, logger };
}

const reminder = (copyId: string) =>
  DueDateReminder.create({
    memberId: MEMBER,
    loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', title: copyId, dueAt: '2026-11-23T10:15:00Z' }],
  });
const outputs = (transport: InMemoryTransport) => transport.published(MemberNotifications, OUT).map((p) => p.message.loans[0]!.title);

/** A service reading loans and publishing one reminder per loan, in a transactional subscription. */
function relay(messaging: Messaging, options: { batchSize?: number; fail?: (copyId: string, attempt: number) => boolean } = {}) {
  const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
  const calls: string[] = [];
  const subscription = messaging.subscribe(
    BookIntegrationEvents,
    {
      groupId: 'reminders.tx',
      async handle(message, context) {
        calls.push(message.copyId);
        await reminders.publish(reminder(message.copyId));
        if (options.fail?.(message.copyId, context.attempt)) throw new Error(`no reminder for ${message.copyId} yet`);
      },
    },
    { transactional: true, batchSize: options.batchSize ?? 100, retry: { initialMs: 1, maxMs: 2, jitter: 0 } },
  );
  return { subscription, calls };
}

async function publishLoans(messaging: Messaging, copyIds: readonly string[]): Promise<void> {
  const loans = messaging.publisher(BookIntegrationEvents, { key: () => 'one-key', lingerMs: 0 });
  for (const copyId of copyIds) await loans.publish(borrowed(copyId));
}

/** Records committed by the subscription's group, over its partitions. */
const committed = (subscription: Subscription<BookIntegrationEventsMessage>) =>
  subscription.health().positions.reduce((sum, p) => sum + Number(p.committed ?? 0), 0);

describe('a transactional subscription (memory transport)', () => {
  it('makes its outputs visible only when the transaction commits, with the input offsets', async () => {
    const transport = new HookedTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    transport.beforeCommit = () => held;
    const { subscription } = relay(messaging);
    await messaging.start();
    expect(subscription.transactionalId).toMatch(/^keiyaku\.reminders\.tx\.library\.[a-z.-]+\.[^.]+/);
    await publishLoans(messaging, ['C-1', 'C-2', 'C-3']);
    await waitFor(() => subscription.health().processed === 3 && transport.commits === 1, 'three handled, their commit under way');
    expect(outputs(transport)).toEqual([]);
    expect(committed(subscription)).toBe(0);
    release();
    await waitFor(() => outputs(transport).length === 3, 'the outputs after the commit');
    expect(outputs(transport)).toEqual(['C-1', 'C-2', 'C-3']);
    await waitFor(() => committed(subscription) === 3, 'the input offsets committed');
  });

  it("drops a failed attempt's outputs: the retry's appear, once", async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    const { subscription, calls } = relay(messaging, { fail: (copyId, attempt) => copyId === 'C-2' && attempt < 3 });
    await messaging.start();
    await publishLoans(messaging, ['C-1', 'C-2', 'C-3']);
    await waitFor(
      () => outputs(transport).length >= 3 && committed(subscription) === 3,
      () => `three outputs committed (outputs ${outputs(transport).join()}, committed ${committed(subscription)})`,
    );
    expect(calls).toEqual(['C-1', 'C-2', 'C-2', 'C-2', 'C-3']);
    expect(outputs(transport)).toEqual(['C-1', 'C-2', 'C-3']);
    expect(subscription.health()).toMatchObject({ processed: 3, state: 'running' });
  });

  it('restarts from the committed offsets after a failed commit; after the replay every output is there exactly once', async () => {
    const transport = new HookedTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging, logger } = host(transport);
    transport.beforeCommit = (n) => {
      if (n === 2) throw new Error('the broker refused the commit');
    };
    const { subscription, calls } = relay(messaging, { batchSize: 2 });
    await messaging.start();
    const copies = Array.from({ length: 9 }, (_, i) => `C-${i}`);
    await publishLoans(messaging, copies);
    await waitFor(
      () => committed(subscription) === 9,
      () => `all nine committed (commits ${transport.commits}, committed ${committed(subscription)})`,
    );
    expect(outputs(transport)).toEqual(copies);
    expect(calls.length).toBeGreaterThan(copies.length); // the records of the failed transaction ran again
    expect(new Set(calls)).toEqual(new Set(copies));
    const warning = logger.lines.find((l) => l.message.startsWith('transaction failed and was aborted'));
    expect(warning).toMatchObject({
      level: 'warn',
      fields: { groupId: 'reminders.tx', error: expect.stringContaining('refused the commit') },
    });
    expect(subscription.health()).toMatchObject({ state: 'running', ready: true });
  });

  it('restarts from the committed offsets after a failed send into the transaction', async () => {
    const transport = new HookedTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging, logger } = host(transport);
    transport.beforeSend = (n) => {
      if (n === 4) throw new Error('the broker refused the records');
    };
    const { subscription, calls } = relay(messaging, { batchSize: 3 });
    await messaging.start();
    const copies = Array.from({ length: 7 }, (_, i) => `C-${i}`);
    await publishLoans(messaging, copies);
    await waitFor(
      () => committed(subscription) === 7,
      () => `all seven committed (committed ${committed(subscription)})`,
    );
    expect(outputs(transport)).toEqual(copies);
    expect(calls.length).toBeGreaterThan(copies.length);
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.startsWith('transaction failed and was aborted'))).toBe(true);
  });

  it('stops as failed, saying why, when another producer takes its transactional id', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging, logger } = host(transport);
    const { subscription } = relay(messaging);
    await messaging.start();
    await publishLoans(messaging, ['C-1']);
    await waitFor(() => outputs(transport).length === 1, 'the first output');
    const successor = transport.transactionalProducer(subscription.transactionalId!);
    await publishLoans(messaging, ['C-2']);
    await waitFor(() => subscription.health().state === 'failed', 'the subscription failed');
    expect(subscription.health().lastError).toMatch(/^fenced: .*was fenced by another producer with the same transactional id/);
    expect(logger.lines.some((l) => l.level === 'error' && l.message.includes('fenced'))).toBe(true);
    expect(outputs(transport)).toEqual(['C-1']);
    await subscription.stop();
    expect(subscription.health().state).toBe('failed');
    await successor.close();
  });

  it('takes an explicit transactional id, and runs beside an inbox (a redelivered message is skipped, without outputs)', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    const inbox = new InMemoryInboxStore();
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'reminders.inbox',
        async handle(message) {
          await reminders.publish(reminder(message.copyId));
        },
      },
      { transactional: { transactionalId: 'reminders-1' }, inbox },
    );
    await messaging.start();
    expect(subscription.transactionalId).toBe('reminders-1');
    const loans = messaging.publisher(BookIntegrationEvents, { lingerMs: 0 });
    await loans.publish(borrowed('C-1'), { id: 'loan-1' });
    await loans.publish(borrowed('C-1'), { id: 'loan-1' }); // redelivered: the same id
    await loans.publish(borrowed('C-2'), { id: 'loan-2' });
    await waitFor(() => committed(subscription) === 3 && outputs(transport).length === 2, 'committed');
    expect(outputs(transport)).toEqual(['C-1', 'C-2']);
    expect(subscription.health()).toMatchObject({ processed: 2, duplicatesSkipped: 1 });
  });

  it('refuses to start over a transport without transactions, naming the option and the transport', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    Object.defineProperty(transport, 'transactionalProducer', { value: undefined });
    const { messaging } = host(transport);
    const { subscription } = relay(messaging);
    const started = messaging.start();
    await expect(started).rejects.toBeInstanceOf(TransactionalSubscriptionError);
    await expect(started).rejects.toThrow(
      /is transactional, but the memory transport has no transactions; remove the `transactional` option/,
    );
    expect(subscription.health()).toMatchObject({ state: 'failed', ready: false });
  });

  it('sends publishes outside a handler, and those of a non-transactional subscription, as usual', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    messaging.subscribe(
      BookIntegrationEvents,
      { groupId: 'reminders.plain', handle: (m) => reminders.publish(reminder(m.copyId)) },
      { batchSize: 100 },
    );
    relay(messaging);
    await messaging.start();
    await reminders.publish(reminder('direct'));
    expect(outputs(transport)).toEqual(['direct']);
    await publishLoans(messaging, ['C-1']);
    await waitFor(() => outputs(transport).length === 3, 'one output from each subscription');
    expect(outputs(transport).sort()).toEqual(['C-1', 'C-1', 'direct']);
  });

  it('parks a record the policy gives up on outside the transaction: its outputs are dropped, its offset commits with the next transaction', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'reminders.parking',
        async handle(message) {
          await reminders.publish(reminder(message.copyId));
          if (message.copyId === 'C-2') throw new Error('C-2 never gets a reminder');
        },
      },
      { transactional: true, deadLetter: { maxRetries: 1, backoffSchedule: [1] } },
    );
    await messaging.start();
    await publishLoans(messaging, ['C-1', 'C-2', 'C-3']);
    await waitFor(() => committed(subscription) === 3, 'three committed');
    expect(outputs(transport)).toEqual(['C-1', 'C-3']);
    expect(subscription.health()).toMatchObject({ processed: 2, parked: 1 });
    expect((await messaging.deadLetters.list()).map((p) => p.offset)).toEqual(['1']);
  });

  it('rejects a publish made after its transactional attempt ended', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const { messaging } = host(transport);
    const reminders = messaging.publisher(MemberNotifications, { parameters: { memberId: MEMBER } });
    let late: Promise<void> | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'reminders.late',
        handle(message) {
          late = gate.then(() => reminders.publish(reminder(message.copyId))); // not awaited by the handler
        },
      },
      { transactional: true },
    );
    await messaging.start();
    await publishLoans(messaging, ['C-1']);
    await waitFor(() => subscription.health().processed === 1, 'handled');
    release();
    await expect(late).rejects.toMatchObject({
      code: 'publish_after_attempt',
      message: expect.stringContaining('await every publish inside the handler'),
    });
    expect(outputs(transport)).toEqual([]);
  });
});
