// Kafka bindings (generator/model/bindings/kafka.ts): a channel's topic settings, a message's key
// and the payload property it stands for, an operation's groupId that keiyaku does not use.
import { describe, expect, it } from 'vitest';
import {
  kafkaChannelBinding,
  kafkaMessageBinding,
  kafkaOperationBinding,
  keyProperty,
  topicConfigs,
} from '../../../generator/model/bindings/kafka.js';
import { channelNode, found, messageNode, operationNode, testContext } from '../nodes.js';

const payload = {
  type: 'object',
  required: ['bookId', 'copy', 'memberId'],
  properties: {
    bookId: { type: 'string', format: 'uuid' },
    memberId: { type: 'string', pattern: '^M[0-9]+$' },
    copy: { type: 'integer' },
    note: { type: 'string', format: 'uuid' },
  },
};

describe('keyProperty', () => {
  const cases: { name: string; key: unknown; payload?: unknown; want: string | undefined }[] = [
    { name: 'the one required property of the same type and format', key: { type: 'string', format: 'uuid' }, want: 'bookId' },
    { name: 'an integer key', key: { type: 'integer' }, want: 'copy' },
    { name: 'a pattern picks among strings', key: { type: 'string', pattern: '^M[0-9]+$' }, want: 'memberId' },
    { name: 'a key without format stands for the required string without one', key: { type: 'string' }, want: 'memberId' },
    {
      name: 'an optional property does not count',
      key: { type: 'string', format: 'uuid' },
      payload: { ...payload, required: [] },
      want: undefined,
    },
    { name: 'an enum must be the same', key: { type: 'integer', enum: [1, 2] }, want: undefined },
    { name: 'an object key', key: { type: 'object' }, want: undefined },
    { name: 'a key that is no schema', key: 'bookId', want: undefined },
    { name: 'no payload', key: { type: 'integer' }, payload: null, want: undefined },
  ];
  it.each(cases)('$name', ({ key, want, ...rest }) => {
    expect(keyProperty(key, 'payload' in rest ? rest.payload : payload)).toBe(want);
  });
});

describe('topicConfigs', () => {
  const cases: { name: string; given: unknown; want: Record<string, string> | undefined }[] = [
    { name: 'absent', given: undefined, want: undefined },
    { name: 'a list', given: ['retention.ms'], want: undefined },
    { name: 'empty', given: {}, want: undefined },
    {
      name: 'values as text, lists comma-joined, sorted by name, extensions and nulls left out',
      given: { 'retention.ms': 604800000, 'cleanup.policy': ['delete', 'compact'], 'x-note': 'mine', 'segment.ms': null },
      want: { 'cleanup.policy': 'delete,compact', 'retention.ms': '604800000' },
    },
  ];
  it.each(cases)('$name', ({ given, want }) => {
    expect(topicConfigs(given)).toEqual(want);
  });
});

describe('kafkaChannelBinding', () => {
  const cases: { name: string; channel: Record<string, unknown>; want: unknown; codes: string[] }[] = [
    { name: 'no binding', channel: {}, want: undefined, codes: [] },
    { name: 'an empty binding', channel: { bindings: { kafka: {} } }, want: {}, codes: [] },
    {
      name: 'topic, partitions, replicas, configuration',
      channel: { bindings: { kafka: { topic: 'books', partitions: 6, replicas: 3, topicConfiguration: { 'retention.ms': 1000 } } } },
      want: { topic: 'books', partitions: 6, replicas: 3, configs: { 'retention.ms': '1000' } },
      codes: [],
    },
    {
      name: 'counts that are not positive integers',
      channel: { bindings: { kafka: { partitions: -1, replicas: '3' } } },
      want: {},
      codes: [],
    },
    {
      name: 'a topic on a channel with parameters is not used',
      channel: { address: 'a.{id}', parameters: { id: {} }, bindings: { kafka: { topic: 'books' } } },
      want: { topic: 'books' },
      codes: ['kafka_topic_ignored'],
    },
  ];
  it.each(cases)('$name', ({ channel, want, codes }) => {
    const { part, diagnostics } = kafkaChannelBinding(channelNode('books', channel), '/channels/books', testContext());
    expect(part).toEqual(want);
    expect(diagnostics.map((d) => d.code)).toEqual(codes);
  });

  it('locates an ignored topic at the binding', () => {
    const channel = channelNode('books', { address: 'a.{id}', parameters: { id: {} }, bindings: { kafka: { topic: 'books' } } });
    expect(found(kafkaChannelBinding(channel, '/channels/books', testContext()).diagnostics)).toEqual([
      {
        code: 'kafka_topic_ignored',
        severity: 'warning',
        message: 'channel "books" has parameters, so its Kafka binding\'s topic "books" is not used: each address is its own topic',
        pointer: '/channels/books/bindings/kafka/topic',
      },
    ]);
  });
});

describe('kafkaMessageBinding', () => {
  const cases: { name: string; key: unknown; want: unknown; codes: string[] }[] = [
    { name: 'no key', key: undefined, want: {}, codes: [] },
    {
      name: 'a key that stands for a property (parser keys dropped)',
      key: { type: 'string', format: 'uuid', 'x-parser-schema-id': '<anonymous-schema-1>' },
      want: { kafkaKey: { type: 'string', format: 'uuid' }, kafkaKeyProperty: 'bookId' },
      codes: [],
    },
    {
      name: 'a key that stands for none',
      key: { type: 'boolean' },
      want: { kafkaKey: { type: 'boolean' } },
      codes: ['kafka_key_not_derived'],
    },
  ];
  it.each(cases)('$name', ({ key, want, codes }) => {
    const message = messageNode({ name: 'BookBorrowed', payload, ...(key === undefined ? {} : { bindings: { kafka: { key } } }) });
    const pointer = '/components/messages/BookBorrowed';
    const { part, diagnostics } = kafkaMessageBinding(message, { type: 'BookBorrowed', pointer, payload }, testContext());
    expect(part).toEqual(want);
    expect(diagnostics.map((d) => [d.code, d.location?.pointer])).toEqual(codes.map((code) => [code, `${pointer}/bindings/kafka/key`]));
  });
});

describe('the Schema Registry fields of a Kafka message binding', () => {
  const cases: { name: string; kafka: Record<string, unknown>; want: unknown }[] = [
    { name: 'none', kafka: { bindingVersion: '0.5.0' }, want: undefined },
    { name: 'schemaIdLocation none (no registry)', kafka: { schemaIdLocation: 'none' }, want: undefined },
    { name: 'the id in the payload', kafka: { schemaIdLocation: 'payload' }, want: { schemaIdLocation: 'payload' } },
    {
      name: 'with its encoding and lookup strategy',
      kafka: {
        schemaIdLocation: 'payload',
        schemaIdPayloadEncoding: 'confluent',
        schemaLookupStrategy: 'RecordNameStrategy',
        bindingVersion: '0.5.0',
      },
      want: { schemaIdLocation: 'payload', schemaIdPayloadEncoding: 'confluent', schemaLookupStrategy: 'RecordNameStrategy' },
    },
    {
      name: 'a number of bytes as the encoding',
      kafka: { schemaIdLocation: 'payload', schemaIdPayloadEncoding: 4 },
      want: { schemaIdLocation: 'payload', schemaIdPayloadEncoding: '4' },
    },
    { name: 'the id in a header', kafka: { schemaIdLocation: 'header' }, want: { schemaIdLocation: 'header' } },
  ];
  it.each(cases)('$name', ({ kafka, want }) => {
    const message = messageNode({ name: 'BookBorrowed', payload, bindings: { kafka } });
    const { part } = kafkaMessageBinding(
      message,
      { type: 'BookBorrowed', pointer: '/components/messages/BookBorrowed', payload },
      testContext(),
    );
    expect((part as { kafkaRegistry?: unknown }).kafkaRegistry).toEqual(want);
  });
});

describe('kafkaOperationBinding', () => {
  const cases: { name: string; id?: string; kafka: unknown; message?: string; hint?: RegExp }[] = [
    { name: 'no binding', kafka: undefined },
    { name: 'a binding without groupId', kafka: { clientId: { type: 'string' } } },
    {
      name: 'a groupId const names the group',
      id: 'onPing',
      kafka: { groupId: { type: 'string', const: 'dispatch.tracking' } },
      message: 'operation "onPing" sets a Kafka binding groupId ("dispatch.tracking"), which keiyaku does not use',
      hint: /^declare `groupId: "dispatch.tracking"` on the handler/,
    },
    {
      name: 'a one-value enum names the group',
      id: 'onPing',
      kafka: { groupId: { enum: ['g'] } },
      message: 'operation "onPing" sets a Kafka binding groupId ("g")',
      hint: /^declare `groupId: "g"`/,
    },
    {
      name: 'several values name none',
      kafka: { groupId: { enum: ['a', 'b'] } },
      message: 'an operation sets a Kafka binding groupId, which keiyaku does not use',
      hint: /^remove `groupId` from the binding/,
    },
  ];
  it.each(cases)('$name', ({ id, kafka, message, hint }) => {
    const op = operationNode(id, kafka === undefined ? {} : { bindings: { kafka } }, { pointer: '/operations/onPing' });
    const { diagnostics } = kafkaOperationBinding(op, testContext());
    if (message === undefined) return expect(diagnostics).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: 'warning',
      code: 'kafka_group_id_ignored',
      message: expect.stringContaining(message),
      hint: expect.stringMatching(hint!),
      location: { pointer: '/operations/onPing/bindings/kafka/groupId' },
    });
  });
});
