// buildModel (generator/model/build-model.ts) composes the spec-object modules: names are handed
// out messages first, then channels, then schemas; diagnostics come in document order per module;
// an error leaves no model; the model is frozen.
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generator/model/build-model.js';
import { documentNode, type Json, testLocator } from './nodes.js';

const contract: Json = {
  asyncapi: '3.0.0',
  info: { title: 'Library', version: '1.2.0', description: 'Books.' },
  defaultContentType: 'application/json',
  'x-keiyaku': { compatibility: 'backward' },
  channels: {
    books: {
      address: 'library.books',
      messages: {
        BookBorrowed: { name: 'BookBorrowed', payload: { type: 'object' } },
        BooksHandler: { name: 'BooksHandler', payload: { type: 'object' } },
      },
      bindings: { kafka: { partitions: 6 } },
    },
  },
  operations: {
    publishBooks: { action: 'send', channel: 'books', messages: ['BookBorrowed'] },
    onBooks: { action: 'receive', channel: 'books', messages: ['BookBorrowed'] },
  },
};

describe('buildModel', () => {
  it('composes messages, channels with roles, operations, schemas and the root extension', () => {
    const { model, diagnostics } = buildModel(documentNode(contract), testLocator, 'asyncapi.yaml');
    expect(Object.isFrozen(model)).toBe(true);
    expect(model).toMatchObject({
      source: 'asyncapi.yaml',
      asyncapi: '3.0.0',
      info: { title: 'Library', version: '1.2.0', description: 'Books.' },
      compatibility: { mode: 'backward' },
    });
    expect(Object.keys(model!.messages)).toEqual(['BookBorrowed', 'BooksHandler']);
    expect(Object.keys(model!.schemas)).toEqual(['BookBorrowedPayload', 'BooksHandlerPayload']);
    // The message took `BooksHandler`, so the channel's family moved to Books2.
    expect(model!.channels[0]).toMatchObject({
      id: 'books',
      identifier: 'Books2',
      messages: ['BookBorrowed', 'BooksHandler'],
      bindings: { kafka: { partitions: 6 } },
      roles: [
        { action: 'send', operation: 'publishBooks' },
        { action: 'receive', operation: 'onBooks' },
      ],
    });
    expect(Object.keys(model!.channels[0]!).at(-1)).toBe('roles');
    expect(model!.operations.map((o) => [o.id, o.action])).toEqual([
      ['publishBooks', 'send'],
      ['onBooks', 'receive'],
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual(['name_clash']);
  });

  it('keeps the order messages, identifiers, message models, channels, operations, root, schemas', () => {
    const broken: Json = {
      'x-keiyaku': { policy: 'loose' },
      channels: {
        channels: {
          address: 'a.{id}',
          'x-iggy': 1,
          messages: { '<anonymous-message-1>': { contentType: 'text/plain', payload: { type: 'string' } } },
        },
      },
      operations: { onA: { action: 'receive', channel: 'channels', bindings: { kafka: { groupId: { const: 'g' } } } } },
    };
    const { model, diagnostics } = buildModel(documentNode(broken), testLocator, 'asyncapi.yaml');
    expect(model).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual([
      'message_unnamed',
      'name_clash',
      'content_type_not_json',
      'parameter_undeclared',
      'iggy_extension_invalid',
      'kafka_group_id_ignored',
      'keiyaku_extension_invalid',
    ]);
  });
});
