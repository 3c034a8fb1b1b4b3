// Table-driven JSON Schema → TypeScript cases for the type writer (one row: given schema, wanted type).
import { format } from 'prettier';
import { describe, expect, it } from 'vitest';
import { SchemaTypeWriter } from '../../generator/emit/schema-type.js';
import type { SchemaNode } from '../../generator/model/contract-model.js';

/** Normalises whitespace by formatting `type X = …`. */
async function normalized(type: string): Promise<string> {
  const printed = await format(`type X = ${type};`, { parser: 'typescript', printWidth: 1000 });
  return printed
    .replace(/\s+/g, ' ')
    .replace(/;\s*\}/g, ' }')
    .replace(/\{\s*\}/g, '{}')
    .replace('= | ', '= ')
    .trim();
}

const cases: [string, SchemaNode, string][] = [
  ['true schema', true, 'unknown'],
  ['false schema', false, 'never'],
  ['empty schema', {}, 'unknown'],
  ['string', { type: 'string' }, 'string'],
  ['integer is number', { type: 'integer' }, 'number'],
  ['boolean', { type: 'boolean' }, 'boolean'],
  ['null', { type: 'null' }, 'null'],
  ['nullable via type list', { type: ['string', 'null'] }, 'string | null'],
  ['string enum', { enum: ['a', 'b'] }, '"a" | "b"'],
  ['mixed enum', { enum: ['a', 1, true, null] }, '"a" | 1 | true | null'],
  ['negative number const', { const: -1.5 }, '-1.5'],
  ['object const', { const: { a: [1, 'x'] } }, '{ readonly a: readonly [1, "x"] }'],
  [
    'required and optional',
    { type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'number' } } },
    '{ readonly a: string; readonly b?: number }',
  ],
  [
    'quoted keys',
    { type: 'object', properties: { 'a-b': { type: 'string' }, '1x': { type: 'string' } } },
    '{ readonly "a-b"?: string; readonly "1x"?: string }',
  ],
  ['required without property schema', { type: 'object', required: ['id'] }, '{ readonly id: unknown }'],
  ['open empty object', { type: 'object' }, '{ readonly [key: string]: unknown }'],
  ['closed empty object', { type: 'object', additionalProperties: false }, '{ readonly [key: string]: never }'],
  ['map of numbers', { type: 'object', additionalProperties: { type: 'number' } }, '{ readonly [key: string]: number }'],
  [
    'index signature covers properties',
    { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } },
    '{ readonly a?: string; readonly [key: string]: number | string | undefined }',
  ],
  [
    'pattern properties',
    { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
    '{ /** Keys matching "^x-". */ readonly [key: string]: string }',
  ],
  ['array', { type: 'array', items: { type: 'string' } }, 'readonly string[]'],
  ['array of union', { type: 'array', items: { type: ['string', 'number'] } }, 'readonly (string | number)[]'],
  ['array without items', { type: 'array' }, 'readonly unknown[]'],
  [
    'closed tuple',
    { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 },
    'readonly [string, number]',
  ],
  [
    'open tuple with optional tail',
    { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 1 },
    'readonly [string, number?, ...unknown[]]',
  ],
  [
    'tuple with rest type',
    { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' }, minItems: 1 },
    'readonly [string, ...boolean[]]',
  ],
  ['oneOf', { oneOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
  ['anyOf with null', { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
  ['allOf', { allOf: [{ $ref: '#/schemas/A' }, { $ref: '#/schemas/B' }] }, 'A & B'],
  [
    'base object and oneOf',
    { type: 'object', properties: { id: { type: 'string' } }, oneOf: [{ $ref: '#/schemas/A' }, { $ref: '#/schemas/B' }] },
    '{ readonly id?: string } & (A | B)',
  ],
  [
    'discriminated union',
    {
      oneOf: [
        { type: 'object', required: ['kind'], properties: { kind: { const: 'a' } } },
        { type: 'object', required: ['kind'], properties: { kind: { const: 'b' } } },
      ],
    },
    '{ readonly kind: "a" } | { readonly kind: "b" }',
  ],
  ['reference', { $ref: '#/schemas/Thing' }, 'Thing'],
  ['unknown keyword falls back', { type: 'string', not: { const: '' } }, 'string'],
  ['format is a plain string', { type: 'string', format: 'date-time' }, 'string'],
  ['type inferred from properties', { properties: { a: { type: 'string' } } }, '{ readonly a?: string }'],
  [
    'optional property named like an Object member',
    { type: 'object', properties: { constructor: { type: 'string' } } },
    '{ readonly constructor?: string | Object["constructor"] }',
  ],
  [
    'required name like an Object member without a property schema',
    { type: 'object', properties: { a: { type: 'string' } }, required: ['constructor'] },
    '{ readonly a?: string; readonly constructor: unknown }',
  ],
];

describe('JSON Schema → TypeScript type', () => {
  const writer = new SchemaTypeWriter();
  it.each(cases)('%s', async (_name, schema, want) => {
    expect(await normalized(writer.type(schema))).toBe(await normalized(want));
  });

  it('escapes property documentation', async () => {
    const type = writer.type({ type: 'object', properties: { a: { type: 'string', description: 'ends */ here' } } });
    expect(type).toContain('ends *\\/ here');
    expect(await normalized(type)).toContain('readonly a?: string');
  });

  it('emits an interface for plain object schemas and an alias otherwise', () => {
    expect(
      writer.declaration({ name: 'A', origin: 'component', schema: { type: 'object', properties: { x: { type: 'string' } } } }, []),
    ).toMatch(/^export interface A \{/);
    expect(writer.declaration({ name: 'B', origin: 'component', schema: { type: 'string', description: 'An id.' } }, [])).toBe(
      '/** An id. */\nexport type B = string;\n',
    );
  });
});
