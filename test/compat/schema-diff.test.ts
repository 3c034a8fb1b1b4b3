// JSON Schema compatibility rules, table-driven: each row is (before, after, policy) → the
// codes and severities keiyaku reports. Backward rows ask the schema engine directly; forward
// rows go through the contract comparison in forward mode, as `keiyaku check --mode forward` does.
import type { ContractModel, SchemaNode } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { compareContracts, diffSchemas, type Policy } from './known-codes.js';

function model(schemas: Record<string, SchemaNode>): ContractModel {
  return {
    source: 'asyncapi.yaml',
    asyncapi: '3.0.0',
    info: { title: 't', version: '1' },
    channels: [],
    messages: {},
    operations: [],
    schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, { name, schema, origin: 'component' as const }])),
  };
}

function verdict(before: SchemaNode, after: SchemaNode, policy: Policy): string[] {
  return diffSchemas(model({ Root: before }), 'Root', model({ Root: after }), 'Root', policy)
    .filter((c) => c.severity !== 'info')
    .map((c) => `${c.severity}:${c.code}@${c.pointer}`);
}

const obj = (properties: Record<string, SchemaNode>, extra: Record<string, unknown> = {}): SchemaNode => ({
  type: 'object',
  properties,
  ...extra,
});
const S = { type: 'string' } as const;
const N = { type: 'number' } as const;
const I = { type: 'integer' } as const;

const cases: [string, SchemaNode, SchemaNode, Policy, string[]][] = [
  ['identical schemas', obj({ a: S }), obj({ a: S }), 'strict', []],
  ['anything can become the empty schema', obj({ a: S }), {}, 'strict', ['compatible:schema_opened@']],
  ['the empty schema gaining constraints', {}, S, 'strict', ['breaking:schema_restricted@']],
  ['string → number', S, N, 'strict', ['breaking:type_changed@/type']],
  ['integer → number widens', I, N, 'strict', ['compatible:type_widened@/type']],
  ['number → integer narrows', N, I, 'strict', ['breaking:type_narrowed@/type']],
  ['type union gains null', S, { type: ['string', 'null'] }, 'strict', ['compatible:type_widened@/type']],
  ['type union loses null', { type: ['string', 'null'] }, S, 'strict', ['breaking:type_union_narrowed@/type']],
  ['maxLength added', S, { ...S, maxLength: 5 }, 'strict', ['breaking:max_length_added@/maxLength']],
  ['maxLength removed', { ...S, maxLength: 5 }, S, 'strict', ['compatible:max_length_removed@/maxLength']],
  ['maxLength increased', { ...S, maxLength: 5 }, { ...S, maxLength: 9 }, 'strict', ['compatible:max_length_widened@/maxLength']],
  ['maxLength decreased', { ...S, maxLength: 9 }, { ...S, maxLength: 5 }, 'strict', ['breaking:max_length_narrowed@/maxLength']],
  ['minLength added', S, { ...S, minLength: 1 }, 'strict', ['breaking:min_length_added@/minLength']],
  ['minLength decreased', { ...S, minLength: 3 }, { ...S, minLength: 1 }, 'strict', ['compatible:min_length_widened@/minLength']],
  ['minLength increased', { ...S, minLength: 1 }, { ...S, minLength: 3 }, 'strict', ['breaking:min_length_narrowed@/minLength']],
  ['pattern added', S, { ...S, pattern: '^a' }, 'strict', ['breaking:pattern_added@/pattern']],
  ['pattern changed', { ...S, pattern: '^a' }, { ...S, pattern: '^b' }, 'strict', ['breaking:pattern_changed@/pattern']],
  ['pattern removed', { ...S, pattern: '^a' }, S, 'strict', ['compatible:pattern_removed@/pattern']],
  ['format added', S, { ...S, format: 'uuid' }, 'strict', ['breaking:format_added@/format']],
  ['maximum decreased', { ...N, maximum: 10 }, { ...N, maximum: 5 }, 'strict', ['breaking:maximum_narrowed@/maximum']],
  ['maximum increased', { ...N, maximum: 5 }, { ...N, maximum: 10 }, 'strict', ['compatible:maximum_widened@/maximum']],
  ['minimum increased', { ...N, minimum: 0 }, { ...N, minimum: 1 }, 'strict', ['breaking:minimum_narrowed@/minimum']],
  ['exclusiveMinimum added', N, { ...N, exclusiveMinimum: 0 }, 'strict', ['breaking:exclusive_minimum_added@/exclusiveMinimum']],
  [
    'multipleOf reduced (new divides old)',
    { ...N, multipleOf: 10 },
    { ...N, multipleOf: 5 },
    'strict',
    ['compatible:multiple_of_reduced@/multipleOf'],
  ],
  [
    'multipleOf changed otherwise',
    { ...N, multipleOf: 10 },
    { ...N, multipleOf: 3 },
    'strict',
    ['breaking:multiple_of_changed@/multipleOf'],
  ],
  ['multipleOf added', N, { ...N, multipleOf: 2 }, 'strict', ['breaking:multiple_of_added@/multipleOf']],
  ['enum value added', { enum: ['a', 'b'] }, { enum: ['a', 'b', 'c'] }, 'strict', ['compatible:enum_value_added@/enum']],
  ['enum value removed', { enum: ['a', 'b'] }, { enum: ['a'] }, 'strict', ['breaking:enum_value_removed@/enum']],
  ['enum added', S, { ...S, enum: ['a'] }, 'strict', ['breaking:enum_added@/enum']],
  ['enum removed', { ...S, enum: ['a'] }, S, 'strict', ['compatible:enum_removed@/enum']],
  ['const changed', { const: 'v1' }, { const: 'v2' }, 'strict', ['breaking:const_changed@/const']],
  [
    'uniqueItems added',
    { type: 'array', items: S },
    { type: 'array', items: S, uniqueItems: true },
    'strict',
    ['breaking:unique_items_added@/uniqueItems'],
  ],
  ['array items narrowed', { type: 'array', items: N }, { type: 'array', items: I }, 'strict', ['breaking:type_narrowed@/items/type']],
  ['maxItems added', { type: 'array' }, { type: 'array', maxItems: 3 }, 'strict', ['breaking:max_items_added@/maxItems']],
  [
    'tuple element narrowed',
    { type: 'array', prefixItems: [S, N] },
    { type: 'array', prefixItems: [S, I] },
    'strict',
    ['breaking:type_narrowed@/prefixItems/1/type'],
  ],
  [
    'optional property added to open model (strict)',
    obj({ a: S }),
    obj({ a: S, b: N }),
    'strict',
    ['breaking:optional_property_added_to_open_model@/properties/b'],
  ],
  [
    'optional property added to open model (lenient)',
    obj({ a: S }),
    obj({ a: S, b: N }),
    'lenient',
    ['compatible:optional_property_added_to_open_model@/properties/b'],
  ],
  [
    'property with empty schema added to open model',
    obj({ a: S }),
    obj({ a: S, b: {} }),
    'strict',
    ['compatible:property_with_empty_schema_added@/properties/b'],
  ],
  [
    'required property added',
    obj({ a: S }),
    obj({ a: S, b: N }, { required: ['b'] }),
    'lenient',
    ['breaking:required_property_added@/properties/b'],
  ],
  [
    'required property with default added to open model (lenient)',
    obj({ a: S }),
    obj({ a: S, b: { ...N, default: 0 } }, { required: ['b'] }),
    'lenient',
    ['compatible:required_property_with_default_added@/properties/b'],
  ],
  [
    'required property with default added to open model (strict)',
    obj({ a: S }),
    obj({ a: S, b: { ...N, default: 0 } }, { required: ['b'] }),
    'strict',
    ['breaking:required_property_with_default_added@/properties/b'],
  ],
  [
    'optional property added to closed model',
    obj({ a: S }, { additionalProperties: false }),
    obj({ a: S, b: N }, { additionalProperties: false }),
    'strict',
    ['compatible:optional_property_added_to_closed_model@/properties/b'],
  ],
  [
    'property removed from open model',
    obj({ a: S, b: N }),
    obj({ a: S }),
    'strict',
    ['compatible:property_removed_from_open_model@/properties/b'],
  ],
  [
    'property removed from closed model (strict)',
    obj({ a: S, b: N }, { additionalProperties: false }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['breaking:property_removed_from_closed_model@/properties/b'],
  ],
  [
    'property removed from closed model (lenient)',
    obj({ a: S, b: N }, { additionalProperties: false }),
    obj({ a: S }, { additionalProperties: false }),
    'lenient',
    ['breaking:property_removed_from_closed_model@/properties/b'],
  ],
  [
    'false property removed from closed model',
    obj({ a: S, b: false }, { additionalProperties: false }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['compatible:property_with_false_removed@/properties/b'],
  ],
  [
    'property removed, covered by partially open model',
    obj({ a: S, b: S }, { additionalProperties: S }),
    obj({ a: S }, { additionalProperties: S }),
    'strict',
    ['compatible:property_removed_is_covered_by_partially_open_model@/properties/b'],
  ],
  [
    'property removed, not covered by partially open model',
    obj({ a: S, b: N }, { additionalProperties: S }),
    obj({ a: S }, { additionalProperties: S }),
    'strict',
    ['breaking:property_removed_not_covered_by_partially_open_model@/properties/b'],
  ],
  [
    'property added, covered by partially open model',
    obj({ a: S }, { additionalProperties: S }),
    obj({ a: S, b: { type: ['string', 'number'] } }, { additionalProperties: S }),
    'strict',
    ['compatible:property_added_is_covered_by_partially_open_model@/properties/b'],
  ],
  [
    'property added, not covered by partially open model',
    obj({ a: S }, { additionalProperties: { type: ['string', 'number'] } }),
    obj({ a: S, b: S }, { additionalProperties: { type: ['string', 'number'] } }),
    'strict',
    ['breaking:property_added_not_covered_by_partially_open_model@/properties/b'],
  ],
  [
    'existing property becomes required',
    obj({ a: S, b: N }),
    obj({ a: S, b: N }, { required: ['b'] }),
    'strict',
    ['breaking:required_attribute_added@/required'],
  ],
  [
    'existing property with default becomes required',
    obj({ a: S, b: { ...N, default: 1 } }),
    obj({ a: S, b: { ...N, default: 1 } }, { required: ['b'] }),
    'strict',
    ['compatible:required_attribute_with_default_added@/required'],
  ],
  [
    'property no longer required',
    obj({ a: S }, { required: ['a'] }),
    obj({ a: S }),
    'strict',
    ['compatible:required_attribute_removed@/required'],
  ],
  [
    'closing an open object (strict)',
    obj({ a: S }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['breaking:additional_properties_removed@/additionalProperties'],
  ],
  [
    'closing an open object (lenient)',
    obj({ a: S }),
    obj({ a: S }, { additionalProperties: false }),
    'lenient',
    ['breaking:additional_properties_removed@/additionalProperties'],
  ],
  [
    'opening a closed object',
    obj({ a: S }, { additionalProperties: false }),
    obj({ a: S }),
    'strict',
    ['compatible:additional_properties_added@/additionalProperties'],
  ],
  [
    'unevaluatedProperties: false closes the object',
    obj({ a: S }),
    obj({ a: S }, { unevaluatedProperties: false }),
    'strict',
    ['breaking:additional_properties_removed@/additionalProperties'],
  ],
  [
    'additionalProperties schema narrowed',
    obj({}, { additionalProperties: N }),
    obj({}, { additionalProperties: I }),
    'strict',
    ['breaking:type_narrowed@/additionalProperties/type'],
  ],
  [
    'dependentRequired added',
    obj({ a: S, b: S }),
    obj({ a: S, b: S }, { dependentRequired: { a: ['b'] } }),
    'strict',
    ['breaking:dependent_required_added@/dependentRequired/a'],
  ],
  [
    'nested property type changed',
    obj({ a: obj({ b: S }) }),
    obj({ a: obj({ b: N }) }),
    'strict',
    ['breaking:type_changed@/properties/a/properties/b/type'],
  ],
  ['oneOf branch added', { oneOf: [S, N] }, { oneOf: [S, N, { type: 'boolean' }] }, 'strict', ['compatible:one_of_branch_added@/oneOf/2']],
  ['oneOf branch removed', { oneOf: [S, N] }, { oneOf: [S] }, 'strict', ['breaking:one_of_branch_removed_or_narrowed@/oneOf/1']],
  ['oneOf branches reordered', { oneOf: [S, N] }, { oneOf: [N, S] }, 'strict', []],
  ['anyOf branch widened', { anyOf: [I, S] }, { anyOf: [N, S] }, 'strict', ['compatible:type_widened@/anyOf/0/type']],
  ['oneOf introduced around the old schema', S, { oneOf: [S, N] }, 'strict', ['compatible:one_of_added@/oneOf']],
  ['oneOf introduced without the old schema', S, { oneOf: [I, N] }, 'strict', ['breaking:one_of_added@/oneOf']],
  [
    'allOf branch added',
    { allOf: [obj({ a: S })] },
    { allOf: [obj({ a: S }), obj({ b: N }, { required: ['b'] })] },
    'strict',
    ['breaking:all_of_branch_added_or_narrowed@/allOf/1'],
  ],
  [
    'allOf branch removed',
    { allOf: [obj({ a: S }), obj({ b: N }, { required: ['b'] })] },
    { allOf: [obj({ a: S })] },
    'strict',
    ['compatible:all_of_branch_removed@/allOf/1'],
  ],
  ['not added', S, { ...S, not: { const: '' } }, 'strict', ['breaking:not_added@/not']],
  ['not removed', { ...S, not: { const: '' } }, S, 'strict', ['compatible:not_removed@/not']],
  // Property names that are also members of every JavaScript object are properties like any other.
  [
    'property named constructor removed from closed model',
    obj({ a: S, constructor: N }, { additionalProperties: false }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['breaking:property_removed_from_closed_model@/properties/constructor'],
  ],
  [
    'property named toString added to open model (strict)',
    obj({ a: S }),
    obj({ a: S, toString: N }),
    'strict',
    ['breaking:optional_property_added_to_open_model@/properties/toString'],
  ],
  [
    'pattern named constructor removed from closed model',
    obj({}, { patternProperties: { constructor: S }, additionalProperties: false }),
    obj({}, { additionalProperties: false }),
    'strict',
    ['breaking:pattern_property_removed@/patternProperties/constructor'],
  ],
  [
    'dependentRequired on a property named constructor added',
    obj({ constructor: S, b: S }),
    obj({ constructor: S, b: S }, { dependentRequired: { constructor: ['b'] } }),
    'strict',
    ['breaking:dependent_required_added@/dependentRequired/constructor'],
  ],
];

describe('JSON Schema compatibility (backward)', () => {
  it.each(cases)('%s', (_name, before, after, policy, want) => {
    expect(verdict(before, after, policy)).toEqual(want);
  });

  it('reports metadata edits as info only', () => {
    const b = model({ Root: { ...S, title: 'A', description: 'x', examples: ['a'] } });
    const a = model({ Root: { ...S, title: 'B', description: 'y', examples: ['b'] } });
    const changes = diffSchemas(b, 'Root', a, 'Root', 'strict');
    expect(changes.map((c) => `${c.severity}:${c.code}`).sort()).toEqual([
      'info:description_changed',
      'info:examples_changed',
      'info:title_changed',
    ]);
  });

  it('follows $refs on both sides and handles recursion', () => {
    const tree = (leaf: SchemaNode): Record<string, SchemaNode> => ({
      Root: obj({ root: { $ref: '#/schemas/Node' } }),
      Node: obj({ value: leaf, children: { type: 'array', items: { $ref: '#/schemas/Node' } } }),
    });
    const b = model(tree(N));
    const a = model(tree(I));
    const changes = diffSchemas(b, 'Root', a, 'Root', 'strict').map((c) => `${c.code}@${c.pointer}`);
    expect(changes).toEqual(['type_narrowed@/properties/root/properties/value/type']);
  });
});

/** A contract with one channel `c` carrying one message `M` whose payload is `payload`. */
function contract(payload: SchemaNode): ContractModel {
  return {
    ...model({ Root: payload }),
    channels: [{ id: 'c', identifier: 'C', address: 'c', parameters: [], messages: ['M'], bindings: {} }],
    messages: {
      M: {
        type: 'M',
        id: 'M',
        identifier: 'M',
        contentType: 'application/json',
        payload: 'Root',
        boxed: false,
        examples: [],
        deprecated: false,
      },
    },
  };
}

/** Forward: can readers on the old schema read what the new schema allows? Asked of `compareContracts` in forward mode. */
function forward(before: SchemaNode, after: SchemaNode, policy: Policy): string[] {
  const findings = compareContracts(contract(before), contract(after), { mode: 'forward', policy });
  for (const finding of findings) expect(finding).toMatchObject({ direction: 'forward', channel: 'c', message: 'M' });
  return findings
    .filter((f) => f.severity !== 'info')
    .map((f) => {
      expect(f.pointer.startsWith('/payload')).toBe(true);
      return `${f.severity}:${f.code}@${f.pointer.slice('/payload'.length)}`;
    });
}

const forwardCases: [string, SchemaNode, SchemaNode, Policy, string[]][] = [
  ['enum value added', { enum: ['a'] }, { enum: ['a', 'b'] }, 'strict', ['breaking:enum_value_added@/enum']],
  ['enum value removed', { enum: ['a', 'b'] }, { enum: ['a'] }, 'strict', ['compatible:enum_value_removed@/enum']],
  ['integer → number', I, N, 'strict', ['breaking:type_widened@/type']],
  ['number → integer', N, I, 'strict', ['compatible:type_narrowed@/type']],
  ['null added to a type union', S, { type: ['string', 'null'] }, 'strict', ['breaking:type_widened@/type']],
  ['maxLength increased', { ...S, maxLength: 5 }, { ...S, maxLength: 9 }, 'strict', ['breaking:max_length_widened@/maxLength']],
  ['maxLength decreased', { ...S, maxLength: 9 }, { ...S, maxLength: 5 }, 'strict', ['compatible:max_length_narrowed@/maxLength']],
  ['maxLength removed', { ...S, maxLength: 5 }, S, 'strict', ['breaking:max_length_removed@/maxLength']],
  ['minimum lowered', { ...N, minimum: 1 }, { ...N, minimum: 0 }, 'strict', ['breaking:minimum_widened@/minimum']],
  ['pattern removed', { ...S, pattern: '^a' }, S, 'strict', ['breaking:pattern_removed@/pattern']],
  ['pattern added', S, { ...S, pattern: '^a' }, 'strict', ['compatible:pattern_added@/pattern']],
  ['format removed', { ...S, format: 'uuid' }, S, 'strict', ['breaking:format_removed@/format']],
  ['multipleOf reduced', { ...N, multipleOf: 10 }, { ...N, multipleOf: 5 }, 'strict', ['breaking:multiple_of_reduced@/multipleOf']],
  [
    'uniqueItems removed',
    { type: 'array', uniqueItems: true },
    { type: 'array' },
    'strict',
    ['breaking:unique_items_removed@/uniqueItems'],
  ],
  ['maxItems raised', { type: 'array', maxItems: 2 }, { type: 'array', maxItems: 3 }, 'strict', ['breaking:max_items_widened@/maxItems']],
  [
    'optional property added to an open object (strict)',
    obj({ a: S }),
    obj({ a: S, b: N }),
    'strict',
    ['compatible:optional_property_added_to_open_model@/properties/b'],
  ],
  [
    'optional property added to a closed object',
    obj({ a: S }, { additionalProperties: false }),
    obj({ a: S, b: N }, { additionalProperties: false }),
    'strict',
    ['breaking:optional_property_added_to_closed_model@/properties/b'],
  ],
  [
    'property removed from an open object (strict)',
    obj({ a: S, b: N }),
    obj({ a: S }),
    'strict',
    ['breaking:property_removed_from_open_model@/properties/b'],
  ],
  [
    'property removed from an open object (lenient)',
    obj({ a: S, b: N }),
    obj({ a: S }),
    'lenient',
    ['compatible:property_removed_from_open_model@/properties/b'],
  ],
  [
    'property removed from a closed object',
    obj({ a: S, b: N }, { additionalProperties: false }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['compatible:property_removed_from_closed_model@/properties/b'],
  ],
  [
    'required property added',
    obj({ a: S }),
    obj({ a: S, b: N }, { required: ['b'] }),
    'strict',
    ['compatible:required_property_added@/properties/b'],
  ],
  // The case that motivated direction-aware wording: a required field removed from a message others read.
  [
    'required property removed',
    obj({ a: S, b: N }, { required: ['b'] }),
    obj({ a: S }),
    'lenient',
    ['breaking:property_removed_from_open_model@/properties/b'],
  ],
  [
    'an object is opened (lenient: the new writer sends declared properties only)',
    obj({ a: S }, { additionalProperties: false }),
    obj({ a: S }),
    'lenient',
    ['compatible:additional_properties_added@/additionalProperties'],
  ],
  [
    'a property becomes optional',
    obj({ a: S }, { required: ['a'] }),
    obj({ a: S }),
    'strict',
    ['breaking:required_attribute_removed@/required'],
  ],
  [
    'a property becomes required',
    obj({ a: S, b: N }),
    obj({ a: S, b: N }, { required: ['b'] }),
    'strict',
    ['compatible:required_attribute_added@/required'],
  ],
  [
    'an object is opened (strict)',
    obj({ a: S }, { additionalProperties: false }),
    obj({ a: S }),
    'strict',
    ['breaking:additional_properties_added@/additionalProperties'],
  ],
  [
    'an object is closed',
    obj({ a: S }),
    obj({ a: S }, { additionalProperties: false }),
    'strict',
    ['compatible:additional_properties_removed@/additionalProperties'],
  ],
  [
    'additionalProperties widened',
    obj({}, { additionalProperties: I }),
    obj({}, { additionalProperties: N }),
    'strict',
    ['breaking:type_widened@/additionalProperties/type'],
  ],
  ['oneOf branch added', { oneOf: [S] }, { oneOf: [S, N] }, 'strict', ['breaking:one_of_branch_added@/oneOf/1']],
  ['oneOf branch removed', { oneOf: [S, N] }, { oneOf: [S] }, 'strict', ['compatible:one_of_branch_removed_or_narrowed@/oneOf/1']],
  // Old readers accept S through the anyOf: removing the union is compatible forward.
  ['anyOf removed', { anyOf: [S, N] }, S, 'strict', ['compatible:any_of_removed@/anyOf']],
  ['anyOf introduced', S, { anyOf: [S, N] }, 'strict', ['breaking:any_of_added@/anyOf']],
  [
    'allOf branch removed',
    { allOf: [obj({ a: S }), obj({ b: N }, { required: ['b'] })] },
    { allOf: [obj({ a: S })] },
    'strict',
    ['breaking:all_of_branch_removed@/allOf/1'],
  ],
  ['not removed', { ...S, not: { const: '' } }, S, 'strict', ['breaking:not_removed@/not']],
  ['const removed', { const: 'v1' }, S, 'strict', ['compatible:type_added@/type', 'breaking:const_removed@/const']],
  ['schema opened to anything', S, {}, 'strict', ['breaking:schema_opened@']],
  [
    'dependentRequired removed',
    obj({ a: S, b: S }, { dependentRequired: { a: ['b'] } }),
    obj({ a: S, b: S }),
    'strict',
    ['breaking:dependent_required_removed@/dependentRequired/a'],
  ],
  [
    'nested array item widened',
    obj({ xs: { type: 'array', items: I } }),
    obj({ xs: { type: 'array', items: N } }),
    'strict',
    ['breaking:type_widened@/properties/xs/items/type'],
  ],
  [
    'tuple closed by items: false',
    { type: 'array', prefixItems: [S] },
    { type: 'array', prefixItems: [S], items: false },
    'strict',
    ['compatible:items_added@/items'],
  ],
];

describe('JSON Schema compatibility (forward: old readers, new data)', () => {
  it.each(forwardCases)('%s', (_name, before, after, policy, want) => {
    expect(forward(before, after, policy)).toEqual(want);
  });
});
