/** `anyOf`, `oneOf` and `allOf`: branches paired one-to-one (the registry's bipartite rule), and unions on one side only. */

import type { SchemaNode } from '../../model/contract-model.js';
import { type Combinator, combinedTypeChanged, keywordCode, UNION_KEYWORDS, type UnionKeyword } from '../codes.js';
import { type Context, compareSchema, type Edit, type Schema } from './context.js';
import { compareNot } from './not.js';
import { fix, record } from './record.js';
import { branchesOf, IGNORED, isEmpty, view, without } from './resolve.js';
import { conjoin, covers, disjoint } from './sets.js';
import type { Facts } from './wording.js';

export function unionKeyword(schema: Schema): 'anyOf' | 'oneOf' | undefined {
  return Array.isArray(schema['oneOf']) ? 'oneOf' : Array.isArray(schema['anyOf']) ? 'anyOf' : undefined;
}

export const unionEdit =
  (keyword: UnionKeyword, facts: Facts) =>
  (o: Schema): Edit => ({
    code: `${keywordCode(keyword)}_${o[keyword] === undefined ? 'added' : 'removed'}`,
    facts: { keyword, ...facts },
  });

/** The writer is a union, the reader is not: every branch must be read. */
export function unionToPlain(ctx: Context, writer: Schema, reader: Schema, pointer: string, keyword: 'anyOf' | 'oneOf'): void {
  const own = without(writer, keyword);
  const branches = writer[keyword] as SchemaNode[];
  const unread: number[] = [];
  branches.forEach((branch, i) => {
    const sub: Context = { ...ctx, out: [] };
    compareSchema(sub, conjoin(own, view(ctx.writer, branch)) ?? { allOf: [own, branch] }, reader, `${pointer}/${keyword}/${i}`);
    if (sub.out.some((c) => c.severity === 'breaking')) unread.push(i);
  });
  const ok = unread.length === 0;
  record(
    ctx,
    `${pointer}/${keyword}`,
    writer,
    reader,
    ok,
    unionEdit(keyword, { via: 'union-to-plain', values: unread }),
    fix(
      ctx,
      `keep the schema as it was, a ${keyword}: the plain schema does not accept every value of branch ${unread.join(', ')}`,
      `keep the schema as it was: consumers on the old contract do not accept every value of branch ${unread.join(', ')}`,
    ),
  );
}

/** The reader is a union, the writer is not: the writer must fit one branch (for oneOf, exactly one). */
export function plainToUnion(ctx: Context, writer: Schema, reader: Schema, pointer: string, keyword: 'anyOf' | 'oneOf'): void {
  const own = without(reader, keyword);
  const branches = reader[keyword] as SchemaNode[];
  const candidates = branches.map((branch) => conjoin(own, view(ctx.reader, branch)) ?? { allOf: [own, branch] });
  const fits = candidates.map((candidate) => covers(ctx, writer, candidate));
  const j = fits.indexOf(true);
  // Every value fits two branches of a oneOf: each is rejected.
  const twice = keyword === 'oneOf' && fits.filter(Boolean).length > 1;
  const ok = j !== -1 && !twice;
  if (ok) compareSchema(ctx, writer, candidates[j]!, `${pointer}/${keyword}/${j}`);
  record(
    ctx,
    `${pointer}/${keyword}`,
    writer,
    reader,
    ok,
    unionEdit(keyword, { via: 'plain-to-union', index: j, twice }),
    fix(
      ctx,
      `keep the schema as it was, without the ${keyword} (or give the ${keyword} a branch that accepts every old value${keyword === 'oneOf' ? ', and only one does' : ''})`,
      `keep the schema as it was: consumers on the old contract accept only the old branches`,
    ),
  );
}

/** The one branch of a schema that is only `allOf`/`anyOf`/`oneOf` with one distinct branch. */
export function singleton(schema: Schema): { keyword: 'allOf' | 'anyOf' | 'oneOf'; branch: SchemaNode } | undefined {
  const significant = Object.keys(schema).filter((k) => !IGNORED.has(k));
  if (significant.length !== 1) return undefined;
  const keyword = significant[0] as 'allOf' | 'anyOf' | 'oneOf';
  if (!['allOf', 'anyOf', 'oneOf'].includes(keyword)) return undefined;
  const list = schema[keyword];
  return Array.isArray(list) && list.length === 1 ? { keyword, branch: list[0] as SchemaNode } : undefined;
}

export function combinatorOf(schema: Schema): Combinator {
  return (['oneOf', 'anyOf', 'allOf', 'not'] as const).find((k) => schema[k] !== undefined) ?? 'plain';
}

export function combinedDescription(ctx: Context, writer: Schema, reader: Schema): Edit {
  const [o, n] = ctx.forward ? [reader, writer] : [writer, reader];
  const from = combinatorOf(o);
  const to = combinatorOf(n);
  return {
    code: from !== to ? combinedTypeChanged(from, to) : to === 'plain' ? 'schema_rearranged' : `${keywordCode(to)}_rearranged`,
    facts: { from, to },
  };
}

export function compareCombinators(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of UNION_KEYWORDS) compareUnion(ctx, writer, reader, pointer, keyword);
  compareUnionRemoved(ctx, writer, reader, pointer);
  compareAllOf(ctx, writer, reader, pointer);
  compareNot(ctx, writer, reader, pointer);
}

/** A union (`keyword`) the reader has, against the writer's union of either kind, or its plain schema. */
function compareUnion(ctx: Context, writer: Schema, reader: Schema, pointer: string, keyword: UnionKeyword): void {
  const bw = branchesOf(writer, keyword);
  const br = branchesOf(reader, keyword);
  const other = keyword === 'oneOf' ? 'anyOf' : 'oneOf';
  if (bw === undefined && br === undefined) return;
  const p = `${pointer}/${keyword}`;
  // A union only the writer has is matched against the reader's other union, or judged as union → plain below.
  if (br === undefined) return;
  const writerBranches = bw ?? branchesOf(writer, other);
  if (writerBranches === undefined) {
    plainToReaderUnion(ctx, writer, reader, pointer, keyword, br);
    return;
  }
  const fromKeyword = bw !== undefined ? keyword : other;
  if (fromKeyword !== keyword && keyword === 'oneOf' && writerBranches.length > 1) {
    // anyOf → oneOf: a value matching two branches would now be rejected, unless they cannot overlap.
    const exclusive = br.every((a, i) => br.every((b, j) => i >= j || disjoint(ctx.reader, a, b)));
    if (!exclusive) {
      record(
        ctx,
        p,
        writer,
        reader,
        false,
        (o) =>
          o['oneOf'] !== undefined
            ? { code: 'combined_type_changed', facts: { from: 'oneOf', to: 'anyOf' } }
            : { code: 'combined_type_changed', facts: { from: 'anyOf', to: 'oneOf' } },
        fix(
          ctx,
          'keep anyOf (or make the branches exclusive: a const discriminator, distinct types)',
          'keep oneOf: consumers on the old contract reject a value that matches two branches',
        ),
      );
      return;
    }
  }
  if (fromKeyword !== keyword)
    record(
      ctx,
      p,
      writer,
      reader,
      true,
      (o, n) => ({
        code: 'combined_type_changed',
        facts: { from: o['anyOf'] !== undefined ? 'anyOf' : 'oneOf', to: n['anyOf'] !== undefined ? 'anyOf' : 'oneOf' },
      }),
      '',
    );
  pairBranches(ctx, writer, reader, p, keyword, writerBranches, br);
}

/** Plain → union: compatible when one branch accepts every value of the plain schema (the rest is set reasoning). */
function plainToReaderUnion(
  ctx: Context,
  writer: Schema,
  reader: Schema,
  pointer: string,
  keyword: UnionKeyword,
  br: readonly SchemaNode[],
): void {
  const p = `${pointer}/${keyword}`;
  const own = without(writer, 'allOf', 'not');
  const j = br.findIndex((branch) => covers(ctx, own, branch));
  if (j !== -1) {
    record(
      ctx,
      `${p}/${j}`,
      writer,
      reader,
      true,
      (o) =>
        o[keyword] === undefined
          ? { code: 'sum_type_extended', facts: { keyword, index: j } }
          : { code: 'sum_type_narrowed', facts: { keyword, index: j } },
      '',
    );
    return;
  }
  record(
    ctx,
    p,
    writer,
    reader,
    false,
    (o) =>
      o[keyword] === undefined
        ? { code: `${keywordCode(keyword)}_added`, facts: { keyword, via: 'reader-union', count: br.length } }
        : { code: `${keywordCode(keyword)}_removed`, facts: { keyword, via: 'reader-union', count: br.length } },
    fix(
      ctx,
      `keep the schema as it was, without the ${keyword}: values valid before may match no branch (or give it a branch that accepts every old value)`,
      `keep the schema as it was: consumers on the old contract accept only the old branches`,
    ),
  );
}

/**
 * The edit of an unpaired branch, named from (old, new): a writer branch no reader branch takes
 * is one the new side added (read forward) or dropped or narrowed (read backward); a reader branch
 * left over is the mirror.
 */
function branchEdit(writer: Schema, keyword: UnionKeyword, index: number, side: 'writer' | 'reader') {
  return (old: unknown) => ({
    code: `${keywordCode(keyword)}_${(old !== writer) === (side === 'writer') ? 'branch_added' : 'branch_removed_or_narrowed'}` as const,
    facts: { keyword, index },
  });
}

/**
 * Matches branches one-to-one (the registry's bipartite rule): each writer branch needs a reader
 * branch that accepts all it accepted; reader branches left over were added.
 */
function pairBranches(
  ctx: Context,
  writer: Schema,
  reader: Schema,
  p: string,
  keyword: UnionKeyword,
  writerBranches: readonly SchemaNode[],
  br: readonly SchemaNode[],
): void {
  const free = new Set(br.map((_, i) => i));
  const pairs: [number, number][] = [];
  const unmatched: number[] = [];
  writerBranches.forEach((branch, i) => {
    const match = [...free].find((j) => covers(ctx, branch, br[j]!));
    if (match === undefined) unmatched.push(i);
    else {
      free.delete(match);
      pairs.push([i, match]);
    }
  });
  // Set reasoning: a branch left over may still be read by a reader branch another one took.
  const stillUnread = unmatched.filter((i) => !(keyword === 'anyOf' && br.some((b) => covers(ctx, writerBranches[i]!, b))));
  for (const i of stillUnread)
    record(
      ctx,
      `${p}/${i}`,
      writer,
      reader,
      false,
      branchEdit(writer, keyword, i, 'writer'),
      fix(
        ctx,
        `keep branch ${i} as it was (or only widen it)`,
        'keep the branches as they were: consumers on the old contract reject values of the new branch (send them in a new message type)',
      ),
      ctx.forward ? { after: writerBranches[i] } : { before: writerBranches[i] },
    );
  for (const [i, j] of pairs) compareSchema(ctx, writerBranches[i]!, br[j]!, `${p}/${ctx.forward ? i : j}`);
  for (const j of free)
    record(
      ctx,
      `${p}/${j}`,
      writer,
      reader,
      true,
      branchEdit(writer, keyword, j, 'reader'),
      '',
      ctx.forward ? { before: br[j] } : { after: br[j] },
    );
}

/** Union → plain: every branch must be accepted by the plain schema. */
function compareUnionRemoved(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  // A union only on the reader side was judged by compareUnion.
  const keyword = unionKeyword(writer);
  if (keyword === undefined || unionKeyword(reader) !== undefined) return;
  const branches = branchesOf(writer, keyword)!;
  const own = without(reader, 'allOf', 'not');
  const unread = branches.findIndex((b) => !covers(ctx, b, own));
  record(
    ctx,
    `${pointer}/${keyword}`,
    writer,
    reader,
    unread === -1,
    (o) =>
      o[keyword] !== undefined
        ? {
            code: `${keywordCode(keyword)}_removed`,
            facts: { keyword, via: 'union-removed', index: unread },
          }
        : { code: `${keywordCode(keyword)}_added`, facts: { keyword, via: 'union-removed', index: unread } },
    fix(
      ctx,
      `keep the schema as it was, a ${keyword}: the new schema does not accept every value of branch ${unread}`,
      'keep the schema as it was: consumers on the old contract accept only the old schema',
    ),
  );
}

export function compareAllOf(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const aw = branchesOf(writer, 'allOf') ?? [];
  const ar = branchesOf(reader, 'allOf') ?? [];
  if (aw.length === 0 && ar.length === 0) return;
  // Each reader branch must accept what the writer produces: some writer branch (or the writer as a whole) it covers.
  const ownW = without(writer, 'allOf');
  const free = new Set(aw.map((_, i) => i));
  ar.forEach((branch, j) => {
    const match = [...free].find((i) => covers(ctx, aw[i]!, branch)) ?? [...aw.keys()].find((i) => covers(ctx, aw[i]!, branch));
    const at = `${pointer}/allOf/${ctx.forward ? (match ?? j) : j}`;
    if (match !== undefined) {
      free.delete(match);
      compareSchema(ctx, aw[match]!, branch, at);
      return;
    }
    if (!isEmpty(ownW) && covers(ctx, ownW, branch)) return; // the writer's own keywords already satisfy it
    record(
      ctx,
      at,
      writer,
      reader,
      false,
      (o) =>
        o !== writer
          ? {
              code: `${keywordCode('allOf')}_branch_removed`,
              facts: { index: j },
            }
          : { code: `${keywordCode('allOf')}_branch_added_or_narrowed`, facts: { index: j } },
      fix(
        ctx,
        'drop the new allOf branch (or make it accept every old value): every value must now also match it',
        'keep the allOf branch: consumers on the old contract still check it',
      ),
      ctx.forward ? { before: branch } : { after: branch },
    );
  });
  for (const i of free)
    record(
      ctx,
      `${pointer}/allOf/${i}`,
      writer,
      reader,
      true,
      (o) =>
        o !== writer
          ? { code: `${keywordCode('allOf')}_branch_added_or_narrowed`, facts: { index: i } }
          : { code: `${keywordCode('allOf')}_branch_removed`, facts: { index: i } },
      '',
    );
}
