// Generated Iggy channels (the high-level SDK) write the one CloudEvents envelope every keiyaku
// transport writes, so IggyTransport subscriptions read what they publish and they read what the
// transport publishes; messages written before (only ce_type and ce_id) still decode.
// Against the in-repo protocol test double (not Iggy).
import { createMessaging, InMemoryDeadLetterStore, openEnvelope, silentLogger } from '@keiyaku/runtime';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookIntegrationEventsIggy } from '../../generated/iggy.js';
import { BookIntegrationEvents, BookReturned } from '../../generated/index.js';
import { IggyClient } from '../../runtime/iggy/client.js';
import { messageIdFromUuid, recordFromIggy } from '../../runtime/iggy/envelope-headers.js';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { UserHeaders } from '../../runtime/iggy/value-factories.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  await server.start();
});
afterEach(async () => {
  await server.stop();
});

describe('the envelope of generated Iggy channels', () => {
  it('serialize writes the CloudEvents envelope as user headers, ce_id as the message id', () => {
    const id = '0b9a3f52-6c1d-4e7a-8f20-3d4c5b6a7e81';
    const time = new Date('2026-11-02T10:15:01Z');
    const { headers, id: messageId } = BookIntegrationEventsIggy.serde.serialize(borrowed('C-1'), {
      id,
      time,
      correlationId: 'loan-7',
      key: 'book-6f1c',
    });
    expect(UserHeaders.decode(headers)).toEqual({
      ce_specversion: '1.0',
      ce_id: id,
      ce_type: 'BookBorrowed',
      ce_source: 'keiyaku',
      ce_time: '2026-11-02T10:15:01.000Z',
      'content-type': 'application/json',
      ce_correlationid: 'loan-7',
      keiyaku_key: 'book-6f1c',
    });
    expect(messageId).toBe(messageIdFromUuid(id));
  });

  it("the transport's reading of a channel-written message opens the same envelope", () => {
    const { payload, headers } = BookIntegrationEventsIggy.serde.serialize(borrowed('C-2'), { causationId: 'cmd-1' });
    const record = recordFromIggy({ offset: 4n, timestamp: 1_000n, payload, headers }, BookIntegrationEvents.address, 0);
    const opened = openEnvelope(BookIntegrationEvents, record);
    expect(opened.type).toBe('BookBorrowed');
    expect(opened.causationId).toBe('cmd-1');
    expect(opened.decoded).toMatchObject({ ok: true, value: { copyId: 'C-2' } });
  });

  it('messages written before the full envelope (ce_type and ce_id only) still decode; no type is a status', () => {
    const old = UserHeaders.encode({ ce_type: 'BookReturned', ce_id: '6a1d7c22-90b4-4c39-b1f7-1f1e2d3c4b5a' });
    const returned = BookReturned.create({
      bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      copyId: 'C-3',
      memberId: 'M-1001',
      returnedAt: '2026-11-20T09:00:00Z',
      condition: 'good',
    });
    const payload = BookIntegrationEvents.encode(returned);
    expect(BookIntegrationEventsIggy.serde.deserialize(payload, old)).toMatchObject({ ok: true, value: { copyId: 'C-3' } });
    expect(BookIntegrationEventsIggy.serde.deserialize(payload, new Uint8Array(0))).toMatchObject({
      ok: false,
      error: { reason: 'unknown_type' },
    });
  });

  it('an IggyTransport subscription reads what a generated channel published, and the channel reads what the transport published', async () => {
    const transport = new IggyTransport({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, idleWaitMs: 10, logger: silentLogger });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const handled: string[] = [];
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory', handle: (m) => void handled.push(m.copyId) });
    await host.start();
    await using client = new IggyClient({ host: '127.0.0.1', port: server.port, heartbeatMs: 0, logger: silentLogger });
    await client.connect();
    const publisher = BookIntegrationEventsIggy.publisher(client);
    await publisher.init();
    await publisher.send([borrowed('C-10'), borrowed('C-11')]);
    await waitFor(() => handled.length === 2, 'the subscription handles both');
    expect(handled.sort()).toEqual(['C-10', 'C-11']);

    await host.publisher(BookIntegrationEvents, { key: (m) => m.bookId }).publish(borrowed('C-12'), { correlationId: 'loan-12' });
    await host.stop();
    const consumer = BookIntegrationEventsIggy.consumer(client, { kind: 'consumer', id: 'reader' }, (b) =>
      b.withPollingStrategy({ kind: 'first' }).withPollInterval(5),
    );
    await consumer.init();
    const read: string[] = [];
    for await (const { result } of BookIntegrationEventsIggy.receive(consumer)) {
      read.push(result.ok ? result.value.copyId : `failed ${result.error.reason}`);
      if (read.length === 3) break;
    }
    expect(read.sort()).toEqual(['C-10', 'C-11', 'C-12']);
  });
});
