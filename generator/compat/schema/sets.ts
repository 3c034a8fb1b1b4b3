/**
 * Set algebra over schemas: `a ∧ b` as one schema, `allOf` folded, disjointness, and whether a
 * reader covers every value of a writer (`covers` runs the structural rules on a throw-away
 * context; `setCovers` reasons about combinators as sets first).
 */

import type { SchemaNode } from '../../model/contract-model.js';
import { type Context, compareSchema, type Schema, type Side } from './context.js';
import { accepts, branchesOf, IGNORED, isEmpty, isObject, types, valueKey, view, without } from './resolve.js';

/** Runs `fn` on a throw-away context and says whether it found nothing breaking. */
export function probe(ctx: Context, fn: (probe: Context) => void): boolean {
  const p: Context = { ...ctx, seen: new Set(ctx.seen), out: [] };
  fn(p);
  return !p.out.some((c) => c.severity === 'breaking');
}

/** True when `reader` accepts every value `writer` accepts (within what the rules can tell). */
export function covers(ctx: Context, writer: SchemaNode, reader: SchemaNode): boolean {
  return probe(ctx, (p) => compareSchema(p, writer, reader, ''));
}

/** `a ∧ b` as one schema, when that can be written without `allOf`; undefined when not. */
export function conjoin(a: SchemaNode, b: SchemaNode): SchemaNode | undefined {
  if (isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  if (a === false || b === false) return false;
  if (!isObject(a) || !isObject(b)) return undefined;
  const out: Record<string, unknown> = { ...a };
  const declares = (s: Schema): Set<string> => new Set(Object.keys(isObject(s['properties']) ? s['properties'] : {}));
  for (const side of [a, b]) {
    const other = side === a ? b : a;
    // A catch-all judges the properties its own schema declares; it cannot absorb the other side's.
    if (side['additionalProperties'] !== undefined && side['additionalProperties'] !== true) {
      const mine = declares(side);
      if ([...declares(other)].some((p) => !mine.has(p)) || other['patternProperties'] !== undefined) return undefined;
    }
    if (side['unevaluatedProperties'] !== undefined || side['unevaluatedItems'] !== undefined) return undefined;
  }
  for (const [key, value] of Object.entries(b)) {
    if (IGNORED.has(key)) continue;
    const mine = out[key];
    if (mine === undefined) {
      out[key] = value;
      continue;
    }
    if (valueKey(mine) === valueKey(value)) continue;
    switch (key) {
      case 'type': {
        const ta = types(a)!;
        const tb = types(b)!;
        const both = [...ta].filter((t) => accepts(tb, t)).concat([...tb].filter((t) => t === 'integer' && ta.has('number')));
        const unique = [...new Set(both)];
        if (unique.length === 0) return false;
        out[key] = unique.length === 1 ? unique[0] : unique;
        break;
      }
      case 'required':
        out[key] = [...new Set([...(mine as string[]), ...(value as string[])])];
        break;
      case 'properties': {
        const merged: Record<string, unknown> = { ...(mine as object) };
        for (const [p, s] of Object.entries(value as Record<string, SchemaNode>)) {
          const existing = merged[p] as SchemaNode | undefined;
          merged[p] = existing === undefined ? s : (conjoin(existing, s) ?? { allOf: [existing, s] });
        }
        out[key] = merged;
        break;
      }
      case 'minimum':
      case 'exclusiveMinimum':
      case 'minLength':
      case 'minItems':
      case 'minProperties':
      case 'minContains':
        out[key] = Math.max(mine as number, value as number);
        break;
      case 'maximum':
      case 'exclusiveMaximum':
      case 'maxLength':
      case 'maxItems':
      case 'maxProperties':
      case 'maxContains':
        out[key] = Math.min(mine as number, value as number);
        break;
      case 'enum': {
        const keys = new Set((value as unknown[]).map(valueKey));
        out[key] = (mine as unknown[]).filter((v) => keys.has(valueKey(v)));
        break;
      }
      case 'allOf':
        out[key] = [...(mine as unknown[]), ...(value as unknown[])];
        break;
      default:
        return undefined;
    }
  }
  return out;
}

/** A schema's `allOf` folded into it, when every branch can be; the schema itself otherwise. */
export function flatten(side: Side, schema: Schema): SchemaNode {
  const branches = Array.isArray(schema['allOf']) ? (schema['allOf'] as SchemaNode[]) : [];
  if (branches.length === 0) return schema;
  const { allOf: _allOf, ...own } = schema;
  let result: SchemaNode | undefined = own;
  for (const branch of branches) {
    const b = view(side, branch);
    result = conjoin(result, isObject(b) ? flatten(side, b) : b);
    if (result === undefined) return schema;
  }
  return isObject(result) && result['allOf'] !== undefined && valueKey(result['allOf']) === valueKey(branches) ? schema : result;
}

/** Two schemas that share no value, as far as types, `const`/`enum` and a required property's `const`/`enum` tell. */
export function disjoint(side: Side, x: SchemaNode, y: SchemaNode): boolean {
  const a = view(side, x);
  const b = view(side, y);
  if (a === false || b === false) return true;
  if (!isObject(a) || !isObject(b)) return false;
  const ta = types(a);
  const tb = types(b);
  if (ta && tb && ![...ta].some((t) => accepts(tb, t) || (t === 'number' && tb.has('integer')))) return true;
  const values = (s: Schema): string[] | undefined =>
    'const' in s ? [valueKey(s['const'])] : Array.isArray(s['enum']) ? (s['enum'] as unknown[]).map(valueKey) : undefined;
  const va = values(a);
  const vb = values(b);
  if (va && vb && !va.some((v) => vb.includes(v))) return true;
  const pa = isObject(a['properties']) ? (a['properties'] as Record<string, SchemaNode>) : {};
  const pb = isObject(b['properties']) ? (b['properties'] as Record<string, SchemaNode>) : {};
  const ra = new Set(Array.isArray(a['required']) ? (a['required'] as string[]) : []);
  const rb = new Set(Array.isArray(b['required']) ? (b['required'] as string[]) : []);
  for (const name of Object.keys(pa)) {
    if (!Object.hasOwn(pb, name) || !ra.has(name) || !rb.has(name)) continue;
    if (disjoint(side, pa[name]!, pb[name]!)) return true;
  }
  return false;
}

/**
 * Does the reader accept every value of the writer, reasoning about combinators as sets?
 * True and false are decided; undefined leaves the verdict to the structural rules.
 */
export function setCovers(ctx: Context, writerIn: SchemaNode, readerIn: SchemaNode, depth = 0): boolean | undefined {
  if (depth > 12) return undefined;
  const writer = view(ctx.writer, writerIn);
  const reader = view(ctx.reader, readerIn);
  if (isEmpty(reader) || writer === false) return true;
  if (!isObject(writer) || !isObject(reader)) return covers(ctx, writer, reader);
  // A union writes one of its branches: each must be read.
  const wu = branchesOf(writer, 'anyOf') ?? branchesOf(writer, 'oneOf');
  if (wu !== undefined) {
    const own = without(writer, 'anyOf', 'oneOf');
    let all = true;
    for (const branch of wu) {
      const verdict = setCovers(ctx, conjoin(own, view(ctx.writer, branch)) ?? { allOf: [own, branch] }, reader, depth + 1);
      if (verdict === false) return false;
      if (verdict === undefined) all = false;
    }
    return all ? true : undefined;
  }
  // An intersection writes values that satisfy every branch: fold it, or find one branch that is read.
  if (branchesOf(writer, 'allOf') !== undefined) {
    const parts = [without(writer, 'allOf'), ...branchesOf(writer, 'allOf')!];
    if (parts.some((p) => !isEmpty(p) && setCovers(ctx, p, reader, depth + 1) === true)) return true;
    const flat = flatten(ctx.writer, writer);
    if (!isObject(flat) || flat['allOf'] === undefined) return setCovers(ctx, flat, reader, depth + 1);
    return undefined;
  }
  // A reader intersection reads what every branch reads.
  if (branchesOf(reader, 'allOf') !== undefined) {
    const flat = flatten(ctx.reader, reader);
    if (!isObject(flat) || flat['allOf'] === undefined) return setCovers(ctx, writer, flat, depth + 1);
    const parts = [without(reader, 'allOf'), ...branchesOf(reader, 'allOf')!];
    let all = true;
    for (const part of parts) {
      const verdict = setCovers(ctx, writer, part, depth + 1);
      if (verdict === false) return false;
      if (verdict === undefined) all = false;
    }
    return all ? true : undefined;
  }
  // A reader union reads a value one of its branches reads (for oneOf: exactly one).
  const ru = branchesOf(reader, 'anyOf') ?? branchesOf(reader, 'oneOf');
  if (ru !== undefined) {
    const own = without(reader, 'anyOf', 'oneOf');
    const exclusive = reader['oneOf'] !== undefined && ru.length > 1;
    for (const [j, branch] of ru.entries()) {
      const candidate = conjoin(own, view(ctx.reader, branch)) ?? { allOf: [own, branch] };
      if (setCovers(ctx, writer, candidate, depth + 1) !== true) continue;
      if (!exclusive || ru.every((other, k) => k === j || disjoint(ctx.reader, other, branch) || disjoint(ctx.reader, other, writer)))
        return true;
      return undefined; // read by one branch, but maybe by another too: oneOf would reject it
    }
    return undefined;
  }
  if (reader['not'] !== undefined || writer['not'] !== undefined) return undefined;
  return covers(ctx, writer, reader);
}
