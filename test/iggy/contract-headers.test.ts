// Contract headers on Iggy, over the protocol test double (not Iggy): the generated channel's
// publisher validates them like every other path, and a header Iggy cannot carry (over 255
// UTF-8 bytes) is a typed error at once — on the generated publisher and on the transport under
// the runtime's publisher, which must not retry it. The contract is test/fixtures/tenant-headers
// (every message requires a `tenantId` header).
import { IggyClient, IggyHeaderError, MAX_HEADER_BYTES, UserHeaders } from '@keiyaku/iggy';
import { createMessaging, PublishError } from '@keiyaku/runtime';
import { ContractValidationError } from '@keiyaku/runtime/codegen-v1';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { ParcelEventsIggy } from '../fixtures/tenant-headers/expected/iggy.js';
import { ParcelDelivered, ParcelEvents, ParcelScanned } from '../fixtures/tenant-headers/expected/index.js';
import { IggyProtocolDouble } from './protocol-double.js';
import { recordingLogger } from './recording-logger.js';

let server: IggyProtocolDouble;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  await server.start();
});
afterEach(async () => {
  await server.stop();
});

const scanned = (parcelId: string) => ParcelScanned.create({ parcelId, depot: 'Leeds' });
/** 128 two-byte characters: 128 UTF-16 units, 256 UTF-8 bytes — one byte over what Iggy carries. */
const tooLong = 'é'.repeat(128);

describe('generated Iggy publisher with contract headers', () => {
  let client: IggyClient;
  beforeEach(async () => {
    client = new IggyClient({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0 });
    await client.connect();
  });
  afterEach(async () => {
    await client.close();
  });

  it('sends valid contract headers as user headers and reads them back', async () => {
    const publisher = ParcelEventsIggy.publisher(client, (b) => b.withPartitioning({ kind: 'partition', id: 0 }));
    await publisher.init();
    await publisher.send(scanned('P-1'), { headers: { tenantId: 'acme', priority: 3 } });
    const consumer = ParcelEventsIggy.consumer(client, { kind: 'consumer', id: 'tracking' }, (b) =>
      b.withPartitions([0]).withPollingStrategy({ kind: 'first' }).withPollInterval(5),
    );
    await consumer.init();
    for await (const { result, message } of ParcelEventsIggy.receive(consumer)) {
      expect(result.ok && result.value.parcelId).toBe('P-1');
      expect(UserHeaders.decode(message.headers)).toMatchObject({ tenantId: 'acme', priority: '3', ce_type: 'ParcelScanned' });
      break;
    }
  });

  it('refuses a missing or invalid contract header at once, naming it, and sends none of the messages', async () => {
    const publisher = ParcelEventsIggy.publisher(client);
    await publisher.init();
    const missing = publisher.send([scanned('P-1'), ParcelDelivered.create({ parcelId: 'P-2' })]);
    await expect(missing).rejects.toBeInstanceOf(ContractValidationError);
    await expect(missing).rejects.toMatchObject({ messageType: 'ParcelScanned', path: 'headers.tenantId' });
    await expect(publisher.send(scanned('P-3'), { headers: { tenantId: 'acme', priority: 12 } })).rejects.toMatchObject({
      name: 'ContractValidationError',
      path: 'headers.priority',
    });
    expect(() => ParcelEventsIggy.serde.serialize(scanned('P-4'))).toThrow(/ParcelScanned is not valid at headers\.tenantId/);
    await publisher.waitUntilAllSends();
    expect(server.sentBatches).toEqual([]);
  });

  it(`a header over ${MAX_HEADER_BYTES} UTF-8 bytes is an IggyHeaderError at once; nothing is sent`, async () => {
    const publisher = ParcelEventsIggy.publisher(client);
    await publisher.init();
    const sent = publisher.send(scanned('P-1'), { headers: { tenantId: tooLong } });
    await expect(sent).rejects.toBeInstanceOf(IggyHeaderError);
    await expect(sent).rejects.toMatchObject({
      code: 'iggy_header_too_long',
      retriable: false,
      header: 'tenantId',
      part: 'value',
      bytes: 256,
      address: 'parcel-events',
    });
    // 255 bytes is still carried.
    await publisher.send(scanned('P-2'), { headers: { tenantId: `${'é'.repeat(127)}a` } });
    await publisher.waitUntilAllSends();
    expect(server.sentBatches).toEqual([{ partition: expect.any(Number), messages: 1 }]);
  });
});

describe('Iggy transport: a header over 255 bytes', () => {
  it('fails the publish at once with the typed error: one attempt, no retry, nothing sent', async () => {
    const log = recordingLogger();
    const transport = new IggyTransport({
      host: '127.0.0.1',
      port: server.port,
      requestTimeoutMs: 1_000,
      heartbeatMs: 0,
      idleWaitMs: 10,
      logger: log.logger,
    });
    const host = createMessaging({ logger: log.logger, transport });
    try {
      // Backoff long enough that a retry would show in the elapsed time.
      const publisher = host.publisher(ParcelEvents, { lingerMs: 0, maxAttempts: 5, retry: { initialMs: 2_000, jitter: 0 } });
      const started = Date.now();
      const failed = publisher.publish(scanned('P-1'), { headers: { tenantId: tooLong } });
      await expect(failed).rejects.toBeInstanceOf(PublishError);
      await expect(failed).rejects.toMatchObject({ attempts: 1, retriable: false, cause: { name: 'IggyHeaderError', header: 'tenantId' } });
      await expect(failed).rejects.toThrow(
        'publishing ParcelScanned to parcelEvents failed after 1 attempt: Iggy cannot carry header "tenantId" of a message to parcels.events: its value is 256 UTF-8 bytes, at most 255 are allowed; shorten it (or carry the value in the payload)',
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      // The partition key travels as a header too.
      const keyed = publisher.publish(scanned('P-2'), { key: 'k'.repeat(300), headers: { tenantId: 'acme' } });
      await expect(keyed).rejects.toMatchObject({ attempts: 1, cause: { header: 'keiyaku_key', bytes: 300 } });
      await expect(keyed).rejects.toThrow(/Iggy cannot carry the partition key \(header keiyaku_key\)/);
      expect(log.lines.filter((line) => line.message === 'publish failed; retrying')).toEqual([]);
      expect(log.lines.filter((line) => line.message === 'publish failed')).toHaveLength(2);
      expect(server.sentBatches).toEqual([]);
      // The same publisher still sends a message Iggy can carry.
      await publisher.publish(scanned('P-3'), { headers: { tenantId: 'acme' } });
      expect(server.sentBatches).toHaveLength(1);
    } finally {
      await host.stop();
      await transport.close();
    }
  });
});
