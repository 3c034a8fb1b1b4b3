// On a real broker: a failing message blocks only its own partition; under a dead-letter
// policy it is parked and its partition moves on.
import { createMessaging, InMemoryDeadLetterStore, type Messaging, silentLogger } from '@keiyaku/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});
const borrowed = (copyId: string, i: number) =>
  BookBorrowed.create({
    bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i).padStart(12, '0')}`,
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

(kafkaBrokers === '' ? describe.skip : describe)(`poison messages on Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('blocks only the partition of the failing message while the others keep flowing, then parks it under the policy', async () => {
    const transport = testTransport();
    const deadLetters = new InMemoryDeadLetterStore();
    const host = createMessaging({ logger: silentLogger, transport, deadLetters });
    hosts.push(host);
    let poisonAttempts = 0;
    const handled: { copyId: string; partition: number }[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.poison',
        handle(message, context) {
          if (message.copyId === 'poison') {
            poisonAttempts++;
            throw new Error('poison');
          }
          handled.push({ copyId: message.copyId, partition: context.partition! });
        },
      },
      // Retries wait long enough for the other partitions to be seen flowing meanwhile.
      { deadLetter: { maxRetries: 3, backoffSchedule: [300, 300, 300] } },
    );
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    await publisher.publishMany([
      borrowed('poison', 0),
      borrowed('behind-poison', 0),
      ...Array.from({ length: 30 }, (_, i) => borrowed(`other-${i}`, i + 1)),
    ]);
    await waitFor(() => subscription.health().stalls.length === 1, 'the poison partition stalls', 30_000);
    const stalled = subscription.health().stalls[0]!.partition;
    await waitFor(
      () => handled.filter((h) => h.partition !== stalled && h.copyId.startsWith('other')).length > 0,
      'other partitions flow during the stall',
      30_000,
    );
    expect(handled.some((h) => h.copyId === 'behind-poison')).toBe(false);
    await waitFor(() => handled.some((h) => h.copyId === 'behind-poison'), 'the partition moves on after parking', 30_000);
    expect(poisonAttempts).toBe(4);
    const parked = await deadLetters.list();
    expect(parked.map((p) => [p.type, p.partition, p.attempts, p.error.message])).toEqual([['BookBorrowed', stalled, 4, 'poison']]);
    await waitFor(() => handled.length === 31, 'everything else handled', 30_000);
  });
});
