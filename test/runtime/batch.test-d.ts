// Batch handlers are typed per channel: the compiler keeps batch and per-message handlers apart,
// keeps the option a batch subscription refuses (an inbox) out of it, and narrows each item by its type.

import { createMessaging, type InboxStore } from '@keiyaku/runtime';
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsBatchHandler,
  type BookIntegrationEventsHandler,
  type BookReturned,
} from '../../generated/index.js';

declare const inbox: InboxStore;

describe('batch handlers', () => {
  it('subscribeBatch takes a batch handler, subscribe a per-message one, and neither takes the other', () => {
    const messaging = createMessaging({ transport: new InMemoryTransport() });
    const single: BookIntegrationEventsHandler = { groupId: 'inventory.single', handle() {} };
    const batch: BookIntegrationEventsBatchHandler = { groupId: 'inventory.batch', handleBatch() {} };
    messaging.subscribe(BookIntegrationEvents, single);
    messaging.subscribeBatch(BookIntegrationEvents, batch, { batch: { maxSize: 50, maxWaitMs: 20 }, deadLetter: { maxRetries: 2 } });
    // @ts-expect-error a per-message handler is not a batch handler
    messaging.subscribeBatch(BookIntegrationEvents, single);
    // @ts-expect-error a batch handler is not a per-message handler
    messaging.subscribe(BookIntegrationEvents, batch);
    // @ts-expect-error batch sizes belong to subscribeBatch
    messaging.subscribe(BookIntegrationEvents, single, { batch: { maxSize: 50 } });
    // @ts-expect-error a batch subscription runs in no inbox
    messaging.subscribeBatch(BookIntegrationEvents, batch, { inbox });
    // @ts-expect-error nor with retry tiers
    messaging.subscribeBatch(BookIntegrationEvents, batch, { retryLater: { tiers: [1_000] } });
    messaging.subscribeBatch(BookIntegrationEvents, { ...batch, groupId: 'inventory.batch-tx' }, { transactional: true });
  });

  it("an item's type narrows its message and its context", () => {
    const handler: BookIntegrationEventsBatchHandler = {
      groupId: 'inventory.batch',
      accepts: ['BookReturned'],
      handleBatch(batch, context) {
        for (const item of batch) {
          if (item.type === 'BookReturned') {
            expectTypeOf(item.message).toEqualTypeOf<BookReturned>();
            expectTypeOf(item.context).toEqualTypeOf<MessageContext<'BookReturned'>>();
          } else expectTypeOf(item.message).toEqualTypeOf<BookBorrowed>();
        }
        expectTypeOf(context.partition).toEqualTypeOf<number>();
        expectTypeOf(context.attempt).toEqualTypeOf<number>();
        expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
      },
    };
    // @ts-expect-error accepts names types of the channel only
    const wrong: BookIntegrationEventsBatchHandler = { groupId: 'g', accepts: ['DueDateReminder'], handleBatch() {} };
    void [handler, wrong];
  });
});
