import { framed, frameHead, readFrame, subjectName } from '@keiyaku/runtime/registry';
import { describe, expect, it } from 'vitest';

describe('the Schema Registry frame', () => {
  it('writes magic byte 0 and the id big-endian (golden bytes)', () => {
    expect([...frameHead(1)]).toEqual([0, 0, 0, 0, 1]);
    expect([...frameHead(0x01020304)]).toEqual([0, 1, 2, 3, 4]);
    expect([...framed(frameHead(300), Uint8Array.of(0xaa, 0xbb))]).toEqual([0, 0, 0, 1, 44, 0xaa, 0xbb]);
  });

  it('writes Protobuf message indexes: [0] as the single byte 0, else a zigzag count and zigzag indexes', () => {
    expect([...frameHead(7, [0])]).toEqual([0, 0, 0, 0, 7, 0]);
    expect([...frameHead(7, [1])]).toEqual([0, 0, 0, 0, 7, 2, 2]);
    expect([...frameHead(7, [0, 2])]).toEqual([0, 0, 0, 0, 7, 4, 0, 4]);
    // 64 → zigzag 128 → varint 0x80 0x01
    expect([...frameHead(7, [64])]).toEqual([0, 0, 0, 0, 7, 2, 0x80, 0x01]);
  });

  it('reads back what it writes', () => {
    expect(readFrame(framed(frameHead(42), Uint8Array.of(9)), false)).toEqual({ schemaId: 42, offset: 5 });
    expect(readFrame(framed(frameHead(42, [0]), Uint8Array.of(9)), true)).toEqual({ schemaId: 42, messageIndexes: [0], offset: 6 });
    expect(readFrame(framed(frameHead(42, [3, 64]), Uint8Array.of(9)), true)).toEqual({
      schemaId: 42,
      messageIndexes: [3, 64],
      offset: 9,
    });
  });

  it('names what it found in bytes that are not a frame', () => {
    expect(readFrame(Uint8Array.of(0, 0, 1), false)).toEqual({
      problem: expect.stringContaining('3 bytes long, shorter than a Schema Registry frame'),
    });
    expect(readFrame(new TextEncoder().encode('{"a":1}'), false)).toEqual({
      problem: expect.stringMatching(/starts with byte 0x7b, not the magic byte 0 .*looks like JSON/),
    });
    expect(readFrame(Uint8Array.of(0, 0, 0, 0, 1, 0x80), true)).toEqual({
      problem: expect.stringContaining('message indexes are damaged'),
    });
  });

  it('names subjects by strategy', () => {
    expect(subjectName('topic', 'orders', 'shop.Order')).toBe('orders-value');
    expect(subjectName('record', 'orders', 'shop.Order')).toBe('shop.Order');
    expect(subjectName('topic-record', 'orders', 'shop.Order')).toBe('orders-shop.Order');
    expect(subjectName((t, r) => `${r}@${t}`, 'orders', 'shop.Order')).toBe('shop.Order@orders');
    expect(() => subjectName('nope' as never, 'orders', 'shop.Order')).toThrow(/unknown subject name strategy "nope"/);
  });
});
