// Finding codes: one snake_case spelling, a runtime list (FINDING_CODES) mirroring the FindingCode
// union, docs/check.md listing exactly those codes, and its renamed-codes table matching what
// acknowledgments still accept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ContractModel, FINDING_CODES, type FindingCode, isFindingCode, RENAMED_CODES, type SchemaNode } from 'keiyaku';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { keywordCode } from '../../generator/compat/codes.js';
import { FORMATS, render } from '../../generator/compat/render.js';
import { repoRoot } from '../helpers.js';
import { acknowledge, codesIn, compareContracts } from './known-codes.js';

/** `a_{b,c}_{d,e}` → a_b_d, a_b_e, a_c_d, a_c_e (in that order). */
function expand(pattern: string): string[] {
  const match = /\{([^{}]*)\}/.exec(pattern);
  if (match === null) return [pattern];
  const head = pattern.slice(0, match.index);
  const tail = pattern.slice(match.index + match[0].length);
  return match[1]!.split(',').flatMap((option) => expand(`${head}${option}${tail}`));
}

/** The tables of a section of docs/check.md: each row's cells, as the code spans they hold. */
function tables(markdown: string, from: string, to: string): string[][][][] {
  const section = markdown.slice(markdown.indexOf(from), markdown.indexOf(to));
  const out: string[][][][] = [];
  let current: string[][][] | undefined;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (/^\|\s*-/.test(line) || /^\|\s*(Code|Before)\s*\|/.test(line)) continue;
    if (current === undefined) {
      current = [];
      out.push(current);
    }
    const cells = line.split('|').slice(1, -1);
    current.push(cells.map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
  }
  return out;
}

const docs = readFileSync(join(repoRoot, 'docs/check.md'), 'utf8');

describe('finding codes', () => {
  it('are lowercase snake_case, each once', () => {
    expect(FINDING_CODES.filter((code) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code))).toEqual([]);
    expect(new Set(FINDING_CODES).size).toBe(FINDING_CODES.length);
    expect(FINDING_CODES).toContain('property_removed_from_closed_model');
    expect(FINDING_CODES).toContain('min_length_narrowed');
    expect(FINDING_CODES).toContain('key_all_of_branch_removed');
    expect(FINDING_CODES).toContain('parameter_value_removed');
    expectTypeOf<'parameter_value_removed'>().toExtend<FindingCode>();
    expect(FINDING_CODES).not.toContain('minLength_narrowed');
  });

  it('spell a JSON Schema keyword in snake_case, through one helper', () => {
    expect(['maxLength', 'oneOf', '$comment', 'exclusiveMinimum', 'if'].map(keywordCode)).toEqual([
      'max_length',
      'one_of',
      'comment',
      'exclusive_minimum',
      'if',
    ]);
    expectTypeOf(keywordCode('uniqueItems')).toEqualTypeOf<'unique_items'>();
  });

  it('are a union type that FINDING_CODES and isFindingCode mirror', () => {
    expectTypeOf<'max_length_widened'>().toExtend<FindingCode>();
    expectTypeOf<'key_combined_type_changed_one_of_to_plain'>().toExtend<FindingCode>();
    expectTypeOf<'maxLength_widened'>().not.toExtend<FindingCode>();
    expectTypeOf(FINDING_CODES).toEqualTypeOf<readonly FindingCode[]>();
    expect(isFindingCode('max_length_widened')).toBe(true);
    expect(isFindingCode('maxLength_widened')).toBe(false);
  });

  it('are listed in docs/check.md, exactly', () => {
    // Contract codes, schema codes, then one table per payload format's own codes (no `key_` form).
    const [contract, schema, ...formats] = tables(docs, '### Codes', '**Renamed codes.**');
    expect(contract).toBeDefined();
    expect(schema).toBeDefined();
    const schemaCodes = schema!.flatMap((row) => row[0]!.flatMap(expand));
    const contractCodes = contract!.flatMap((row) =>
      row[0]!.flatMap((pattern) => (pattern === 'key_<code>' ? schemaCodes.map((c) => `key_${c}`) : expand(pattern))),
    );
    const formatCodes = formats.flatMap((table) => table.flatMap((row) => row[0]!.flatMap(expand)));
    const documented = [...contractCodes, ...schemaCodes, ...formatCodes];
    expect(documented.length, 'a code documented twice').toBe(new Set(documented).size);
    expect(
      documented.filter((code) => !isFindingCode(code)),
      'documented, but no such code',
    ).toEqual([]);
    expect(
      FINDING_CODES.filter((code) => !documented.includes(code)),
      'not documented in docs/check.md',
    ).toEqual([]);
  });

  it("list their earlier spellings in docs/check.md's renamed codes, exactly", () => {
    const [renamed] = tables(docs, '**Renamed codes.**', '## Acknowledging an intentional break');
    const pairs = renamed!.flatMap(([before, now]) => {
      expect(before!.length).toBe(now!.length);
      return before!.flatMap((pattern, i) => {
        const olds = expand(pattern);
        const news = expand(now![i]!);
        expect(olds.length).toBe(news.length);
        return olds.map((old, j) => [old, news[j]!] as const);
      });
    });
    expect(Object.fromEntries(pairs)).toEqual(RENAMED_CODES);
    expect(pairs.length).toBe(Object.keys(RENAMED_CODES).length);
    expect(Object.keys(RENAMED_CODES).filter(isFindingCode)).toEqual([]);
    expect(Object.values(RENAMED_CODES).filter((code) => !isFindingCode(code))).toEqual([]);
  });

  it('can be read back from every output format (the CLI tests check the codes they print)', () => {
    const model = (maxLength: number, version: string): ContractModel => ({
      source: 'asyncapi.yaml',
      asyncapi: '3.0.0',
      info: { title: 't', version },
      channels: [{ id: 'c', identifier: 'C', address: 'c', parameters: [], messages: ['M'], bindings: {}, roles: [] }],
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
      operations: [],
      schemas: { Root: { name: 'Root', schema: { type: 'string', maxLength } as SchemaNode, origin: 'component' } },
    });
    const after = model(40, '2.0.0');
    const result = acknowledge(compareContracts(model(80, '1.0.0'), after, { mode: 'backward', policy: 'lenient' }), after);
    expect(result.findings.map((f) => f.code)).toEqual(['max_length_narrowed']);
    for (const format of FORMATS)
      expect(codesIn(render(format, result, { against: 'v1', mode: 'backward', policy: 'lenient' })), format).toEqual([
        'max_length_narrowed',
      ]);
  });
});
