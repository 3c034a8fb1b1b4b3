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

import { type ContractModel, refName, SCHEMA_REF_PREFIX, type SchemaNode } from '../model/contract-model.js';
import type { Policy } from '../model/vocabulary.js';
import { escapeToken as esc } from '../pointer.js';
import {
  type BoundKeyword,
  type Combinator,
  combinedTypeChanged,
  keywordCode,
  METADATA_KEYWORDS,
  OTHER_KEYWORDS,
  type SchemaFindingCode,
  TEXT_KEYWORDS,
} from './codes.js';
import { type CompatSeverity, type Direction, keepOrAcknowledge } from './findings.js';

export type { Policy } from '../model/vocabulary.js';

/** A schema-level finding before it is placed in a channel and message. */
export interface SchemaChange {
  readonly code: SchemaFindingCode;
  readonly severity: CompatSeverity;
  readonly pointer: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly detail: string;
  readonly hint: string;
  /** The code this finding had before findings were named after the edit (forward findings only). */
  readonly legacyCode?: SchemaFindingCode;
  /** The innermost named schema of the new contract the change is in, and the pointer inside it. */
  readonly schema?: { readonly name: string; readonly pointer: string };
}

type Schema = { readonly [keyword: string]: unknown };

interface Side {
  readonly model: ContractModel;
  /** The raw root schema, for local `#/$defs/…` / `#/definitions/…` references of schemas not normalized by keiyaku. */
  readonly root: SchemaNode;
}

interface Context {
  /** The side whose values must be accepted. */
  readonly writer: Side;
  /** The side that must accept them. */
  readonly reader: Side;
  readonly policy: Policy;
  /** True when the writer is the new contract (forward): names then read reader → writer as old → new. */
  readonly forward: boolean;
  readonly seen: Set<string>;
  readonly out: SchemaChange[];
  /** The innermost named schema of the new side being compared, and where it starts. */
  readonly anchor?: { readonly name: string; readonly base: string };
}

const METADATA = METADATA_KEYWORDS;
/** Keywords that only identify or annotate, and the raw-schema containers keiyaku removes on load. */
const IGNORED = new Set([
  ...METADATA,
  '$id',
  '$schema',
  '$anchor',
  '$defs',
  'definitions',
  'example',
  'x-discriminator',
  'discriminator',
  'externalDocs',
  'xml',
  'contentEncoding',
  'contentMediaType',
]);

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueKey(value: unknown): string {
  return JSON.stringify(value);
}

/** Follows a JSON pointer (`#/$defs/Money`) inside `root`. */
function pointerInto(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return typeof node === 'boolean' || isObject(node) ? (node as SchemaNode) : undefined;
}

/** Follows references (`#/schemas/<Name>` of `side.model`, or local pointers) and chains of them. */
function resolve(side: Side, node: SchemaNode): { node: SchemaNode; name?: string } {
  let current = node;
  let name: string | undefined;
  for (let hops = 0; hops < 32 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    const ref = current['$ref'] as string;
    const target = refName(ref);
    const named = target === undefined ? pointerInto(side.root, ref) : side.model.schemas[target]?.schema;
    if (named === undefined) break;
    name = target ?? ref;
    const { $ref: _ref, ...siblings } = current;
    current = Object.keys(siblings).filter((k) => !IGNORED.has(k)).length === 0 ? named : { allOf: [named, siblings] };
  }
  return name === undefined ? { node: current } : { node: current, name };
}

/**
 * The schema in one spelling: draft-07 `dependencies` as `dependentRequired`/`dependentSchemas`,
 * array `items` + `additionalItems` as `prefixItems` + `items`, draft-04 boolean exclusive bounds
 * as numbers, duplicate branches of a combinator collapsed, and `{ allOf: [X] }` (or a
 * one-branch `anyOf`/`oneOf`) with nothing beside it as X.
 */
function view(side: Side, input: SchemaNode): SchemaNode {
  const node = resolve(side, input).node;
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = { ...node };
  if (Array.isArray(node['items'])) {
    out['prefixItems'] = node['items'];
    delete out['items'];
    if (node['additionalItems'] !== undefined) out['items'] = node['additionalItems'];
    delete out['additionalItems'];
  }
  if (isObject(node['dependencies'])) {
    for (const [name, dep] of Object.entries(node['dependencies'])) {
      if (Array.isArray(dep)) out['dependentRequired'] = { ...(out['dependentRequired'] as object | undefined), [name]: dep };
      else out['dependentSchemas'] = { ...(out['dependentSchemas'] as object | undefined), [name]: dep };
    }
    delete out['dependencies'];
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[exclusive] === 'boolean') {
      if (node[exclusive] === true && typeof node[bound] === 'number') {
        out[exclusive] = node[bound];
        delete out[bound];
      } else delete out[exclusive];
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(node[keyword])) out[keyword] = uniqueBranches(side, node[keyword] as SchemaNode[]);
  }
  return out;
}

function uniqueBranches(side: Side, list: readonly SchemaNode[]): SchemaNode[] {
  const seen = new Set<string>();
  return list.filter((branch) => {
    const key = valueKey(strip(resolve(side, branch).node));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The schema without annotations, for comparing branches by meaning. */
function strip(node: SchemaNode): SchemaNode {
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !IGNORED.has(k)));
}

function types(schema: Schema): Set<string> | undefined {
  const t = schema['type'];
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  return undefined;
}

function accepts(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

function isEmpty(schema: SchemaNode): boolean {
  return schema === true || (isObject(schema) && Object.keys(schema).filter((k) => !IGNORED.has(k)).length === 0);
}

function hasCombinator(schema: SchemaNode): boolean {
  return isObject(schema) && ['allOf', 'anyOf', 'oneOf', 'not'].some((k) => schema[k] !== undefined);
}

type ContentModel = 'open' | 'closed' | 'partial';

function contentModel(schema: Schema): ContentModel {
  const additional = schema['additionalProperties'];
  const unevaluated = schema['unevaluatedProperties'];
  const patterns = isObject(schema['patternProperties']) && Object.keys(schema['patternProperties']).length > 0;
  if (additional === false || (additional === undefined && unevaluated === false && !patterns)) return 'closed';
  if (
    patterns ||
    (isObject(additional) && !isEmpty(additional)) ||
    (additional === undefined && isObject(unevaluated) && !isEmpty(unevaluated))
  )
    return 'partial';
  return 'open';
}

/** The `patternProperties` schemas whose pattern matches `name`. */
function matchingPatterns(schema: Schema, name: string): SchemaNode[] {
  const patterns = isObject(schema['patternProperties']) ? (schema['patternProperties'] as Record<string, SchemaNode>) : {};
  return Object.entries(patterns)
    .filter(([pattern]) => {
      try {
        return new RegExp(pattern, 'u').test(name);
      } catch {
        return false;
      }
    })
    .map(([, s]) => s);
}

/** What an object accepts for a property `name` it does not declare: matching patterns, else its catch-all, else anything. */
function undeclared(schema: Schema, name: string): SchemaNode {
  const matching = matchingPatterns(schema, name);
  if (matching.length === 1) return matching[0]!;
  if (matching.length > 1) return { allOf: matching };
  const additional = schema['additionalProperties'];
  if (additional !== undefined) return additional as SchemaNode;
  const unevaluated = schema['unevaluatedProperties'];
  return unevaluated === undefined ? true : (unevaluated as SchemaNode);
}

/** Who rejects what, in the words of the direction being checked. */
function rejecter(ctx: Context): string {
  return ctx.forward
    ? 'consumers on the old contract reject new messages'
    : 'consumers on the new contract reject messages written under the old one';
}

interface Edit {
  readonly code: SchemaFindingCode;
  readonly detail: string;
}

/**
 * Records a finding. `describe` names the edit from (old, new); it is called with the sides in
 * their old → new order, and once more in writer → reader order for the code earlier versions
 * gave forward findings.
 */
function record<T>(
  ctx: Context,
  pointer: string,
  writer: T,
  reader: T,
  severity: CompatSeverity,
  describe: (old: T, neu: T) => Edit,
  hint: string,
  values: { before?: unknown; after?: unknown; legacy?: SchemaFindingCode } = {},
): void {
  const [old, neu] = ctx.forward ? [reader, writer] : [writer, reader];
  const edit = describe(old, neu);
  // The code earlier versions gave this finding: given for kinds they judged by another rule, else the reverse reading (forward).
  const { legacy: given, ...shown } = values;
  const legacy = severity === 'breaking' && given !== undefined ? given : ctx.forward ? describe(writer, reader).code : edit.code;
  ctx.out.push({
    code: edit.code,
    severity,
    pointer,
    ...shown,
    detail: severity === 'breaking' && !edit.detail.includes('reject') ? `${edit.detail}: ${rejecter(ctx)}` : edit.detail,
    hint: severity === 'breaking' ? hint : '',
    ...(legacy === edit.code ? {} : { legacyCode: legacy }),
    ...(ctx.anchor === undefined ? {} : { schema: { name: ctx.anchor.name, pointer: pointer.slice(ctx.anchor.base.length) } }),
  });
}

/** When an acknowledgment of a change that no edit gets through is due, per direction. */
const ACKNOWLEDGE_WHEN = {
  backward: 'once no message written under the old contract is left to read',
  forward: 'once every consumer reads the new contract',
} as const;

/**
 * A fix in the words of the direction: the reader that breaks is new (backward) or old (forward).
 * The first step each names passes the gate (`keep …`: the schema as it was at that node; test/compat/fix-advice.test.ts
 * applies it). A `keep` fix says that the change itself passes only when acknowledged; a backward fix marked
 * `step` names another edit that reaches the same end and passes, and says nothing of acknowledgments.
 */
function fix(ctx: Context, backward: string, forward: string, backwardIs: 'keep' | 'step' = 'keep'): string {
  if (ctx.forward) return keepOrAcknowledge(forward, ACKNOWLEDGE_WHEN.forward);
  return backwardIs === 'step' ? backward : keepOrAcknowledge(backward, ACKNOWLEDGE_WHEN.backward);
}

function bound(
  ctx: Context,
  pointer: string,
  keyword: BoundKeyword,
  w: unknown,
  r: unknown,
  tighterWhen: 'lower' | 'higher',
  what: string,
): void {
  if (w === r || (typeof w !== 'number' && typeof r !== 'number')) return;
  const tighter = (from: number, to: number): boolean => (tighterWhen === 'lower' ? to < from : to > from);
  // Breaking when the reader is tighter than the writer.
  const breaking = typeof r === 'number' && (typeof w !== 'number' || tighter(w, r));
  record(
    ctx,
    `${pointer}/${keyword}`,
    w,
    r,
    breaking ? 'breaking' : 'compatible',
    (o, n) => {
      if (typeof n !== 'number') return { code: `${keywordCode(keyword)}_removed`, detail: `${what} ${keyword} ${String(o)} removed` };
      if (typeof o !== 'number') return { code: `${keywordCode(keyword)}_added`, detail: `${what} gained ${keyword} ${n}` };
      return { code: `${keywordCode(keyword)}_${tighter(o, n) ? 'narrowed' : 'widened'}`, detail: `${what} ${keyword} ${o} → ${n}` };
    },
    fix(
      ctx,
      typeof w === 'number' ? `keep ${keyword} at ${w} or looser` : `drop ${keyword} (add it in a new message type)`,
      `keep ${keyword} at ${String(r)} or ${tighterWhen === 'lower' ? 'lower' : 'higher'} (widen it in a new message type)`,
    ),
    ctx.forward ? { before: r, after: w } : { before: w, after: r },
  );
}

const serialized = new WeakMap<object, string>();

/** The JSON of a (frozen) schema node, computed once per node. */
function serialize(node: object): string {
  let text = serialized.get(node);
  if (text === undefined) {
    text = JSON.stringify(node);
    serialized.set(node, text);
  }
  return text;
}

function sameWithoutRefs(a: object, b: object): boolean {
  const text = serialize(a);
  return !text.includes('"$ref"') && text === serialize(b);
}

/** Runs `fn` on a throw-away context and says whether it found nothing breaking. */
function probe(ctx: Context, fn: (probe: Context) => void): boolean {
  const p: Context = { ...ctx, seen: new Set(ctx.seen), out: [] };
  fn(p);
  return !p.out.some((c) => c.severity === 'breaking');
}

/** True when `reader` accepts every value `writer` accepts (within what the rules can tell). */
function covers(ctx: Context, writer: SchemaNode, reader: SchemaNode): boolean {
  return probe(ctx, (p) => compareSchema(p, writer, reader, ''));
}

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
      record(
        ctx,
        pointer,
        writer,
        reader,
        'compatible',
        (_o, n) =>
          isEmpty(n)
            ? { code: 'schema_opened', detail: 'the schema now accepts anything' }
            : { code: 'schema_restricted', detail: 'a schema that accepted anything now has constraints' },
        '',
      );
    return;
  }
  if (writer === false) return; // the writer produces nothing
  if (reader === false || isEmpty(writer)) {
    record(
      ctx,
      pointer,
      writer,
      reader,
      'breaking',
      (_o, n) =>
        isEmpty(n)
          ? { code: 'schema_opened', detail: 'the schema now accepts anything' }
          : n === false
            ? { code: 'schema_forbidden', detail: 'the schema now accepts nothing' }
            : { code: 'schema_restricted', detail: 'a schema that accepted anything now has constraints' },
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
      record(ctx, pointer, writer, reader, 'compatible', () => combinedDescription(ctx, writer, reader), '');
      return;
    }
    ctx.out.push(...structural.out);
    return;
  }
  compareKeywords(ctx, writer, reader, pointer);
}

function unionKeyword(schema: Schema): 'anyOf' | 'oneOf' | undefined {
  return Array.isArray(schema['oneOf']) ? 'oneOf' : Array.isArray(schema['anyOf']) ? 'anyOf' : undefined;
}

const unionEdit =
  (keyword: 'anyOf' | 'oneOf', compatibleDetail: string, breakingDetail: string, ok: boolean) =>
  (o: Schema): Edit =>
    o[keyword] === undefined
      ? {
          code: `${keywordCode(keyword)}_added`,
          detail: ok ? `the schema became a ${keyword}; ${compatibleDetail}` : `${keyword} added; ${breakingDetail}`,
        }
      : {
          code: `${keywordCode(keyword)}_removed`,
          detail: ok ? `${keyword} replaced by one schema; ${compatibleDetail}` : `${keyword} removed; ${breakingDetail}`,
        };

/** The writer is a union, the reader is not: every branch must be read. */
function unionToPlain(ctx: Context, writer: Schema, reader: Schema, pointer: string, keyword: 'anyOf' | 'oneOf'): void {
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
    ok ? 'compatible' : 'breaking',
    unionEdit(keyword, 'it accepts every value of every branch', `branch ${unread.join(', ')} is not accepted`, ok),
    fix(
      ctx,
      `keep the schema as it was, a ${keyword}: the plain schema does not accept every value of branch ${unread.join(', ')}`,
      `keep the schema as it was: consumers on the old contract do not accept every value of branch ${unread.join(', ')}`,
    ),
  );
}

/** The reader is a union, the writer is not: the writer must fit one branch (for oneOf, exactly one). */
function plainToUnion(ctx: Context, writer: Schema, reader: Schema, pointer: string, keyword: 'anyOf' | 'oneOf'): void {
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
    ok ? 'compatible' : 'breaking',
    unionEdit(
      keyword,
      `branch ${j} accepts every value of the old schema`,
      twice ? 'values match more than one branch, which oneOf rejects' : 'values valid before may match no branch',
      ok,
    ),
    fix(
      ctx,
      `keep the schema as it was, without the ${keyword} (or give the ${keyword} a branch that accepts every old value${keyword === 'oneOf' ? ', and only one does' : ''})`,
      `keep the schema as it was: consumers on the old contract accept only the old branches`,
    ),
  );
}

/** The one branch of a schema that is only `allOf`/`anyOf`/`oneOf` with one distinct branch. */
function singleton(schema: Schema): { keyword: 'allOf' | 'anyOf' | 'oneOf'; branch: SchemaNode } | undefined {
  const significant = Object.keys(schema).filter((k) => !IGNORED.has(k));
  if (significant.length !== 1) return undefined;
  const keyword = significant[0] as 'allOf' | 'anyOf' | 'oneOf';
  if (!['allOf', 'anyOf', 'oneOf'].includes(keyword)) return undefined;
  const list = schema[keyword];
  return Array.isArray(list) && list.length === 1 ? { keyword, branch: list[0] as SchemaNode } : undefined;
}

function combinatorOf(schema: Schema): Combinator {
  return (['oneOf', 'anyOf', 'allOf', 'not'] as const).find((k) => schema[k] !== undefined) ?? 'plain';
}

function combinedDescription(ctx: Context, writer: Schema, reader: Schema): Edit {
  const [o, n] = ctx.forward ? [reader, writer] : [writer, reader];
  const from = combinatorOf(o);
  const to = combinatorOf(n);
  return {
    code: from !== to ? combinedTypeChanged(from, to) : to === 'plain' ? 'schema_rearranged' : `${keywordCode(to)}_rearranged`,
    detail: `${from === to ? `${from} branches rearranged` : `${from} → ${to}`}; the ${ctx.forward ? 'old' : 'new'} schema still accepts every value of the ${ctx.forward ? 'new' : 'old'} one`,
  };
}

/** `a ∧ b` as one schema, when that can be written without `allOf`; undefined when not. */
function conjoin(a: SchemaNode, b: SchemaNode): SchemaNode | undefined {
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
function flatten(side: Side, schema: Schema): SchemaNode {
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
function disjoint(side: Side, x: SchemaNode, y: SchemaNode): boolean {
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

function branchesOf(schema: Schema, keyword: 'anyOf' | 'oneOf' | 'allOf'): SchemaNode[] | undefined {
  return Array.isArray(schema[keyword]) ? (schema[keyword] as SchemaNode[]) : undefined;
}

function without(schema: Schema, ...keywords: string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !keywords.includes(k)));
}

/**
 * Does the reader accept every value of the writer, reasoning about combinators as sets?
 * True and false are decided; undefined leaves the verdict to the structural rules.
 */
function setCovers(ctx: Context, writerIn: SchemaNode, readerIn: SchemaNode, depth = 0): boolean | undefined {
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

/** The keyword-by-keyword comparison (the registry's structural rules). */
function compareKeywords(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of METADATA) {
    if (valueKey(writer[keyword]) !== valueKey(reader[keyword]) && (writer[keyword] !== undefined || reader[keyword] !== undefined)) {
      record(
        ctx,
        `${pointer}/${esc(keyword)}`,
        writer[keyword],
        reader[keyword],
        'info',
        () => ({
          code: `${keywordCode(keyword)}_changed`,
          detail: `${keyword} edited`,
        }),
        '',
        ctx.forward ? { before: reader[keyword], after: writer[keyword] } : { before: writer[keyword], after: reader[keyword] },
      );
    }
  }
  compareTypes(ctx, writer, reader, pointer);
  compareValues(ctx, writer, reader, pointer);

  bound(ctx, pointer, 'maxLength', writer['maxLength'], reader['maxLength'], 'lower', 'string');
  bound(ctx, pointer, 'minLength', writer['minLength'], reader['minLength'], 'higher', 'string');
  bound(ctx, pointer, 'maximum', writer['maximum'], reader['maximum'], 'lower', 'number');
  bound(ctx, pointer, 'minimum', writer['minimum'], reader['minimum'], 'higher', 'number');
  bound(ctx, pointer, 'exclusiveMaximum', writer['exclusiveMaximum'], reader['exclusiveMaximum'], 'lower', 'number');
  bound(ctx, pointer, 'exclusiveMinimum', writer['exclusiveMinimum'], reader['exclusiveMinimum'], 'higher', 'number');
  bound(ctx, pointer, 'maxItems', writer['maxItems'], reader['maxItems'], 'lower', 'array');
  bound(ctx, pointer, 'minItems', writer['minItems'], reader['minItems'], 'higher', 'array');
  bound(ctx, pointer, 'maxProperties', writer['maxProperties'], reader['maxProperties'], 'lower', 'object');
  bound(ctx, pointer, 'minProperties', writer['minProperties'], reader['minProperties'], 'higher', 'object');
  bound(ctx, pointer, 'maxContains', writer['maxContains'], reader['maxContains'], 'lower', 'array');
  bound(ctx, pointer, 'minContains', writer['minContains'], reader['minContains'], 'higher', 'array');
  for (const keyword of TEXT_KEYWORDS) {
    if (writer[keyword] === reader[keyword]) continue;
    const breaking = reader[keyword] !== undefined;
    record(
      ctx,
      `${pointer}/${keyword}`,
      writer[keyword],
      reader[keyword],
      breaking ? 'breaking' : 'compatible',
      (o, n) =>
        n === undefined
          ? { code: `${keywordCode(keyword)}_removed`, detail: `${keyword} ${String(o)} removed` }
          : {
              code: o === undefined ? `${keywordCode(keyword)}_added` : `${keywordCode(keyword)}_changed`,
              detail: `${keyword} ${String(o ?? '(none)')} → ${String(n)}`,
            },
      fix(
        ctx,
        writer[keyword] === undefined
          ? `drop the ${keyword}: strings valid before may not match it`
          : `keep ${keyword} ${String(writer[keyword])}: strings valid before may not match the new one`,
        `keep ${keyword} ${String(reader[keyword])}: consumers on the old contract check it`,
      ),
      ctx.forward ? { before: reader[keyword], after: writer[keyword] } : { before: writer[keyword], after: reader[keyword] },
    );
  }
  compareMultipleOf(ctx, writer, reader, pointer);
  if (writer['uniqueItems'] !== true && reader['uniqueItems'] === true)
    record(
      ctx,
      `${pointer}/uniqueItems`,
      writer,
      reader,
      'breaking',
      (o) =>
        o['uniqueItems'] === true
          ? { code: `${keywordCode('uniqueItems')}_removed`, detail: 'uniqueItems removed: repeated items are allowed' }
          : { code: `${keywordCode('uniqueItems')}_added`, detail: 'array items must now be unique' },
      fix(
        ctx,
        'drop uniqueItems: arrays with repeated items were valid before',
        'keep uniqueItems: consumers on the old contract require unique items',
      ),
    );
  else if (writer['uniqueItems'] === true && reader['uniqueItems'] !== true)
    record(
      ctx,
      `${pointer}/uniqueItems`,
      writer,
      reader,
      'compatible',
      (o) =>
        o['uniqueItems'] === true
          ? { code: `${keywordCode('uniqueItems')}_removed`, detail: 'uniqueItems removed' }
          : { code: `${keywordCode('uniqueItems')}_added`, detail: 'array items must now be unique' },
      '',
    );

  compareArrays(ctx, writer, reader, pointer);
  compareObjects(ctx, writer, reader, pointer);
  compareCombinators(ctx, writer, reader, pointer);
  compareOthers(ctx, writer, reader, pointer);
}

function compareTypes(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const tw = types(writer);
  const tr = types(reader);
  if (tr === undefined && tw === undefined) return;
  const describe = (o: Schema, n: Schema): Edit => {
    const to = types(o);
    const tn = types(n);
    if (tn === undefined) return { code: 'type_removed', detail: `type ${[...to!].join('|')} no longer restricted` };
    if (to === undefined) return { code: 'type_added', detail: `type restricted to ${[...tn].join(', ')}` };
    const lost = [...to].filter((t) => !accepts(tn, t));
    const gained = [...tn].filter((t) => !accepts(to, t));
    const text = `type ${[...to].join('|')} → ${[...tn].join('|')}`;
    if (lost.length > 0) {
      if (lost.every((t) => t === 'number') && tn.has('integer')) return { code: 'type_narrowed', detail: text };
      if (gained.length > 0 && to.size === 1 && tn.size === 1) return { code: 'type_changed', detail: text };
      return { code: to.size > 1 || tn.size > 1 ? 'type_union_narrowed' : 'type_changed', detail: text };
    }
    return { code: 'type_widened', detail: text };
  };
  if (tr === undefined) {
    record(ctx, `${pointer}/type`, writer, reader, 'compatible', describe, '', typePair(ctx, writer, reader));
    return;
  }
  if (tw === undefined) {
    record(
      ctx,
      `${pointer}/type`,
      writer,
      reader,
      'breaking',
      describe,
      fix(ctx, 'drop the type: values of other types were valid before', 'keep the type: consumers on the old contract check it'),
      typePair(ctx, writer, reader),
    );
    return;
  }
  const lost = [...tw].filter((t) => !accepts(tr, t));
  const widened = [...tr].filter((t) => !accepts(tw, t)).length > 0 || (tw.has('integer') && !tr.has('integer') && tr.has('number'));
  if (lost.length > 0)
    record(
      ctx,
      `${pointer}/type`,
      writer,
      reader,
      'breaking',
      describe,
      fix(
        ctx,
        `keep accepting ${lost.join(', ')} (keep the type ${[...tw].join('|')}, or a wider one)`,
        `keep the type ${[...tr].join('|')}: consumers on the old contract accept only that (use another type in a new message type)`,
      ),
      typePair(ctx, writer, reader),
    );
  else if (widened) record(ctx, `${pointer}/type`, writer, reader, 'compatible', describe, '', typePair(ctx, writer, reader));
}

function typePair(ctx: Context, writer: Schema, reader: Schema): { before?: unknown; after?: unknown } {
  return ctx.forward ? { before: reader['type'], after: writer['type'] } : { before: writer['type'], after: reader['type'] };
}

function compareValues(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const allowed = (s: Schema): unknown[] | undefined =>
    'const' in s ? [s['const']] : Array.isArray(s['enum']) ? (s['enum'] as unknown[]) : undefined;
  const vw = allowed(writer);
  const vr = allowed(reader);
  if (vw === undefined && vr === undefined) return;
  if (vw !== undefined && vr !== undefined && valueKey(vw.map(valueKey).sort()) === valueKey(vr.map(valueKey).sort())) return;
  const keyword = (s: Schema): 'const' | 'enum' => ('const' in s ? 'const' : 'enum');
  const at = `${pointer}/${keyword(reader)}`;
  if (vr === undefined) {
    record(
      ctx,
      `${pointer}/${keyword(writer)}`,
      writer,
      reader,
      'compatible',
      (o, n) =>
        allowed(n) === undefined
          ? { code: `${keywordCode(keyword(o))}_removed`, detail: `${keyword(o)} removed: any value of the type is allowed` }
          : { code: `${keywordCode(keyword(n))}_added`, detail: `values restricted to ${allowed(n)!.map(valueKey).join(', ')}` },
      '',
    );
    return;
  }
  if (vw === undefined) {
    record(
      ctx,
      at,
      writer,
      reader,
      'breaking',
      (o, n) =>
        allowed(n) === undefined
          ? { code: `${keywordCode(keyword(o))}_removed`, detail: `${keyword(o)} removed: any value of the type is allowed` }
          : { code: `${keywordCode(keyword(n))}_added`, detail: `values restricted to ${allowed(n)!.map(valueKey).join(', ')}` },
      fix(
        ctx,
        `drop the ${keyword(reader)}: values outside it were valid before`,
        `keep the ${keyword(reader)} ${vr.map(valueKey).join(', ')}: consumers on the old contract accept only those`,
      ),
      { after: vr },
    );
    return;
  }
  const readerKeys = new Set(vr.map(valueKey));
  const writerKeys = new Set(vw.map(valueKey));
  const unread = vw.filter((v) => !readerKeys.has(valueKey(v)));
  const extra = vr.filter((v) => !writerKeys.has(valueKey(v)));
  const isConst = 'const' in writer && 'const' in reader;
  if (isConst) {
    record(
      ctx,
      `${pointer}/const`,
      writer,
      reader,
      'breaking',
      (o, n) => ({ code: 'const_changed', detail: `const ${valueKey(o['const'])} → ${valueKey(n['const'])}` }),
      fix(
        ctx,
        `keep the const ${valueKey(writer['const'])} (use the new value in a new message type)`,
        `keep the const ${valueKey(reader['const'])} (use the new value in a new message type)`,
      ),
      ctx.forward ? { before: reader['const'], after: writer['const'] } : { before: writer['const'], after: reader['const'] },
    );
    return;
  }
  // The values the old side allowed that the new one does not (removed), and the new ones (added).
  const [removed, added] = ctx.forward ? [extra, unread] : [unread, extra];
  if (unread.length > 0)
    record(
      ctx,
      `${pointer}/enum`,
      writer,
      reader,
      'breaking',
      (o) =>
        o !== writer
          ? {
              code: 'enum_value_added',
              detail: `enum gained ${added.map(valueKey).join(', ')}: consumers on the old contract reject messages with ${added.length === 1 ? 'it' : 'them'}`,
            }
          : { code: 'enum_value_removed', detail: `enum lost ${removed.map(valueKey).join(', ')}` },
      fix(
        ctx,
        `keep ${removed.map(valueKey).join(', ')} in the enum (mark ${removed.length === 1 ? 'it' : 'them'} deprecated in the description)`,
        `keep ${added.map(valueKey).join(', ')} out of the enum: consumers on the old contract reject ${added.length === 1 ? 'it' : 'them'} (send ${added.length === 1 ? 'it' : 'them'} in a new message type)`,
      ),
      ctx.forward ? { after: added } : { before: removed },
    );
  if (extra.length > 0)
    record(
      ctx,
      `${pointer}/enum`,
      writer,
      reader,
      'compatible',
      (o) =>
        o !== writer
          ? {
              code: 'enum_value_removed',
              detail: `enum lost ${removed.map(valueKey).join(', ')}: new messages no longer carry ${removed.length === 1 ? 'it' : 'them'}`,
            }
          : { code: 'enum_value_added', detail: `enum gained ${added.map(valueKey).join(', ')}` },
      '',
      ctx.forward ? { before: removed } : { after: added },
    );
}

function compareMultipleOf(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const mw = writer['multipleOf'];
  const mr = reader['multipleOf'];
  if (mw === mr || (typeof mw !== 'number' && typeof mr !== 'number')) return;
  const divides = (big: number, small: number): boolean => Math.abs(big / small - Math.round(big / small)) < 1e-9;
  const ok = typeof mr !== 'number' || (typeof mw === 'number' && divides(mw, mr));
  record(
    ctx,
    `${pointer}/multipleOf`,
    mw,
    mr,
    ok ? 'compatible' : 'breaking',
    (o, n) => {
      const code = keywordCode('multipleOf');
      if (typeof n !== 'number') return { code: `${code}_removed`, detail: 'multipleOf removed' };
      if (typeof o !== 'number') return { code: `${code}_added`, detail: `multipleOf ${n} added` };
      return {
        code: divides(o, n) ? `${code}_reduced` : divides(n, o) ? `${code}_expanded` : `${code}_changed`,
        detail: `multipleOf ${o} → ${n}`,
      };
    },
    fix(
      ctx,
      typeof mw === 'number' ? `keep multipleOf ${mw}, or a divisor of it` : 'drop multipleOf: any number was valid before',
      `keep multipleOf ${String(mr)}, or a multiple of it: consumers on the old contract check it`,
    ),
    ctx.forward ? { before: mr, after: mw } : { before: mw, after: mr },
  );
}

function compareArrays(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = Array.isArray(writer['prefixItems']) ? (writer['prefixItems'] as SchemaNode[]) : [];
  const pr = Array.isArray(reader['prefixItems']) ? (reader['prefixItems'] as SchemaNode[]) : [];
  const rest = (s: Schema): SchemaNode =>
    (s['items'] as SchemaNode | undefined) ?? (s['unevaluatedItems'] as SchemaNode | undefined) ?? true;
  const restW = rest(writer);
  const restR = rest(reader);
  const length = Math.max(pw.length, pr.length);
  for (let i = 0; i < length; i++) {
    const itemW = pw[i] ?? restW;
    const itemR = pr[i] ?? restR;
    const p = `${pointer}/prefixItems/${i}`;
    if (pw[i] !== undefined && pr[i] !== undefined) {
      compareSchema(ctx, itemW, itemR, p);
      continue;
    }
    // An item on one side only: judged by the rest (items) of the side that lacks it.
    const writerHas = pw[i] !== undefined;
    const ok = covers(ctx, itemW, itemR);
    const lacking = writerHas ? restR : restW;
    const kind = lacking === false ? 'closed' : isEmpty(lacking) ? 'open' : 'partial';
    record(
      ctx,
      p,
      writerHas,
      !writerHas,
      ok ? 'compatible' : 'breaking',
      (oldHas) => {
        const change = oldHas ? 'removed' : 'added';
        const covered = ok ? 'is_covered_by' : 'not_covered_by';
        return {
          code:
            kind === 'partial'
              ? `item_${change}_${covered}_partially_open_model`
              : oldHas
                ? `item_removed_from_${kind}_model`
                : `item_added_to_${kind}_model`,
          detail: `tuple item ${i} ${change}${ok ? '' : `; the ${kind === 'closed' ? 'closed tuple' : 'rest of the tuple'} does not accept its values`}`,
        };
      },
      fix(
        ctx,
        "keep the tuple as it was, or let the rest of the tuple accept the item's values",
        'keep the tuple as it was: consumers on the old contract check it',
        'step',
      ),
      { legacy: 'schema_restricted' },
    );
  }
  if ('items' in writer || 'items' in reader) {
    if (writer['items'] !== undefined && reader['items'] !== undefined) compareSchema(ctx, restW, restR, `${pointer}/items`);
    else if (reader['items'] !== undefined && writer['items'] === undefined) {
      if (!covers(ctx, restW, restR))
        record(
          ctx,
          `${pointer}/items`,
          writer,
          reader,
          'breaking',
          (o) =>
            o['items'] === undefined
              ? { code: 'items_added', detail: 'array items gained a schema' }
              : { code: 'items_removed', detail: 'array items lost their schema' },
          fix(
            ctx,
            'drop the item schema: items valid before may not match it',
            'keep the item schema: consumers on the old contract check it',
          ),
          { legacy: 'schema_restricted' },
        );
    } else if (!isEmpty(restW))
      record(
        ctx,
        `${pointer}/items`,
        writer,
        reader,
        covers(ctx, restW, restR) ? 'compatible' : 'breaking',
        (o) =>
          o['items'] === undefined
            ? { code: 'items_added', detail: 'array items gained a schema' }
            : { code: 'items_removed', detail: 'array items lost their schema' },
        fix(ctx, 'keep the item schema', 'keep the item schema: consumers on the old contract check it'),
      );
  }
  if (writer['unevaluatedItems'] !== undefined || reader['unevaluatedItems'] !== undefined) {
    if (
      writer['items'] === undefined &&
      reader['items'] === undefined &&
      writer['unevaluatedItems'] !== undefined &&
      reader['unevaluatedItems'] !== undefined
    )
      compareSchema(ctx, writer['unevaluatedItems'] as SchemaNode, reader['unevaluatedItems'] as SchemaNode, `${pointer}/unevaluatedItems`);
  }
  // contains: each array the writer produces must have an item the reader's `contains` accepts.
  const cw = writer['contains'] as SchemaNode | undefined;
  const cr = reader['contains'] as SchemaNode | undefined;
  if (cw !== undefined || cr !== undefined) {
    if (cr === undefined)
      record(
        ctx,
        `${pointer}/contains`,
        cw,
        cr,
        'compatible',
        (o) =>
          o === undefined ? { code: 'contains_added', detail: 'contains added' } : { code: 'contains_removed', detail: 'contains removed' },
        '',
      );
    else if (cw === undefined)
      record(
        ctx,
        `${pointer}/contains`,
        cw,
        cr,
        'breaking',
        (o) =>
          o === undefined
            ? { code: 'contains_added', detail: 'arrays must now contain a matching item' }
            : { code: 'contains_removed', detail: 'contains removed' },
        fix(
          ctx,
          'drop contains: arrays valid before may have no such item',
          'keep contains: consumers on the old contract require a matching item',
        ),
      );
    else compareSchema(ctx, cw, cr, `${pointer}/contains`);
  }
}

function propertiesOf(schema: Schema): Record<string, SchemaNode> {
  return isObject(schema['properties']) ? (schema['properties'] as Record<string, SchemaNode>) : {};
}

function requiredOf(schema: Schema): Set<string> {
  return new Set(
    Array.isArray(schema['required']) ? (schema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : [],
  );
}

const MODEL_WORDS: Record<ContentModel, string> = { open: 'open', closed: 'closed', partial: 'partially open' };

/** The code of a property removed from `neu` (judged by the new content model), as earlier versions named it. */
function removedCode(name: string, old: Schema, neu: Schema, covered: boolean): Edit {
  const model = contentModel(neu);
  const wasRequired = requiredOf(old).has(name);
  const label = `${wasRequired ? 'required ' : ''}property ${name}`;
  if (propertiesOf(old)[name] === false)
    return { code: 'property_with_false_removed', detail: `property ${name} (which was forbidden) removed` };
  if (model === 'partial') {
    const ok = covered;
    return {
      code: ok ? 'property_removed_is_covered_by_partially_open_model' : 'property_removed_not_covered_by_partially_open_model',
      detail: `${label} removed; the catch-all schema ${ok ? 'accepts' : 'does not accept'} its old values`,
    };
  }
  return {
    code: `property_removed_from_${model}_model`,
    detail: `${label} removed from a${model === 'open' ? 'n open' : ' closed'} object`,
  };
}

/** The code of a property added in `neu` (judged by the old content model), as earlier versions named it. */
function addedCode(name: string, old: Schema, neu: Schema, covered: boolean): Edit {
  const schema = propertiesOf(neu)[name]!;
  const required = requiredOf(neu).has(name);
  const hasDefault = isObject(schema) && 'default' in schema;
  const model = contentModel(old);
  if (required)
    return {
      code: hasDefault ? 'required_property_with_default_added' : 'required_property_added',
      detail: `new required property ${name}${hasDefault ? ' (with a default)' : ''}`,
    };
  if (isEmpty(schema)) return { code: 'property_with_empty_schema_added', detail: `property ${name} added, accepting anything` };
  if (model === 'open')
    return { code: 'optional_property_added_to_open_model', detail: `optional property ${name} added to an open object` };
  if (model === 'closed')
    return { code: 'optional_property_added_to_closed_model', detail: `optional property ${name} added to a closed object` };
  return {
    code: covered ? 'property_added_is_covered_by_partially_open_model' : 'property_added_not_covered_by_partially_open_model',
    detail: `property ${name} added; it ${covered ? 'accepts' : 'does not accept'} what the catch-all accepted`,
  };
}

function compareObjects(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = propertiesOf(writer);
  const pr = propertiesOf(reader);
  const rw = requiredOf(writer);
  const rr = requiredOf(reader);
  const [old, neu] = ctx.forward ? [reader, writer] : [writer, reader];
  const lenient = ctx.policy === 'lenient';
  for (const [name, schema] of Object.entries(pw)) {
    const p = `${pointer}/properties/${esc(name)}`;
    if (Object.hasOwn(pr, name)) {
      compareSchema(ctx, schema, pr[name]!, p);
      continue;
    }
    // The writer declares it, the reader does not: read through the reader's catch-all.
    const model = contentModel(reader);
    const open = undeclared(reader, name);
    const covered = schema === false || isEmpty(open) || covers(ctx, schema, open);
    // Lenient softens nothing here: keiyaku's decoders reject undeclared fields of a closed object.
    const breaking = !covered;
    const describe = (o: Schema, n: Schema): Edit =>
      Object.hasOwn(propertiesOf(n), name) ? addedCode(name, o, n, covered) : removedCode(name, o, n, covered);
    record(
      ctx,
      p,
      writer,
      reader,
      breaking ? 'breaking' : 'compatible',
      describe,
      fix(
        ctx,
        model === 'closed' && matchingPatterns(reader, name).length === 0
          ? `open the object (drop additionalProperties: false) as you remove ${name}, or keep ${name} (mark it deprecated)`
          : `keep ${name}, or let ${matchingPatterns(reader, name).length > 0 ? 'the patternProperties schema its name matches' : 'additionalProperties'} accept its values`,
        `keep ${name} out of the schema: consumers on the old contract reject it (${MODEL_WORDS[model]} object)`,
        'step',
      ),
      ctx.forward ? { after: schema } : { before: schema },
    );
  }
  for (const [name, schema] of Object.entries(pr)) {
    if (Object.hasOwn(pw, name)) continue;
    const p = `${pointer}/properties/${esc(name)}`;
    // The reader declares it, the writer does not: what the writer produced under that name (if anything) must be read.
    const required = rr.has(name);
    const hasDefault = isObject(schema) && 'default' in schema;
    const model = contentModel(writer);
    const produced = undeclared(writer, name);
    const covered = produced === false || isEmpty(schema) || covers(ctx, produced, schema);
    let ok: boolean;
    if (required) ok = hasDefault && (model !== 'open' || lenient);
    else if (covered) ok = true;
    else if (model === 'closed') ok = true;
    else ok = lenient; // an undeclared property of the writer is ignorable under the lenient policy
    const describe = (o: Schema, n: Schema): Edit =>
      Object.hasOwn(propertiesOf(n), name) ? addedCode(name, o, n, covered) : removedCode(name, o, n, covered);
    const edit = describe(old, neu);
    // A required property added (backward) passes with a default when undeclared properties cannot
    // clash with it (a closed object, or lenient); in a strict open object nothing but keeping it out does.
    const defaultPasses = model !== 'open' || lenient;
    const hint = required
      ? fix(
          ctx,
          defaultPasses
            ? `give ${name} a default (readers fill it in), or make it optional`
            : `keep ${name} out of the schema (strict: old messages may carry it with another shape; add it in a new message type)`,
          `keep ${name}, and keep it required: consumers on the old contract reject messages without it (making it optional is the same break)`,
          defaultPasses ? 'step' : 'keep',
        )
      : fix(
          ctx,
          `let ${name} accept every value the object allowed before (the empty schema), or use the lenient policy`,
          `keep ${name} in the schema: consumers on the old contract check it`,
          'step',
        );
    const detail =
      required && !ok
        ? `${edit.detail}: ${ctx.forward ? 'consumers on the old contract reject messages' : 'consumers on the new contract reject messages written under the old one'} without \`${name}\``
        : edit.detail;
    record(
      ctx,
      p,
      writer,
      reader,
      ok ? 'compatible' : 'breaking',
      (o, n) => {
        const e = describe(o, n);
        return e.code === edit.code ? { code: e.code, detail } : e;
      },
      hint,
      ctx.forward ? { before: schema } : { after: schema },
    );
  }
  for (const name of rr) {
    // Newly required (a property the reader alone declares is judged above, as an added property).
    if (rw.has(name) || (Object.hasOwn(pr, name) && !Object.hasOwn(pw, name))) continue;
    const schema = pr[name];
    const hasDefault = isObject(schema) && 'default' in schema;
    record(
      ctx,
      `${pointer}/required`,
      writer,
      reader,
      hasDefault ? 'compatible' : 'breaking',
      (o, n) =>
        requiredOf(n).has(name) && !requiredOf(o).has(name)
          ? { code: hasDefault ? 'required_attribute_with_default_added' : 'required_attribute_added', detail: `${name} is now required` }
          : {
              code: 'required_attribute_removed',
              detail: `${name} is no longer required${ctx.forward ? `: consumers on the old contract reject messages without \`${name}\`` : ''}`,
            },
      fix(
        ctx,
        `give ${name} a default (readers fill it in), or keep it optional: old values may lack it`,
        `keep ${name} required: consumers on the old contract reject messages without it`,
        'step',
      ),
      ctx.forward ? { before: name } : { after: name },
    );
  }
  for (const name of rw) {
    if (rr.has(name) || !Object.hasOwn(pr, name) || !Object.hasOwn(pw, name)) continue;
    record(
      ctx,
      `${pointer}/required`,
      writer,
      reader,
      'compatible',
      (o, n) =>
        requiredOf(o).has(name) && !requiredOf(n).has(name)
          ? { code: 'required_attribute_removed', detail: `${name} is no longer required` }
          : { code: 'required_attribute_added', detail: `${name} is now required` },
      '',
      ctx.forward ? { after: name } : { before: name },
    );
  }
  compareCatchAll(ctx, writer, reader, pointer);
  comparePatterns(ctx, writer, reader, pointer);
  compareDependencies(ctx, writer, reader, pointer);
}

/** additionalProperties / unevaluatedProperties / patternProperties of an object. */
function compareCatchAll(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const mw = contentModel(writer);
  const mr = contentModel(reader);
  const lenient = ctx.policy === 'lenient';
  const keyword = (s: Schema): string =>
    s['additionalProperties'] === undefined && s['unevaluatedProperties'] !== undefined ? 'unevaluatedProperties' : 'additionalProperties';
  // additionalProperties and unevaluatedProperties share codes and the pointer /additionalProperties (ids stay as they were).
  const p = `${pointer}/additionalProperties`;
  const name = (o: Schema, n: Schema): Edit => {
    const mo = contentModel(o);
    const mn = contentModel(n);
    const prefix = 'additional_properties';
    if (mo !== 'closed' && mn === 'closed')
      return { code: `${prefix}_removed`, detail: 'the object was closed: undeclared properties are now rejected' };
    if (mo === 'closed' && mn !== 'closed') return { code: `${prefix}_added`, detail: 'the object was opened' };
    if (mo === 'open' && mn === 'partial') return { code: `${prefix}_narrowed`, detail: 'undeclared properties must now match a schema' };
    if (mo === 'partial' && mn === 'open') return { code: `${prefix}_extended`, detail: 'undeclared properties are no longer constrained' };
    return { code: `${prefix}_changed`, detail: 'the schema of undeclared properties changed' };
  };
  if (mw === 'closed' && mr === 'closed') return;
  const catchW = writer['additionalProperties'] ?? writer['unevaluatedProperties'];
  const catchR = reader['additionalProperties'] ?? reader['unevaluatedProperties'];
  if (mw !== 'closed' && mr === 'closed') {
    // The writer may produce undeclared properties; the reader rejects them. keiyaku's decoders
    // really do, so lenient keeps this breaking when the writer is the other side (backward). A new
    // writer (forward) is this application's generated code, which sends declared properties only.
    const ok = lenient && ctx.forward && mw === 'open';
    record(
      ctx,
      p,
      writer,
      reader,
      ok ? 'compatible' : 'breaking',
      name,
      fix(ctx, 'keep additionalProperties open', 'keep the object closed: consumers on the old contract reject undeclared properties'),
    );
    return;
  }
  if (mw === 'closed' && mr !== 'closed') {
    record(ctx, p, writer, reader, 'compatible', name, '');
    return;
  }
  if (isObject(catchR) && !isEmpty(catchR)) {
    if (catchW === undefined || catchW === true || isEmpty(catchW as SchemaNode)) {
      const ok = lenient && ctx.forward;
      record(
        ctx,
        p,
        writer,
        reader,
        ok ? 'compatible' : 'breaking',
        name,
        fix(
          ctx,
          'keep additionalProperties open (no schema)',
          'keep the additionalProperties schema: consumers on the old contract check undeclared properties against it',
        ),
        { legacy: 'schema_restricted' },
      );
    } else compareSchema(ctx, catchW as SchemaNode, catchR, `${pointer}/${keyword(reader)}`);
  } else if (isObject(catchW) && !isEmpty(catchW) && mr === 'open') {
    record(ctx, p, writer, reader, 'compatible', name, '');
  }
}

/** patternProperties: a pattern on both sides is compared; on one side, judged by what the other side accepts there. */
function comparePatterns(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const mw = contentModel(writer);
  const mr = contentModel(reader);
  const lenient = ctx.policy === 'lenient';
  const catchW = writer['additionalProperties'] ?? writer['unevaluatedProperties'];
  const catchR = reader['additionalProperties'] ?? reader['unevaluatedProperties'];
  const patternsW = isObject(writer['patternProperties']) ? (writer['patternProperties'] as Record<string, SchemaNode>) : {};
  const patternsR = isObject(reader['patternProperties']) ? (reader['patternProperties'] as Record<string, SchemaNode>) : {};
  for (const [pattern, schema] of Object.entries(patternsW)) {
    const at = `${pointer}/patternProperties/${esc(pattern)}`;
    if (Object.hasOwn(patternsR, pattern)) compareSchema(ctx, schema, patternsR[pattern]!, at);
    else if (mr === 'closed' || (catchR !== undefined && catchR !== true && !covers(ctx, schema, catchR as SchemaNode)))
      record(
        ctx,
        at,
        writer,
        reader,
        'breaking',
        (_o, n) =>
          Object.hasOwn(isObject(n['patternProperties']) ? n['patternProperties'] : {}, pattern)
            ? { code: 'pattern_property_added', detail: `keys matching ${pattern} are constrained` }
            : { code: 'pattern_property_removed', detail: `keys matching ${pattern} are no longer allowed` },
        fix(ctx, 'keep the pattern', 'keep the pattern: consumers on the old contract check it'),
      );
  }
  for (const [pattern, schema] of Object.entries(patternsR)) {
    if (Object.hasOwn(patternsW, pattern)) continue;
    const produced = mw === 'closed' ? false : ((catchW as SchemaNode | undefined) ?? true);
    if (produced === false || covers(ctx, produced, schema)) continue;
    const ok = lenient && !(isObject(produced) && !isEmpty(produced));
    record(
      ctx,
      `${pointer}/patternProperties/${esc(pattern)}`,
      writer,
      reader,
      ok ? 'compatible' : 'breaking',
      (_o, n) =>
        Object.hasOwn(isObject(n['patternProperties']) ? n['patternProperties'] : {}, pattern)
          ? { code: 'pattern_property_added', detail: `keys matching ${pattern} are now constrained` }
          : { code: 'pattern_property_removed', detail: `keys matching ${pattern} are no longer constrained` },
      fix(
        ctx,
        `keep keys matching ${pattern} unconstrained (as before), or use the lenient policy`,
        'keep the pattern constraint: consumers on the old contract check it',
      ),
    );
  }
}

function compareDependencies(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const list = (s: Schema): Record<string, string[]> =>
    isObject(s['dependentRequired']) ? (s['dependentRequired'] as Record<string, string[]>) : {};
  const dw = list(writer);
  const dr = list(reader);
  for (const name of new Set([...Object.keys(dw), ...Object.keys(dr)])) {
    const fromW = new Set(Object.hasOwn(dw, name) ? dw[name] : []);
    const fromR = new Set(Object.hasOwn(dr, name) ? dr[name] : []);
    const demanded = [...fromR].filter((d) => !fromW.has(d));
    const dropped = [...fromW].filter((d) => !fromR.has(d));
    if (demanded.length === 0 && dropped.length === 0) continue;
    const at = `${pointer}/dependentRequired/${esc(name)}`;
    const describe = (o: Schema, n: Schema): Edit => {
      const lo = new Set(Object.hasOwn(list(o), name) ? list(o)[name] : []);
      const ln = new Set(Object.hasOwn(list(n), name) ? list(n)[name] : []);
      const add = [...ln].filter((d) => !lo.has(d));
      const rem = [...lo].filter((d) => !ln.has(d));
      if (add.length > 0 && rem.length === 0) return { code: 'dependent_required_added', detail: `${name} now requires ${add.join(', ')}` };
      if (rem.length > 0 && add.length === 0)
        return { code: 'dependent_required_removed', detail: `${name} no longer requires ${rem.join(', ')}` };
      return { code: 'dependent_required_changed', detail: `${name} requires ${[...ln].join(', ')} instead of ${[...lo].join(', ')}` };
    };
    record(
      ctx,
      at,
      writer,
      reader,
      demanded.length > 0 ? 'breaking' : 'compatible',
      describe,
      fix(
        ctx,
        'drop the new dependency: old values with the property but not its dependents are rejected',
        `keep ${name} requiring ${demanded.join(', ')}: consumers on the old contract require them`,
      ),
      { legacy: 'dependent_required_added' },
    );
  }
  const schemas = (s: Schema): Record<string, SchemaNode> =>
    isObject(s['dependentSchemas']) ? (s['dependentSchemas'] as Record<string, SchemaNode>) : {};
  const sw = schemas(writer);
  const sr = schemas(reader);
  for (const name of new Set([...Object.keys(sw), ...Object.keys(sr)])) {
    const at = `${pointer}/dependentSchemas/${esc(name)}`;
    const inW = Object.hasOwn(sw, name);
    const inR = Object.hasOwn(sr, name);
    if (inW && inR) {
      compareSchema(ctx, sw[name]!, sr[name]!, at);
      continue;
    }
    if (inR && isEmpty(sr[name]!)) continue;
    if (inW && !inR) {
      record(
        ctx,
        at,
        writer,
        reader,
        'compatible',
        (o) =>
          Object.hasOwn(schemas(o), name)
            ? { code: 'dependent_schema_removed', detail: `the schema that applied when ${name} is present was removed` }
            : { code: 'dependent_schema_added', detail: `a schema now applies when ${name} is present` },
        '',
      );
      continue;
    }
    // Only the reader constrains objects that carry `name`: judged by whether the writer already satisfies it.
    const ok = covers(ctx, writer, sr[name]!);
    record(
      ctx,
      at,
      writer,
      reader,
      ok ? 'compatible' : 'breaking',
      (o) =>
        Object.hasOwn(schemas(o), name)
          ? { code: 'dependent_schema_removed', detail: `the schema that applied when ${name} is present was removed` }
          : { code: 'dependent_schema_added', detail: `a schema now applies when ${name} is present` },
      fix(
        ctx,
        `drop the dependent schema of ${name}: old values carrying ${name} may not match it`,
        `keep the dependent schema of ${name}: consumers on the old contract check it`,
      ),
    );
  }
}

function compareCombinators(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const bw = branchesOf(writer, keyword);
    const br = branchesOf(reader, keyword);
    const other = keyword === 'oneOf' ? 'anyOf' : 'oneOf';
    if (bw === undefined && br === undefined) continue;
    const p = `${pointer}/${keyword}`;
    // A union only the writer has is matched against the reader's other union, or judged as union → plain below.
    if (br === undefined) continue;
    const writerBranches = bw ?? branchesOf(writer, other);
    if (writerBranches === undefined) {
      // Plain → union: compatible when one branch accepts every value of the plain schema (the rest is set reasoning).
      const own = without(writer, 'allOf', 'not');
      const j = br.findIndex((branch) => covers(ctx, own, branch));
      if (j !== -1) {
        record(
          ctx,
          `${p}/${j}`,
          writer,
          reader,
          'compatible',
          (o) =>
            o[keyword] === undefined
              ? { code: 'sum_type_extended', detail: `the schema became a ${keyword} whose branch ${j} accepts every old value` }
              : { code: 'sum_type_narrowed', detail: `${keyword} replaced by its branch ${j}` },
          '',
        );
        continue;
      }
      record(
        ctx,
        p,
        writer,
        reader,
        'breaking',
        (o) =>
          o[keyword] === undefined
            ? { code: `${keywordCode(keyword)}_added`, detail: `${keyword} added: values must now match one of ${br.length} branches` }
            : { code: `${keywordCode(keyword)}_removed`, detail: `${keyword} replaced by a schema that does not accept all its branches` },
        fix(
          ctx,
          `keep the schema as it was, without the ${keyword}: values valid before may match no branch (or give it a branch that accepts every old value)`,
          `keep the schema as it was: consumers on the old contract accept only the old branches`,
        ),
      );
      continue;
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
          'breaking',
          (o) =>
            o['oneOf'] !== undefined
              ? { code: 'combined_type_changed', detail: 'oneOf → anyOf' }
              : { code: 'combined_type_changed', detail: 'anyOf → oneOf: a value that matches two branches is now rejected' },
          fix(
            ctx,
            'keep anyOf (or make the branches exclusive: a const discriminator, distinct types)',
            'keep oneOf: consumers on the old contract reject a value that matches two branches',
          ),
        );
        continue;
      }
    }
    if (fromKeyword !== keyword)
      record(
        ctx,
        p,
        writer,
        reader,
        'compatible',
        (o, n) => ({
          code: 'combined_type_changed',
          detail: `${o['anyOf'] !== undefined ? 'anyOf' : 'oneOf'} → ${n['anyOf'] !== undefined ? 'anyOf' : 'oneOf'}`,
        }),
        '',
      );
    // Match branches one-to-one (the registry's bipartite rule): each writer branch needs a reader branch that accepts all it accepted.
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
        'breaking',
        (o) =>
          o !== writer
            ? {
                code: `${keywordCode(keyword)}_branch_added`,
                detail: `${keyword} gained branch ${i}, which consumers on the old contract do not accept`,
              }
            : {
                code: `${keywordCode(keyword)}_branch_removed_or_narrowed`,
                detail: `${keyword} branch ${i} has no counterpart that accepts all its values`,
              },
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
        'compatible',
        (o) =>
          o !== writer
            ? {
                code: `${keywordCode(keyword)}_branch_removed_or_narrowed`,
                detail: `${keyword} lost branch ${j}: new messages no longer use it`,
              }
            : { code: `${keywordCode(keyword)}_branch_added`, detail: `${keyword} gained branch ${j}` },
        '',
        ctx.forward ? { before: br[j] } : { after: br[j] },
      );
  }
  if (branchesOf(writer, 'oneOf') === undefined && branchesOf(writer, 'anyOf') === undefined) {
    // nothing more: a union only on the reader side was handled above
  } else if (branchesOf(reader, 'oneOf') === undefined && branchesOf(reader, 'anyOf') === undefined) {
    // Union → plain: every branch must be accepted by the plain schema.
    const keyword = branchesOf(writer, 'oneOf') !== undefined ? 'oneOf' : 'anyOf';
    const branches = branchesOf(writer, keyword)!;
    const own = without(reader, 'allOf', 'not');
    const unread = branches.findIndex((b) => !covers(ctx, b, own));
    record(
      ctx,
      `${pointer}/${keyword}`,
      writer,
      reader,
      unread === -1 ? 'compatible' : 'breaking',
      (o) =>
        o[keyword] !== undefined
          ? {
              code: `${keywordCode(keyword)}_removed`,
              detail: `${keyword} removed${unread === -1 ? '; the schema accepts every branch' : `; branch ${unread} is no longer accepted`}`,
            }
          : { code: `${keywordCode(keyword)}_added`, detail: `${keyword} added` },
      fix(
        ctx,
        `keep the schema as it was, a ${keyword}: the new schema does not accept every value of branch ${unread}`,
        'keep the schema as it was: consumers on the old contract accept only the old schema',
      ),
    );
  }
  compareAllOf(ctx, writer, reader, pointer);
  compareNot(ctx, writer, reader, pointer);
}

function compareAllOf(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
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
      'breaking',
      (o) =>
        o !== writer
          ? {
              code: `${keywordCode('allOf')}_branch_removed`,
              detail: `allOf lost branch ${j}, which consumers on the old contract still check`,
            }
          : { code: `${keywordCode('allOf')}_branch_added_or_narrowed`, detail: `allOf gained a constraint (branch ${j})` },
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
      'compatible',
      (o) =>
        o !== writer
          ? { code: `${keywordCode('allOf')}_branch_added_or_narrowed`, detail: `allOf gained branch ${i}` }
          : { code: `${keywordCode('allOf')}_branch_removed`, detail: `allOf lost branch ${i}` },
      '',
    );
}

function compareNot(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const nw = writer['not'] as SchemaNode | undefined;
  const nr = reader['not'] as SchemaNode | undefined;
  if (nw === undefined && nr === undefined) return;
  if (nw !== undefined && nr !== undefined && valueKey(nw) === valueKey(nr)) return;
  const describe = (o: Schema, n: Schema): Edit => {
    if (n['not'] === undefined) return { code: 'not_removed', detail: '`not` removed' };
    if (o['not'] === undefined) return { code: 'not_added', detail: '`not` added: values it matches are now excluded' };
    return { code: 'not_changed', detail: '`not` changed' };
  };
  // The reader excludes what its `not` matches: fine when the writer excludes at least that (reader's not ⊆ writer's not).
  let ok: boolean;
  if (nr === undefined) ok = true;
  else if (nw === undefined) ok = disjoint(ctx.reader, nr, writer);
  else
    ok = probe(ctx, (p) =>
      compareSchema({ ...p, writer: ctx.reader, reader: ctx.writer, forward: !ctx.forward }, nr, nw, `${pointer}/not`),
    );
  record(
    ctx,
    `${pointer}/not`,
    writer,
    reader,
    ok ? 'compatible' : 'breaking',
    (o, n) => {
      const e = describe(o, n);
      return e.code === 'not_changed'
        ? { code: ok ? 'not_type_narrowed' : 'not_type_extended', detail: ok ? '`not` now excludes less' : '`not` now excludes more' }
        : e;
    },
    fix(
      ctx,
      'keep the old `not`: values valid before may now be excluded',
      'keep the old `not`: consumers on the old contract exclude more values',
    ),
    {
      ...(ctx.forward ? { before: nr, after: nw } : { before: nw, after: nr }),
      ...(nw !== undefined && nr !== undefined ? { legacy: 'not_changed' } : {}),
    },
  );
}

/** Keywords without a finer rule: a change (or an addition) is breaking, a removal compatible. */
function compareOthers(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of OTHER_KEYWORDS) {
    const vw = writer[keyword];
    const vr = reader[keyword];
    if (valueKey(vw) === valueKey(vr)) continue;
    if (keyword === 'propertyNames' && vw !== undefined && vr !== undefined) {
      compareSchema(ctx, vw as SchemaNode, vr as SchemaNode, `${pointer}/propertyNames`);
      continue;
    }
    const ok = vr === undefined || (isEmpty(vr as SchemaNode) && keyword !== 'else');
    record(
      ctx,
      `${pointer}/${keyword}`,
      writer,
      reader,
      ok ? 'compatible' : 'breaking',
      (o, n) =>
        n[keyword] === undefined
          ? { code: `${keywordCode(keyword)}_removed`, detail: `${keyword} removed` }
          : o[keyword] === undefined
            ? { code: `${keywordCode(keyword)}_added`, detail: `${keyword} added` }
            : { code: `${keywordCode(keyword)}_changed`, detail: `${keyword} changed` },
      fix(
        ctx,
        `keep ${keyword} as it was: values valid before may fail the new one`,
        `keep ${keyword} as it was: consumers on the old contract check it`,
      ),
    );
  }
}

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
  const ctx: Context = { ...s, policy, forward: direction === 'forward', seen: new Set(), out: [] };
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
  const ctx: Context = { ...s, policy, forward: direction === 'forward', seen: new Set(), out: [] };
  const [w, r] = direction === 'backward' ? [beforeNode, afterNode] : [afterNode, beforeNode];
  compareSchema(ctx, w, r, '');
  return ctx.out;
}

/** Per pair of models: which named schemas (before name → after name) are equal, references followed. */
const sameSchemas = new WeakMap<ContractModel, WeakMap<ContractModel, Map<string, boolean>>>();

/** Whether named schema `b` of `before` and `a` of `after` are equal, every schema they reference included. */
function sameNamedSchema(before: ContractModel, b: string, after: ContractModel, a: string): boolean {
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
