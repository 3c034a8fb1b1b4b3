/**
 * The walk: resolves both sides, stops at cycles and equal subtrees, unwraps singletons and
 * one-sided `allOf`s and unions, lets set reasoning overrule the structural rules where
 * combinators are involved, and runs each keyword family's comparer.
 */

import type { SchemaNode } from '../../model/contract-model.js';
import { compareArrays, compareUniqueItems } from './arrays.js';
import { combinedDescription, compareCombinators, plainToUnion, singleton, unionKeyword, unionToPlain } from './combinators.js';
import type { Context, Schema } from './context.js';
import { compareBounds, compareMultipleOf } from './numbers.js';
import { compareObjects } from './objects.js';
import { compareMetadata, compareOthers } from './others.js';
import { fix, record } from './record.js';
import { hasCombinator, isEmpty, isObject, resolve, sameWithoutRefs, view } from './resolve.js';
import { flatten, setCovers } from './sets.js';
import { compareText } from './strings.js';
import { compareTypes } from './types.js';
import { compareValues } from './values.js';

/** Compares at `pointer`: can the reader's schema accept every value of the writer's? */
export function compareSchema(ctx: Context, rawWriter: SchemaNode, rawReader: SchemaNode, pointer: string): void {
  const w = resolve(ctx.writer, rawWriter);
  const r = resolve(ctx.reader, rawReader);
  // A pair of named schemas already being compared further up is a cycle: compared once. (Only
  // the path counts: a definition used in two places is compared, and reported, at both.)
  const key = w.name !== undefined && r.name !== undefined ? `${w.name}\u0000${r.name}` : undefined;
  if (key !== undefined) {
    if (ctx.seen.has(key)) return;
    ctx.seen.add(key);
  }
  // Equal subtrees without references change nothing (with references, the targets may differ).
  if (typeof w.node === 'boolean' ? w.node === r.node : typeof r.node === 'object' && sameWithoutRefs(w.node, r.node)) {
    if (key !== undefined) ctx.seen.delete(key);
    return;
  }
  const newName = ctx.forward ? w.name : r.name;
  const scoped: Context = newName !== undefined && !newName.startsWith('#') ? { ...ctx, anchor: { name: newName, base: pointer } } : ctx;
  compareResolved(scoped, view(ctx.writer, w.node), view(ctx.reader, r.node), pointer);
  if (key !== undefined) ctx.seen.delete(key);
}

function compareResolved(ctx: Context, writer: SchemaNode, reader: SchemaNode, pointer: string): void {
  if (isEmpty(reader)) {
    if (!isEmpty(writer) && writer !== false)
      record(ctx, pointer, writer, reader, true, (_o, n) => (isEmpty(n) ? { code: 'schema_opened' } : { code: 'schema_restricted' }), '');
    return;
  }
  if (writer === false) return; // the writer produces nothing
  if (reader === false || isEmpty(writer)) {
    record(
      ctx,
      pointer,
      writer,
      reader,
      false,
      (_o, n) => (isEmpty(n) ? { code: 'schema_opened' } : n === false ? { code: 'schema_forbidden' } : { code: 'schema_restricted' }),
      fix(
        ctx,
        'keep the schema as it was (introduce the new one as a new message type)',
        'keep the constraints (introduce the new schema as a new message type)',
      ),
    );
    return;
  }
  if (!isObject(writer) || !isObject(reader)) return;

  // `{ allOf: [X] }` (or a one-branch anyOf/oneOf) is X, unless the other side has the same combinator to pair it with.
  const ws = singleton(writer);
  const rs = singleton(reader);
  if (ws !== undefined && (rs === undefined || rs.keyword !== ws.keyword) && !Array.isArray(reader[ws.keyword])) {
    compareResolved(ctx, view(ctx.writer, ws.branch), reader, pointer);
    return;
  }
  if (rs !== undefined && !Array.isArray(writer[rs.keyword])) {
    compareResolved(ctx, writer, view(ctx.reader, rs.branch), pointer);
    return;
  }
  // allOf on one side only: fold it into one schema when it can be, and compare that.
  if ((writer['allOf'] !== undefined) !== (reader['allOf'] !== undefined)) {
    const fw = flatten(ctx.writer, writer);
    const fr = flatten(ctx.reader, reader);
    if (isObject(fw) && isObject(fr) && fw['allOf'] === undefined && fr['allOf'] === undefined) {
      compareResolved(ctx, fw, fr, pointer);
      return;
    }
    if (fw === false || fr === false) {
      compareResolved(ctx, fw, fr, pointer);
      return;
    }
  }

  // A union on one side only: each branch of a writer union must be read; a writer must fit a branch of a reader union.
  const wu = unionKeyword(writer);
  const ru = unionKeyword(reader);
  if (wu !== undefined && ru === undefined && reader['allOf'] === undefined && reader['not'] === undefined) {
    unionToPlain(ctx, writer, reader, pointer, wu);
    return;
  }
  if (ru !== undefined && wu === undefined && writer['allOf'] === undefined && writer['not'] === undefined) {
    plainToUnion(ctx, writer, reader, pointer, ru);
    return;
  }

  // Set reasoning first where combinators are involved: the structural comparison below pairs
  // keywords and branches, which can call a change breaking that accepts every old value.
  if (hasCombinator(writer) || hasCombinator(reader)) {
    const structural: Context = { ...ctx, out: [] };
    compareKeywords(structural, writer, reader, pointer);
    if (structural.out.some((c) => c.severity === 'breaking') && setCovers(ctx, writer, reader) === true) {
      ctx.out.push(...structural.out.filter((c) => c.severity !== 'breaking'));
      record(ctx, pointer, writer, reader, true, () => combinedDescription(ctx, writer, reader), '');
      return;
    }
    ctx.out.push(...structural.out);
    return;
  }
  compareKeywords(ctx, writer, reader, pointer);
}

/** The keyword-by-keyword comparison (the registry's structural rules). */
function compareKeywords(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  compareMetadata(ctx, writer, reader, pointer);
  compareTypes(ctx, writer, reader, pointer);
  compareValues(ctx, writer, reader, pointer);
  compareBounds(ctx, writer, reader, pointer);
  compareText(ctx, writer, reader, pointer);
  compareMultipleOf(ctx, writer, reader, pointer);
  compareUniqueItems(ctx, writer, reader, pointer);
  compareArrays(ctx, writer, reader, pointer);
  compareObjects(ctx, writer, reader, pointer);
  compareCombinators(ctx, writer, reader, pointer);
  compareOthers(ctx, writer, reader, pointer);
}
