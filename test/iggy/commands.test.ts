// Byte layouts of the topic, consumer-offset and consumer-group commands (fact sheet §3.4, §3.8, §3.9).
import { describe, expect, it } from 'vitest';
import { tlv } from '../../runtime/iggy/protocol/primitives.js';
import {
  decodeGroupDetails,
  decodeSync,
  encodeCreateConsumerGroup,
  encodeGroupDetails,
  encodeGroupRef,
  encodeSync,
} from '../../runtime/iggy/protocol/v0_11/commands/groups.js';
import {
  decodeConsumerOffset,
  encodeDeleteConsumerOffset,
  encodeGetConsumerOffset,
  encodeStoreConsumerOffset,
} from '../../runtime/iggy/protocol/v0_11/commands/offsets.js';
import { decodeTopic, encodeCreateTopic, encodeGetTopic, encodeTopicInfo } from '../../runtime/iggy/protocol/v0_11/commands/topics.js';
import { Writer } from '../../runtime/iggy/protocol/wire.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const ascii = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

describe('Iggy topic, offset and group commands', () => {
  it('topics: get by ids, create with partitions and options, decode with partitions, empty = missing', () => {
    expect(hex(encodeGetTopic(1, 'books'))).toBe(`010401000000 0205${ascii('books')}`.replace(/ /g, ''));
    expect(hex(encodeCreateTopic('library', 'books', 3))).toBe(`0207${ascii('library')}0300000005${ascii('books')}`);
    const withOptions = encodeCreateTopic(0, 't', 1, [[tlv.string('enforce_fsync'), tlv.bool(true)]]);
    expect(hex(withOptions).endsWith(`020d000000${ascii('enforce_fsync')}030100000001`)).toBe(true);
    expect(() => encodeCreateTopic(0, 't', 1001)).toThrow(/0..1000/);
    const topic = decodeTopic(
      encodeTopicInfo({
        id: 2,
        name: 'books',
        partitions: [
          { id: 0, currentOffset: 9n, messagesCount: 10n },
          { id: 1, currentOffset: 0n, messagesCount: 0n },
        ],
      }),
    );
    expect(topic).toMatchObject({ id: 2, name: 'books', partitionsCount: 2, messageExpiry: 0xffff_ffff_ffff_ffffn });
    expect(topic!.partitions.map((p) => [p.id, p.currentOffset, p.messagesCount])).toEqual([
      [0, 9n, 10n],
      [1, 0n, 0n],
    ]);
    expect(decodeTopic(new Uint8Array(0))).toBeUndefined();
  });

  it('offsets: the common prefix, store with offset and ack, delete with ack, explicit partition required', () => {
    const base = { consumer: { kind: 'group' as const, id: 'inventory' }, stream: 1, topic: 2 };
    const target = { ...base, partition: 3 };
    // consumer = [kind 2 (group)][identifier: kind 2 (name), length 9, "inventory"]
    const prefix = `020209${ascii('inventory')}`;
    expect(hex(encodeGetConsumerOffset(target))).toBe(`${prefix}010401000000010402000000 0103000000`.replace(/ /g, ''));
    expect(hex(encodeStoreConsumerOffset(target, 41n))).toBe(`${hex(encodeGetConsumerOffset(target))}290000000000000001`);
    expect(hex(encodeDeleteConsumerOffset(target))).toBe(`${hex(encodeGetConsumerOffset(target))}01`);
    expect(hex(encodeGetConsumerOffset(base))).toMatch(/0000000000$/);
    expect(() => encodeStoreConsumerOffset(base, 1n)).toThrow(/explicit partition/);
    expect(decodeConsumerOffset(new Writer().u32(3).u64(50n).u64(41n).finish())).toEqual({
      partitionId: 3,
      currentOffset: 50n,
      storedOffset: 41n,
    });
    expect(decodeConsumerOffset(new Uint8Array(0))).toBeUndefined();
  });

  it('groups: create, the shared ref body, group details with members, sync and the empty not-a-member sync', () => {
    expect(hex(encodeCreateConsumerGroup(1, 2, 'inventory'))).toBe(`010401000000010402000000 09${ascii('inventory')}`.replace(/ /g, ''));
    expect(hex(encodeGroupRef(1, 2, 0))).toBe('010401000000010402000000010400000000');
    const details = {
      id: 0,
      partitionsCount: 3,
      name: 'inventory',
      members: [
        { id: 7, partitions: [0, 2] },
        { id: 9, partitions: [1] },
      ],
    };
    expect(decodeGroupDetails(encodeGroupDetails(details))).toEqual(details);
    expect(decodeGroupDetails(new Uint8Array(0))).toBeUndefined();
    expect(decodeSync(encodeSync({ generation: 4n, partitions: [0, 2] }))).toEqual({ generation: 4n, partitions: [0, 2] });
    expect(hex(encodeSync({ generation: 4n, partitions: [2] }))).toBe('04000000000000000100000002000000');
    expect(decodeSync(new Uint8Array(0))).toBeUndefined();
  });
});
