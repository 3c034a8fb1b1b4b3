// The data of the schema check: every schema code has one severity rule per direction
// (generator/compat/schema/severity.ts), and the reverse readings earlier releases named forward
// findings by (codes.ts REVERSE_READING) pair real codes both ways.
import { describe, expect, it } from 'vitest';
import { REVERSE_READING, SCHEMA_CODES, type SchemaFindingCode } from '../../generator/compat/codes.js';
import { SEVERITY, severityOf } from '../../generator/compat/schema/severity.js';

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
