// The data of the schema check: every schema code has one severity rule per direction
// (generator/compat/schema/severity.ts) and its words (wording.ts), and the reverse readings
// earlier releases named forward findings by (codes.ts REVERSE_READING) pair real codes both ways.
import { describe, expect, it } from 'vitest';
import { REVERSE_READING, SCHEMA_CODES, type SchemaFindingCode } from '../../generator/compat/codes.js';
import { SEVERITY, severityOf } from '../../generator/compat/schema/severity.js';
import { detailOf, WORDING } from '../../generator/compat/schema/wording.js';

describe('severity table', () => {
  it.each(SCHEMA_CODES.map((code) => [code]))('%s has a rule in each direction', (code) => {
    const rule = SEVERITY.get(code);
    expect(rule, `${code} has no severity rule`).toBeDefined();
    for (const direction of ['backward', 'forward'] as const)
      expect(['breaking', 'compatible', 'info', 'judged']).toContain(rule![direction]);
  });

  it('names only schema codes', () => {
    const codes = new Set<string>(SCHEMA_CODES);
    expect([...SEVERITY.keys()].filter((code) => !codes.has(code))).toEqual([]);
  });

  it.each([
    // code, direction, the comparer's verdict, severity
    ['max_length_narrowed', 'backward', true, 'breaking'],
    ['max_length_narrowed', 'forward', false, 'compatible'],
    ['max_length_widened', 'forward', true, 'breaking'],
    ['enum_value_added', 'backward', false, 'compatible'],
    ['enum_value_added', 'forward', true, 'breaking'],
    ['type_changed', 'forward', true, 'breaking'],
    ['description_changed', 'backward', false, 'info'],
    ['sum_type_extended', 'forward', false, 'compatible'],
    ['optional_property_added_to_closed_model', 'backward', false, 'breaking'],
    ['optional_property_added_to_closed_model', 'forward', true, 'compatible'],
    ['additional_properties_added', 'backward', false, 'compatible'],
    ['additional_properties_added', 'forward', true, 'compatible'],
    ['additional_properties_added', 'forward', false, 'breaking'],
  ] as const)('%s %s (verdict %s) is %s', (code, direction, accepted, severity) => {
    expect(severityOf(code, direction, accepted)).toBe(severity);
  });
});

describe('wording catalogue', () => {
  it.each(SCHEMA_CODES.map((code) => [code]))('%s has words', (code) => {
    expect(WORDING.has(code), `${code} has no wording`).toBe(true);
  });

  it('names only schema codes', () => {
    const codes = new Set<string>(SCHEMA_CODES);
    expect([...WORDING.keys()].filter((code) => !codes.has(code))).toEqual([]);
  });

  const backward = { forward: false, breaking: true };
  const forward = { forward: true, breaking: true };
  it.each([
    // code, facts, circumstances, detail
    ['max_length_narrowed', { what: 'string', keyword: 'maxLength', from: 10, to: 5 }, backward, 'string maxLength 10 → 5'],
    ['minimum_added', { what: 'number', keyword: 'minimum', to: 0 }, backward, 'number gained minimum 0'],
    ['enum_value_added', { values: ['b'] }, forward, 'enum gained "b": consumers on the old contract reject messages with it'],
    ['enum_value_added', { values: ['b', 'c'] }, { forward: false, breaking: false }, 'enum gained "b", "c"'],
    ['type_changed', { from: ['string'], to: ['number', 'null'] }, backward, 'type string → number|null'],
    [
      'required_attribute_removed',
      { name: 'id' },
      forward,
      'id is no longer required: consumers on the old contract reject messages without `id`',
    ],
    [
      'required_property_added',
      { name: 'id', missing: true },
      backward,
      'new required property id: consumers on the new contract reject messages written under the old one without `id`',
    ],
    [
      'one_of_added',
      { keyword: 'oneOf', via: 'plain-to-union', index: 0, twice: true },
      backward,
      'oneOf added; values match more than one branch, which oneOf rejects',
    ],
    ['any_of_removed', { keyword: 'anyOf', via: 'union-to-plain', values: [1, 2] }, backward, 'anyOf removed; branch 1, 2 is not accepted'],
    ['combined_type_changed', { from: 'anyOf', to: 'oneOf' }, backward, 'anyOf → oneOf: a value that matches two branches is now rejected'],
    [
      'item_added_to_closed_model',
      { index: 2, accepted: false, model: 'closed' },
      backward,
      'tuple item 2 added; the closed tuple does not accept its values',
    ],
  ] as const)('%s: %j → %s', (code, facts, at, detail) => {
    expect(detailOf(code, facts, at)).toBe(detail);
  });
});

describe('reverse readings', () => {
  const codes = new Set<string>(SCHEMA_CODES);

  it('map schema codes to schema codes', () => {
    const bad = [...REVERSE_READING].filter(([from, to]) => !codes.has(from) || !codes.has(to));
    expect(bad).toEqual([]);
  });

  it('read back to the code, except where the reverse depends on more than the code', () => {
    const oneWay = new Set<SchemaFindingCode>(['required_attribute_added', 'required_attribute_with_default_added']);
    const asymmetric = [...REVERSE_READING].filter(([from]) => !oneWay.has(from)).filter(([from, to]) => REVERSE_READING.get(to) !== from);
    expect(asymmetric).toEqual([]);
  });

  it.each([
    ['enum_value_added', 'enum_value_removed'],
    ['minimum_narrowed', 'minimum_widened'],
    ['multiple_of_reduced', 'multiple_of_expanded'],
    ['one_of_branch_added', 'one_of_branch_removed_or_narrowed'],
    ['item_added_to_closed_model', 'item_removed_from_closed_model'],
    ['title_changed', 'title_changed'],
  ] as const)('%s ↔ %s', (a, b) => {
    expect(REVERSE_READING.get(a)).toBe(b);
    expect(REVERSE_READING.get(b)).toBe(a);
  });

  it('leaves out the codes whose reverse depends on the schemas', () => {
    for (const code of ['type_widened', 'schema_opened', 'required_attribute_removed', 'optional_property_added_to_open_model'] as const)
      expect(REVERSE_READING.has(code), code).toBe(false);
  });
});
