/**
 * Whether a value satisfies a normalized JSON Schema node, as far as mock generation needs to know:
 * `true`, `false`, or `undefined` when it cannot tell (a `format`, an `unevaluated*` keyword).
 * Mock values are built to fit their schema; this answers the few questions building cannot:
 * does a value also fit another `oneOf` branch, the subschema of a `not`, the `if` of a condition,
 * the `contains` of an array. It is not a validator: the generated validators are.
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */
import { refName, type SchemaNode } from '../model/contract-model.js';

/** A schema's named schemas, by name (the model's `schemas`). */
export type Resolve = (name: string) => SchemaNode | undefined;

type Verdict = boolean | undefined;

/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'x-discriminator',
  // Applied together with their `if`.
  'then',
  'else',
  // Applied by `contains`.
  'minContains',
  'maxContains',
]);

/** The JSON types of `value` (an integer is also a number). */
export function jsonTypes(value: unknown): readonly string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((item, i) => jsonEqual(item, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as never)[k], (b as never)[k]));
}

/** A canonical text of a JSON value (sorted keys), for `uniqueItems`. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Both must hold: false wins over unknown, unknown over true. */
function all(verdicts: Iterable<Verdict>): Verdict {
  let unknown = false;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === undefined) unknown = true;
  }
  return unknown ? undefined : true;
}

export function matches(schema: SchemaNode, value: unknown, resolve: Resolve): Verdict {
  if (typeof schema === 'boolean') return schema;
  return all(Object.keys(schema).map((key) => keyword(schema, key, value, resolve)));
}

function keyword(s: { readonly [k: string]: unknown }, key: string, value: unknown, resolve: Resolve): Verdict {
  const arg = s[key];
  if (ANNOTATIONS.has(key) || key.startsWith('x-')) return true;
  switch (key) {
    case '$ref': {
      const name = typeof arg === 'string' ? refName(arg) : undefined;
      const target = name === undefined ? undefined : resolve(name);
      return target === undefined ? undefined : matches(target, value, resolve);
    }
    case 'type': {
      const types = jsonTypes(value);
      return (Array.isArray(arg) ? arg : [arg]).some((t) => types.includes(t as string));
    }
    case 'const':
      return jsonEqual(arg, value);
    case 'enum':
      return Array.isArray(arg) && arg.some((v) => jsonEqual(v, value));
    case 'allOf':
      return all((arg as SchemaNode[]).map((b) => matches(b, value, resolve)));
    case 'anyOf': {
      const verdicts = (arg as SchemaNode[]).map((b) => matches(b, value, resolve));
      return verdicts.includes(true) ? true : verdicts.includes(undefined) ? undefined : false;
    }
    case 'oneOf': {
      const verdicts = (arg as SchemaNode[]).map((b) => matches(b, value, resolve));
      if (verdicts.includes(undefined)) return undefined;
      return verdicts.filter((v) => v).length === 1;
    }
    case 'not': {
      const v = matches(arg as SchemaNode, value, resolve);
      return v === undefined ? undefined : !v;
    }
    case 'if': {
      const condition = matches(arg as SchemaNode, value, resolve);
      if (condition === undefined) return undefined;
      const branch = s[condition ? 'then' : 'else'] as SchemaNode | undefined;
      return branch === undefined ? true : matches(branch, value, resolve);
    }
    default:
      if (typeof value === 'string') return stringKeyword(key, arg, value);
      if (typeof value === 'number') return numberKeyword(key, arg, value);
      if (Array.isArray(value)) return arrayKeyword(s, key, arg, value, resolve);
      if (typeof value === 'object' && value !== null) return objectKeyword(s, key, arg, value as Record<string, unknown>, resolve);
      return KNOWN_ELSEWHERE.has(key) ? true : undefined;
  }
}

const STRING_KEYWORDS = new Set(['minLength', 'maxLength', 'pattern', 'format']);
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
const ARRAY_KEYWORDS = new Set(['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'unevaluatedItems']);
const OBJECT_KEYWORDS = new Set([
  'properties',
  'required',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
]);
/** Keywords of one JSON type: they hold for a value of any other type. */
const KNOWN_ELSEWHERE = new Set([...STRING_KEYWORDS, ...NUMBER_KEYWORDS, ...ARRAY_KEYWORDS, ...OBJECT_KEYWORDS]);

function stringKeyword(key: string, arg: unknown, value: string): Verdict {
  switch (key) {
    case 'minLength':
      return [...value].length >= (arg as number);
    case 'maxLength':
      return [...value].length <= (arg as number);
    case 'pattern':
      return new RegExp(arg as string, 'u').test(value);
    case 'format':
      return undefined;
    default:
      return KNOWN_ELSEWHERE.has(key) ? true : undefined;
  }
}

function numberKeyword(key: string, arg: unknown, value: number): Verdict {
  const n = arg as number;
  switch (key) {
    case 'minimum':
      return value >= n;
    case 'maximum':
      return value <= n;
    case 'exclusiveMinimum':
      return value > n;
    case 'exclusiveMaximum':
      return value < n;
    case 'multipleOf':
      return Number.isInteger(value / n);
    case 'format':
      return undefined;
    default:
      return KNOWN_ELSEWHERE.has(key) ? true : undefined;
  }
}

function arrayKeyword(s: { readonly [k: string]: unknown }, key: string, arg: unknown, value: unknown[], resolve: Resolve): Verdict {
  const prefix = (s['prefixItems'] as SchemaNode[] | undefined) ?? [];
  switch (key) {
    case 'prefixItems':
      return all(prefix.slice(0, value.length).map((p, i) => matches(p, value[i], resolve)));
    case 'items':
      return all(value.slice(prefix.length).map((item) => matches(arg as SchemaNode, item, resolve)));
    case 'minItems':
      return value.length >= (arg as number);
    case 'maxItems':
      return value.length <= (arg as number);
    case 'uniqueItems':
      return arg !== true || new Set(value.map(canonical)).size === value.length;
    case 'contains': {
      const verdicts = value.map((item) => matches(arg as SchemaNode, item, resolve));
      if (verdicts.includes(undefined)) return undefined;
      const count = verdicts.filter((v) => v).length;
      const min = (s['minContains'] as number | undefined) ?? 1;
      const max = (s['maxContains'] as number | undefined) ?? Number.POSITIVE_INFINITY;
      return count >= min && count <= max;
    }
    case 'unevaluatedItems':
      return s['items'] !== undefined || value.length <= prefix.length ? true : undefined;
    default:
      return KNOWN_ELSEWHERE.has(key) ? true : undefined;
  }
}

function objectKeyword(
  s: { readonly [k: string]: unknown },
  key: string,
  arg: unknown,
  value: Record<string, unknown>,
  resolve: Resolve,
): Verdict {
  const names = Object.keys(value);
  const properties = (s['properties'] as Record<string, SchemaNode> | undefined) ?? {};
  const patterns = Object.keys((s['patternProperties'] as object | undefined) ?? {}).map((p) => new RegExp(p, 'u'));
  switch (key) {
    case 'properties':
      return all(names.filter((n) => Object.hasOwn(properties, n)).map((n) => matches(properties[n]!, value[n], resolve)));
    case 'required':
      return (arg as string[]).every((n) => Object.hasOwn(value, n));
    case 'patternProperties': {
      const map = arg as Record<string, SchemaNode>;
      return all(
        Object.keys(map).flatMap((p) => names.filter((n) => new RegExp(p, 'u').test(n)).map((n) => matches(map[p]!, value[n], resolve))),
      );
    }
    case 'additionalProperties':
      return all(
        names
          .filter((n) => !Object.hasOwn(properties, n) && !patterns.some((p) => p.test(n)))
          .map((n) => matches(arg as SchemaNode, value[n], resolve)),
      );
    case 'propertyNames':
      return all(names.map((n) => matches(arg as SchemaNode, n, resolve)));
    case 'minProperties':
      return names.length >= (arg as number);
    case 'maxProperties':
      return names.length <= (arg as number);
    case 'dependentRequired':
      return Object.entries(arg as Record<string, string[]>).every(
        ([n, deps]) => !Object.hasOwn(value, n) || deps.every((d) => Object.hasOwn(value, d)),
      );
    case 'dependentSchemas':
      return all(
        Object.entries(arg as Record<string, SchemaNode>)
          .filter(([n]) => Object.hasOwn(value, n))
          .map(([, d]) => matches(d, value, resolve)),
      );
    case 'unevaluatedProperties':
      return s['additionalProperties'] !== undefined ? true : undefined;
    default:
      return KNOWN_ELSEWHERE.has(key) ? true : undefined;
  }
}
