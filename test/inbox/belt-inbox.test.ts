// The belt's inbox policy over the memory transport and the memory inbox: a message id recorded for
// the group is acknowledged without the handler and counted; a failed attempt leaves no row, so the
// retry runs the handler again; the handler gets the transaction handle; the host hosts one purger
// per inbox store, which deletes rows past the store's retention.
import {
  createMessaging,
  InboxError,
  InboxPurger,
  InMemoryInboxStore,
  inboxTransaction,
  ManualClock,
  type Messaging,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { recordingLogger, waitFor } from '../helpers.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function host(clock?: ManualClock): Messaging {
  const messaging = createMessaging({
    transport: new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }),
    logger: recordingLogger(),
    shutdownBudgetMs: 1_000,
    ...(clock === undefined ? {} : { clock }),
  });
  hosts.push(messaging);
  return messaging;
}

describe('an inbox subscription', () => {
  it('calls the handler once per message id and counts the redelivered one as a duplicate', async () => {
    const messaging = host();
    const inbox = new InMemoryInboxStore();
    const seen: { copyId: string; tx: unknown }[] = [];
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.inbox',
        handle: (m, context) => void seen.push({ copyId: m.copyId, tx: inboxTransaction(inbox, context) }),
      },
      { inbox, batchSize: 10 },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-1'), { id: 'm-1' });
    await publisher.publish(borrowed('C-1'), { id: 'm-1' }); // a redelivery: the same ce_id
    await publisher.publish(borrowed('C-2'), { id: 'm-2' });
    await waitFor(() => subscription.health().processed + subscription.health().duplicatesSkipped === 3, 'three records through the belt');
    expect(seen.map((s) => s.copyId)).toEqual(['C-1', 'C-2']);
    expect(seen[0]!.tx).toEqual({ groupId: 'inventory.inbox', messageId: 'm-1' });
    expect(subscription.health()).toMatchObject({ processed: 2, duplicatesSkipped: 1 });
    expect(subscription.metrics().partitions[0]).toMatchObject({ handled: 2, duplicates: 1 });
    expect(await inbox.has('inventory.inbox', 'm-1')).toBe(true);
    expect(await inbox.has('inventory.other', 'm-1')).toBe(false);
  });

  it('records nothing for a failed attempt, so the retry runs the handler again', async () => {
    const messaging = host();
    const inbox = new InMemoryInboxStore();
    const attempts: number[] = [];
    const subscription = messaging.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.inbox-retry',
        handle: async (_m, context) => {
          attempts.push(context.attempt);
          expect(await inbox.has('inventory.inbox-retry', context.messageId)).toBe(false);
          if (context.attempt < 3) throw new Error('not yet');
        },
      },
      { inbox, retry: { initialMs: 1, maxMs: 2, jitter: 0 } },
    );
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-9'), { id: 'm-9' });
    await waitFor(() => subscription.health().processed === 1, 'the record handled on its third attempt');
    expect(attempts).toEqual([1, 2, 3]);
    expect(await inbox.has('inventory.inbox-retry', 'm-9')).toBe(true);
    expect(await inbox.count()).toBe(1);
  });

  it('refuses to hand out a transaction to a handler outside an inbox', async () => {
    const messaging = host();
    const inbox = new InMemoryInboxStore();
    const errors: unknown[] = [];
    const subscription = messaging.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.no-inbox',
      handle: (_m, context) => {
        try {
          inboxTransaction(inbox, context);
        } catch (error) {
          errors.push(error);
        }
      },
    });
    const publisher = messaging.publisher(BookIntegrationEvents, { key: () => 'k', lingerMs: 0 });
    await messaging.start();
    await publisher.publish(borrowed('C-3'));
    await waitFor(() => subscription.health().processed === 1, 'the record handled');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InboxError);
    expect((errors[0] as InboxError).code).toBe('inbox_no_transaction');
    expect((errors[0] as Error).message).toMatch(/subscribe it with \{ inbox \}/);
  });

  it('is purged past its retention by the purger the host adds for it (one per store)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 8, 0, 0));
    const messaging = host(clock);
    const inbox = new InMemoryInboxStore({ clock, retentionMs: 60_000 });
    for (const group of ['a', 'b'])
      messaging.subscribe(BookIntegrationEvents, { groupId: `inventory.${group}`, handle: () => {} }, { inbox });
    const purgers = messaging.health().components.filter((c) => c.kind === 'inbox');
    expect(purgers.map((c) => c.name)).toEqual(['inbox:memory']);
    await inbox.process('inventory.a', 'old', () => undefined);
    await clock.advance(61_000);
    await inbox.process('inventory.a', 'new', () => undefined);
    expect(await new InboxPurger({ store: inbox, clock }, { batchSize: 1 }).purge()).toBe(1);
    expect(await inbox.has('inventory.a', 'old')).toBe(false);
    expect(await inbox.has('inventory.a', 'new')).toBe(true);
  });
});
