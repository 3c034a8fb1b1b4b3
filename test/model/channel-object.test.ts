// Channel objects (generator/model/channel-object.ts): identifiers, addresses and parameters,
// bindings, x-keiyaku and roles.
import { describe, expect, it } from 'vitest';
import { channelIdentifier, channelObject, channelParameters, withRoles } from '../../generator/model/channel-object.js';
import type { ChannelModel } from '../../generator/model/contract-model.js';
import { channelNode, found, type Json, testContext } from './nodes.js';

describe('channelIdentifier', () => {
  const cases: { id: string; want: string }[] = [
    { id: 'bookIntegrationEvents', want: 'BookIntegrationEvents' },
    { id: 'library.book-events', want: 'LibraryBookEvents' },
    { id: 'user/{userId}/signedup', want: 'UserUserIdSignedup' },
    { id: '{}', want: 'Channel' },
  ];
  it.each(cases)('$id → $want', ({ id, want }) => {
    const { part, diagnostics } = channelIdentifier(channelNode(id), testContext());
    expect(part).toBe(want);
    expect(diagnostics).toEqual([]);
  });

  it('takes the next number when its name is taken, says by whom, and reserves its whole family', () => {
    const context = testContext();
    context.allocator.reserve('books', 'message "books"');
    const { part, diagnostics } = channelIdentifier(channelNode('books'), context);
    expect(part).toBe('Books2');
    expect(found(diagnostics)).toEqual([
      {
        code: 'name_clash',
        severity: 'warning',
        message: 'channel "books" is named Books2 in generated code: Books is taken by message "books"',
        pointer: '/channels/books',
      },
    ]);
    for (const name of [
      'Books2',
      'Books2Message',
      'Books2MessageType',
      'Books2Handler',
      'Books2Parameters',
      'Books2Cases',
      'Books2Iggy',
      'dispatchBooks2',
    ])
      expect(context.allocator.ownerOf(name)).toBe('channel "books"');
  });
});

describe('channelParameters', () => {
  const cases: { name: string; parameters: Json; want: unknown[] }[] = [
    { name: 'a bare parameter', parameters: { id: {} }, want: [{ name: 'id' }] },
    {
      name: '3.x: enum, default, description on the parameter (values as text)',
      parameters: { zone: { enum: ['north', 1], default: 1, description: 'The zone.', location: '$message.payload#/zone' } },
      want: [{ name: 'zone', description: 'The zone.', enum: ['north', '1'], default: '1', location: '$message.payload#/zone' }],
    },
    {
      name: '2.x: enum, default and pattern from the schema',
      parameters: { id: { schema: { type: 'string', enum: ['a'], default: 'a', pattern: '^[a-z]+$' } } },
      want: [{ name: 'id', enum: ['a'], default: 'a', pattern: '^[a-z]+$' }],
    },
    {
      name: 'the parameter over its schema',
      parameters: { id: { enum: ['x'], schema: { enum: ['y'] } } },
      want: [{ name: 'id', enum: ['x'] }],
    },
  ];
  it.each(cases)('$name', ({ parameters, want }) => {
    expect(channelParameters(channelNode('c', { parameters }))).toEqual(want);
  });
});

describe('channelObject', () => {
  const given = { identifier: 'Books', messages: ['BookBorrowed'] };
  const cases: { name: string; json: Json; want: Json; found?: { code: string; pointer: string }[] }[] = [
    { name: 'the id is the address when there is none', json: {}, want: { address: 'books' } },
    {
      name: 'title, description, address',
      json: { address: 'library.books', title: 'Books', description: 'Every book event.' },
      want: { address: 'library.books', title: 'Books', description: 'Every book event.' },
    },
    {
      name: 'a placeholder without a parameter: an error at the address, one per placeholder',
      json: { address: 'a.{x}.{id}.{y}', parameters: { id: {} } },
      want: {},
      found: [
        { code: 'parameter_undeclared', pointer: '/channels/books/address' },
        { code: 'parameter_undeclared', pointer: '/channels/books/address' },
      ],
    },
    {
      name: 'both bindings (Kafka first in the model)',
      json: { bindings: { kafka: { partitions: 3 } }, 'x-iggy': { stream: 's' } },
      want: { bindings: { kafka: { partitions: 3 }, iggy: { stream: 's' } } },
    },
    { name: 'no bindings', json: {}, want: { bindings: {} } },
    { name: 'its own mode', json: { 'x-keiyaku': { compatibility: 'none' } }, want: { compatibility: 'none' } },
    {
      name: 'diagnostics in the order address, Iggy, Kafka, x-keiyaku',
      json: {
        address: 'a.{id}',
        parameters: { other: {} },
        bindings: { kafka: { topic: 't' } },
        'x-iggy': 'no',
        'x-keiyaku': [],
      },
      want: {},
      found: [
        { code: 'parameter_undeclared', pointer: '/channels/books/address' },
        { code: 'iggy_extension_invalid', pointer: '/channels/books' },
        { code: 'kafka_topic_ignored', pointer: '/channels/books/bindings/kafka/topic' },
        { code: 'keiyaku_extension_invalid', pointer: '/channels/books/x-keiyaku' },
      ],
    },
  ];
  it.each(cases)('$name', ({ json, want, found: wanted }) => {
    const { part, diagnostics } = channelObject(channelNode('books', json), testContext(), given);
    expect(part).toMatchObject({ id: 'books', identifier: 'Books', messages: ['BookBorrowed'], ...want });
    expect(found(diagnostics).map(({ code, pointer }) => ({ code, pointer }))).toEqual(wanted ?? []);
  });

  it('reads the pointer the parser recorded, else the place under channels', () => {
    const context = testContext();
    const recorded = channelObject(channelNode('books', {}, { pointer: '/channels/bookEvents' }), context, given);
    expect(recorded.part.location?.pointer).toBe('/channels/bookEvents');
    expect(channelObject(channelNode('a/b'), context, given).part.location?.pointer).toBe('/channels/a/b');
  });

  it('names the missing parameter and how to declare it', () => {
    const { diagnostics } = channelObject(channelNode('books', { address: 'a.{id}' }), testContext(), given);
    expect(diagnostics[0]).toMatchObject({
      severity: 'error',
      message: 'channel "books" address "a.{id}" uses {id} but declares no such parameter',
      hint: 'add `parameters: { id: {} }` to the channel',
    });
  });
});

describe('withRoles', () => {
  const channel = { id: 'books' } as ChannelModel;
  const cases: { name: string; operations: { id: string; action: 'send' | 'receive'; channel: string }[]; want: unknown[] }[] = [
    { name: 'no operation', operations: [], want: [] },
    {
      name: 'the operations on the channel, in order; an unnamed one by its action',
      operations: [
        { id: 'publish', action: 'send', channel: 'books' },
        { id: 'other', action: 'send', channel: 'members' },
        { id: '', action: 'receive', channel: 'books' },
      ],
      want: [
        { action: 'send', operation: 'publish' },
        { action: 'receive', operation: 'receive operation' },
      ],
    },
  ];
  it.each(cases)('$name', ({ operations, want }) => {
    const roles = withRoles(
      channel,
      operations.map((op) => ({ ...op, messages: [] })),
    ).roles;
    expect(roles).toEqual(want);
  });

  it('the reply channel of an operation takes the reverse action: the requester receives the reply, the responder sends it', () => {
    const reply = { identifier: 'X', channel: 'books', messages: [] };
    const roles = withRoles(channel, [
      { id: 'askForBooks', action: 'send', channel: 'lookups', messages: [], reply },
      { id: 'answerLookups', action: 'receive', channel: 'lookups', messages: [], reply },
      { id: 'echo', action: 'send', channel: 'books', messages: [], reply },
    ]).roles;
    expect(roles).toEqual([
      { action: 'receive', operation: 'askForBooks (reply)' },
      { action: 'send', operation: 'answerLookups (reply)' },
      { action: 'send', operation: 'echo' },
      { action: 'receive', operation: 'echo (reply)' },
    ]);
  });
});
