/**
 * Values built from a contract's JSON Schemas as the model holds them (normalized: named schemas
 * refer to each other by `#/schemas/<Name>`): `const` and `enum` first, then the type's
 * constraints — formats, patterns, lengths, bounds, `multipleOf`, items, uniqueness, required and
 * optional properties, `additionalProperties`, `patternProperties` — with `allOf` merged, a branch
 * of `oneOf`/`anyOf` chosen (a `oneOf` value matching no other branch), `if`/`then`/`else` and `not`
 * decided by building and testing. Every choice comes from the seeded random source, so a seed
 * gives the same values on every run.
 *
 * What cannot be built is a {@link MockError} naming the schema and the place inside it.
 */
import type { ContractModel, SchemaNode } from '../model/contract-model.js';
import { refName } from '../model/contract-model.js';
import { formatValue, NUMBER_FORMATS } from './formats.js';
import { MergeConflict, mergeSchemas, type SchemaObject } from './merge.js';
import { MockError } from './mock-error.js';
import { PatternUnsupported, readPattern } from './pattern.js';
import type { Random } from './random.js';
import { canonical, matches, type Resolve } from './schema-match.js';

/** Where a value is being built: the named schema, the JSON pointer inside it, how deep. */
interface At {
  readonly schema: string | undefined;
  readonly pointer: string;
  readonly depth: number;
}

/** Past this depth, values take the shortest way out (fewest items, required properties only, the simplest branch). */
const SHALLOW_DEPTH = 6;
/** Past this depth a value is refused: its schema requires values nested without end. */
const MAX_DEPTH = 64;
/** Attempts at a value that is built, then tested. */
const TRIES = 12;
const ALL_TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'object', 'array'];
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const WORDS = ['amber', 'basil', 'cedar', 'dune', 'ember', 'fjord', 'grove', 'harbor', 'iris', 'juniper', 'kestrel', 'lumen'];

const escapeToken = (token: string | number): string => String(token).replace(/~/g, '~0').replace(/\//g, '~1');
const below = (at: At, ...tokens: (string | number)[]): At => ({
  schema: at.schema,
  pointer: `${at.pointer}/${tokens.map(escapeToken).join('/')}`,
  depth: at.depth + 1,
});
const without = (s: SchemaObject, ...keys: string[]): SchemaObject => {
  const out: Record<string, unknown> = { ...s };
  for (const key of keys) delete out[key];
  return out;
};
const typesOf = (t: unknown): string[] => (Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : []);
const codePoints = (s: string): number => [...s].length;

/** `obj[key] = value` as an own property, also for the key `__proto__`. */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export interface SchemaValueOptions {
  /**
   * Add, now and then, a property the schema allows but does not declare (`additionalProperties`,
   * `patternProperties`), so consumers show they tolerate fields they do not know. Default true.
   */
  readonly extraProperties?: boolean;
}

/** Builds values for the schemas of one contract model. */
export class SchemaValues {
  readonly #model: ContractModel;
  readonly #extras: boolean;
  readonly #patterns = new Map<string, { build: (r: Random, spread: number) => string; test: RegExp }>();
  readonly #resolve: Resolve;

  constructor(model: ContractModel, options: SchemaValueOptions = {}) {
    this.#model = model;
    this.#extras = options.extraProperties ?? true;
    this.#resolve = (name) => (Object.hasOwn(model.schemas, name) ? model.schemas[name]!.schema : undefined);
  }

  /** A value of named schema `name` (a key of the model's `schemas`). */
  named(name: string, random: Random): unknown {
    const named = this.#model.schemas[name];
    if (named === undefined) throw new MockError('mock_unknown', `the contract has no schema named ${name}`);
    return this.#value(named.schema, { schema: name, pointer: '', depth: 0 }, random);
  }

  /** A value of `schema`, a schema node of the model (not a named one: errors name no schema). */
  value(schema: SchemaNode, random: Random): unknown {
    return this.#value(schema, { schema: undefined, pointer: '', depth: 0 }, random);
  }

  /** Whether `value` satisfies `schema` (true, false, or undefined when it cannot tell). */
  matches(schema: SchemaNode, value: unknown): boolean | undefined {
    return matches(schema, value, this.#resolve);
  }

  #fail(code: 'mock_unsupported' | 'mock_unsatisfiable', reason: string, at: At, hint?: string): MockError {
    const location = at.schema === undefined ? undefined : this.#model.schemas[at.schema]?.location;
    return new MockError(code, reason, {
      ...(at.schema === undefined ? {} : { schema: at.schema }),
      pointer: at.pointer,
      ...(location === undefined ? {} : { location }),
      hint:
        hint ??
        (code === 'mock_unsupported'
          ? 'give the message an example (examples: in the contract) to publish instead'
          : 'the schema admits no value: fix it'),
    });
  }

  #merge(a: SchemaObject, b: SchemaObject, at: At): SchemaObject {
    try {
      return mergeSchemas(a, b);
    } catch (error) {
      if (!(error instanceof MergeConflict)) throw error;
      throw this.#fail(error.unsatisfiable ? 'mock_unsatisfiable' : 'mock_unsupported', `cannot combine ${error.message}`, at);
    }
  }

  /** `node` with its `$ref` followed and its `allOf` merged in, and where it now is. */
  #flatten(node: SchemaNode, at: At): [SchemaObject | boolean, At] {
    let s: SchemaNode = node;
    let here = at;
    for (let hops = 0; typeof s === 'object' && ('$ref' in s || 'allOf' in s); hops++) {
      if (hops > MAX_DEPTH) throw this.#fail('mock_unsatisfiable', 'the schema refers to itself without end', here);
      if (typeof s['$ref'] === 'string') {
        const name = refName(s['$ref']);
        const target = name === undefined ? undefined : this.#resolve(name);
        if (target === undefined) throw this.#fail('mock_unsupported', `cannot follow $ref ${JSON.stringify(s['$ref'])}`, here);
        const rest = without(s, '$ref');
        if (Object.keys(rest).length === 0) here = { schema: name, pointer: '', depth: here.depth + 1 };
        if (typeof target === 'boolean') {
          if (!target) throw this.#fail('mock_unsatisfiable', 'the schema is false: no value satisfies it', here);
          s = rest;
        } else s = Object.keys(rest).length === 0 ? target : this.#merge(target, rest, here);
        continue;
      }
      const parts = s['allOf'] as SchemaNode[];
      let merged = without(s, 'allOf');
      for (let i = 0; i < parts.length; i++) {
        const [part] = this.#flatten(parts[i]!, below(here, 'allOf', i));
        if (part === false) throw this.#fail('mock_unsatisfiable', 'a branch of allOf is false', below(here, 'allOf', i));
        if (part !== true) merged = this.#merge(merged, part, here);
      }
      s = merged;
    }
    return [s, here];
  }

  #value(node: SchemaNode, at: At, r: Random): unknown {
    if (at.depth > MAX_DEPTH) throw this.#fail('mock_unsatisfiable', 'the schema requires values nested without end', at);
    const [s, here] = this.#flatten(node, at);
    if (s === true) return this.#any(r);
    if (s === false) throw this.#fail('mock_unsatisfiable', 'the schema is false: no value satisfies it', here);
    if ('if' in s) return this.#conditional(s, here, r);
    if (Array.isArray(s['oneOf'])) return this.#union(s, 'oneOf', here, r);
    if (Array.isArray(s['anyOf'])) return this.#union(s, 'anyOf', here, r);
    if ('not' in s) return this.#negated(s, here, r);
    return this.#plain(s, here, r);
  }

  #any(r: Random): unknown {
    const kind = r.int(0, 2);
    return kind === 0 ? r.pick(WORDS) : kind === 1 ? r.int(0, 100) : r.chance(0.5);
  }

  /** `if`/`then`/`else`: a value built for one branch, kept when `if` agrees. */
  #conditional(s: SchemaObject, at: At, r: Random): unknown {
    const condition = s['if'] as SchemaNode;
    const base = without(s, 'if', 'then', 'else');
    const branches: ('then' | 'else')[] = condition === true ? ['then'] : condition === false ? ['else'] : r.shuffle(['then', 'else']);
    let last: MockError | undefined;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const branch = branches[attempt % branches.length]!;
      const extra = (s[branch] ?? {}) as SchemaNode;
      try {
        let candidate = branch === 'then' && typeof condition === 'object' ? this.#merge(base, condition, at) : base;
        if (extra === false) continue;
        if (extra !== true) candidate = this.#merge(candidate, extra, at);
        const value = this.#value(candidate, at, r.fork());
        const verdict = this.matches(condition, value);
        if (verdict === (branch === 'then')) return value;
        if (verdict === undefined) last = this.#fail('mock_unsupported', 'cannot tell whether a value meets this `if`', below(at, 'if'));
      } catch (error) {
        if (!(error instanceof MockError)) throw error;
        last = error;
      }
    }
    throw last ?? this.#fail('mock_unsatisfiable', 'no value built meets `if`/`then`/`else`', at);
  }

  /** `oneOf`/`anyOf`: a branch merged with the keywords beside it; a `oneOf` value must match no other branch. */
  #union(s: SchemaObject, key: 'oneOf' | 'anyOf', at: At, r: Random): unknown {
    const branches = s[key] as SchemaNode[];
    const base = without(s, key);
    const indexes = branches.map((_, i) => i);
    const order =
      at.depth > SHALLOW_DEPTH
        ? indexes.sort((a, b) => JSON.stringify(branches[a]).length - JSON.stringify(branches[b]).length)
        : r.shuffle(indexes);
    let last: MockError | undefined;
    for (const i of [...order, ...order]) {
      const branch = branches[i]!;
      if (branch === false) continue;
      try {
        const candidate = branch === true ? base : this.#merge(base, branch, below(at, key, i));
        const value = this.#value(candidate, below(at, key, i), r.fork());
        if (key === 'oneOf' && branches.some((other, j) => j !== i && this.matches(other, value) === true)) {
          last = this.#fail('mock_unsatisfiable', 'the values built for oneOf also match another of its branches', below(at, key, i));
          continue;
        }
        return value;
      } catch (error) {
        if (!(error instanceof MockError)) throw error;
        last = error;
      }
    }
    throw last ?? this.#fail('mock_unsatisfiable', `no branch of ${key} admits a value`, at);
  }

  /** `not`: the other keywords' value, kept when it does not match the negated schema (whose types are left out first). */
  #negated(s: SchemaObject, at: At, r: Random): unknown {
    const negated = s['not'] as SchemaNode;
    let base = without(s, 'not');
    if (negated === true) throw this.#fail('mock_unsatisfiable', 'not: true admits no value', at);
    if (typeof negated === 'object' && Object.keys(negated).every((k) => k === 'type' || k === 'description')) {
      const excluded = typesOf(negated['type']);
      const allowed = (typesOf(base['type']).length > 0 ? typesOf(base['type']) : ALL_TYPES).filter(
        (t) => !excluded.includes(t) && !(t === 'integer' && excluded.includes('number')),
      );
      if (allowed.length === 0) throw this.#fail('mock_unsatisfiable', 'every type is excluded by `not`', at);
      base = { ...base, type: allowed };
    }
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const value = this.#value(base, at, r.fork());
      const verdict = this.matches(negated, value);
      if (verdict === false) return value;
      if (verdict === undefined) throw this.#fail('mock_unsupported', 'cannot tell whether a value meets this `not`', below(at, 'not'));
    }
    throw this.#fail('mock_unsatisfiable', 'every value built matches the schema under `not`', below(at, 'not'));
  }

  #plain(s: SchemaObject, at: At, r: Random): unknown {
    if ('const' in s) return structuredClone(s['const']);
    if (Array.isArray(s['enum'])) {
      const rest = without(s, 'enum');
      const fitting = (s['enum'] as unknown[]).filter((v) => this.matches(rest, v) !== false);
      if (fitting.length === 0) throw this.#fail('mock_unsatisfiable', 'no value of enum satisfies the other keywords', at);
      return structuredClone(r.pick(fitting));
    }
    const type = this.#type(s, at, r);
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return r.chance(0.5);
      case 'integer':
      case 'number':
        return this.#number(s, type === 'integer', at, r);
      case 'string':
        return this.#string(s, at, r);
      case 'array':
        return this.#array(s, at, r);
      case 'object':
        return this.#object(s, at, r);
      default:
        return this.#any(r);
    }
  }

  /** The JSON type to build: one of the declared types, else the one the keywords speak of. */
  #type(s: SchemaObject, at: At, r: Random): string {
    const declared = typesOf(s['type']);
    if (declared.length > 0) {
      if (at.depth <= SHALLOW_DEPTH) return r.pick(declared);
      return ['null', 'boolean', 'integer', 'number', 'string'].find((t) => declared.includes(t)) ?? declared[0]!;
    }
    const has = (keys: readonly string[]): boolean => keys.some((k) => k in s);
    if (has(OBJECT_KEYWORDS)) return 'object';
    if (has(ARRAY_KEYWORDS)) return 'array';
    if (typeof s['format'] === 'string' && Object.hasOwn(NUMBER_FORMATS, s['format'])) return 'number';
    if (has(STRING_KEYWORDS) || typeof s['format'] === 'string') return 'string';
    if (has(NUMBER_KEYWORDS)) return 'number';
    return 'any';
  }

  #pattern(pattern: string, at: At): { build: (r: Random, spread: number) => string; test: RegExp } {
    const refuse = (error: unknown): never => {
      if (!(error instanceof PatternUnsupported)) throw error;
      throw this.#fail('mock_unsupported', `pattern ${JSON.stringify(pattern)} has ${error.message}, which mock values cannot build`, at);
    };
    let compiled = this.#patterns.get(pattern);
    if (compiled === undefined) {
      let build: (r: Random, spread: number) => string = () => '';
      try {
        build = readPattern(pattern);
      } catch (error) {
        refuse(error);
      }
      const safe = (r: Random, spread: number): string => {
        try {
          return build(r, spread);
        } catch (error) {
          return refuse(error);
        }
      };
      compiled = { build: safe, test: new RegExp(pattern, 'u') };
      this.#patterns.set(pattern, compiled);
    }
    return compiled;
  }

  #string(s: SchemaObject, at: At, r: Random): string {
    const min = (s['minLength'] as number | undefined) ?? 0;
    const max = (s['maxLength'] as number | undefined) ?? Number.POSITIVE_INFINITY;
    const format = typeof s['format'] === 'string' ? s['format'] : undefined;
    const pattern = typeof s['pattern'] === 'string' ? this.#pattern(s['pattern'], below(at, 'pattern')) : undefined;
    const fits = (v: string): boolean => codePoints(v) >= min && codePoints(v) <= max && (pattern === undefined || pattern.test.test(v));
    const byFormat = format === undefined ? undefined : formatValue(format, r);
    if (byFormat === undefined && pattern === undefined) {
      if (min > max) throw this.#fail('mock_unsatisfiable', `minLength ${min} is above maxLength ${max}`, at);
      return this.#word(min, max, r);
    }
    for (let attempt = 0; attempt < TRIES * 2; attempt++) {
      let v = byFormat === undefined ? pattern!.build(r, 3 + attempt * Math.max(1, Math.ceil(min / 4))) : formatValue(format!, r)!;
      if (!fits(v) && codePoints(v) < min && byFormat === undefined) v = `${v}${'x'.repeat(min - codePoints(v))}`;
      if (fits(v)) return v;
    }
    const what = byFormat !== undefined ? `format ${format}` : `pattern ${JSON.stringify(s['pattern'])}`;
    const lengths = min > 0 || max < Number.POSITIVE_INFINITY ? ` with a length of ${min} to ${max}` : '';
    throw this.#fail(
      'mock_unsupported',
      `no string of ${what}${byFormat !== undefined && pattern !== undefined ? ` matching pattern ${JSON.stringify(s['pattern'])}` : ''}${lengths} could be built`,
      at,
    );
  }

  /** Readable text of a length in [min, max]: words joined by `-`. */
  #word(min: number, max: number, r: Random): string {
    const length = r.int(Math.min(max, Math.max(min, 3)), Math.min(max, Math.max(min, 4) + 10));
    let text = r.pick(WORDS);
    while (text.length < length) text += `-${r.pick(WORDS)}`;
    return text.slice(0, length);
  }

  #number(s: SchemaObject, integer: boolean, at: At, r: Random): number {
    const format = typeof s['format'] === 'string' && Object.hasOwn(NUMBER_FORMATS, s['format']) ? NUMBER_FORMATS[s['format']] : undefined;
    const whole = integer || format?.integer === true;
    let lo = Math.max((s['minimum'] as number | undefined) ?? Number.NEGATIVE_INFINITY, format?.min ?? Number.NEGATIVE_INFINITY);
    let hi = Math.min((s['maximum'] as number | undefined) ?? Number.POSITIVE_INFINITY, format?.max ?? Number.POSITIVE_INFINITY);
    const exLo = s['exclusiveMinimum'] as number | undefined;
    const exHi = s['exclusiveMaximum'] as number | undefined;
    const multiple = s['multipleOf'] as number | undefined;
    const fits = (v: number): boolean =>
      Number.isFinite(v) &&
      v >= lo &&
      v <= hi &&
      (exLo === undefined || v > exLo) &&
      (exHi === undefined || v < exHi) &&
      (!whole || Number.isInteger(v)) &&
      (multiple === undefined || Number.isInteger(v / multiple));
    if (exLo !== undefined) lo = Math.max(lo, exLo);
    if (exHi !== undefined) hi = Math.min(hi, exHi);
    if (whole) {
      lo = Math.ceil(lo);
      hi = Math.floor(hi);
    }
    // Values are drawn near the bounds given (or 0…1000 when there are none; a format's bounds are not a wish).
    const near = (bound: number): boolean => Number.isFinite(bound) && Math.abs(bound) < 1e15;
    const from = near(lo) ? lo : near(hi) ? Math.max(lo, hi - 1000) : Math.max(lo, Math.min(0, hi));
    const to = near(hi) ? Math.min(hi, from + 1_000_000) : Math.min(hi, from + 1000);
    if (from > to) throw this.#fail('mock_unsatisfiable', `no number lies between ${lo} and ${hi}`, at);
    for (let attempt = 0; attempt < TRIES * 2; attempt++) {
      let v: number;
      if (multiple !== undefined) {
        const k = r.int(Math.ceil(from / multiple), Math.max(Math.ceil(from / multiple), Math.floor(to / multiple)));
        const decimals = String(multiple).includes('e') ? -1 : (String(multiple).split('.')[1] ?? '').length;
        v = decimals < 0 ? k * multiple : Number((k * multiple).toFixed(decimals));
      } else if (whole) v = r.int(from, to);
      else v = Number((from + r.float() * (to - from)).toFixed(2));
      if (fits(v)) return v;
    }
    for (const v of [from, to, (from + to) / 2, Math.round((from + to) / 2)]) if (fits(v)) return v;
    throw this.#fail('mock_unsatisfiable', 'no number built satisfies its bounds and multipleOf', at);
  }

  #array(s: SchemaObject, at: At, r: Random): unknown[] {
    const prefix = (s['prefixItems'] as SchemaNode[] | undefined) ?? [];
    const rest = (s['items'] ?? (s['unevaluatedItems'] === false ? false : (s['unevaluatedItems'] ?? true))) as SchemaNode;
    const min = (s['minItems'] as number | undefined) ?? 0;
    const cap = Math.min(
      (s['maxItems'] as number | undefined) ?? Number.POSITIVE_INFINITY,
      rest === false ? prefix.length : Number.POSITIVE_INFINITY,
    );
    const contains = s['contains'] as SchemaNode | undefined;
    const containsMin = contains === undefined ? 0 : ((s['minContains'] as number | undefined) ?? 1);
    const containsMax = (s['maxContains'] as number | undefined) ?? Number.POSITIVE_INFINITY;
    const low = Math.max(min, containsMin);
    if (low > cap) throw this.#fail('mock_unsatisfiable', `minItems ${low} is above the items allowed (${cap})`, at);
    const length = at.depth > SHALLOW_DEPTH ? low : r.int(low, Math.min(cap, low + 3));
    const out: unknown[] = [];
    const seen = new Set<string>();
    let matched = 0;
    for (let i = 0; i < length; i++) {
      const itemSchema = i < prefix.length ? prefix[i]! : rest;
      // The last places hold the items `contains` needs.
      const needsMatch = contains !== undefined && length - i <= containsMin - matched;
      const schema = needsMatch && typeof contains === 'object' ? { allOf: [itemSchema, contains] } : itemSchema;
      let item: unknown;
      let placed = false;
      // Distinct items of a small set (an enum) take more draws to find.
      for (let attempt = 0; attempt < TRIES * 4 && !placed; attempt++) {
        item = this.#value(schema, below(at, i < prefix.length ? 'prefixItems' : 'items', i < prefix.length ? i : 0), r.fork());
        const key = s['uniqueItems'] === true ? canonical(item) : undefined;
        const isMatch = contains === undefined ? false : this.matches(contains, item) === true;
        if (key !== undefined && seen.has(key)) continue;
        if (contains !== undefined && !needsMatch && isMatch && matched >= containsMax) continue;
        if (key !== undefined) seen.add(key);
        if (isMatch) matched++;
        placed = true;
      }
      if (!placed) {
        if (i >= low) break;
        throw this.#fail('mock_unsatisfiable', `no distinct item ${i} could be built (uniqueItems, contains)`, at);
      }
      out.push(item);
    }
    return out;
  }

  /** Required properties, some optional ones, now and then one the schema allows but does not declare. */
  #object(schema: SchemaObject, at: At, r: Random): Record<string, unknown> {
    let s = schema;
    const required = [...((s['required'] as string[] | undefined) ?? [])];
    const dependent = (s['dependentSchemas'] as Record<string, SchemaNode> | undefined) ?? {};
    for (const name of required)
      if (Object.hasOwn(dependent, name) && typeof dependent[name] === 'object') s = this.#merge(s, dependent[name] as SchemaObject, at);
    const names = this.#propertyNames(s, at, r);
    const out: Record<string, unknown> = {};
    for (const name of names) put(out, name, this.#value(this.#propertySchema(s, name), below(at, 'properties', name), r.fork()));
    return out;
  }

  #propertyNames(s: SchemaObject, at: At, r: Random): string[] {
    const properties = (s['properties'] as Record<string, SchemaNode> | undefined) ?? {};
    const dependentRequired = (s['dependentRequired'] as Record<string, string[]> | undefined) ?? {};
    const dependentSchemas = (s['dependentSchemas'] as Record<string, SchemaNode> | undefined) ?? {};
    const max = (s['maxProperties'] as number | undefined) ?? Number.POSITIVE_INFINITY;
    const min = (s['minProperties'] as number | undefined) ?? 0;
    const names = [...new Set((s['required'] as string[] | undefined) ?? [])];
    const withDependents = (name: string): string[] => [
      name,
      ...(Object.hasOwn(dependentRequired, name) ? dependentRequired[name]! : []).filter((d) => !names.includes(d)),
    ];
    const optional = Object.keys(properties).filter(
      (name) => !names.includes(name) && properties[name] !== false && !Object.hasOwn(dependentSchemas, name),
    );
    for (const name of optional) {
      const adding = withDependents(name);
      const wanted = at.depth <= SHALLOW_DEPTH && r.chance(0.6);
      if ((wanted || names.length < min) && !names.includes(name) && names.length + adding.length <= max) names.push(...adding);
    }
    for (const name of [...names]) for (const d of withDependents(name)) if (!names.includes(d)) names.push(d);
    const extraWanted = this.#extras && at.depth <= SHALLOW_DEPTH && r.chance(0.3);
    for (let i = 0; (names.length < min || (i === 0 && extraWanted)) && names.length < max && i < min + 2; i++) {
      const extra = this.#extraName(s, names, at, r);
      if (extra === undefined) break;
      names.push(extra);
    }
    if (names.length < min) throw this.#fail('mock_unsatisfiable', `minProperties ${min} cannot be reached`, at);
    return names;
  }

  /** A property name the schema allows without declaring it (`patternProperties`, `additionalProperties`), if any. */
  #extraName(s: SchemaObject, taken: readonly string[], at: At, r: Random): string | undefined {
    const patterns = Object.keys((s['patternProperties'] as object | undefined) ?? {});
    const additional = s['additionalProperties'] ?? s['unevaluatedProperties'];
    const propertyNames = s['propertyNames'] as SchemaNode | undefined;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      let name: unknown;
      if (patterns.length > 0 && (additional === false || r.chance(0.5)))
        name = this.#string({ type: 'string', pattern: r.pick(patterns), maxLength: 24 }, below(at, 'patternProperties'), r);
      else if (additional === false) return undefined;
      else if (propertyNames !== undefined) name = this.#value(propertyNames, below(at, 'propertyNames'), r.fork());
      else name = `${r.pick(WORDS)}_${r.int(1, 99)}`;
      if (typeof name !== 'string' || taken.includes(name)) continue;
      if (propertyNames !== undefined && this.matches(propertyNames, name) === false) continue;
      if (Object.hasOwn((s['properties'] as object | undefined) ?? {}, name)) continue;
      return name;
    }
    return undefined;
  }

  /** The schema of property `name`: its own, every matching `patternProperties` one, else `additionalProperties`. */
  #propertySchema(s: SchemaObject, name: string): SchemaNode {
    const properties = (s['properties'] as Record<string, SchemaNode> | undefined) ?? {};
    const patterns = (s['patternProperties'] as Record<string, SchemaNode> | undefined) ?? {};
    const applying: SchemaNode[] = [];
    if (Object.hasOwn(properties, name)) applying.push(properties[name]!);
    for (const p of Object.keys(patterns)) if (new RegExp(p, 'u').test(name)) applying.push(patterns[p]!);
    if (applying.length === 0) {
      const additional = (s['additionalProperties'] ?? s['unevaluatedProperties'] ?? true) as SchemaNode;
      applying.push(additional === true && !this.#extras ? true : additional);
    }
    return applying.length === 1 ? applying[0]! : { allOf: applying };
  }
}
