import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ProtobufSchemaError, protobufCodec } from '@keiyaku/protobuf';
import { ContractValidationError, defineMessage, isKeiyakuError, messageType } from '@keiyaku/runtime/codegen-v1';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledFixture, registryOf } from './proto-fixtures.js';

const { descriptorSet, source } = compiledFixture('library.proto');
const registry = registryOf(descriptorSet);
const borrowedDesc = registry.getMessage('library.v1.BookBorrowed')!;
const codec = protobufCodec(descriptorSet, 'library.v1.BookBorrowed', { source });

/** One value of every row of the mapping table (docs/protobuf.md). */
const full = {
  bookId: 'B-1',
  condition: 2,
  items: [{ sku: 'S-1', quantity: 3, notes: [{ text: 'dog-eared' }] }],
  counts: { a: 1, b: -2 },
  byId: { '9007199254740993': { sku: 'S-2', quantity: 1, notes: [] } },
  flags: { true: 'yes', false: 'no' },
  borrower: { case: 'memberId', value: 'M-7' },
  at: { seconds: 1_767_225_600n, nanos: 5 },
  loan: { seconds: 86_400n, nanos: 0 },
  note: 'wrapped',
  big: -(2n ** 63n),
  attributes: { shelf: 'A', copies: 2, rare: true, nothing: null, list: [1, 'two', { x: false }] },
  extra: { kind: { case: 'stringValue', value: 'v' } },
  detail: { typeUrl: 'type.googleapis.com/library.v1.Scalars', value: new Uint8Array([24, 1]) },
  location: { branch: 'north', shelf: 2 },
  scalars: {
    fDouble: 1.5,
    fFloat: 0.25,
    fInt32: -(2 ** 31),
    fInt64: 2n ** 63n - 1n,
    fUint32: 2 ** 32 - 1,
    fUint64: 2n ** 64n - 1n,
    fSint32: -5,
    fSint64: -5n,
    fFixed32: 7,
    fFixed64: 7n,
    fSfixed32: -7,
    fSfixed64: -7n,
    fBool: true,
    fString: 'héllo ✓',
    fBytes: new Uint8Array([0, 255, 128]),
    fInt64String: '-9007199254740993',
    fOptional: '',
  },
  tags: ['x', 'y'],
};

describe('protobufCodec', () => {
  it('describes its schema as a registry registers it: the .proto text, the message name, its indexes', () => {
    expect(codec.format).toBe('protobuf');
    expect(codec.contentType).toBe('application/x-protobuf');
    expect(codec.schema).toEqual({ schemaType: 'PROTOBUF', schema: source, recordName: 'library.v1.BookBorrowed', messageIndexes: [1] });
    expect(protobufCodec(descriptorSet, 'library.v1.Scalars').schema.messageIndexes).toEqual([0]);
    expect(protobufCodec(descriptorSet, 'library.v1.BookBorrowed.Item').schema.messageIndexes).toEqual([1, 0]);
    expect(protobufCodec(descriptorSet, 'library.v1.BookBorrowed.Item.Note').schema.messageIndexes).toEqual([1, 0, 0]);
    expect(protobufCodec(descriptorSet, 'library.legacy.Location').schema.messageIndexes).toEqual([0]);
  });

  it('round-trips every row of the mapping table, in protobuf-es shapes', () => {
    expect(codec.validate(full)).toEqual([]);
    const message = codec.normalize!(full) as Record<string, unknown>;
    expect(message['$typeName']).toBe('library.v1.BookBorrowed');
    const decoded = codec.decode(codec.encode(message), 'BookBorrowed');
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    // biome-ignore lint/suspicious/noExplicitAny: the test reads the message as protobuf-es holds it
    const value = decoded.value as Record<string, any>;
    expect(value).toEqual(message);
    expect(codec.validate(value)).toEqual([]);
    // int64 family → bigint, JS_STRING → string; bytes → Uint8Array
    expect(value['scalars'].fInt64).toBe(2n ** 63n - 1n);
    expect(value['scalars'].fUint64).toBe(2n ** 64n - 1n);
    expect(value['scalars'].fInt64String).toBe('-9007199254740993');
    expect(value['scalars'].fBytes).toEqual(new Uint8Array([0, 255, 128]));
    expect(value['scalars'].fFloat).toBe(0.25);
    // proto3 optional: set to its default, and still present
    expect(value['scalars'].fOptional).toBe('');
    // enums are numbers; oneof is { case, value }; maps are records (64-bit and bool keys as strings)
    expect(value['condition']).toBe(2);
    expect(value['borrower']).toEqual({ case: 'memberId', value: 'M-7' });
    expect(Object.keys(value['byId'])).toEqual(['9007199254740993']);
    expect(value['flags']).toEqual({ true: 'yes', false: 'no' });
    // nested messages and repeated
    expect(value['items'][0].$typeName).toBe('library.v1.BookBorrowed.Item');
    expect(value['items'][0].notes[0].text).toBe('dog-eared');
    expect(value['tags']).toEqual(['x', 'y']);
    // well-known types as protobuf-es holds them
    expect(value['at']).toEqual({ $typeName: 'google.protobuf.Timestamp', seconds: 1_767_225_600n, nanos: 5 });
    expect(value['loan']).toEqual({ $typeName: 'google.protobuf.Duration', seconds: 86_400n, nanos: 0 });
    expect(value['note']).toBe('wrapped');
    expect(value['big']).toBe(-(2n ** 63n));
    expect(value['attributes']).toEqual(full.attributes);
    expect(value['extra']).toEqual({ $typeName: 'google.protobuf.Value', kind: { case: 'stringValue', value: 'v' } });
    expect(value['detail'].typeUrl).toBe('type.googleapis.com/library.v1.Scalars');
    expect(value['location']).toEqual({ $typeName: 'library.legacy.Location', branch: 'north', shelf: 2 });
  });

  it('leaves unset fields at their defaults and message fields undefined', () => {
    const message = codec.normalize!({}) as Record<string, unknown>;
    expect(message['bookId']).toBe('');
    expect(message['items']).toEqual([]);
    expect(message['counts']).toEqual({});
    expect(message['at']).toBeUndefined();
    expect(message['note']).toBeUndefined();
    expect(message['borrower']).toEqual({ case: undefined });
    expect(codec.encode(message)).toEqual(new Uint8Array());
  });

  it('normalize copies: the caller keeps its own object, even a protobuf-es message', () => {
    const own = create(borrowedDesc, { bookId: 'B-2' });
    const copy = codec.normalize!(own);
    expect(copy).not.toBe(own);
    expect(copy).toEqual(own);
  });

  it.each([
    ['a string where a message is', 'x', '$', 'type'],
    ['the wrong $typeName', { $typeName: 'library.v1.Scalars' }, '$.$typeName', 'const'],
    ['an unknown property', { bookID: 'B' }, '$.bookID', 'additionalProperties'],
    ['a number for a string', { bookId: 1 }, '$.bookId', 'type'],
    ['a lone surrogate', { bookId: '\uD800' }, '$.bookId', 'format'],
    ['int32 above its range', { scalars: { fInt32: 2 ** 31 } }, '$.scalars.fInt32', 'maximum'],
    ['a fraction for int32', { scalars: { fInt32: 1.5 } }, '$.scalars.fInt32', 'type'],
    ['a negative uint32', { scalars: { fUint32: -1 } }, '$.scalars.fUint32', 'minimum'],
    ['a number for int64', { scalars: { fInt64: 1 } }, '$.scalars.fInt64', 'type'],
    ['int64 above its range', { scalars: { fInt64: 2n ** 63n } }, '$.scalars.fInt64', 'maximum'],
    ['a negative uint64', { scalars: { fUint64: -1n } }, '$.scalars.fUint64', 'minimum'],
    ['a bigint for a JS_STRING int64', { scalars: { fInt64String: 1n } }, '$.scalars.fInt64String', 'type'],
    ['float beyond float32', { scalars: { fFloat: 1e39 } }, '$.scalars.fFloat', 'maximum'],
    ['an array for bytes', { scalars: { fBytes: [1, 2] } }, '$.scalars.fBytes', 'type'],
    ['a string for bool', { scalars: { fBool: 'true' } }, '$.scalars.fBool', 'type'],
    ['a string for an enum', { condition: 'CONDITION_NEW' }, '$.condition', 'type'],
    ['an undeclared value of a closed enum', { location: { branch: 'n', shelf: 3 } }, '$.location.shelf', 'enum'],
    ['a missing proto2 required field', { location: {} }, '$.location.branch', 'required'],
    ['an unknown oneof case', { borrower: { case: 'memberID', value: 'M' } }, '$.borrower.case', 'oneOf'],
    ['a oneof case without its value', { borrower: { case: 'memberId' } }, '$.borrower.value', 'required'],
    ['a oneof value of the wrong type', { borrower: { case: 'guestItem', value: 'M' } }, '$.borrower.value', 'type'],
    ['a bare value for a oneof', { borrower: 'M-7' }, '$.borrower', 'type'],
    ['an object for a repeated field', { tags: { 0: 'x' } }, '$.tags', 'type'],
    ['a bad repeated item', { items: [{ sku: 'S' }, { quantity: -1 }] }, '$.items[1].quantity', 'minimum'],
    ['an array for a map', { counts: [1] }, '$.counts', 'type'],
    ['a bad map value', { counts: { a: 'one' } }, '$.counts.a', 'type'],
    ['a non-integer key of an int64 map', { byId: { x: {} } }, '$.byId.x', 'propertyNames'],
    ['a key of a bool map that is not true/false', { flags: { yes: 'y' } }, '$.flags.yes', 'propertyNames'],
    ['a message for a wrapper (protobuf-es unboxes them)', { note: { value: 'n' } }, '$.note', 'type'],
    ['a number for an Int64Value', { big: 1 }, '$.big', 'type'],
    ['a non-JSON value in a Struct', { attributes: { when: new Date(0) } }, '$.attributes.when', 'type'],
    ['an array for a Struct', { attributes: [] }, '$.attributes', 'type'],
    ['a number for Timestamp.seconds', { at: { seconds: 1 } }, '$.at.seconds', 'type'],
    ['null for a message field', { at: null }, '$.at', 'type'],
  ])('validate rejects %s', (_name, value, path, keyword) => {
    const issues = codec.validate(value);
    expect(issues.map((issue) => [issue.path, issue.keyword])).toContainEqual([path, keyword]);
    expect(issues.find((issue) => issue.path === path)?.pointer).toMatch(path === '$' ? /^$/ : /^\/\S+$/);
  });

  it('reads bytes written by protobuf-es directly, and protobuf-es reads its bytes', () => {
    const written = toBinary(borrowedDesc, create(borrowedDesc, full as never));
    const decoded = codec.decode(written, 'BookBorrowed');
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value).toEqual(fromBinary(borrowedDesc, written));
    expect(fromBinary(borrowedDesc, codec.encode(decoded.value))).toEqual(decoded.value);
    expect(codec.encode(codec.normalize!(full))).toEqual(written);
  });

  it('keeps unknown fields and writes them again (a relay loses nothing)', () => {
    const known = codec.encode(codec.normalize!({ bookId: 'B' }));
    // field 99, varint 5: a field a newer writer added
    const withUnknown = new Uint8Array([...known, 0x98, 0x06, 0x05]);
    const decoded = codec.decode(withUnknown, 'BookBorrowed');
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect((decoded.value as { bookId: string }).bookId).toBe('B');
    expect(codec.encode(decoded.value)).toEqual(withUnknown);
  });

  it('reports bytes that are not the message as malformed, never throwing', () => {
    const decoded = codec.decode(new Uint8Array([0x0a, 0x05, 0x41]), 'BookBorrowed');
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error.reason).toBe('malformed');
    expect(decoded.error.code).toBe('decode_malformed');
    expect(decoded.error.message).toContain('library.v1.BookBorrowed');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const result = codec.decode(bytes, 'BookBorrowed');
        expect(result.ok || result.error.reason === 'malformed').toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the proto3 JSON mapping for logs and the dead-letter page', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the test reads the proto3 JSON mapping
    const json = codec.toJson(codec.normalize!(full)) as Record<string, any>;
    expect(json['bookId']).toBe('B-1');
    expect(json['condition']).toBe('CONDITION_WORN');
    expect(json['at']).toBe('2026-01-01T00:00:00.000000005Z');
    expect(json['loan']).toBe('86400s');
    expect(json['big']).toBe('-9223372036854775808');
    expect(json['scalars'].fBytes).toBe('AP+A');
    expect(json['memberId']).toBe('M-7');
    expect(json['detail']).toEqual({ '@type': 'type.googleapis.com/library.v1.Scalars', fInt32: 1 });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('refuses descriptors that are not a FileDescriptorSet or lack the message', () => {
    expect(() => protobufCodec('not base64!', 'library.v1.BookBorrowed')).toThrow(ProtobufSchemaError);
    expect(() => protobufCodec(Buffer.from([0xff, 0xff]).toString('base64'), 'x.Y')).toThrow(
      /not a valid google.protobuf.FileDescriptorSet/,
    );
    let caught: unknown;
    try {
      protobufCodec(descriptorSet, 'library.v1.BookReturned');
    } catch (error) {
      caught = error;
    }
    expect(isKeiyakuError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/no message library.v1.BookReturned \(they hold .*library.v1.BookBorrowed/);
  });

  it('backs a contract message: create validates and seals, decode tags', () => {
    const BookBorrowed = defineMessage<'BookBorrowed', unknown>({
      type: 'BookBorrowed',
      id: 'BookBorrowed',
      contentType: codec.contentType,
      schemaHash: 'x',
      codec,
    });
    expect(BookBorrowed.format).toBe('protobuf');
    const message = BookBorrowed.create(full);
    expect(Object.isFrozen(message)).toBe(true);
    expect(BookBorrowed.is(message)).toBe(true);
    const decoded = BookBorrowed.decode(BookBorrowed.encode(message));
    expect(decoded.ok && decoded.value[messageType]).toBe('BookBorrowed');
    expect(() => BookBorrowed.create({ bookId: 3 })).toThrow(ContractValidationError);
    expect(() => BookBorrowed.create({ bookId: 3 })).toThrow(/BookBorrowed is not valid at \$\.bookId/);
  });
});
