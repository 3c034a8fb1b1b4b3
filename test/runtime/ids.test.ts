// Message ids (`ce_id`) and the pooled UTF-8 encoding of payloads: the hot path's own
// versions of crypto.randomUUID and TextEncoder must keep their results.
import { utf8Bytes } from 'keiyaku/codegen-v1';
import { describe, expect, it } from 'vitest';
import { messageId } from '../../runtime/core/ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('messageId', () => {
  it('is a random version 4 UUID in canonical form, distinct across many refills of its batch', () => {
    const ids = Array.from({ length: 5_000 }, () => messageId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in every free position (no stuck bits)', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const id = messageId();
      for (let at = 0; at < id.length; at++) seen[at]!.add(id[at]!);
    }
    const free = [...Array(36).keys()].filter((at) => ![8, 13, 18, 23, 14, 19].includes(at));
    for (const at of free) expect(seen[at]!.size, `position ${at}`).toBe(16);
    expect([...seen[19]!].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});

describe('utf8Bytes', () => {
  const texts = ['', 'plain ascii', 'ü "quoted" \n', '日本語のテキスト', '😀 astral', 'x'.repeat(2_000), 'é'.repeat(5_000)];

  it('is exactly what TextEncoder writes, as a view of its own length', () => {
    for (const text of texts) {
      const bytes = utf8Bytes(text);
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(new TextEncoder().encode(text))).toBe(true);
      expect(new TextDecoder().decode(bytes)).toBe(text);
    }
  });

  it('never lets two results overlap, across slabs', () => {
    const all = Array.from(
      { length: 2_000 },
      (_, i) => [`message ${i} ${'·'.repeat(i % 50)}`, utf8Bytes(`message ${i} ${'·'.repeat(i % 50)}`)] as const,
    );
    for (const [text, bytes] of all) expect(new TextDecoder().decode(bytes)).toBe(text);
  });
});
