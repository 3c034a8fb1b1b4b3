// A contract with Protobuf payloads end to end: generated from a $ref'd .proto and an inline one
// (test/fixtures/protobuf, a golden fixture), published and consumed over the memory transport,
// its diagnostics and determinism.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import { ContractValidationError } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { generateFromFile } from 'keiyaku';
import { afterEach, describe, expect, it } from 'vitest';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';
import {
  BookBorrowed,
  Books,
  type BooksMessage,
  Condition,
  dispatchBooks,
  Outcome,
  ShelfAudited,
} from '../fixtures/protobuf/expected/index.js';
import { fixturesDir, scratch } from '../helpers.js';
import { registryOf } from './proto-fixtures.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const borrowed = () =>
  BookBorrowed.create({
    bookId: 'B-1',
    condition: Condition.WORN,
    items: [{ sku: 'S-1', quantity: 2, notes: [{ text: 'dog-eared' }] }],
    byId: { '42': { sku: 'S-2' } },
    borrower: { case: 'memberId', value: 'M-7' },
    at: { seconds: 1_767_225_600n, nanos: 0 },
    note: 'first loan',
    attributes: { shelf: 'A', copies: 2 },
    scalars: { fInt64: -5n, fBytes: new Uint8Array([1, 2, 3]) },
  });

const audited = () =>
  ShelfAudited.create({
    shelfId: 'SH-9',
    outcome: Outcome.MISSING,
    counts: { fiction: 12 },
    findings: [{ sku: 'S-3', delta: -1n }],
    by: { case: 'robot', value: 7n },
    shelfLevel: 3,
    notes: { checkedBy: ['r7'] },
  });

describe('a contract with Protobuf payloads', () => {
  it('creates protobuf-es messages through the generated factories, validating them', () => {
    const message = borrowed();
    expect(message.$typeName).toBe('library.v1.BookBorrowed');
    expect(message.items[0]?.$typeName).toBe('library.v1.BookBorrowed.Item');
    expect(message.counts).toEqual({});
    expect(BookBorrowed.is(message)).toBe(true);
    expect(BookBorrowed.format).toBe('protobuf');
    expect(BookBorrowed.contentType).toBe('application/x-protobuf');
    expect(BookBorrowed.codec?.schema.messageIndexes).toEqual([1]);
    expect(ShelfAudited.codec?.schema).toMatchObject({ recordName: 'library.audit.v1.ShelfAudited', messageIndexes: [0] });
    expect(() => BookBorrowed.create({ scalars: { fInt32: 2 ** 40 } })).toThrow(ContractValidationError);
    expect(() => BookBorrowed.create({ scalars: { fInt32: 2 ** 40 } })).toThrow(/at \$\.scalars\.fInt32: .*out of range for int32/);
    // @ts-expect-error a number is no bigint: the types say what the codec checks
    expect(() => ShelfAudited.create({ findings: [{ delta: 1 }] })).toThrow(/\$\.findings\[0\]\.delta/);
  });

  it('round-trips over the memory transport, dispatched by type', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ transport, logger: silentLogger, shutdownBudgetMs: 1_000 });
    hosts.push(host);
    const seen: BooksMessage[] = [];
    host.subscribe(Books, { groupId: 'test.protobuf', handle: (message) => void seen.push(message) });
    await host.start();
    const books = host.publisher(Books, { lingerMs: 0 });
    await books.publish(borrowed());
    await books.publish(audited());
    const records = transport.published('library.books');
    expect(records).toHaveLength(2);
    expect(records[0]?.headers['content-type']).toBe('application/x-protobuf');
    const deadline = Date.now() + 5_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toHaveLength(2);
    const summary = seen.map((message) =>
      dispatchBooks(message, {
        BookBorrowed: (m) =>
          `${m.bookId} ${m.condition} ${m.borrower.case === 'memberId' ? m.borrower.value : '?'} ${m.at?.seconds} ${m.scalars?.fBytes.join(',')}`,
        ShelfAudited: (m) =>
          `${m.shelfId} ${m.outcome} ${m.by.case === 'robot' ? m.by.value : '?'} ${m.shelfLevel} ${JSON.stringify(m.notes)}`,
      }),
    );
    expect(summary).toEqual(['B-1 2 M-7 1767225600 1,2,3', 'SH-9 2 7 3 {"checkedBy":["r7"]}']);
    expect(seen[0]).toEqual(borrowed());
  });

  it('writes the bytes protobuf-es writes, and reads them', () => {
    // protobuf-es used directly, on the same .proto compiled apart
    const compiled = compileProtoFile(join(fixturesDir, 'protobuf'), 'protos/library.proto');
    if (!compiled.ok) throw new Error('the fixture does not compile');
    const desc = registryOf(Buffer.from(compiled.descriptorSet).toString('base64')).getMessage('library.v1.BookBorrowed')!;
    const bytes = BookBorrowed.encode(borrowed());
    expect(toBinary(desc, fromBinary(desc, bytes))).toEqual(bytes);
    const decoded = BookBorrowed.decode(toBinary(desc, create(desc, { bookId: 'B-2' })));
    expect(decoded.ok && decoded.value.bookId).toBe('B-2');
    const garbage = BookBorrowed.decode(new Uint8Array([0xff, 0xff, 0xff]));
    expect(garbage.ok ? 'ok' : garbage.error.reason).toBe('malformed');
  });

  it('generates the same files twice', async () => {
    const cwd = join(fixturesDir, 'protobuf');
    const first = await generateFromFile('asyncapi.yaml', { cwd });
    const second = await generateFromFile('asyncapi.yaml', { cwd });
    expect(second.files).toEqual(first.files);
  });

  it("locates a syntax error of a $ref'd .proto at file:line:col and of an inline one in the contract", async () => {
    const cwd = scratch('keiyaku-proto-diag-');
    writeFileSync(join(cwd, 'broken.proto'), 'syntax = "proto3";\n\nmessage Broken {\n  strin name = 1;\n}\n');
    writeFileSync(
      join(cwd, 'asyncapi.yaml'),
      [
        'asyncapi: 3.0.0',
        'info: { title: t, version: 1.0.0 }',
        'channels:',
        '  c:',
        '    address: c',
        '    messages:',
        '      FromFile:',
        '        payload:',
        '          schemaFormat: application/vnd.google.protobuf;version=3',
        '          schema:',
        '            $ref: ./broken.proto',
        '      Inline:',
        '        payload:',
        '          schemaFormat: application/vnd.google.protobuf;version=3',
        '          schema: |',
        '            syntax = "proto3";',
        '            message Inline {',
        '              int32 a = 1',
        '            }',
        '      Unclear:',
        '        payload:',
        '          schemaFormat: application/vnd.google.protobuf;version=3',
        '          schema: |',
        '            syntax = "proto3";',
        '            message A { int32 a = 1; }',
        '            message B { int32 b = 1; }',
        '',
      ].join('\n'),
    );
    const result = await generateFromFile('asyncapi.yaml', { cwd });
    expect(result.files).toEqual([]);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    const at = (code: string) =>
      errors.filter((d) => d.code === code).map((d) => `${d.location?.file}:${d.location?.line}:${d.location?.column}`);
    expect(at('protobuf_invalid')).toEqual(expect.arrayContaining(['broken.proto:4:3', 'asyncapi.yaml:19:13']));
    const unclear = errors.find((d) => d.code === 'protobuf_payload_message');
    expect(unclear?.message).toBe('the .proto declares several messages that could be the payload (no other message uses them): A, B');
    expect(unclear?.location).toMatchObject({ file: 'asyncapi.yaml', line: 23 });
  });

  it('declares a type two payloads share once, and refuses two different types of one name', async () => {
    const contract = (first: string, second: string) =>
      [
        'asyncapi: 3.0.0',
        'info: { title: t, version: 1.0.0 }',
        'channels:',
        '  c:',
        '    address: c',
        '    messages:',
        ...[
          ['First', first],
          ['Second', second],
        ].flatMap(([name, body]) => [
          `      ${name}:`,
          '        payload:',
          '          schemaFormat: application/vnd.google.protobuf;version=3',
          '          schema: |',
          '            syntax = "proto3";',
          '            package shared;',
          `            message ${name} { Point p = 1; }`,
          `            ${body}`,
        ]),
        '',
      ].join('\n');
    const cwd = scratch('keiyaku-proto-shared-');
    writeFileSync(join(cwd, 'asyncapi.yaml'), contract('message Point { int32 x = 1; }', 'message Point { int32 x = 1; }'));
    const shared = await generateFromFile('asyncapi.yaml', { cwd });
    expect(shared.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const types = shared.files.find((f) => f.path === 'types.ts')?.content ?? '';
    expect(types.match(/export interface Point \{/g)).toHaveLength(1);
    writeFileSync(join(cwd, 'asyncapi.yaml'), contract('message Point { int32 x = 1; }', 'message Point { string x = 1; }'));
    const conflict = await generateFromFile('asyncapi.yaml', { cwd });
    expect(conflict.files).toEqual([]);
    expect(conflict.diagnostics.find((d) => d.code === 'protobuf_type_conflict')?.message).toContain('shared.Point');
  });

  it('says how to install buf when it is missing', async () => {
    const saved = process.env['KEIYAKU_BUF'];
    process.env['KEIYAKU_BUF'] = join(scratch('keiyaku-no-buf-'), 'buf');
    try {
      const result = await generateFromFile('asyncapi.yaml', { cwd: join(fixturesDir, 'protobuf') });
      expect(result.files).toEqual([]);
      const missing = result.diagnostics.filter((d) => d.code === 'protobuf_compiler_missing');
      expect(missing[0]?.message).toMatch(/npm i -D @bufbuild\/buf/);
      expect(missing.map((d) => d.location?.file).sort()).toEqual(['asyncapi.yaml', 'protos/library.proto']);
    } finally {
      if (saved === undefined) delete process.env['KEIYAKU_BUF'];
      else process.env['KEIYAKU_BUF'] = saved;
    }
  });
});
