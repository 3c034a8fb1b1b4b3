// Reading a whole topic through the transport's consumer, for tests of what a reader sees.
import type { KafkaDriverTransport as KafkaTransport } from '@keiyaku/kafka';
import type { IncomingRecord, OutgoingRecord } from '@keiyaku/runtime';

let groups = 0;

export const record = (address: string, id: string, key = id): OutgoingRecord => ({
  address,
  key,
  value: new TextEncoder().encode(id),
  headers: { ce_id: id },
});

/**
 * Reads `address` from the start in a new group with `isolation` (else the transport's) until a record whose value is
 * `until` arrives (a marker written last), and returns every value read before it.
 */
export async function readUntil(
  transport: KafkaTransport,
  address: string,
  until: string,
  isolation?: 'read_committed' | 'read_uncommitted',
  timeoutMs = 30_000,
): Promise<string[]> {
  const groupId = `reader-${process.pid}-${++groups}`;
  const consumer = transport.consumer({ address, groupId, batchSize: 500, ...(isolation === undefined ? {} : { isolation }) });
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (Date.now() > deadline) throw new Error(`timed out reading ${address} until ${until}; read ${seen.join(',')}`);
      const batch: readonly IncomingRecord[] = await consumer.poll(AbortSignal.timeout(1_000));
      for (const r of batch) {
        const value = new TextDecoder().decode(r.value);
        if (value === until) return seen;
        seen.push(value);
      }
    }
  } finally {
    await consumer.close();
  }
}
