// Avro payloads through the whole gate, on contract models: the direction a channel's operations
// imply, ids under `/payload`, acknowledgments by id, every output format, and a change of
// payload format. (test/compat/avro-rule-table.test.ts judges the kinds of change.)
import type { ContractModel } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { writtenPointer } from '../../generator/compat/avro/written.js';
import { FORMATS, render } from '../../generator/compat/render.js';
import { book } from './avro-rows.js';
import { acknowledge, codesIn, compareContracts } from './known-codes.js';

type Ack = { id: string; reason: string; version: string };

/** A contract whose channel `books` carries `BookAdded` with an Avro payload; `send` makes it forward by default. */
function contract(schema: unknown, options: { version?: string; acks?: Ack[]; json?: boolean } = {}): ContractModel {
  return {
    source: 'asyncapi.yaml',
    asyncapi: '3.0.0',
    info: { title: 't', version: options.version ?? '1.0.0' },
    channels: [
      {
        id: 'books',
        identifier: 'Books',
        address: 'books',
        parameters: [],
        messages: ['BookAdded'],
        bindings: {},
        roles: [{ action: 'send', operation: 'publishBooks' }],
      },
    ],
    messages: {
      BookAdded: {
        type: 'BookAdded',
        id: 'BookAdded',
        identifier: 'BookAdded',
        contentType: options.json ? 'application/json' : 'application/vnd.apache.avro',
        payload: 'Book',
        ...(options.json
          ? {}
          : { format: { kind: 'avro' as const, schema, name: 'library.Book', schemaFormat: 'application/vnd.apache.avro;version=1.9.0' } }),
        boxed: false,
        examples: [],
        deprecated: false,
      },
    },
    operations: [],
    schemas: options.json ? { Book: { name: 'Book', schema: { type: 'object' }, origin: 'component' } } : {},
    ...(options.acks ? { compatibility: { acknowledge: options.acks } } : {}),
  };
}

const v1 = book([{ name: 'price', type: 'int' }]);
const v2 = book([
  { name: 'price', type: 'long' },
  { name: 'note', type: 'string' },
]);

describe('keiyaku check on Avro payloads', () => {
  it('judges each change in the directions of the channel, with ids under /payload', () => {
    const rows = (mode?: 'backward' | 'forward' | 'full') =>
      compareContracts(contract(v1), contract(v2), { policy: 'lenient', ...(mode ? { mode } : {}) }).map(
        (f) => `${f.direction} ${f.severity} ${f.id}`,
      );
    // Sent on: forward by default — old consumers read what this application now writes.
    expect(rows()).toEqual([
      'forward breaking books/BookAdded/avro_type_promoted/payload/fields/price/type',
      'forward compatible books/BookAdded/avro_field_added_without_default/payload/fields/note',
    ]);
    expect(rows('backward')).toEqual([
      'backward compatible books/BookAdded/avro_type_promoted/payload/fields/price/type',
      'backward breaking books/BookAdded/avro_field_added_without_default/payload/fields/note',
    ]);
    expect(rows('full')).toHaveLength(4);
  });

  it('says what changed, which reader breaks, and the fix', () => {
    const [promoted] = compareContracts(contract(v1), contract(v2), { policy: 'lenient' });
    expect(promoted).toMatchObject({
      code: 'avro_type_promoted',
      before: 'int',
      after: 'long',
      detail: 'type int → long (a promotion: long reads int): consumers on the old contract read int, which does not read long',
      hint: 'keep type int; the change itself passes only when acknowledged, once every consumer reads the new contract',
    });
  });

  it('lets an acknowledged break through by its id, and warns about one that matches nothing', () => {
    const id = 'books/BookAdded/avro_type_promoted/payload/fields/price/type';
    const after = contract(v2, {
      version: '2.0.0',
      acks: [
        { id, reason: 'prices in cents no longer fit an int; every consumer moved to 2.0', version: '2.0.0' },
        { id: 'books/BookAdded/avro_fixed_size_changed/payload/fields/hash/type/size', reason: 'left over', version: '2.0.0' },
      ],
    });
    const result = acknowledge(compareContracts(contract(v1), after, { policy: 'lenient' }), after);
    expect([result.breaking, result.acknowledged, result.compatible, result.warnings]).toEqual([0, 1, 1, 1]);
    expect(result.findings.find((f) => f.id === id)?.acknowledged?.version).toBe('2.0.0');
    expect(result.findings.find((f) => f.severity === 'warning')?.code).toBe('acknowledgment_unused');
  });

  it.each(FORMATS)('prints Avro findings in the %s format', (format) => {
    const after = contract(v2);
    const result = acknowledge(compareContracts(contract(v1), after, { policy: 'lenient', mode: 'backward' }), after);
    const out = render(format, result, { against: 'v1', mode: 'backward', policy: 'lenient' });
    const codes = codesIn(out);
    expect(codes).toContain('avro_field_added_without_default');
    if (format === 'text')
      expect(out).toContain('BREAKING avro_field_added_without_default (backward): field note added without a default');
    if (format === 'json') expect(JSON.parse(out).findings[1].pointer).toBe('/payload/fields/note');
  });

  it('is silent on an unchanged schema, and info-only on a doc edit', () => {
    expect(compareContracts(contract(v1), contract(v1), { policy: 'lenient', mode: 'full' })).toEqual([]);
    const documented = book([{ name: 'price', type: 'int', doc: 'in cents' }]);
    expect(compareContracts(contract(v1), contract(documented), { policy: 'lenient', mode: 'full' }).map((f) => f.severity)).toEqual([
      'info',
      'info',
    ]);
  });

  it('breaks both ways when the payload changes format, without comparing the schemas', () => {
    const findings = compareContracts(contract(undefined, { json: true }), contract(v1), { policy: 'lenient', mode: 'full' });
    expect(findings.map((f) => [f.code, f.severity])).toEqual([
      ['content_type_changed', 'breaking'],
      ['payload_format_changed', 'breaking'],
      ['payload_format_changed', 'breaking'],
    ]);
  });

  it("locates each finding at its node as written under the payload's schema", () => {
    const after = contract(v2);
    const located: ContractModel = {
      ...after,
      messages: { BookAdded: { ...after.messages.BookAdded!, documentPointer: '/components/messages/BookAdded' } },
    };
    const locate = (pointer: string) => ({ file: 'asyncapi.yaml', line: pointer.split('/').length, column: 1, pointer });
    const findings = compareContracts(contract(v1), located, { policy: 'lenient', mode: 'backward', locate });
    expect(findings.map((f) => [f.pointer, f.location?.pointer])).toEqual([
      ['/payload/fields/price/type', '/components/messages/BookAdded/payload/schema/fields/1/type'],
      ['/payload/fields/note', '/components/messages/BookAdded/payload/schema/fields/2'],
    ]);
  });

  it.each([
    ['a field of a branch of a union', '/fields/x/type/library.Author/fields/born', '/fields/1/type/1/fields/1'],
    ['a schema wrapped as { "type": { … } }', '/fields/y/type/items', '/fields/2/type/type/items'],
    ['a field the new schema lacks: its record', '/fields/gone', ''],
    ['a named type referenced by name: the reference', '/fields/z/type/fields/born', '/fields/3/type'],
  ])('finds the written node of %s', (_what, pointer, written) => {
    const author = {
      type: 'record',
      name: 'Author',
      fields: [
        { name: 'name', type: 'string' },
        { name: 'born', type: 'int' },
      ],
    };
    const schema = book([
      { name: 'x', type: ['null', author] },
      { name: 'y', type: { type: { type: 'array', items: 'int' } } },
      { name: 'z', type: 'Author' },
    ]);
    expect(writtenPointer(schema, pointer)).toBe(written);
  });

  it('refuses a schema that names an undefined type, naming the payload', () => {
    const broken = book([{ name: 'author', type: 'Author' }]);
    expect(() => compareContracts(contract(v1), contract(broken), { policy: 'lenient' })).toThrow(
      'Avro schema library.Book: unknown type Author',
    );
  });
});
