// The publisher: batching by count, bytes and linger; retries; failures reach the caller
// and the error listeners; flush and `await using`.
import {
  type Logger,
  type OutgoingRecord,
  PublishError,
  Publisher,
  silentLogger,
  TransportError,
  type TransportProducer,
} from '@keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { borrowed } from '../books.js';

/** A producer that records batches and can fail the first `failures` sends. */
function recordingProducer(failures = 0, retriable = true) {
  const batches: OutgoingRecord[][] = [];
  let remaining = failures;
  const producer: TransportProducer = {
    async send(records) {
      if (remaining > 0) {
        remaining--;
        throw new TransportError('test', 'broker unavailable', { retriable });
      }
      batches.push([...records]);
    },
    async close() {},
  };
  return { producer, batches };
}

describe('Publisher', () => {
  it('batches by count and resolves each publish when its batch is acknowledged', async () => {
    const { producer, batches } = recordingProducer();
    const publisher = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger }, { maxBatchCount: 3, lingerMs: 50 });
    await Promise.all(Array.from({ length: 7 }, (_, i) => publisher.publish(borrowed(`C-${i}`))));
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(batches.flat().map((r) => JSON.parse(new TextDecoder().decode(r.value)).copyId)).toEqual([
      'C-0',
      'C-1',
      'C-2',
      'C-3',
      'C-4',
      'C-5',
      'C-6',
    ]);
  });

  it('batches by bytes', async () => {
    const { producer, batches } = recordingProducer();
    const size = BookIntegrationEvents.encode(borrowed('C-0')).byteLength;
    const publisher = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger }, { maxBatchBytes: size * 2, lingerMs: 20 });
    await publisher.publishMany([borrowed('C-0'), borrowed('C-1'), borrowed('C-2'), borrowed('C-3'), borrowed('C-4')]);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
  });

  it('writes CloudEvents headers and the key', async () => {
    const { producer, batches } = recordingProducer();
    const publisher = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger }, { source: 'library', key: (m) => m.bookId });
    await publisher.publish(borrowed('C-1'), {
      id: 'evt-1',
      correlationId: 'corr',
      causationId: 'cause',
      time: new Date('2026-11-30T08:00:00Z'),
      headers: { traceparent: 't' },
    });
    expect(batches[0]![0]).toMatchObject({
      address: 'library.book-integration-events',
      key: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      headers: {
        ce_specversion: '1.0',
        ce_id: 'evt-1',
        ce_type: 'BookBorrowed',
        ce_source: 'library',
        ce_time: '2026-11-30T08:00:00.000Z',
        'content-type': 'application/json',
        ce_correlationid: 'corr',
        ce_causationid: 'cause',
        traceparent: 't',
      },
    });
  });

  it('retries a failed send with backoff and then succeeds', async () => {
    const { producer, batches } = recordingProducer(2);
    const publisher = new Publisher(
      BookIntegrationEvents,
      { producer, logger: silentLogger },
      { retry: { initialMs: 1, jitter: 0 }, maxAttempts: 3 },
    );
    await publisher.publish(borrowed('C-1'));
    expect(batches).toHaveLength(1);
  });

  it('rejects the caller and tells the error listeners when every attempt failed; nothing is dropped silently', async () => {
    const { producer, batches } = recordingProducer(10);
    const publisher = new Publisher(
      BookIntegrationEvents,
      { producer, logger: silentLogger },
      { retry: { initialMs: 1, jitter: 0 }, maxAttempts: 3 },
    );
    const heard: PublishError[] = [];
    const unsubscribe = publisher.onError((e) => heard.push(e));
    const outcome = publisher.publish(borrowed('C-1'));
    await expect(outcome).rejects.toBeInstanceOf(PublishError);
    await expect(outcome).rejects.toMatchObject({ channel: 'bookIntegrationEvents', messageType: 'BookBorrowed', attempts: 3 });
    expect(heard).toHaveLength(1);
    expect(heard[0]!.cause).toBeInstanceOf(TransportError);
    unsubscribe();
    expect(batches).toEqual([]);
  });

  it('rejects every message of a failed batch even when an error listener throws, and logs what it threw', async () => {
    const sends: number[] = [];
    const producer: TransportProducer = {
      async send(records) {
        sends.push(records.length);
        throw new TransportError('test', 'topic authorization failed', { retriable: false });
      },
      async close() {},
    };
    const logged: { message: string; fields: Readonly<Record<string, unknown>> | undefined }[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn() {},
      error: (message, fields) => void logged.push({ message, fields }),
    };
    const publisher = new Publisher(BookIntegrationEvents, { producer, logger }, { lingerMs: 5 });
    publisher.onError(() => {
      throw new Error('listener bug');
    });
    const heard: PublishError[] = [];
    publisher.onError((e) => heard.push(e));
    const outcomes = await Promise.allSettled([publisher.publish(borrowed('C-1')), publisher.publish(borrowed('C-2'))]);
    expect(sends).toEqual([2]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: expect.any(PublishError) },
      { status: 'rejected', reason: expect.any(PublishError) },
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as PublishError).attempts : undefined))).toEqual([1, 1]);
    expect(heard).toHaveLength(2);
    expect(heard.map((e) => e.cause)).toEqual([expect.any(TransportError), expect.any(TransportError)]);
    const listenerFailures = logged.filter((l) => l.message === 'a publish error listener threw');
    expect(listenerFailures).toHaveLength(2);
    expect(listenerFailures.every((l) => String(l.fields?.['error']).includes('listener bug'))).toBe(true);
    await publisher.flush();
    expect(publisher.pending).toBe(0);
  }, 5_000);

  it('does not retry an error that says it is not retriable', async () => {
    const { producer } = recordingProducer(1, false);
    const publisher = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger }, { retry: { initialMs: 1 }, maxAttempts: 5 });
    await expect(publisher.publish(borrowed('C-1'))).rejects.toMatchObject({ attempts: 1 });
  });

  it('flush waits for everything queued; close refuses more; await using closes', async () => {
    const { producer, batches } = recordingProducer();
    {
      await using publisher = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger }, { lingerMs: 10_000 });
      void publisher.publish(borrowed('C-1'));
      void publisher.publish(borrowed('C-2'));
      expect(publisher.pending).toBe(2);
      await publisher.flush();
      expect(batches.flat()).toHaveLength(2);
      void publisher.publish(borrowed('C-3'));
    }
    expect(batches.flat()).toHaveLength(3);
    const closed = new Publisher(BookIntegrationEvents, { producer, logger: silentLogger });
    await closed.close();
    await expect(closed.publish(borrowed('C-4'))).rejects.toMatchObject({ name: 'ClosedError' });
  });

  it('needs the parameters of a channel with parameters, from the publisher or each publish', async () => {
    const { producer, batches } = recordingProducer();
    const reminder = DueDateReminder.create({
      memberId: 'M-1001',
      loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', dueAt: '2026-12-01T00:00:00Z' }],
    });
    const perMessage = new Publisher(MemberNotifications, { producer, logger: silentLogger });
    await expect(perMessage.publish(reminder)).rejects.toMatchObject({
      code: 'address_required',
      message: expect.stringMatching(/has parameters/),
    });
    await perMessage.publish(reminder, { parameters: { memberId: 'M-2002' } });
    const fixed = new Publisher(MemberNotifications, { producer, logger: silentLogger }, { parameters: { memberId: 'M-1001' } });
    await fixed.publish(reminder);
    expect(batches.flat().map((r) => r.address)).toEqual(['library.members.M-2002.notifications', 'library.members.M-1001.notifications']);
  });
});
