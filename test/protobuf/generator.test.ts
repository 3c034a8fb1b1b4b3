import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { protobufCodec } from '@keiyaku/protobuf';
import { afterEach, describe, expect, it } from 'vitest';
import type { SourceLocation } from '../../generator/diagnostics.js';
import { BufMissingError, compileProtoSource } from '../../generator/formats/protobuf/compile.js';
import { type CompileProtobufInput, compileProtobufPayload } from '../../generator/formats/protobuf/payload.js';
import { protobufDeclarations } from '../../generator/formats/protobuf/types.js';
import { repoRoot, run, scratch } from '../helpers.js';
import { fixturesDir } from './proto-fixtures.js';

const at: SourceLocation = { file: 'asyncapi.yaml', line: 40, column: 9, pointer: '/components/messages/M/payload' };
/** An inline schema whose text starts on line 41, indented by 8: buf's line 1 is the contract's 41. */
const inlineLocate = (_file: string, line: number, column: number): SourceLocation => ({ ...at, line: 40 + line, column: 8 + column });

function fromFile(path: string, extra: Partial<CompileProtobufInput> = {}) {
  return compileProtobufPayload({
    schemaFormat: 'application/vnd.google.protobuf;version=3',
    source: readFileSync(join(fixturesDir, path), 'utf8'),
    file: { root: fixturesDir, path, display: `protos/${path}` },
    locate: (file, line, column) => ({ file: `protos/${file}`, line, column, pointer: '' }),
    at,
    ...extra,
  });
}

function inline(source: string, extra: Partial<CompileProtobufInput> = {}) {
  return compileProtobufPayload({ schemaFormat: 'application/vnd.google.protobuf;version=3', source, locate: inlineLocate, at, ...extra });
}

describe('Protobuf payloads at generate time', () => {
  const savedBuf = process.env['KEIYAKU_BUF'];
  afterEach(() => {
    if (savedBuf === undefined) delete process.env['KEIYAKU_BUF'];
    else process.env['KEIYAKU_BUF'] = savedBuf;
  });

  it('compiles a $ref-style file with its imports into deterministic descriptors without source info', () => {
    const first = fromFile('library.proto');
    expect(first.diagnostics).toEqual([]);
    expect(first.model).toMatchObject({ kind: 'protobuf', message: 'library.v1.BookBorrowed', file: 'protos/library.proto' });
    expect(first.model?.source).toBe(readFileSync(join(fixturesDir, 'library.proto'), 'utf8'));
    expect(fromFile('library.proto').model?.descriptorSet).toBe(first.model?.descriptorSet);
    const set = fromBinary(FileDescriptorSetSchema, Buffer.from(first.model?.descriptorSet ?? '', 'base64'));
    expect(set.file.map((file) => file.name)).toEqual(
      expect.arrayContaining(['library.proto', 'legacy.proto', 'google/protobuf/timestamp.proto']),
    );
    expect(set.file.every((file) => file.sourceCodeInfo === undefined)).toBe(true);
    // the runtime reads what the generator writes
    const codec = protobufCodec(first.model?.descriptorSet ?? '', 'library.v1.BookBorrowed');
    expect(codec.validate({ bookId: 'B' })).toEqual([]);
  });

  it('takes the message the contract names, fully qualified or by its name', () => {
    expect(fromFile('library.proto', { message: 'library.v1.Scalars' }).model?.message).toBe('library.v1.Scalars');
    expect(fromFile('library.proto', { message: 'BookBorrowed.Item' }).model?.message).toBe('library.v1.BookBorrowed.Item');
    expect(fromFile('library.proto', { message: 'Note' }).model?.message).toBe('library.v1.BookBorrowed.Item.Note');
    const unknown = fromFile('library.proto', { message: 'BookBorowed' });
    expect(unknown.model).toBeUndefined();
    expect(unknown.diagnostics[0]).toMatchObject({ code: 'protobuf_payload_message', location: at });
    expect(unknown.diagnostics[0]?.message).toMatch(
      /declares no message BookBorowed \(did you mean library.v1.BookBorrowed\?\); it declares library.v1.Scalars, /,
    );
    expect(unknown.diagnostics[0]?.hint).toContain('protos/library.proto#Name');
  });

  it('without a name: the one message no other uses, else the one marked @RootNode, else an error naming them', () => {
    const two = 'syntax = "proto3";\nmessage Point { int32 x = 1; }\nmessage Line { Point a = 1; }\nmessage Circle { Point c = 1; }\n';
    const ambiguous = inline(two);
    expect(ambiguous.diagnostics[0]?.message).toBe(
      'the .proto declares several messages that could be the payload (no other message uses them): Line, Circle',
    );
    expect(ambiguous.diagnostics[0]?.hint).toContain('@RootNode');
    expect(inline(two.replace('message Circle', '// The payload. @RootNode\nmessage Circle')).model?.message).toBe('Circle');
    expect(
      inline('syntax = "proto3";\npackage a.b;\nmessage Point { int32 x = 1; }\nmessage Line { Point a = 1; map<string, Point> m = 2; }\n')
        .model?.message,
    ).toBe('a.b.Line');
    // a self-reference does not make a message used
    expect(inline('syntax = "proto3";\nmessage Tree { repeated Tree children = 1; }\n').model?.message).toBe('Tree');
    expect(inline('syntax = "proto3";\nenum E { E_A = 0; }\n').diagnostics[0]?.message).toBe(
      'the .proto declares no message to be the payload',
    );
  });

  it("locates buf's errors: in an inline schema at its line in the contract, in a file at file:line:col", () => {
    const broken = inline('syntax = "proto3";\nmessage B {\n  strin x = 1;\n}\n');
    expect(broken.model).toBeUndefined();
    expect(broken.diagnostics[0]).toMatchObject({
      severity: 'error',
      code: 'protobuf_invalid',
      location: { file: 'asyncapi.yaml', line: 43, column: 11 },
    });
    expect(broken.diagnostics[0]?.message).toContain('strin');
    const dir = scratch('keiyaku-proto-');
    writeFileSync(join(dir, 'bad.proto'), 'syntax = "proto3";\nimport "missing.proto";\nmessage B {}\n');
    const fromBadFile = compileProtobufPayload({
      schemaFormat: 'application/vnd.google.protobuf;version=3',
      source: '',
      file: { root: dir, path: 'bad.proto', display: 'bad.proto' },
      locate: (file, line, column) => ({ file, line, column, pointer: '' }),
      at,
    });
    expect(fromBadFile.diagnostics[0]).toMatchObject({ location: { file: 'bad.proto', line: 2, column: 1 } });
    expect(fromBadFile.diagnostics[0]?.message).toContain('imported file does not exist');
  });

  it('says how to install buf when it is missing', () => {
    process.env['KEIYAKU_BUF'] = join(repoRoot, 'no-such-buf');
    expect(() => compileProtoSource('syntax = "proto3";')).toThrow(BufMissingError);
    expect(() => compileProtoSource('syntax = "proto3";')).toThrow(/npm i -D @bufbuild\/buf/);
  });

  it('declares the payload types protobuf-es holds, and they compile under strict', async () => {
    const model = fromFile('library.proto').model!;
    const other = fromFile('library.proto', { message: 'library.v1.Scalars' }).model!;
    const declarations = protobufDeclarations(
      [
        { descriptorSet: model.descriptorSet, message: model.message, name: 'BookBorrowedPayload' },
        { descriptorSet: other.descriptorSet, message: other.message, name: 'ScalarsPayload' },
      ],
      new Set(['Condition']),
    );
    // names: the roots as asked, a taken name qualified by the package, nested names joined with _
    expect(declarations.names.get('library.v1.BookBorrowed')).toBe('BookBorrowedPayload');
    expect(declarations.names.get('library.v1.Scalars')).toBe('ScalarsPayload');
    expect(declarations.names.get('library.v1.Condition')).toBe('library_v1_Condition');
    expect(declarations.names.get('library.v1.BookBorrowed.Item.Note')).toBe('BookBorrowed_Item_Note');
    expect(declarations.names.get('google.protobuf.Timestamp')).toBe('Timestamp');
    expect(declarations.enumNames).toEqual(['library_v1_Condition', 'NullValue', 'Shelf']);
    expect(declarations.values).toContain('export const library_v1_Condition = {\n  UNSPECIFIED: 0,\n  NEW: 1,\n  WORN: 2,\n} as const;');
    expect(declarations.types).toContain('export type Shelf = 1 | 2;');
    expect(
      protobufDeclarations([{ descriptorSet: model.descriptorSet, message: model.message, name: 'BookBorrowedPayload' }], new Set()).types,
    ).toBe(
      protobufDeclarations([{ descriptorSet: model.descriptorSet, message: model.message, name: 'BookBorrowedPayload' }], new Set()).types,
    );
    const dir = scratch('keiyaku-proto-types-');
    writeFileSync(join(dir, 'types.ts'), `${declarations.types}\n`);
    writeFileSync(join(dir, 'values.ts'), `${declarations.values}\n`);
    writeFileSync(join(dir, 'use.ts'), USE);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          noUnusedLocals: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          noEmit: true,
          types: [],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    const check = await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir]);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  }, 60_000);
});

/** Values of every mapping-table row against the generated types; the @ts-expect-error lines must fail. */
const USE = `import type { BookBorrowedPayload, BookBorrowedPayloadInit, library_v1_Condition } from './types.js';
import { library_v1_Condition as Condition, Shelf } from './values.js';

export const init: BookBorrowedPayloadInit = {
  bookId: 'B-1',
  condition: Condition.WORN,
  items: [{ sku: 'S-1', quantity: 3, notes: [{ text: 'x' }] }],
  counts: { a: 1 },
  byId: { '1': { sku: 'S-2' } },
  borrower: { case: 'guestItem', value: { sku: 'S-3' } },
  at: { seconds: 1n, nanos: 5 },
  note: 'wrapped',
  big: 2n,
  attributes: { a: [1, 'two', null, { b: true }] },
  extra: { kind: { case: 'stringValue', value: 'v' } },
  detail: { typeUrl: 't', value: new Uint8Array() },
  location: { branch: 'north', shelf: Shelf.B },
  scalars: { fInt64: 1n, fInt64String: '1', fBytes: new Uint8Array([1]), fOptional: undefined },
};

export const full: BookBorrowedPayload = {
  $typeName: 'library.v1.BookBorrowed',
  bookId: '',
  condition: 0,
  items: [],
  counts: {},
  byId: {},
  flags: {},
  borrower: { case: undefined },
  tags: [],
};

export const condition: library_v1_Condition = full.condition;
export const memberId: string | undefined = full.borrower.case === 'memberId' ? full.borrower.value : undefined;
// @ts-expect-error int64 is a bigint
export const badInt64: BookBorrowedPayloadInit = { scalars: { fInt64: 1 } };
// @ts-expect-error a oneof value matches its case
export const badOneof: BookBorrowedPayloadInit = { borrower: { case: 'memberId', value: 1 } };
// @ts-expect-error 3 is no value of the closed enum Shelf
export const badShelf: BookBorrowedPayloadInit = { location: { branch: 'n', shelf: 3 } };
`;
