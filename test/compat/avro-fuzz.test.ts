// The Avro gate against avsc on generated schemas: for pairs of random records over the same
// field names (primitives, unions, arrays, maps, enums with and without defaults, nested
// records, defaults, aliases), a direction has a breaking finding exactly when avsc cannot build
// the resolver of that direction. Logical types are left out: keiyaku judges them by meaning,
// where avsc ignores them (test/compat/avro-rule-table.test.ts).
import avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffAvro } from '../../generator/compat/avro/index.js';

type Json = Record<string, unknown>;

const PRIMITIVES = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'] as const;
const DEFAULTS: Record<string, unknown> = { null: null, boolean: false, int: 0, long: 0, float: 0, double: 0, bytes: '', string: '' };
const SYMBOLS = ['A', 'B', 'C'];

/** A type for field `path`; named types are named after the path, so both sides of a pair name them alike. */
function typeOf(path: string, depth: number): fc.Arbitrary<unknown> {
  const primitive = fc.constantFrom(...PRIMITIVES);
  const options: fc.Arbitrary<unknown>[] = [
    primitive,
    fc.uniqueArray(primitive, { minLength: 1, maxLength: 3 }),
    primitive.map((items) => ({ type: 'array', items })),
    primitive.map((values) => ({ type: 'map', values })),
    enumOf(path),
    fc.tuple(fc.constantFrom(...PRIMITIVES), enumOf(path)).map(([p, e]) => [p, e]),
  ];
  if (depth < 1) {
    options.push(recordOf(`R${path}`, depth + 1));
    options.push(recordOf(`R${path}`, depth + 1).map((r) => ['null', r]));
  }
  return fc.oneof(...options);
}

/** An enum named after `path`, or renamed (with or without the other name as an alias). */
function enumOf(path: string): fc.Arbitrary<unknown> {
  return fc
    .record({
      symbols: fc.subarray(SYMBOLS, { minLength: 1 }),
      withDefault: fc.boolean(),
      renamed: fc.boolean(),
      alias: fc.boolean(),
    })
    .map(({ symbols, withDefault, renamed, alias }) => ({
      type: 'enum',
      name: renamed ? `F${path}` : `E${path}`,
      symbols,
      ...(withDefault ? { default: symbols[0] } : {}),
      ...(alias ? { aliases: [renamed ? `E${path}` : `F${path}`] } : {}),
    }));
}

/** The default of a field of `type` that avsc accepts, when there is a simple one. */
function defaultOf(type: unknown): { default: unknown } | undefined {
  if (typeof type === 'string') return { default: DEFAULTS[type] };
  if (Array.isArray(type)) return typeof type[0] === 'string' ? { default: DEFAULTS[type[0]] } : undefined;
  const t = type as Json;
  if (t.type === 'array') return { default: [] };
  if (t.type === 'map') return { default: {} };
  if (t.type === 'enum') return { default: (t.symbols as string[])[0] };
  return undefined;
}

function recordOf(name: string, depth: number): fc.Arbitrary<Json> {
  const field = (f: string) =>
    fc
      .record({
        present: fc.boolean(),
        type: typeOf(`${name}_${f}`, depth),
        withDefault: fc.boolean(),
        alias: fc.constantFrom(undefined, 'a', 'b', 'c'),
      })
      .map(({ present, type, withDefault, alias }) => {
        if (!present) return undefined;
        const d = withDefault ? defaultOf(type) : undefined;
        return { name: f, type, ...(d ?? {}), ...(alias && alias !== f ? { aliases: [alias] } : {}) };
      });
  return fc.tuple(field('a'), field('b'), field('c')).map((fields) => ({
    type: 'record',
    name,
    fields: fields.filter((f) => f !== undefined),
  }));
}

const schema = recordOf('Root', 0);

/** Whether avsc parses the schema (random defaults or aliases may be invalid). */
function parses(s: unknown): avro.Type | undefined {
  try {
    return avro.Type.forSchema(s as avro.Schema);
  } catch {
    return undefined;
  }
}

const resolves = (reader: avro.Type, writer: avro.Type): boolean => {
  try {
    reader.createResolver(writer);
    return true;
  } catch {
    return false;
  }
};

const payload = (s: unknown) => ({ kind: 'avro' as const, schema: s, name: 'Root', schemaFormat: 'application/vnd.apache.avro' });
const breaks = (before: unknown, after: unknown, direction: 'backward' | 'forward'): boolean =>
  diffAvro(payload(before), payload(after), direction).some((c) => c.severity === 'breaking');

describe('Avro gate against avsc on generated schemas', () => {
  it('breaks a direction exactly when avsc cannot resolve it', () => {
    let compared = 0;
    fc.assert(
      fc.property(schema, schema, (before, after) => {
        const old = parses(before);
        const neu = parses(after);
        if (old === undefined || neu === undefined) return;
        compared++;
        expect(breaks(before, after, 'backward'), `backward ${JSON.stringify(before)} → ${JSON.stringify(after)}`).toBe(
          !resolves(neu, old),
        );
        expect(breaks(before, after, 'forward'), `forward ${JSON.stringify(before)} → ${JSON.stringify(after)}`).toBe(!resolves(old, neu));
      }),
      { numRuns: 2000, seed: 27 },
    );
    expect(compared).toBeGreaterThan(500);
  });
});
