// The validators keiyaku writes against ajv (the reference implementation of JSON Schema
// 2020-12) on the same schemas: the same verdict for seeds built from each schema and for
// random mutations of them; every error reported (bounded), the first one the summary.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MAX_VALIDATION_ERRORS, type StandaloneValidator } from '@keiyaku/runtime/codegen-v1';
import fc from 'fast-check';
import { type ContractModel, compileContract, generate, type SchemaNode } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { BookBorrowed } from '../../generated/index.js';
import { toAjvSchema } from '../../generator/emit/validators.js';
import { fixturesDir, repoRoot, scratch } from '../helpers.js';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }).default;
const addFormats = require('ajv-formats') as (ajv: unknown) => void;

const FORMAT_SAMPLES: Record<string, string> = {
  uuid: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  'date-time': '2026-11-02T10:15:00Z',
  date: '2026-11-02',
  email: 'ada@example.org',
  uri: 'https://example.org/a',
};

/** A value shaped by `schema` (not always valid: the mutations do the rest). */
function sample(model: ContractModel, schema: SchemaNode, depth = 0): unknown {
  if (typeof schema === 'boolean' || depth > 6) return null;
  const s = schema as Record<string, unknown>;
  if (typeof s['$ref'] === 'string') return sample(model, model.schemas[s['$ref'].replace('#/schemas/', '')]!.schema, depth + 1);
  if ('const' in s) return structuredClone(s['const']);
  if (Array.isArray(s['enum'])) return structuredClone(s['enum'][0]);
  for (const key of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(s[key])) return sample(model, (s[key] as SchemaNode[])[0]!, depth + 1);
  const type = Array.isArray(s['type']) ? s['type'][0] : s['type'];
  if (type === 'object' || s['properties'] !== undefined) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries((s['properties'] ?? {}) as Record<string, SchemaNode>))
      out[key] = sample(model, child, depth + 1);
    return out;
  }
  if (type === 'array') {
    const prefix = (s['prefixItems'] ?? []) as SchemaNode[];
    const items = prefix.map((p) => sample(model, p, depth + 1));
    if (s['items'] !== undefined && s['items'] !== false) items.push(sample(model, s['items'] as SchemaNode, depth + 1));
    return items;
  }
  if (type === 'integer' || type === 'number') return typeof s['minimum'] === 'number' ? s['minimum'] : 1;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (typeof s['format'] === 'string' && FORMAT_SAMPLES[s['format']]) return FORMAT_SAMPLES[s['format']];
  if (typeof s['pattern'] === 'string') return 'A';
  return 'text';
}

/** Replaces, removes or adds one node of `value` (chosen by `at`), deterministically. */
function mutate(value: unknown, at: number, kind: number, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const nodes: [Record<string | number, unknown>, string | number][] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const key of Object.keys(node)) {
      const k = Array.isArray(node) ? Number(key) : key;
      nodes.push([node as Record<string | number, unknown>, k]);
      visit((node as Record<string | number, unknown>)[k]);
    }
  };
  visit(copy);
  if (nodes.length === 0) return kind === 0 ? replacement : copy;
  const [parent, key] = nodes[at % nodes.length]!;
  if (kind === 0) parent[key] = replacement;
  else if (kind === 1 && !Array.isArray(parent)) delete parent[key];
  else if (kind === 2 && !Array.isArray(parent)) parent[`extra${at % 3}`] = replacement;
  else if (kind === 3 && typeof parent[key] === 'string') parent[key] = `${parent[key]}\u{1F389}x`;
  else if (kind === 4 && Array.isArray(parent)) parent.push(structuredClone(parent[key]));
  else parent[key] = replacement;
  return copy;
}

async function generatedValidators(model: ContractModel): Promise<Record<string, StandaloneValidator>> {
  const { files } = await generate(model, { source: model.source });
  const code = files.find((f) => f.path === 'validators.ts')!.content;
  const { validatorRuntime } = await import('@keiyaku/runtime/codegen-v1');
  // The module's one import, bound by hand: this evaluates exactly the text `generate` wrote.
  const body = code
    .replace(/^import \{ validatorRuntime \} from "@keiyaku\/runtime\/codegen-v1";$/m, '')
    .replace(/^export const /gm, 'exports.');
  const exports: Record<string, StandaloneValidator> = {};
  new Function('validatorRuntime', 'exports', body)(validatorRuntime, exports);
  return exports;
}

/** Keywords the fixtures do not use, in one contract. */
const keywordsDir = scratch('validator-keywords');
writeFileSync(
  join(keywordsDir, 'asyncapi.yaml'),
  JSON.stringify({
    asyncapi: '3.0.0',
    info: { title: 'Keywords', version: '1.0.0' },
    channels: { all: { address: 'all', messages: { Everything: { $ref: '#/components/messages/Everything' } } } },
    components: {
      messages: {
        Everything: {
          name: 'Everything',
          payload: {
            type: 'object',
            minProperties: 2,
            maxProperties: 9,
            propertyNames: { maxLength: 12 },
            dependentSchemas: { a: { required: ['b'] } },
            properties: {
              tags: { type: 'array', uniqueItems: true, maxItems: 4, contains: { type: 'integer' }, minContains: 1, maxContains: 2 },
              pair: { type: 'array', prefixItems: [{ type: 'string' }], unevaluatedItems: { type: 'boolean' } },
              mixed: {
                allOf: [{ properties: { x: { type: 'string' } } }],
                anyOf: [{ properties: { y: { type: 'number', exclusiveMaximum: 10 } } }, { required: ['z'] }],
                patternProperties: { '^p_': { type: 'integer', minimum: -3 } },
                unevaluatedProperties: false,
              },
              a: true,
              b: { type: 'string', minLength: 2, format: 'email' },
              list: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      },
      schemas: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, next: { $ref: '#/components/schemas/Node' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    },
  }),
);

const contracts = [
  ['keywords', keywordsDir],
  ['repository', repoRoot],
  ['unions', join(fixturesDir, 'unions')],
  ['hostile', join(fixturesDir, 'hostile')],
  ['streetlights-v3', join(fixturesDir, 'streetlights-v3')],
  ['streetlights-v2', join(fixturesDir, 'streetlights-v2')],
] as const;

describe('generated validators agree with ajv', () => {
  for (const [name, cwd] of contracts) {
    it(`${name}: same verdict on seeds and 300 mutations per message`, async () => {
      const model = (await compileContract('asyncapi.yaml', { cwd })).model!;
      const validators = await generatedValidators(model);
      const defs = Object.fromEntries(Object.entries(model.schemas).map(([n, s]) => [n, toAjvSchema(s.schema)]));
      const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, ownProperties: true, logger: false });
      addFormats(ajv);
      const roots = [...new Set(Object.values(model.messages).flatMap((m) => (m.headers ? [m.payload, m.headers] : [m.payload])))];
      expect(roots.length).toBeGreaterThan(0);
      for (const root of roots) {
        const ours = validators[`validate${root}`]!;
        const reference = ajv.compile({ $defs: defs, $ref: `#/$defs/${root}` });
        const seed = sample(model, model.schemas[root]!.schema);
        const check = (value: unknown): void => {
          const verdict = reference(value);
          const mine = ours(value);
          // ajv tests multipleOf with parseInt(), which misreads numbers of 1e21 and more ("1e+21"): JSON Schema and keiyaku accept them.
          if (mine !== verdict && !(mine && /e\+\d/.test(JSON.stringify(value))))
            throw new Error(`${root}: keiyaku says ${mine}, ajv ${verdict} for ${JSON.stringify(value)}`);
          if (!mine) expect(ours.errors?.length).toBeGreaterThan(0);
        };
        check(seed);
        fc.assert(
          fc.property(fc.nat(), fc.nat({ max: 5 }), fc.jsonValue({ maxDepth: 2 }), (at, kind, replacement) => {
            check(mutate(seed, at, kind, replacement));
          }),
          { numRuns: 300, seed: 13 },
        );
      }
    });
  }
});

describe('validation reports every error of a message', () => {
  const valid = {
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId: 'C-0042',
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  };

  it('validate() lists all three wrong fields, the first one first', () => {
    const issues = BookBorrowed.validate({ ...valid, bookId: 42, channel: 'pigeon', borrower: { memberId: 'x' } });
    expect(issues.map((i) => [i.path, i.keyword])).toEqual([
      ['$.bookId', 'type'],
      ['$.borrower.memberId', 'pattern'],
      ['$.channel', 'enum'],
    ]);
  });

  it('decode() names the first error in its message and carries them all', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ ...valid, copyId: '', dueAt: 'soon', renewals: 9 }));
    const decoded = BookBorrowed.decode(bytes);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error.message).toContain('$.copyId');
    expect(decoded.error.issues.map((i) => i.path)).toEqual(['$.copyId', '$.dueAt', '$.renewals']);
  });

  it('bounds the list', () => {
    const issues = BookBorrowed.validate({});
    expect(issues.map((i) => i.keyword)).toEqual(Array(6).fill('required'));
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const validateBookReturnedPayload = validatorsOfRepo['validateBookReturnedPayload']!;
    expect(validateBookReturnedPayload({ ...many, lateFee: many })).toBe(false);
    expect(validateBookReturnedPayload.errors?.length).toBe(MAX_VALIDATION_ERRORS);
  });
});

const validatorsOfRepo = (await import('../../generated/validators.js')) as unknown as Record<string, StandaloneValidator>;
