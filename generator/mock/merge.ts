/**
 * Two schema objects as one (`allOf`, a `oneOf` branch with the keywords beside it, a `then` with
 * its `if`): keywords on one side are taken as they are; on both sides, bounds tighten, lists
 * intersect or unite, subschemas meet in an `allOf`. What cannot be made one (two patterns, two
 * formats) is refused: the caller names the place.
 */
import { jsonEqual } from './schema-match.js';

export type SchemaObject = { readonly [keyword: string]: unknown };

/** A merge the mock builder cannot make; `reason` says which keywords clash. */
export class MergeConflict extends Error {
  override readonly name = 'MergeConflict';
  constructor(
    message: string,
    readonly unsatisfiable: boolean,
  ) {
    super(message);
  }
}

const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'propertyNames'];
/** Keywords whose second value is checked in an `allOf` beside the first. */
const BESIDE = ['anyOf', 'oneOf', 'if'];

const types = (t: unknown): string[] => (Array.isArray(t) ? (t as string[]) : [t as string]);

function mergeTypes(a: unknown, b: unknown): string[] {
  const left = types(a);
  const right = types(b);
  const out = left.filter((t) => right.includes(t) || (t === 'integer' && right.includes('number')));
  for (const t of right) if (t === 'integer' && left.includes('number') && !out.includes('integer')) out.push('integer');
  if (out.length === 0) throw new MergeConflict(`types ${JSON.stringify(a)} and ${JSON.stringify(b)} have no value in common`, true);
  return out;
}

function mergeMultiple(a: number, b: number): number {
  if (a === b || Number.isInteger(a / b)) return a;
  if (Number.isInteger(b / a)) return b;
  if (Number.isInteger(a) && Number.isInteger(b)) {
    const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
    return (a * b) / gcd(a, b);
  }
  throw new MergeConflict(`multipleOf ${a} and ${b} together`, false);
}

function mergeMaps(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const value = !Object.hasOwn(a, key) ? b[key] : !Object.hasOwn(b, key) ? a[key] : { allOf: [a[key], b[key]] };
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function mergeKeyword(key: string, a: unknown, b: unknown, out: Record<string, unknown>, beside: unknown[]): void {
  if (LOWER.includes(key)) out[key] = Math.max(a as number, b as number);
  else if (UPPER.includes(key)) out[key] = Math.min(a as number, b as number);
  else if (MAPS.includes(key)) out[key] = mergeMaps(a as Record<string, unknown>, b as Record<string, unknown>);
  else if (SUBSCHEMAS.includes(key)) out[key] = a === true ? b : b === true ? a : { allOf: [a, b] };
  else if (key === 'type') out[key] = mergeTypes(a, b);
  else if (key === 'required') out[key] = [...new Set([...(a as string[]), ...(b as string[])])];
  else if (key === 'allOf') out[key] = [...(a as unknown[]), ...(b as unknown[])];
  else if (key === 'not') out[key] = { anyOf: [a, b] };
  else if (key === 'uniqueItems') out[key] = a === true || b === true;
  else if (key === 'multipleOf') out[key] = mergeMultiple(a as number, b as number);
  else if (key === 'enum') {
    const common = (a as unknown[]).filter((x) => (b as unknown[]).some((y) => jsonEqual(x, y)));
    if (common.length === 0) throw new MergeConflict('two enums have no value in common', true);
    out[key] = common;
  } else if (key === 'const') {
    if (!jsonEqual(a, b)) throw new MergeConflict(`two different constants (${JSON.stringify(a)}, ${JSON.stringify(b)})`, true);
  } else if (key === 'prefixItems') {
    const left = a as unknown[];
    const right = b as unknown[];
    out[key] = Array.from({ length: Math.max(left.length, right.length) }, (_, i) =>
      i >= left.length ? right[i] : i >= right.length ? left[i] : { allOf: [left[i], right[i]] },
    );
  } else if (key === 'dependentRequired') {
    const left = a as Record<string, string[]>;
    const right = b as Record<string, string[]>;
    const merged: Record<string, string[]> = { ...left };
    for (const [name, deps] of Object.entries(right)) merged[name] = [...new Set([...(merged[name] ?? []), ...deps])];
    out[key] = merged;
  } else if (key === '$ref') {
    if (a !== b) beside.push({ $ref: b });
  } else if (BESIDE.includes(key)) {
    beside.push(key === 'if' ? { if: b } : { [key]: b });
  } else if (key === 'pattern' || key === 'format') {
    if (a !== b) throw new MergeConflict(`two different ${key}s (${JSON.stringify(a)}, ${JSON.stringify(b)})`, false);
  }
  // Annotations (title, description, examples, …): the first side's stay.
}

/** `a` and `b` as one schema object (neither is changed). */
export function mergeSchemas(a: SchemaObject, b: SchemaObject): SchemaObject {
  const out: Record<string, unknown> = { ...a };
  const beside: Record<string, unknown>[] = [];
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key)) out[key] = b[key];
    else mergeKeyword(key, a[key], b[key], out, beside);
  }
  // An `if` beside another carries its own `then` and `else`.
  for (const part of beside)
    if ('if' in part) {
      if (b['then'] !== undefined) part['then'] = b['then'];
      if (b['else'] !== undefined) part['else'] = b['else'];
    }
  if (Object.hasOwn(a, 'if') && Object.hasOwn(b, 'if')) {
    out['then'] = a['then'];
    out['else'] = a['else'];
    if (a['then'] === undefined) delete out['then'];
    if (a['else'] === undefined) delete out['else'];
  }
  if (beside.length > 0) out['allOf'] = [...((out['allOf'] as unknown[] | undefined) ?? []), ...beside];
  return out;
}
