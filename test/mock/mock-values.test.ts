// Mock values against the code `generate` writes: for every contract the tests use (the golden
// fixtures, the repository's own contract, the hostile contracts that load, and one contract with
// the keywords the fixtures lack), every message's examples and many seeded built values go
// through the generated message descriptor — create (validates), encode, decode (validates again)
// — and its headers codec. A value the generated code refuses fails the test with its seed.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MessageDescriptor } from '@keiyaku/runtime/codegen-v1';
import { ContractMocks, type ContractModel, compileContract, generate, type MockMessage, messageExamples } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot, scratch } from '../helpers.js';

/** Built values per message and contract. */
const SEEDS = 60;

/** Every contract directory the tests load without errors. */
function contractDirs(): [string, string][] {
  const golden = readdirSync(fixturesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('invalid'))
    .map((e): [string, string] => [e.name, join(fixturesDir, e.name)]);
  const hostileDir = join(fixturesDir, 'hostile', 'contracts');
  const hostile = readdirSync(hostileDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e): [string, string] => [`hostile/${e.name}`, join(hostileDir, e.name)]);
  return [['repository', repoRoot], ...golden, ...hostile, ['keywords', keywordsContract()]];
}

/** Keywords the fixtures do not use, in one contract (formats, bounds, conditions, uniqueness, …). */
function keywordsContract(): string {
  const dir = scratch('mock-keywords');
  const formats = ['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url'];
  const more = ['email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer'];
  const properties: Record<string, unknown> = {};
  for (const format of [...formats, ...more, 'byte', 'password', 'binary']) properties[`f_${format}`] = { type: 'string', format };
  writeFileSync(
    join(dir, 'asyncapi.yaml'),
    JSON.stringify({
      asyncapi: '3.0.0',
      info: { title: 'Keywords', version: '1.0.0' },
      channels: {
        all: {
          address: 'all',
          messages: {
            Formats: { $ref: '#/components/messages/Formats' },
            Everything: { $ref: '#/components/messages/Everything' },
            Numbers: { $ref: '#/components/messages/Numbers' },
          },
        },
      },
      components: {
        messages: {
          Formats: { name: 'Formats', payload: { type: 'object', required: Object.keys(properties), properties } },
          Numbers: {
            name: 'Numbers',
            payload: {
              type: 'object',
              required: ['tenth', 'odd', 'open', 'int32', 'negative', 'tiny'],
              properties: {
                tenth: { type: 'number', multipleOf: 0.1, minimum: 0.2, maximum: 3 },
                odd: { type: 'integer', multipleOf: 7, exclusiveMinimum: 14, exclusiveMaximum: 50 },
                open: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
                int32: { type: 'integer', format: 'int32' },
                negative: { type: 'integer', maximum: -5000 },
                tiny: { type: 'number', minimum: 1.5, maximum: 1.5 },
              },
            },
          },
          Everything: {
            name: 'Everything',
            headers: {
              type: 'object',
              required: ['tenant', 'attempt'],
              properties: { tenant: { type: 'string', pattern: '^t-[a-z]{3}$' }, attempt: { type: 'integer', minimum: 1 } },
            },
            payload: {
              type: 'object',
              minProperties: 4,
              maxProperties: 12,
              propertyNames: { maxLength: 12 },
              dependentSchemas: { a: { required: ['b'] } },
              required: ['code', 'tags', 'a'],
              properties: {
                code: { type: 'string', pattern: '^(?:[A-Z]{2}|X)-\\d{3,5}(\\.[a-f0-9]+)?$', maxLength: 14 },
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
                list: { type: 'array', items: { $ref: '#/components/schemas/Node' }, minItems: 1 },
                either: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0.5, maximum: 0.9 }] },
                choice: {
                  type: 'object',
                  properties: { kind: { enum: ['a', 'b'] }, n: { type: 'integer' } },
                  required: ['kind'],
                  if: { properties: { kind: { const: 'a' } } },
                  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, in a contract written as JSON
                  then: { required: ['n'], properties: { n: { minimum: 100 } } },
                  else: { properties: { n: { maximum: -100 } } },
                },
                notNull: { not: { type: ['null', 'string'] } },
                words: { type: 'array', items: { enum: ['x', 'y', 'z'] }, uniqueItems: true, minItems: 3 },
                unicode: { type: 'string', pattern: '^[\\u{1F600}-\\u{1F60F}]{2}$' },
                escaped: { type: 'string', pattern: '^\\w+\\s\\S\\.[^a-z0-9]$' },
              },
            },
          },
        },
        schemas: {
          Node: {
            type: 'object',
            properties: { name: { type: 'string', minLength: 1 }, next: { $ref: '#/components/schemas/Node' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
    }),
  );
  return dir;
}

interface Loaded {
  readonly model: ContractModel;
  readonly descriptors: Readonly<Record<string, MessageDescriptor>>;
}

/** The contract's model and the message descriptors of the code `generate` writes for it (written to a scratch folder and imported). */
async function load(dir: string): Promise<Loaded | undefined> {
  const compiled = await compileContract('asyncapi.yaml', { cwd: dir });
  if (compiled.model === undefined) return undefined;
  const { files, diagnostics } = await generate(compiled.model, { source: compiled.model.source });
  if (diagnostics.some((d) => d.severity === 'error')) return undefined;
  const out = scratch('mock-generated');
  for (const file of files) {
    const path = join(out, file.path);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, file.content);
  }
  const descriptors = (await import(pathToFileURL(join(out, 'messages.ts')).href)) as Record<string, MessageDescriptor>;
  return { model: compiled.model, descriptors };
}

/** Why the generated code refuses `mock`, or undefined when it takes it: create, encode, decode, and the headers codec both ways. */
function refusal(descriptor: MessageDescriptor, mock: MockMessage): string | undefined {
  try {
    const message = descriptor.create(mock.payload as never);
    const decoded = descriptor.decode(descriptor.encode(message));
    if (!decoded.ok) return `decode: ${decoded.error.message}`;
    // A JSON payload reads back as written (an Avro record gains the defaults of the fields left out).
    if (
      descriptor.format === 'json' &&
      JSON.stringify(descriptor.boxed ? (decoded.value as unknown as { value: unknown }).value : decoded.value) !==
        JSON.stringify(mock.payload)
    )
      return 'decode gave another payload';
    if (descriptor.headers !== undefined) {
      const wire = descriptor.headers.encode(mock.headers);
      const back = descriptor.headers.decode(wire);
      if (!back.ok) return `headers decode: ${back.error.message}`;
    } else if (mock.headers !== undefined) return 'headers for a message that declares none';
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const contracts = contractDirs();

describe('mock values are accepted by the generated codec', () => {
  it('covers the contracts the tests use', () => {
    const names = contracts.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['repository', 'payments', 'unions', 'hostile', 'avro', 'protobuf', 'keywords']));
  });

  for (const [name, dir] of contracts) {
    it(`${name}: every example and ${SEEDS} built values of every message`, async () => {
      const loaded = await load(dir);
      // A hostile contract that does not load has no messages to mock; the golden ones all load.
      if (loaded === undefined) {
        expect(name).toMatch(/^hostile\//);
        return;
      }
      const { model, descriptors } = loaded;
      const mocks = new ContractMocks(model);
      const failures: string[] = [];
      let checked = 0;
      for (const message of Object.values(model.messages)) {
        const descriptor = descriptors[message.identifier];
        expect(descriptor, message.identifier).toBeDefined();
        for (const example of messageExamples(model, message.type)) {
          checked++;
          const why = refusal(descriptor!, example);
          if (why !== undefined) failures.push(`${message.type} example ${example.example}: ${why}`);
        }
        for (let seed = 1; seed <= SEEDS; seed++) {
          checked++;
          const mock = mocks.message(message.type, seed);
          const why = refusal(descriptor!, mock);
          if (why !== undefined) failures.push(`${message.type} seed ${seed}: ${why}\n  ${JSON.stringify(mock)}`);
        }
      }
      expect(failures).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    });
  }
});
