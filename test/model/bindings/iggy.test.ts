// The x-iggy extension of a channel (generator/model/bindings/iggy.ts): stream, topic, partitions.
import { describe, expect, it } from 'vitest';
import { iggyChannelBinding } from '../../../generator/model/bindings/iggy.js';
import { channelNode, found, testContext } from '../nodes.js';

describe('iggyChannelBinding', () => {
  const cases: { name: string; given: unknown; want: unknown; codes: string[] }[] = [
    { name: 'absent', given: undefined, want: undefined, codes: [] },
    {
      name: 'stream, topic and partitions',
      given: { stream: 'library', topic: 'books', partitions: 3 },
      want: { stream: 'library', topic: 'books', partitions: 3 },
      codes: [],
    },
    { name: 'partitions not a positive integer', given: { partitions: 0 }, want: {}, codes: [] },
    { name: 'a fractional partition count', given: { partitions: 1.5 }, want: {}, codes: [] },
    { name: 'names that are not text', given: { stream: 7, topic: null }, want: {}, codes: [] },
    { name: 'unknown keys are left out', given: { stream: 's', retention: '7d' }, want: { stream: 's' }, codes: [] },
    { name: 'text', given: 'library', want: undefined, codes: ['iggy_extension_invalid'] },
    { name: 'null', given: null, want: undefined, codes: ['iggy_extension_invalid'] },
  ];
  it.each(cases)('$name', ({ given, want, codes }) => {
    const channel = channelNode('books', given === undefined ? {} : { 'x-iggy': given });
    const { part, diagnostics } = iggyChannelBinding(channel, '/channels/books', testContext());
    expect(part).toEqual(want);
    expect(diagnostics.map((d) => d.code)).toEqual(codes);
  });

  it('says what to write, at the channel', () => {
    const { diagnostics } = iggyChannelBinding(channelNode('books', { 'x-iggy': 3 }), '/channels/books', testContext());
    expect(found(diagnostics)).toEqual([
      {
        code: 'iggy_extension_invalid',
        severity: 'error',
        message: 'x-iggy of channel "books" must be an object',
        pointer: '/channels/books',
      },
    ]);
    expect(diagnostics[0]!.hint).toBe('write `x-iggy: { stream: <name>, topic: <name>, partitions: <n> }`');
  });
});
