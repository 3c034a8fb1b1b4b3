// The in-memory transport with `retention: 'uncommitted'` (long runs, benchmarks): records every
// group committed are dropped in runs, offsets keep counting, nothing uncommitted is lost, and a
// group that joins later starts at the oldest record kept.
import { InMemoryTransport } from 'keiyaku/memory';
import { describe, expect, it } from 'vitest';

const address = 'retention.test';
const ac = new AbortController();

describe('in-memory retention of uncommitted records', () => {
  it('drops what every group committed, in runs, and keeps reading in order with growing offsets', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 1, retention: 'uncommitted' });
    const producer = transport.producer();
    const consumer = transport.consumer({ address, groupId: 'g', batchSize: 1_000 });
    const value = new Uint8Array([1]);
    const offsets: number[] = [];
    for (let round = 0; round < 12; round++) {
      await producer.send(Array.from({ length: 1_000 }, () => ({ address, value, headers: {} })));
      const records = await consumer.poll(ac.signal);
      for (const record of records) {
        offsets.push(Number(record.offset));
        consumer.ack(record);
      }
      await consumer.commit();
      const kept = transport.log(address).partitions[0]!;
      // Never more than one run of committed records is kept beside what is not committed.
      expect(kept.base + kept.records.length).toBe((round + 1) * 1_000);
      expect(kept.records.length).toBeLessThan(4_096 + 1_000);
    }
    expect(offsets).toEqual(Array.from({ length: 12_000 }, (_, i) => i));
    expect(transport.log(address).partitions[0]!.base).toBeGreaterThan(0);

    const late = transport.consumer({ address, groupId: 'late', batchSize: 20_000 });
    await producer.send([{ address, value, headers: {} }]);
    const first = await late.poll(ac.signal);
    expect(Number(first[0]!.offset)).toBe(transport.log(address).partitions[0]!.base);
    expect(Number(first.at(-1)!.offset)).toBe(12_000);
    await transport.close();
  });
});
