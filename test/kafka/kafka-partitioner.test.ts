// keiyaku's Kafka partitioner must put every key where kafkajs' default (Java-compatible)
// partitioner puts it: records written before, or by other producers, keep their per-key order.
// Pure computation, no broker needed.
import { randomBytes } from 'node:crypto';
import { type PartitionerArgs, Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { keyPartitioner, murmur2 } from '../../runtime/kafka/transport.js';

const metadata = (count: number): PartitionerArgs['partitionMetadata'] =>
  Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));

const keys = (): (string | Buffer)[] => {
  const out: (string | Buffer)[] = [
    '',
    'a',
    'ab',
    'abc',
    'abcd',
    'abcde',
    '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    'ü',
    'Bücher',
    '日本',
    '😀x',
  ];
  for (let length = 0; length < 70; length++) {
    out.push(randomBytes(length).toString('base64').slice(0, length));
    out.push(randomBytes(length));
    out.push(Array.from({ length }, () => String.fromCodePoint(0x20 + Math.floor(Math.random() * 0x2fff))).join(''));
  }
  return out;
};

describe('Kafka key partitioner', () => {
  it('chooses the partition kafkajs DefaultPartitioner chooses, for ASCII, Unicode and binary keys', () => {
    const theirs = Partitioners.DefaultPartitioner();
    const ours = keyPartitioner();
    let compared = 0;
    for (const count of [1, 2, 3, 6, 7, 12, 64]) {
      const partitionMetadata = metadata(count);
      for (const key of keys()) {
        const message = { key, value: 'v' };
        expect(ours({ topic: 't', partitionMetadata, message }), JSON.stringify(String(key))).toBe(
          theirs({ topic: 't', partitionMetadata, message }),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('is the Java client murmur2 (reference values of Kafka Utils.murmur2)', () => {
    // From Apache Kafka's UtilsTest.testMurmur2.
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ];
    for (const [key, expected] of cases) expect(murmur2(key)).toBe(expected);
    expect(murmur2(Buffer.from([97, 98, 99]))).toBe(murmur2('abc'));
  });

  it('keeps an explicit partition and spreads keyless messages over the partitions with a leader', () => {
    const ours = keyPartitioner();
    const partitionMetadata = metadata(4).map((p) => (p.partitionId === 2 ? { ...p, leader: -1 } : p));
    expect(ours({ topic: 't', partitionMetadata, message: { key: 'k', value: 'v', partition: 3 } })).toBe(3);
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) seen.add(ours({ topic: 't', partitionMetadata, message: { value: 'v' } }));
    expect([...seen].sort()).toEqual([0, 1, 3]);
  });
});
