// The event relay: domain events → mapper → contract messages on the channel, with
// key = aggregate id, causation = event id, and a checkpoint that resumes after a restart.

import { createMessaging, EventRelay, InMemoryCheckpointStore, InMemoryEventStore, type Messaging, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import type { BookEvent } from '../../examples/library/book.js';
import { bookMapper } from '../../examples/library/book-mapper.js';
import { BookIntegrationEvents } from '../../generated/index.js';
import { waitFor } from '../helpers.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const borrowed = (copyId: string): BookEvent => ({
  type: 'BookBorrowed',
  copyId,
  borrowerId: 'M-1001',
  at: '2026-11-02T10:15:00.000Z',
  loanDays: 21,
  via: 'kiosk',
});

describe('EventRelay', () => {
  it('publishes mapped events, filters nulls, keys by aggregate and carries correlation and causation', async () => {
    const transport = new InMemoryTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const events = new InMemoryEventStore<BookEvent>();
    const producer = new EventRelay({
      name: 'library',
      logger: silentLogger,
      source: events,
      mapper: bookMapper,
      publisher: host.publisher(BookIntegrationEvents),
    });
    producer.start();
    events.append(
      '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      [{ type: 'BookAdded', title: 'T', author: 'A', isbn: '1', copies: 1 }, borrowed('C-1')],
      { correlationId: 'req-1' },
    );
    events.append('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6c', [
      { type: 'BookLost', copyId: 'C-9', reportedAt: '2026-11-02T10:15:00.000Z' },
      borrowed('C-2'),
    ]);
    const published = await transport.drain(BookIntegrationEvents, 2);
    await waitFor(() => producer.status().position === 4, 'the checkpoint reaches the last event');
    expect(published.map((p) => [p.type, p.message.copyId, p.record.key])).toEqual([
      ['BookBorrowed', 'C-1', '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b'],
      ['BookBorrowed', 'C-2', '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6c'],
    ]);
    expect(published[0]!.message).toMatchObject({
      bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      channel: 'self-service',
      dueAt: '2026-11-23T10:15:00.000Z',
    });
    expect(published[0]!.record.headers).toMatchObject({ ce_correlationid: 'req-1', ce_causationid: 'evt-2' });
    expect(published[1]!.record.headers['ce_correlationid']).toBeUndefined();
    expect(producer.status()).toMatchObject({ published: 2, filtered: 2, running: true });
    await producer.stop();
  });

  it('resumes from its checkpoint after a restart and publishes nothing twice', async () => {
    const transport = new InMemoryTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const events = new InMemoryEventStore<BookEvent>();
    const checkpoints = new InMemoryCheckpointStore();
    const make = () =>
      new EventRelay({
        name: 'library',
        logger: silentLogger,
        source: events,
        mapper: bookMapper,
        publisher: host.publisher(BookIntegrationEvents),
        checkpoints,
      });
    const first = make();
    await first.start();
    events.append('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', [borrowed('C-1'), borrowed('C-2')]);
    await transport.drain(BookIntegrationEvents, 2);
    await waitFor(async () => (await checkpoints.load('library')) === 2, 'the checkpoint is saved');
    await first.stop();
    events.append('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', [borrowed('C-3')]);
    const second = make();
    await second.start();
    const published = await transport.drain(BookIntegrationEvents, 3);
    await waitFor(() => second.status().position === 3, 'the second producer catches up');
    expect(published.map((p) => p.message.copyId)).toEqual(['C-1', 'C-2', 'C-3']);
    await second.stop();
  });

  it('with retry: false, stops on a mapper error without moving its checkpoint past the event, and says why', async () => {
    const transport = new InMemoryTransport();
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const events = new InMemoryEventStore<BookEvent>();
    const checkpoints = new InMemoryCheckpointStore();
    const producer = new EventRelay({
      name: 'library',
      logger: silentLogger,
      source: events,
      checkpoints,
      retry: false,
      publisher: host.publisher(BookIntegrationEvents),
      mapper: {
        map(event, context) {
          if (event.type === 'BookLost') throw new Error('cannot map a lost book yet');
          return bookMapper.map(event, context);
        },
      },
    });
    producer.start();
    events.append('6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', [
      borrowed('C-1'),
      { type: 'BookLost', copyId: 'C-1', reportedAt: '2026-11-02T10:15:00.000Z' },
      borrowed('C-2'),
    ]);
    await waitFor(() => producer.status().lastError !== undefined, 'the producer reports the error');
    expect(producer.status()).toMatchObject({ running: false, lastError: 'cannot map a lost book yet', position: 1 });
    expect(await checkpoints.load('library')).toBe(1);
    expect(transport.published(BookIntegrationEvents).map((p) => p.message.copyId)).toEqual(['C-1']);
  });
});
