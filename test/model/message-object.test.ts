// Message objects (generator/model/message-object.ts): their types and conflicts, identifiers,
// and each message's model.
import { describe, expect, it } from 'vitest';
import {
  contractMessages,
  discoverMessageSchemas,
  isPrimitiveRoot,
  type MessageEntry,
  messageIdentifier,
  messageObject,
} from '../../generator/model/message-object.js';
import type { Json } from './nodes.js';
import { channelNode, found, messageNode, testContext } from './nodes.js';

describe('contractMessages', () => {
  const borrowed = { name: 'BookBorrowed', payload: { type: 'object' } };
  const cases: {
    name: string;
    channels: [string, Json][];
    types: string[];
    byChannel: [string, string[]][];
    found?: { code: string; severity: string; message: string; pointer: string }[];
  }[] = [
    {
      name: 'one message in two channels is one type',
      channels: [
        ['books', { messages: { borrowed } }],
        ['audit', { messages: { borrowed } }],
      ],
      types: ['BookBorrowed'],
      byChannel: [
        ['books', ['BookBorrowed']],
        ['audit', ['BookBorrowed']],
      ],
    },
    {
      name: 'without a name the id is the type',
      channels: [['books', { messages: { BookReturned: { payload: {} } } }]],
      types: ['BookReturned'],
      byChannel: [['books', ['BookReturned']]],
    },
    {
      name: 'without a name or an id of its own the channel names it, with a warning',
      channels: [['book.events', { messages: { '<anonymous-message-1>': {}, '<anonymous-message-2>': {} } }]],
      types: ['BookEventsMessage1', 'BookEventsMessage2'],
      byChannel: [['book.events', ['BookEventsMessage1', 'BookEventsMessage2']]],
      found: [1, 2].map((n) => ({
        code: 'message_unnamed',
        severity: 'warning',
        message: `a message of channel "book.events" has no name; its type is "BookEventsMessage${n}"`,
        pointer: `/channels/book.events/messages/<anonymous-message-${n}>`,
      })),
    },
    {
      name: 'two different messages of one name: an error at the second, which is left out',
      channels: [
        ['books', { messages: { a: { name: 'Changed', payload: { type: 'object' } } } }],
        ['members', { messages: { b: { name: 'Changed', payload: { type: 'string' } } } }],
      ],
      types: ['Changed'],
      byChannel: [
        ['books', ['Changed']],
        ['members', []],
      ],
      found: [
        {
          code: 'message_name_conflict',
          severity: 'error',
          message: 'two different messages are named "Changed"',
          pointer: '/channels/members/messages/b',
        },
      ],
    },
  ];
  it.each(cases)('$name', (c) => {
    const { part, diagnostics } = contractMessages(
      c.channels.map(([id, json]) => channelNode(id, json)),
      testContext(),
    );
    expect(part.entries.map((e) => e.type)).toEqual(c.types);
    expect([...part.byChannel]).toEqual(c.byChannel);
    expect(found(diagnostics)).toEqual(c.found ?? []);
  });

  it('one payload under one name is one type, whatever else differs', () => {
    const payload = { type: 'object' };
    const channels = [
      channelNode('a', { messages: { m: { name: 'Ping', payload } } }),
      channelNode('b', { messages: { m: { name: 'Ping', payload, summary: 'x' } } }),
    ];
    const { part, diagnostics } = contractMessages(channels, testContext());
    expect(part.entries.map((e) => e.pointer)).toEqual(['/channels/a/messages/m']);
    expect(diagnostics).toEqual([]);
  });
});

describe('messageIdentifier', () => {
  const cases: { type: string; want: string; clash?: string }[] = [
    { type: 'BookBorrowed', want: 'BookBorrowed' },
    { type: 'book.borrowed-v2', want: 'BookBorrowedV2' },
    { type: '2fa.enabled', want: '_2faEnabled' },
    { type: 'Promise', want: 'Promise_' },
    { type: '…', want: 'Message' },
    {
      type: 'channels',
      want: 'Channels2',
      clash: 'message "channels" is named Channels2 in generated code: Channels is taken by a name keiyaku reserves',
    },
  ];
  it.each(cases)('$type → $want', ({ type, want, clash }) => {
    const entry: MessageEntry = { message: messageNode({}), type, pointer: '/components/messages/m' };
    const { part, diagnostics } = messageIdentifier(entry, testContext());
    expect(part).toBe(want);
    expect(diagnostics.map((d) => d.message)).toEqual(clash === undefined ? [] : [clash]);
  });

  it('a second message of the same identifier gets the next number, naming the first as owner', () => {
    const context = testContext();
    const entry = (type: string): MessageEntry => ({ message: messageNode({}), type, pointer: '' });
    messageIdentifier(entry('book-borrowed'), context);
    const { part, diagnostics } = messageIdentifier(entry('book.borrowed'), context);
    expect(part).toBe('BookBorrowed2');
    expect(diagnostics[0]).toMatchObject({
      code: 'name_clash',
      severity: 'warning',
      message: expect.stringContaining('taken by message "book-borrowed"'),
    });
  });
});

describe('isPrimitiveRoot', () => {
  const cases: [unknown, boolean][] = [
    [{ type: 'string' }, true],
    [{ type: 'object' }, false],
    [{ type: ['string', 'null'] }, true],
    [{ type: ['array', 'null'] }, false],
    [{ type: [] }, false],
    [{ enum: ['a', 1, null] }, true],
    [{ enum: [{ a: 1 }] }, false],
    [{ const: 3 }, true],
    [{ const: [] }, false],
    [{}, false],
    [true, false],
    [undefined, false],
  ];
  it.each(cases)('%j → %s', (schema, want) => {
    expect(isPrimitiveRoot(schema)).toBe(want);
  });
});

/** The model of a message named `Ping` written at /components/messages/Ping, as buildModel builds it. */
function model(json: Json, options: { id?: string; defaultContentType?: string } = {}) {
  const context = testContext(options.defaultContentType);
  const entry: MessageEntry = {
    message: messageNode(json, { id: options.id ?? 'Ping' }),
    type: 'Ping',
    pointer: '/components/messages/Ping',
  };
  discoverMessageSchemas(entry, 'Ping', context);
  return { ...messageObject(entry, 'Ping', context), schemas: context.registry.entries() };
}

describe('messageObject', () => {
  it('models every field the message gives, in order', () => {
    const { part, diagnostics, schemas } = model({
      name: 'Ping',
      title: 'A ping',
      summary: 'Sent every minute.',
      description: 'More.',
      payload: { type: 'object', properties: { at: { type: 'string' } } },
      headers: { type: 'object' },
      correlationId: { location: '$message.header#/correlationId' },
      examples: [{ name: 'first', payload: { at: 'now' } }],
      deprecated: true,
      'x-keiyaku': { compatibility: 'full' },
    });
    expect(diagnostics).toEqual([]);
    expect(Object.keys(schemas)).toEqual(['PingPayload', 'PingHeaders']);
    expect(part).toEqual({
      type: 'Ping',
      id: 'Ping',
      identifier: 'Ping',
      title: 'A ping',
      summary: 'Sent every minute.',
      description: 'More.',
      contentType: 'application/json',
      payload: 'PingPayload',
      boxed: false,
      headers: 'PingHeaders',
      correlationId: '$message.header#/correlationId',
      examples: [{ name: 'first', payload: { at: 'now' } }],
      deprecated: true,
      compatibility: 'full',
      documentPointer: '/components/messages/Ping',
      location: { file: 'asyncapi.yaml', line: 0, column: 0, pointer: '/components/messages/Ping' },
    });
  });

  const cases: {
    name: string;
    json: Json;
    id?: string;
    defaultContentType?: string;
    want: Json;
    found?: { code: string; pointer: string }[];
  }[] = [
    {
      name: 'no payload: any object, with a warning',
      json: {},
      want: { payload: 'PingPayload', boxed: false },
      found: [{ code: 'message_without_payload', pointer: '/components/messages/Ping' }],
    },
    { name: 'a string payload is boxed', json: { payload: { type: 'string' } }, want: { boxed: true } },
    { name: 'a made-up id gives way to the type', json: { payload: {} }, id: '<anonymous-message-1>', want: { id: 'Ping' } },
    {
      name: 'the document default content type',
      json: { payload: {} },
      defaultContentType: 'application/cloudevents+json; charset=utf-8',
      want: { contentType: 'application/cloudevents+json; charset=utf-8' },
    },
    {
      name: 'a content type that is not JSON: a warning at it',
      json: { payload: {}, contentType: 'application/avro' },
      want: { contentType: 'application/avro' },
      found: [{ code: 'content_type_not_json', pointer: '/components/messages/Ping/contentType' }],
    },
    {
      name: 'the message content type over the default',
      json: { payload: {}, contentType: 'application/json' },
      defaultContentType: 'text/plain',
      want: { contentType: 'application/json' },
    },
    {
      name: 'a Kafka key that stands for no property',
      json: { payload: { type: 'object' }, bindings: { kafka: { key: { type: 'string' } } } },
      want: { kafkaKey: { type: 'string' } },
      found: [{ code: 'kafka_key_not_derived', pointer: '/components/messages/Ping/bindings/kafka/key' }],
    },
    {
      name: 'diagnostics in the order payload, Kafka key, x-keiyaku, content type',
      json: { contentType: 'text/plain', bindings: { kafka: { key: { type: 'string' } } }, 'x-keiyaku': { compatibility: 'sideways' } },
      want: {},
      found: [
        { code: 'message_without_payload', pointer: '/components/messages/Ping' },
        { code: 'kafka_key_not_derived', pointer: '/components/messages/Ping/bindings/kafka/key' },
        { code: 'keiyaku_extension_invalid', pointer: '/components/messages/Ping/x-keiyaku/compatibility' },
        { code: 'content_type_not_json', pointer: '/components/messages/Ping/contentType' },
      ],
    },
  ];
  it.each(cases)('$name', ({ json, id, defaultContentType, want, found: wanted }) => {
    const { part, diagnostics } = model(json, {
      ...(id === undefined ? {} : { id }),
      ...(defaultContentType === undefined ? {} : { defaultContentType }),
    });
    expect(part).toMatchObject(want);
    expect(found(diagnostics).map(({ code, pointer }) => ({ code, pointer }))).toEqual(wanted ?? []);
  });
});
