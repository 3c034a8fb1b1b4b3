/**
 * JSON Schema compatibility: can a reader on one schema accept every value a writer on the
 * other can produce? Backward asks it of the new schema reading old values; forward of the old
 * schema reading new values. The verdict comes from what a change does to the set of accepted
 * values — unions, intersections, negation, catch-alls and references are reasoned about as
 * sets — falling back to Confluent Schema Registry's structural rules where that cannot decide
 * (`oneOf` exclusivity, patterns). The content model of each object (open, closed, partially
 * open) decides property additions and removals; a `strict` / `lenient` policy says whether
 * undeclared properties of an open object are significant.
 *
 * Findings are named after the edit (old → new) whatever the direction, so one change has one
 * id in backward, forward and full mode; the detail says which reader breaks.
 *
 * @see https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/serdes-json.html
 */

import { type ContractModel, refName, SCHEMA_REF_PREFIX, type SchemaNode } from '../../model/contract-model.js';
import type { Policy } from '../../model/vocabulary.js';
import type { Direction } from '../findings.js';
import type { Context, SchemaChange, Side } from './context.js';
import { compareSchema } from './walk.js';

export type { Policy } from '../../model/vocabulary.js';
export type { Compare, Context, SchemaChange, Side } from './context.js';
export { compareSchema } from './walk.js';

function sides(
  before: ContractModel,
  beforeRoot: SchemaNode,
  after: ContractModel,
  afterRoot: SchemaNode,
  direction: Direction,
): { writer: Side; reader: Side } {
  const old: Side = { model: before, root: beforeRoot };
  const neu: Side = { model: after, root: afterRoot };
  return direction === 'backward' ? { writer: old, reader: neu } : { writer: neu, reader: old };
}

/**
 * Compares the named schema `beforeName` of `before` with `afterName` of `after`: in the backward
 * direction (can readers of the new schema read old values?) unless told `forward` (can readers
 * of the old schema read new values?). Either way findings are named after the edit, old → new.
 */
export function diffSchemas(
  before: ContractModel,
  beforeName: string,
  after: ContractModel,
  afterName: string,
  policy: Policy,
  direction: Direction = 'backward',
): SchemaChange[] {
  // Most schemas of a contract do not change between two versions: equal ones (their named
  // schemas included) have nothing to report, in either direction, under either policy.
  if (sameNamedSchema(before, beforeName, after, afterName)) return [];
  const s = sides(before, before.schemas[beforeName]?.schema ?? true, after, after.schemas[afterName]?.schema ?? true, direction);
  const ctx: Context = { ...s, policy, forward: direction === 'forward', seen: new Set(), out: [], compare: compareSchema };
  const [w, r] = direction === 'backward' ? [beforeName, afterName] : [afterName, beforeName];
  compareSchema(ctx, { $ref: `${SCHEMA_REF_PREFIX}${w}` }, { $ref: `${SCHEMA_REF_PREFIX}${r}` }, '');
  return ctx.out;
}

/** Compares two inline schemas (e.g. Kafka message keys) whose `$ref`s, if any, point into the given models. */
export function diffNodes(
  before: ContractModel,
  beforeNode: SchemaNode,
  after: ContractModel,
  afterNode: SchemaNode,
  policy: Policy,
  direction: Direction = 'backward',
): SchemaChange[] {
  const s = sides(before, beforeNode, after, afterNode, direction);
  const ctx: Context = { ...s, policy, forward: direction === 'forward', seen: new Set(), out: [], compare: compareSchema };
  const [w, r] = direction === 'backward' ? [beforeNode, afterNode] : [afterNode, beforeNode];
  compareSchema(ctx, w, r, '');
  return ctx.out;
}

/** Per pair of models: which named schemas (before name → after name) are equal, references followed. */
const sameSchemas = new WeakMap<ContractModel, WeakMap<ContractModel, Map<string, boolean>>>();

/** Whether named schema `b` of `before` and `a` of `after` are equal, every schema they reference included. */
export function sameNamedSchema(before: ContractModel, b: string, after: ContractModel, a: string): boolean {
  let byAfter = sameSchemas.get(before);
  if (byAfter === undefined) {
    byAfter = new WeakMap();
    sameSchemas.set(before, byAfter);
  }
  let memo = byAfter.get(after);
  if (memo === undefined) {
    memo = new Map();
    byAfter.set(after, memo);
  }
  // Pairs being compared: a cycle back to one of them compares equal for now (the walk decides).
  // A `true` that leaned on such an assumption is not remembered (the pair it assumed may yet
  // differ); a `false` always is.
  const inProgress = new Set<string>();
  let assumed = 0;
  const visit = (nb: string, na: string): boolean => {
    const key = `${nb}\u0000${na}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (inProgress.has(key)) {
      assumed++;
      return true;
    }
    inProgress.add(key);
    const assumedBefore = assumed;
    const sb = before.schemas[nb];
    const sa = after.schemas[na];
    const same = sb !== undefined && sa !== undefined && equalNodes(sb.schema, sa.schema, visit);
    inProgress.delete(key);
    if (!same || assumed === assumedBefore) memo.set(key, same);
    return same;
  };
  return visit(b, a);
}

/** Deep equality of two schema nodes; `$ref`s to named schemas are equal when the schemas they name are. */
function equalNodes(x: unknown, y: unknown, named: (b: string, a: string) => boolean): boolean {
  // Not even one object shared by both models is equal by identity: a `$ref` in it names a
  // schema of each model, and those may differ.
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return x === y;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) {
    const ya = y as unknown[];
    if (x.length !== ya.length) return false;
    for (let i = 0; i < x.length; i++) if (!equalNodes(x[i], ya[i], named)) return false;
    return true;
  }
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const keys = Object.keys(xo);
  if (keys.length !== Object.keys(yo).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(yo, key)) return false;
    if (key === '$ref' && typeof xo[key] === 'string' && typeof yo[key] === 'string') {
      const rb = refName(xo[key] as string);
      const ra = refName(yo[key] as string);
      if (rb !== undefined && ra !== undefined) {
        if (!named(rb, ra)) return false;
        continue;
      }
    }
    if (!equalNodes(xo[key], yo[key], named)) return false;
  }
  return true;
}
