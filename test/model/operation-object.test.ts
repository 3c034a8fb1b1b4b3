// Operation objects (generator/model/operation-object.ts): action, channel, messages, summary, and
// the Kafka binding's groupId warning.
import { describe, expect, it } from 'vitest';
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
