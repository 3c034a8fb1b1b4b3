// Operation objects (generator/model/operation-object.ts): action, channel, messages, summary,
// the Kafka binding's groupId warning, and the reply keiyaku carries (or warns about).
import { describe, expect, it } from 'vitest';
import type { ChannelModel } from '../../generator/model/contract-model.js';
import { operationObject } from '../../generator/model/operation-object.js';
import { type Json, operationNode, testContext } from './nodes.js';

describe('operationObject', () => {
  const cases: { name: string; id: string | undefined; json: Json; want: unknown; codes?: string[] }[] = [
    {
      name: 'a send operation',
      id: 'publishBookEvents',
      json: { action: 'send', channel: 'books', messages: ['BookBorrowed', 'BookReturned'], summary: 'Book events.' },
      want: {
        id: 'publishBookEvents',
        action: 'send',
        channel: 'books',
        messages: ['BookBorrowed', 'BookReturned'],
        summary: 'Book events.',
      },
    },
    {
      name: 'a receive operation without an id, a channel or messages',
      id: undefined,
      json: { action: 'receive' },
      want: { id: '', action: 'receive', channel: '', messages: [] },
    },
    {
      name: 'an empty summary is left out',
      id: 'x',
      json: { action: 'send', channel: 'c', summary: '' },
      want: { id: 'x', action: 'send', channel: 'c', messages: [] },
    },
    {
      name: 'a Kafka groupId: a warning',
      id: 'onPing',
      json: { action: 'receive', channel: 'c', bindings: { kafka: { groupId: { const: 'g' } } } },
      want: { id: 'onPing', action: 'receive', channel: 'c', messages: [] },
      codes: ['kafka_group_id_ignored'],
    },
  ];
  it.each(cases)('$name', ({ id, json, want, codes }) => {
    const { part, diagnostics } = operationObject(operationNode(id, json), testContext());
    expect(part).toEqual(want);
    expect(diagnostics.map((d) => d.code)).toEqual(codes ?? []);
  });
});

describe('operationObject: the reply (AsyncAPI 3.x)', () => {
  const replies = { id: 'replies', parameters: [], messages: ['BookFound', 'BookUnknown'] } as unknown as ChannelModel;
  const dynamic = { id: 'perMember', parameters: [{ name: 'memberId' }], messages: ['BookFound'] } as unknown as ChannelModel;
  const cases: {
    name: string;
    reply: Json;
    want: unknown;
    codes?: string[];
    pointer?: string;
  }[] = [
    {
      name: 'a reply address in a header of the request',
      reply: { address: { location: '$message.header#/replyTo' }, channel: 'replies', messages: ['BookFound'] },
      want: {
        identifier: 'GetBook',
        channel: 'replies',
        messages: ['BookFound'],
        addressHeader: 'replyTo',
        location: '$message.header#/replyTo',
      },
    },
    {
      name: "a static reply: the reply channel's address; its messages when the reply lists none",
      reply: { channel: 'replies' },
      want: { identifier: 'GetBook', channel: 'replies', messages: ['BookFound', 'BookUnknown'] },
    },
    {
      name: 'an escaped header name',
      reply: { address: { location: '$message.header#/reply~1to' }, channel: 'replies' },
      want: {
        identifier: 'GetBook',
        channel: 'replies',
        messages: ['BookFound', 'BookUnknown'],
        addressHeader: 'reply/to',
        location: '$message.header#/reply~1to',
      },
    },
    {
      name: 'an address in the payload: a warning, no reply',
      reply: { address: { location: '$message.payload#/replyTo' }, channel: 'replies' },
      want: undefined,
      codes: ['reply_unsupported'],
      pointer: '/operations/getBook/reply/address/location',
    },
    {
      name: 'a nested header pointer: a warning, no reply',
      reply: { address: { location: '$message.header#/reply/to' }, channel: 'replies' },
      want: undefined,
      codes: ['reply_unsupported'],
      pointer: '/operations/getBook/reply/address/location',
    },
    {
      name: 'no reply channel: a warning, no reply',
      reply: { address: { location: '$message.header#/replyTo' } },
      want: undefined,
      codes: ['reply_unsupported'],
      pointer: '/operations/getBook/reply',
    },
    {
      name: 'no address while the reply channel has parameters: a warning, no reply',
      reply: { channel: 'perMember' },
      want: undefined,
      codes: ['reply_unsupported'],
      pointer: '/operations/getBook/reply',
    },
    {
      name: 'no address while the reply channel has none (address: null): a warning, no reply',
      reply: { channel: 'replies', channelAddress: null },
      want: undefined,
      codes: ['reply_unsupported'],
      pointer: '/operations/getBook/reply',
    },
    {
      name: 'a dynamic reply channel with a header address is carried',
      reply: { address: { location: '$message.header#/replyTo' }, channel: 'perMember', channelAddress: null },
      want: {
        identifier: 'GetBook',
        channel: 'perMember',
        messages: ['BookFound'],
        addressHeader: 'replyTo',
        location: '$message.header#/replyTo',
      },
    },
  ];
  it.each(cases)('$name', ({ reply, want, codes, pointer }) => {
    const node = operationNode('getBook', { action: 'receive', channel: 'lookups', reply }, { pointer: '/operations/getBook' });
    const { part, diagnostics } = operationObject(node, testContext(), [replies, dynamic]);
    expect(part.reply).toEqual(want);
    expect(diagnostics.map((d) => d.code)).toEqual(codes ?? []);
    if (pointer !== undefined) {
      expect(diagnostics[0]).toMatchObject({ severity: 'warning', location: { pointer } });
      expect(diagnostics[0]!.message).toContain('operation "getBook"');
    }
  });

  it('names the request-reply after the operation; a taken name gets a numbered variant and a warning', () => {
    const context = testContext();
    context.allocator.allocate('GetBookReply', 'message "GetBookReply"');
    const node = operationNode('getBook', { action: 'send', channel: 'lookups', reply: { channel: 'replies' } });
    const { part, diagnostics } = operationObject(node, context, [replies]);
    expect(part.reply?.identifier).toBe('GetBook2');
    expect(diagnostics.map((d) => d.code)).toEqual(['name_clash']);
  });
});
