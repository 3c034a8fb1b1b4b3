// Conveyor-belt semantics on the in-memory transport with a manual clock: order, no skip,
// the backoff schedules, parking with every field, routing, health and other partitions flowing.

import { createMessaging, InMemoryDeadLetterStore, ManualClock, type Messaging, silentLogger } from '@keiyaku/runtime';
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsMessage,
  BookReturned,
  MemberNotifications,
} from '../../generated/index.js';
import { waitFor } from '../helpers.js';

const borrowed = (copyId: string, bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b') =>
  BookBorrowed.create({
    bookId,
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
const returned = (copyId: string, bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b') =>
  BookReturned.create({ bookId, copyId, memberId: 'M-1001', returnedAt: '2026-11-20T10:15:00Z', condition: 'good' });

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function rig(options: { partitions?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
  const transport = new InMemoryTransport({ defaultPartitions: options.partitions ?? 1, idleWaitMs: 5 });
  const deadLetters = new InMemoryDeadLetterStore();
  const host = createMessaging({ logger: silentLogger, transport, deadLetters, clock, random: () => 0.5, shutdownBudgetMs: 1_000 });
  hosts.push(host);
  const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
  return { clock, transport, deadLetters, host, publisher };
}

describe('the conveyor belt', () => {
  it('blocks at a failing message and retries on exponential backoff with a cap, never skipping', async () => {
    const { clock, host, publisher } = rig();
    const handled: string[] = [];
    const attemptsAt: number[] = [];
    let healthy = false;
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.book-availability',
        handle(message, context) {
          if (message.copyId === 'C-2') {
            attemptsAt.push(clock.now());
            if (!healthy) throw new Error(`inventory database down (attempt ${context.attempt})`);
          }
          handled.push(message.copyId);
        },
      },
      { retry: { initialMs: 1_000, multiplier: 2, maxMs: 8_000, jitter: 0 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), borrowed('C-3')]);
    await waitFor(() => attemptsAt.length === 1 && clock.pending === 1, 'the first failure parks the belt in its backoff');
    const start = clock.now();
    for (let i = 0; i < 6; i++) {
      await clock.advance(clock.nextWake! - clock.now());
      await waitFor(() => attemptsAt.length === i + 2 && clock.pending === 1, `attempt ${i + 2}`);
    }
    expect(attemptsAt.map((t) => t - start)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000, 31_000]);
    expect(handled).toEqual(['C-1']);
    const health = subscription.health();
    expect(health.state).toBe('stalled');
    expect(health.ready).toBe(false);
    expect(host.health().ready).toBe(false);
    expect(health.stalls).toEqual([
      expect.objectContaining({
        partition: expect.any(Number),
        offset: '1',
        type: 'BookBorrowed',
        since: new Date(start),
        attempts: 7,
        reason: 'Error: inventory database down (attempt 7)',
      }),
    ]);
    healthy = true;
    await clock.advance(8_000);
    await waitFor(() => handled.length === 3, 'the belt moves again');
    expect(handled).toEqual(['C-1', 'C-2', 'C-3']);
    expect(subscription.health()).toMatchObject({ state: 'running', ready: true, stalls: [], processed: 3, parked: 0 });
  });

  it('parks after maxRetries on the default schedule (1s, 5s, 30s, 2m, 10m, repeating) with every field', async () => {
    const { clock, host, publisher, deadLetters } = rig();
    const attemptsAt: number[] = [];
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.book-availability',
        handle(message) {
          if (message.copyId === 'poison') {
            attemptsAt.push(clock.now());
            throw new TypeError('cannot read the shelf of a poison copy');
          }
          handled.push(message.copyId);
        },
      },
      { deadLetter: { maxRetries: 6 } },
    );
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('poison'), borrowed('C-3')]);
    await publisher.publish(returned('C-4'), { correlationId: 'corr-43', key: 'custom-key' });
    await waitFor(() => attemptsAt.length === 1 && clock.pending === 1, 'the first failure');
    const start = clock.now();
    while (attemptsAt.length < 7) {
      const seen = attemptsAt.length;
      await clock.advance(clock.nextWake! - clock.now());
      await waitFor(() => attemptsAt.length === seen + 1, `attempt ${seen + 1}`);
    }
    expect(attemptsAt.map((t) => (t - start) / 1000)).toEqual([0, 1, 6, 36, 156, 756, 1356]);
    await waitFor(() => handled.length === 3, 'the belt moves on after parking');
    expect([...handled].sort()).toEqual(['C-1', 'C-3', 'C-4']);
    expect(handled.indexOf('C-1')).toBeLessThan(handled.indexOf('C-3'));
    const [parked, ...others] = await deadLetters.list();
    expect(others).toEqual([]);
    expect(parked).toMatchObject({
      channel: 'bookIntegrationEvents',
      address: 'library.book-integration-events',
      groupId: 'inventory.book-availability',
      type: 'BookBorrowed',
      key: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      partition: expect.any(Number),
      offset: '1',
      attempts: 7,
      firstFailureAt: new Date(start),
      lastFailureAt: new Date(start + 1_356_000),
      parkedAt: new Date(start + 1_356_000),
      error: { name: 'TypeError', message: 'cannot read the shelf of a poison copy' },
    });
    expect(parked!.error.stack).toContain('TypeError: cannot read the shelf');
    expect(JSON.parse(new TextDecoder().decode(parked!.payload))).toMatchObject({ copyId: 'poison' });
    expect(parked!.headers).toMatchObject({ ce_type: 'BookBorrowed', ce_specversion: '1.0', 'content-type': 'application/json' });
    expect(subscription.health()).toMatchObject({ parked: 1, processed: 3, stalls: [] });
  });

  it('keeps other partitions flowing while one is stalled', async () => {
    const { clock, host, publisher, transport } = rig({ partitions: 4 });
    const handled: string[] = [];
    host.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.book-availability',
      handle(message) {
        if (message.copyId === 'stuck') throw new Error('stuck');
        handled.push(message.copyId);
      },
    });
    await host.start();
    const stuckBook = '00000000-0000-4000-8000-000000000001';
    await publisher.publishMany([borrowed('stuck', stuckBook), borrowed('behind-stuck', stuckBook)]);
    await waitFor(() => clock.pending === 1, 'the stuck partition is retrying');
    const others = Array.from({ length: 12 }, (_, i) =>
      borrowed(`other-${i}`, `00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`),
    );
    await publisher.publishMany(others);
    const records = transport.published(BookIntegrationEvents);
    const stuckPartition = records.find((r) => r.message.copyId === 'stuck')!.record.partition;
    const elsewhere = records.filter((r) => r.record.partition !== stuckPartition).map((r) => r.message.copyId);
    const sameLane = records
      .filter((r) => r.record.partition === stuckPartition && r.message.copyId !== 'stuck')
      .map((r) => r.message.copyId);
    expect(elsewhere.length).toBeGreaterThan(0);
    await waitFor(() => elsewhere.every((c) => handled.includes(c)), 'every record on the other partitions is handled');
    expect(handled.filter((c) => sameLane.includes(c))).toEqual([]);
    expect(sameLane).toContain('behind-stuck');
  });

  it('skips message types the handler does not accept, and still commits past them', async () => {
    const { host, publisher, transport } = rig();
    const handled: string[] = [];
    const subscription = host.subscribe(BookIntegrationEvents, {
      groupId: 'notifications.returns',
      accepts: ['BookReturned'],
      handle(message: BookIntegrationEventsMessage, context: MessageContext) {
        handled.push(`${context.type}:${message.copyId}`);
      },
    });
    await host.start();
    await publisher.publishMany([borrowed('C-1'), returned('C-1'), borrowed('C-2')]);
    await waitFor(() => subscription.health().skipped === 2 && handled.length === 1, 'routing');
    expect(handled).toEqual(['BookReturned:C-1']);
    // One key, so all three are on one partition, at offsets 0, 1 and 2.
    const partitions = new Set(transport.published(BookIntegrationEvents).map((p) => p.record.partition));
    expect(partitions.size).toBe(1);
    const [partition] = partitions;
    await waitFor(
      () => subscription.health().positions.find((p) => p.partition === partition)?.committed === '3',
      'the committed offset passes the skipped records',
    );
    expect(subscription.health().positions.find((p) => p.partition === partition)).toEqual({
      partition,
      committed: '3',
      acknowledged: '3',
      highWatermark: '3',
      lag: 0,
    });
    await host.stop();
    expect(transport.published(BookIntegrationEvents)).toHaveLength(3);
  });

  it('routes on the type header alone: an unwanted type is skipped without decoding, a record without a type is a failure', async () => {
    const { host, publisher, transport, deadLetters } = rig();
    const handled: string[] = [];
    // The channel as the subscription sees it, counting what it is asked to decode.
    const decoded: string[] = [];
    const channel: typeof BookIntegrationEvents = {
      ...BookIntegrationEvents,
      decode(bytes, type) {
        decoded.push(type);
        return BookIntegrationEvents.decode(bytes, type);
      },
    };
    const subscription = host.subscribe(
      channel,
      {
        groupId: 'notifications.returns',
        accepts: ['BookReturned'],
        handle(message: BookIntegrationEventsMessage, context: MessageContext) {
          handled.push(`${context.type}:${message.copyId}`);
        },
      },
      // Any failure is parked at once, so a record wrongly treated as one shows up in the store.
      { deadLetter: { maxRetries: 0, backoffSchedule: [1] } },
    );
    await host.start();
    const address = BookIntegrationEvents.address;
    const garbage = new Uint8Array([0xff, 0xfe, 0x00]);
    const headers = (id: string, type?: string) => ({
      ce_specversion: '1.0',
      ce_id: id,
      ...(type === undefined ? {} : { ce_type: type }),
    });
    const producer = transport.producer();
    // One key, so the three land on one partition, at offsets 0, 1 and 2.
    const key = 'garbage';
    await producer.send([
      // A type of the channel this subscription does not accept, with bytes that cannot be decoded.
      { address, key, value: garbage, headers: headers('unwanted-garbage', 'BookBorrowed') },
      // A type the channel does not carry at all, with bytes that cannot be decoded.
      { address, key, value: garbage, headers: headers('foreign-garbage', 'ShelfMoved') },
      // No type header: undecodable, a failure like any other.
      { address, key, value: garbage, headers: headers('untyped-garbage') },
    ]);
    await producer.close();
    await publisher.publish(returned('C-9'));
    await waitFor(() => handled.length === 1, 'the valid record after the broken ones is handled');
    expect(handled).toEqual(['BookReturned:C-9']);
    expect(subscription.health()).toMatchObject({ skipped: 2, parked: 1, processed: 1, stalls: [] });
    expect(decoded).toEqual(['BookReturned']);
    const parked = await deadLetters.list();
    expect(parked).toHaveLength(1);
    const garbagePartition = transport.published(address).find((r) => r.key === key)!.partition;
    expect(parked[0]).toMatchObject({ type: '', key, partition: garbagePartition, offset: '2', error: { name: 'ContractDecodeError' } });
    expect(parked[0]!.error.message).toContain('has no ce_type header');
    expect(parked[0]!.headers).toEqual(headers('untyped-garbage'));
  });

  it('refuses a second subscription of one group and a channel with parameters without an address, with typed errors', () => {
    const { host } = rig();
    const handler = { groupId: 'inventory.book-availability', handle() {} };
    host.subscribe(BookIntegrationEvents, handler);
    expect(() => host.subscribe(BookIntegrationEvents, handler)).toThrow(
      expect.objectContaining({
        name: 'KeiyakuError',
        code: 'duplicate_subscription',
        message: expect.stringContaining('already subscribes'),
      }),
    );
    expect(() => host.subscribe(MemberNotifications, { groupId: 'notifications.reminders', handle() {} })).toThrow(
      expect.objectContaining({ name: 'KeiyakuError', code: 'address_required', message: expect.stringContaining('has parameters') }),
    );
    const subscription = host.subscribe(
      MemberNotifications,
      { groupId: 'notifications.reminders', handle() {} },
      { parameters: { memberId: 'M-1001' } },
    );
    expect(subscription.address).toBe('library.members.M-1001.notifications');
  });
});
