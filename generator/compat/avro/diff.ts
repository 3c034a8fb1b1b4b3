/**
 * The walk over two Avro schemas, old and new: each edit is named old → new (a field added, a
 * type promoted, a union branch removed) and judged for the reader of the direction — backward,
 * the new schema reads what the old one wrote; forward, the old schema reads what the new one
 * writes — by Avro's schema resolution (resolve.ts). Logical types, which resolution ignores,
 * are judged by what their values mean.
 */
import type { AvroCode } from '../codes.js';
import type { SchemaChange } from '../schema/context.js';
import { fieldFor, namesMatch, promotes, readable } from './resolve.js';
import { type AvroField, type AvroNode, branchKey, isNamed, type Logical, type NamedNode } from './schema.js';
import { type AvroFacts, avroDetail, avroHint } from './wording.js';

export interface Walk {
  /** True when the old schema is the reader (forward). */
  readonly forward: boolean;
  readonly out: SchemaChange[];
  /** Named types already compared: old node → new nodes. */
  readonly seen: Map<AvroNode, Set<AvroNode>>;
}

type Of<K extends AvroNode['kind']> = Extract<AvroNode, { readonly kind: K }>;

/** Logical types whose values are a part of their underlying type's: a reader of one rejects the rest. */
const NARROWING = new Set(['uuid', 'decimal']);

/** A type in words: `long`, `record com.example.Book`, `array<string>`, `[null, string]`. */
export function typeWords(node: AvroNode): string {
  switch (node.kind) {
    case 'primitive':
      return node.type;
    case 'array':
      return `array<${typeWords(node.items)}>`;
    case 'map':
      return `map<${typeWords(node.values)}>`;
    case 'union':
      return `[${node.branches.map(typeWords).join(', ')}]`;
    default:
      return `${node.kind} ${node.name}`;
  }
}

/** The (reader, writer) of a pair of old and new nodes in the walk's direction. */
function sides<T>(w: Walk, old: T, neu: T): { reader: T; writer: T } {
  return w.forward ? { reader: old, writer: neu } : { reader: neu, writer: old };
}

/** Records a finding: `accepted` is whether the reader still reads the writer's values here; `info` for edits that change no value. */
function emit(
  w: Walk,
  code: AvroCode,
  pointer: string,
  accepted: boolean | 'info',
  facts: AvroFacts,
  values: { before?: unknown; after?: unknown } = {},
): void {
  const severity = accepted === 'info' ? 'info' : accepted ? 'compatible' : 'breaking';
  const breaking = severity === 'breaking';
  w.out.push({
    code,
    severity,
    pointer,
    ...values,
    detail: avroDetail(code, facts, { forward: w.forward, breaking }),
    hint: breaking ? avroHint(code, facts, w.forward) : '',
  });
}

/** Compares the old node `o` with the new node `n` at `pointer`. */
export function compare(w: Walk, o: AvroNode, n: AvroNode, pointer: string): void {
  if (o.kind === 'union' && n.kind === 'union') unions(w, o, n, pointer);
  else if (o.kind === 'union' || n.kind === 'union') unionEdge(w, o, n, pointer);
  else if (o.kind !== n.kind) {
    const { reader, writer } = sides(w, o, n);
    const from = typeWords(o);
    const to = typeWords(n);
    emit(w, 'avro_type_changed', pointer, readable(reader, writer), { from, to }, { before: from, after: to });
  } else if (!isNamed(o) || firstVisit(w, o, n)) same(w, o, n, pointer);
}

/** Whether the pair of named types is met for the first time (a recursive or reused type is compared once). */
function firstVisit(w: Walk, o: AvroNode, n: AvroNode): boolean {
  const seen = w.seen.get(o) ?? new Set<AvroNode>();
  if (seen.has(n)) return false;
  w.seen.set(o, seen.add(n));
  return true;
}

/** Two nodes of the same kind. */
function same(w: Walk, o: AvroNode, n: AvroNode, pointer: string): void {
  if (isNamed(o)) named(w, o, n as NamedNode, pointer);
  switch (o.kind) {
    case 'primitive':
      primitives(w, o, n as Of<'primitive'>, pointer);
      break;
    case 'record':
      records(w, o, n as Of<'record'>, pointer);
      break;
    case 'enum':
      enums(w, o, n as Of<'enum'>, pointer);
      break;
    case 'fixed': {
      const m = n as Of<'fixed'>;
      if (o.size !== m.size)
        emit(
          w,
          'avro_fixed_size_changed',
          `${pointer}/size`,
          false,
          { name: m.name, from: o.size, to: m.size },
          { before: o.size, after: m.size },
        );
      logical(w, o.logical, m.logical, pointer);
      break;
    }
    case 'array':
      compare(w, o.items, (n as Of<'array'>).items, `${pointer}/items`);
      break;
    case 'map':
      compare(w, o.values, (n as Of<'map'>).values, `${pointer}/values`);
      break;
  }
}

/** A named type's name, aliases and doc. Its name is read by full name or by one of the reader's aliases. */
function named(w: Walk, o: NamedNode, n: NamedNode, pointer: string): void {
  if (o.name !== n.name) {
    const { reader, writer } = sides(w, o, n);
    const code = n.aliases.includes(o.name) ? 'avro_name_changed_with_alias' : 'avro_name_changed';
    emit(w, code, pointer, namesMatch(reader, writer), { kind: o.kind, from: o.name, to: n.name }, { before: o.name, after: n.name });
  } else if (o.aliases.join() !== n.aliases.join()) {
    emit(w, 'avro_aliases_changed', pointer, 'info', { from: o.aliases, to: n.aliases });
  }
  if (o.doc !== n.doc) emit(w, 'avro_doc_changed', pointer, 'info', {});
}

function primitives(w: Walk, o: Of<'primitive'>, n: Of<'primitive'>, pointer: string, accepted?: boolean): void {
  if (o.type !== n.type) {
    const { reader, writer } = sides(w, o, n);
    const code = promotes(o.type, n.type) ? 'avro_type_promoted' : promotes(n.type, o.type) ? 'avro_type_demoted' : 'avro_type_changed';
    emit(w, code, pointer, accepted ?? promotes(writer.type, reader.type), { from: o.type, to: n.type }, { before: o.type, after: n.type });
  }
  logical(w, o.logical, n.logical, pointer);
}

/**
 * Logical types. Resolution ignores them — the same bytes are read — so a change of one is
 * judged by meaning: another logical type (timestamp-millis → timestamp-micros, date → time-millis)
 * or another decimal scale reads the same bytes as other values, breaking both ways; one added or
 * removed changes no value, unless its values are a part of the underlying type's (uuid, decimal),
 * which its reader rejects the rest of.
 */
function logical(w: Walk, o: Logical | undefined, n: Logical | undefined, pointer: string): void {
  if (o === undefined && n === undefined) return;
  if (o === undefined || n === undefined) {
    const present = (o ?? n)!;
    const passes = !NARROWING.has(present.name) || w.forward === (o === undefined);
    if (o === undefined) emit(w, 'avro_logical_type_added', pointer, passes, { to: n!.name }, { after: n!.name });
    else emit(w, 'avro_logical_type_removed', pointer, passes, { from: o.name }, { before: o.name });
    return;
  }
  if (o.name !== n.name) {
    emit(w, 'avro_logical_type_changed', pointer, false, { from: o.name, to: n.name }, { before: o.name, after: n.name });
    return;
  }
  if (o.name !== 'decimal') return;
  if (o.scale !== n.scale)
    emit(w, 'avro_decimal_scale_changed', pointer, false, { from: o.scale, to: n.scale }, { before: o.scale, after: n.scale });
  if (o.precision !== n.precision) {
    const digits = (l: Logical): number => l.precision ?? Number.POSITIVE_INFINITY;
    const { reader, writer } = sides(w, o, n);
    const code = digits(n) > digits(o) ? 'avro_decimal_precision_widened' : 'avro_decimal_precision_narrowed';
    const facts = { from: o.precision, to: n.precision };
    emit(w, code, pointer, digits(reader) >= digits(writer), facts, { before: o.precision, after: n.precision });
  }
}

/** Old fields paired with new ones: by name, then through the aliases of either; the rest were added or removed. */
function pairFields(
  old: readonly AvroField[],
  neu: readonly AvroField[],
): { pairs: [AvroField, AvroField][]; added: AvroField[]; removed: AvroField[] } {
  const pairs: [AvroField, AvroField][] = [];
  const left = new Set(old);
  const unpaired: AvroField[] = [];
  const added: AvroField[] = [];
  const pair = (o: AvroField | undefined, n: AvroField, otherwise: AvroField[]): void => {
    if (o === undefined) otherwise.push(n);
    else {
      pairs.push([o, n]);
      left.delete(o);
    }
  };
  for (const n of neu)
    pair(
      old.find((o) => o.name === n.name),
      n,
      unpaired,
    );
  for (const n of unpaired)
    pair(
      [...left].find((o) => n.aliases.includes(o.name) || o.aliases.includes(n.name)),
      n,
      added,
    );
  return { pairs, added, removed: [...left] };
}

function records(w: Walk, o: Of<'record'>, n: Of<'record'>, pointer: string): void {
  const { pairs, added, removed } = pairFields(o.fields, n.fields);
  for (const [of, nf] of pairs) {
    const at = `${pointer}/fields/${nf.name}`;
    if (of.name !== nf.name) {
      const { reader, writer } = sides(w, of, nf);
      const code = nf.aliases.includes(of.name) ? 'avro_field_renamed_with_alias' : 'avro_field_renamed';
      const reads = fieldFor(reader, [writer]).length > 0 || reader.default !== undefined;
      emit(w, code, at, reads, { from: of.name, to: nf.name }, { before: of.name, after: nf.name });
    } else if (of.aliases.join() !== nf.aliases.join()) {
      emit(w, 'avro_aliases_changed', at, 'info', { from: of.aliases, to: nf.aliases });
    }
    if (of.doc !== nf.doc) emit(w, 'avro_doc_changed', at, 'info', {});
    defaults(w, of, nf, at);
    compare(w, of.type, nf.type, `${at}/type`);
  }
  // A reader field the writer lacks is filled with its default: without one the record is not read.
  for (const f of added) {
    const code = f.default === undefined ? 'avro_field_added_without_default' : 'avro_field_added_with_default';
    emit(w, code, `${pointer}/fields/${f.name}`, w.forward || f.default !== undefined, { name: f.name, to: f.default?.value });
  }
  for (const f of removed) {
    const code = f.default === undefined ? 'avro_field_removed_without_default' : 'avro_field_removed_with_default';
    emit(w, code, `${pointer}/fields/${f.name}`, !w.forward || f.default !== undefined, { name: f.name, from: f.default?.value });
  }
}

/** A field's default changes no value written; it is read only for writers that lack the field. */
function defaults(w: Walk, o: AvroField, n: AvroField, pointer: string): void {
  const before = o.default === undefined ? undefined : JSON.stringify(o.default.value);
  const after = n.default === undefined ? undefined : JSON.stringify(n.default.value);
  if (before === after) return;
  const facts = { name: n.name, from: o.default?.value, to: n.default?.value };
  const code =
    before === undefined ? 'avro_field_default_added' : after === undefined ? 'avro_field_default_removed' : 'avro_field_default_changed';
  emit(w, code, pointer, 'info', facts, { before: o.default?.value, after: n.default?.value });
}

/** Enum symbols are read by name; one the reader lacks is read as the reader's default, and without one the datum is not read. */
function enums(w: Walk, o: Of<'enum'>, n: Of<'enum'>, pointer: string): void {
  const { reader } = sides(w, o, n);
  const reads = (symbols: string[]): boolean => reader.default !== undefined || symbols.every((s) => reader.symbols.includes(s));
  const added = n.symbols.filter((s) => !o.symbols.includes(s));
  const removed = o.symbols.filter((s) => !n.symbols.includes(s));
  if (added.length > 0) emit(w, 'avro_enum_symbol_added', `${pointer}/symbols`, reads(added), { name: n.name, values: added });
  if (removed.length > 0) emit(w, 'avro_enum_symbol_removed', `${pointer}/symbols`, reads(removed), { name: n.name, values: removed });
  if (o.default === n.default) return;
  const code =
    o.default === undefined
      ? 'avro_enum_default_added'
      : n.default === undefined
        ? 'avro_enum_default_removed'
        : 'avro_enum_default_changed';
  emit(w, code, `${pointer}/default`, true, { name: n.name, from: o.default, to: n.default }, { before: o.default, after: n.default });
}

/**
 * Old union branches paired with new ones: the same type (by name for named types), then a named
 * type renamed through aliases, then primitives one promotes to the other.
 */
function pairBranches(
  old: readonly AvroNode[],
  neu: readonly AvroNode[],
): { pairs: [AvroNode, AvroNode][]; added: AvroNode[]; removed: AvroNode[] } {
  const pairs: [AvroNode, AvroNode][] = [];
  const left = new Set(old);
  const added = new Set(neu);
  const tests: ((o: AvroNode, n: AvroNode) => boolean)[] = [
    (o, n) => branchKey(o) === branchKey(n),
    (o, n) => isNamed(o) && isNamed(n) && o.kind === n.kind && (n.aliases.includes(o.name) || o.aliases.includes(n.name)),
    (o, n) => o.kind === 'primitive' && n.kind === 'primitive' && (promotes(o.type, n.type) || promotes(n.type, o.type)),
  ];
  for (const test of tests)
    for (const n of [...added]) {
      const o = [...left].find((b) => test(b, n));
      if (o === undefined) continue;
      pairs.push([o, n]);
      left.delete(o);
      added.delete(n);
    }
  return { pairs, added: [...added], removed: [...left] };
}

/** Unions: each writer branch must be read by a reader branch (the first that reads it). */
function unions(w: Walk, o: Of<'union'>, n: Of<'union'>, pointer: string): void {
  const { reader } = sides(w, o, n);
  const { pairs, added, removed } = pairBranches(o.branches, n.branches);
  for (const [ob, nb] of pairs) {
    const at = `${pointer}/${branchKey(nb)}`;
    // A promoted branch is read by whichever reader branch reads it, not only its counterpart.
    if (ob.kind === 'primitive' && nb.kind === 'primitive' && ob.type !== nb.type)
      primitives(w, ob, nb, at, readable(reader, w.forward ? nb : ob));
    else compare(w, ob, nb, at);
  }
  for (const b of added)
    emit(w, 'avro_union_branch_added', `${pointer}/${branchKey(b)}`, !w.forward || readable(reader, b), { values: [typeWords(b)] });
  for (const b of removed)
    emit(w, 'avro_union_branch_removed', `${pointer}/${branchKey(b)}`, w.forward || readable(reader, b), { values: [typeWords(b)] });
}

/** A type that became a union (containing it, or not), or a union that became one type. */
function unionEdge(w: Walk, o: AvroNode, n: AvroNode, pointer: string): void {
  const facts = { from: typeWords(o).replace(/^\[|\]$/g, ''), to: typeWords(n).replace(/^\[|\]$/g, '') };
  const values = { before: typeWords(o), after: typeWords(n) };
  if (n.kind === 'union') {
    const [pair] = pairBranches([o], n.branches).pairs;
    const others = n.branches.filter((b) => b !== pair?.[1]);
    // Forward, the old type reads every branch the new code may write; backward, one branch reads the old type.
    const reads = w.forward ? others.every((b) => readable(o, b)) : pair !== undefined || n.branches.some((b) => readable(b, o));
    emit(w, 'avro_type_became_union', pointer, reads, facts, values);
    if (pair !== undefined) compare(w, o, pair[1], `${pointer}/${branchKey(pair[1])}`);
    return;
  }
  const union = o as Of<'union'>;
  const [pair] = pairBranches(union.branches, [n]).pairs;
  const others = union.branches.filter((b) => b !== pair?.[0]);
  const reads = w.forward ? pair !== undefined || union.branches.some((b) => readable(b, n)) : others.every((b) => readable(n, b));
  emit(w, 'avro_union_became_type', pointer, reads, facts, values);
  if (pair !== undefined) compare(w, pair[0], n, pointer);
}
