// Avro payloads through the whole gate, on contract models: the direction a channel's operations
// imply, ids under `/payload`, acknowledgments by id, every output format, and a change of
// payload format. (test/compat/avro-rule-table.test.ts judges the kinds of change.)
import type { ContractModel } from 'keiyaku';
import { describe, expect, it } from 'vitest';
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

  it('refuses a schema that names an undefined type, naming the payload', () => {
    const broken = book([{ name: 'author', type: 'Author' }]);
    expect(() => compareContracts(contract(v1), contract(broken), { policy: 'lenient' })).toThrow(
      'Avro schema library.Book: unknown type Author',
    );
  });
});
