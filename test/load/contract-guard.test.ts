// The contract guard (generator/load/contract-guard.ts) through the public API: recursive schemas,
// which are legitimate JSON Schema, pass it; what cannot be generated or read is refused at its place.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileContract, generateFromFile, readContract } from 'keiyaku';
import { afterAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = scratch('guard');
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const contract = (payloadRef: string, components = '') =>
  `asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  orders:\n    address: orders\n    messages:\n      Placed:\n        name: Placed\n        payload:\n          $ref: '${payloadRef}'\n${components}`;

const errors = (diagnostics: readonly { severity: string }[]) => diagnostics.filter((d) => d.severity === 'error');

describe('contract guard: recursive schemas pass', () => {
  it('mutual recursion across two files through properties', async () => {
    const cwd = project({
      'asyncapi.yaml': contract('./schemas/person.json'),
      'schemas/person.json': JSON.stringify({ title: 'Person', type: 'object', properties: { pet: { $ref: './pet.json' } } }),
      'schemas/pet.json': JSON.stringify({ title: 'Pet', type: 'object', properties: { owner: { $ref: './person.json' } } }),
    });
    const compiled = await compileContract('asyncapi.yaml', { cwd });
    expect(errors(compiled.diagnostics)).toEqual([]);
    expect(compiled.model).toBeDefined();
  });

  it('a schema reaching itself through anyOf and items, and a message payload reached from inside itself', async () => {
    const cwd = project({
      'asyncapi.yaml': contract(
        '#/components/schemas/Expr',
        "components:\n  schemas:\n    Expr:\n      anyOf:\n        - type: number\n        - type: array\n          items:\n            $ref: '#/components/schemas/Expr'\n  messages:\n    Nested:\n      payload:\n        type: object\n        properties:\n          again:\n            $ref: '#/components/messages/Nested/payload'\n",
      ),
    });
    const compiled = await compileContract('asyncapi.yaml', { cwd });
    expect(errors(compiled.diagnostics)).toEqual([]);
  });
});

describe('a schema file whose root is a $ref into its own definitions', () => {
  // {"$ref": "#/definitions/Order", "definitions": {...}}: what JSON Schema tools write for a
  // file of several definitions with one of them as the whole. Its definitions are keys of the
  // object that holds the $ref: the pointer reads them there, it does not follow the $ref first.
  const file = JSON.stringify({
    $ref: '#/definitions/Order',
    definitions: {
      Order: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, lines: { type: 'array', items: { $ref: '#/definitions/Line' } } },
      },
      Line: { type: 'object', properties: { sku: { type: 'string' } } },
    },
  });
  const typesOf = async (payloadRef: string) => {
    const cwd = project({ 'asyncapi.yaml': contract(payloadRef), 'schemas/order.json': file });
    const result = await generateFromFile('asyncapi.yaml', { cwd });
    const types = result.files.find((f) => f.path === 'types.ts')?.content;
    return { diagnostics: result.diagnostics.filter((d) => d.severity !== 'info'), types };
  };

  it('loads, is located where written and generates the definition it names', async () => {
    const { diagnostics, types } = await typesOf('./schemas/order.json');
    expect(diagnostics).toEqual([]);
    expect(types).toContain('export interface Order {');
    expect(types).toContain('readonly id: string;');
    expect(types).toContain('readonly lines?: readonly Line[];');
    expect(types).toContain('readonly sku?: string;');
  });

  it('generates the same types as a $ref that names the definition itself', async () => {
    const whole = await typesOf('./schemas/order.json');
    const named = await typesOf('./schemas/order.json#/definitions/Order');
    expect(named.diagnostics).toEqual([]);
    expect(whole.types).toBe(named.types);
  });
});

describe('contract guard: refusals through readContract', () => {
  it('a chain of $refs through a pointer that passes a $ref ends as a cycle, located', async () => {
    const cwd = project({
      'asyncapi.yaml': contract(
        '#/components/schemas/A/properties/x',
        "components:\n  schemas:\n    A:\n      $ref: '#/components/schemas/A/properties/x'\n",
      ),
    });
    const read = await readContract('asyncapi.yaml', { cwd });
    expect(read.contract).toBeUndefined();
    expect(read.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'ref_cycle',
        message: expect.stringMatching(/^\$ref "#\/components\/schemas\/A\/properties\/x" runs through more than 64 \$refs/),
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 16, column: 14, pointer: '/components/schemas/A/$ref' }),
      }),
    ]);
  });

  it('allowRefOutside is an option of the API too', async () => {
    const dir = project({
      'contract/asyncapi.yaml': contract('../shared/order.json'),
      'shared/order.json': JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } }),
    });
    const cwd = join(dir, 'contract');
    const refused = await readContract('asyncapi.yaml', { cwd });
    expect(refused.diagnostics).toEqual([
      expect.objectContaining({
        code: 'ref_outside_contract',
        hint: expect.stringContaining('--allow-ref-outside'),
        location: expect.objectContaining({
          file: 'asyncapi.yaml',
          line: 12,
          column: 18,
          pointer: '/channels/orders/messages/Placed/payload/$ref',
        }),
      }),
    ]);
    const allowed = await compileContract('asyncapi.yaml', { cwd, allowRefOutside: true });
    expect(errors(allowed.diagnostics)).toEqual([]);
    expect(allowed.model?.channels).toHaveLength(1);
  });

  it('a percent-encoded pointer that does not decode is an invalid $ref, not a crash', async () => {
    const cwd = project({ 'asyncapi.yaml': contract('#/components/schemas/%E0%A4%A', 'components:\n  schemas: {}\n') });
    const read = await readContract('asyncapi.yaml', { cwd });
    expect(read.diagnostics).toEqual([
      expect.objectContaining({ code: 'invalid-ref', message: expect.stringContaining('is not a JSON pointer') }),
    ]);
  });

  it('an alias bomb beside a syntax error is refused before the parser sees it; a syntax error alone stays with the parser', async () => {
    const levels = ['  a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) {
      const previous = 'abcdefgh'[i]!;
      levels.push(`  ${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const head = 'asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\n';
    const bomb = project({ 'asyncapi.yaml': `${head}x-bomb:\n${levels.join('\n')}\nchannels:\n  a: [unclosed\n` });
    expect((await readContract('asyncapi.yaml', { cwd: bomb })).diagnostics).toEqual([
      expect.objectContaining({ code: 'yaml_alias_limit', location: expect.objectContaining({ file: 'asyncapi.yaml', line: 7 }) }),
    ]);
    const broken = project({ 'asyncapi.yaml': `${head}channels:\n  a: [unclosed\n` });
    expect((await readContract('asyncapi.yaml', { cwd: broken })).diagnostics).toEqual([expect.objectContaining({ code: 'parser' })]);
  });
});
