/**
 * One field present on both sides (the same number): its name, type, cardinality, presence,
 * oneof, default and packing, each judged by what a reader of one side makes of the other's
 * bytes (and, under `wire-json`, of its JSON form).
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import type { Direction } from '../findings.js';
import { BOTH, type Ctx, edit, type Facts, NONE } from './context.js';
import { type FieldShape, fieldType, hasOwnJson, SCALARS, scalarReads, type ValueType } from './descriptors.js';

export function compareField(ctx: Ctx, o: FieldShape, n: FieldShape, pointer: string, oldMsg: DescMessage, newMsg: DescMessage): void {
  const name = n.field.name;
  if (o.field.name !== name) {
    edit(
      ctx,
      {
        code: 'protobuf_field_renamed',
        facts: { number: n.field.number, from: o.field.name, to: name },
        breaks: ctx.json ? BOTH : NONE,
        before: o.field.name,
        after: name,
        fix: `keep the name ${o.field.name}`,
      },
      pointer,
    );
  } else if (o.field.jsonName !== n.field.jsonName) {
    edit(
      ctx,
      {
        code: 'protobuf_field_json_name_changed',
        facts: { name, from: o.field.jsonName, to: n.field.jsonName },
        breaks: ctx.json ? BOTH : NONE,
        info: !ctx.json,
        before: o.field.jsonName,
        after: n.field.jsonName,
        fix: `keep the JSON name ${o.field.jsonName}`,
      },
      pointer,
    );
  }
  compareCardinality(ctx, o, n, pointer);
  comparePresence(ctx, o, n, pointer);
  compareOneof(ctx, o, n, pointer, oldMsg, newMsg);
  if (o.defaultValue !== n.defaultValue)
    edit(
      ctx,
      {
        code: 'protobuf_field_default_changed',
        facts: { name, from: o.defaultValue ?? '(none)', to: n.defaultValue ?? '(none)' },
        breaks: BOTH,
        before: o.defaultValue,
        after: n.defaultValue,
        fix: o.defaultValue === undefined ? 'drop the default' : `keep the default ${o.defaultValue}`,
      },
      pointer,
    );
  if (o.cardinality === 'repeated' && n.cardinality === 'repeated' && o.packed !== n.packed)
    edit(
      ctx,
      {
        code: 'protobuf_field_packing_changed',
        facts: { name, from: o.packed ? 'packed' : 'unpacked', to: n.packed ? 'packed' : 'unpacked' },
        breaks: NONE,
        info: true,
        fix: '',
      },
      pointer,
    );
}

/** Maps, lists and single values, then the type of one value. */
function compareCardinality(ctx: Ctx, o: FieldShape, n: FieldShape, pointer: string): void {
  const name = n.field.name;
  const from = fieldType(o);
  const to = fieldType(n);
  const keep = `keep it ${from} (a new field, under a new number, may be ${to})`;
  if ((o.cardinality === 'map') !== (n.cardinality === 'map')) {
    // A map is a list of entry messages on the wire, but not in JSON; keiyaku does not match entries to messages.
    edit(ctx, typeChange(ctx, { name, from, to, via: ctx.json ? 'json' : 'encoding' }, BOTH, keep), pointer);
    return;
  }
  if (o.cardinality !== n.cardinality) {
    const repeated = n.cardinality === 'repeated';
    // A list reader reads one value as a list of one; a single-value reader keeps the last of a list.
    const breaks: readonly Direction[] = ctx.json ? BOTH : repeated ? ['forward'] : ['backward'];
    edit(
      ctx,
      {
        code: repeated ? 'protobuf_field_made_repeated' : 'protobuf_field_made_singular',
        facts: { name, from, to, ...(ctx.json ? { via: 'json' } : {}) },
        breaks,
        before: from,
        after: to,
        fix: keep,
      },
      pointer,
    );
  }
  if (o.mapKey !== undefined && n.mapKey !== undefined && o.mapKey !== n.mapKey) {
    const k = scalarChange(ctx, o.mapKey, n.mapKey);
    edit(ctx, typeChange(ctx, { name, from, to, via: k.via }, k.breaks, keep, k.code), pointer);
  }
  compareValue(ctx, o.value, n.value, pointer, { name, from, to }, keep);
}

type TypeCode = 'protobuf_field_type_changed' | 'protobuf_field_type_widened' | 'protobuf_field_type_narrowed';

function typeChange(
  _ctx: Ctx,
  facts: Facts,
  breaks: readonly Direction[],
  fix: string,
  code: TypeCode = 'protobuf_field_type_changed',
): Parameters<typeof edit>[1] {
  return { code, facts, breaks, before: facts.from, after: facts.to, fix };
}

/** A scalar type change: which readers read every value of the other side, and why not. */
function scalarChange(
  ctx: Ctx,
  from: ScalarType,
  to: ScalarType,
): { code: TypeCode; breaks: readonly Direction[]; via: NonNullable<Facts['via']> } {
  if (ctx.json && SCALARS[from].json !== SCALARS[to].json) return { code: 'protobuf_field_type_changed', breaks: BOTH, via: 'json' };
  const backward = scalarReads(from, to);
  const forward = scalarReads(to, from);
  if (backward && !forward) return { code: 'protobuf_field_type_widened', breaks: ['forward'], via: 'values' };
  if (forward && !backward) return { code: 'protobuf_field_type_narrowed', breaks: ['backward'], via: 'values' };
  return { code: 'protobuf_field_type_changed', breaks: BOTH, via: SCALARS[from].wire === SCALARS[to].wire ? 'values' : 'encoding' };
}

/** The type of one value: scalars by their encodings, enums and messages by their contents. */
function compareValue(ctx: Ctx, o: ValueType, n: ValueType, pointer: string, facts: Facts, keep: string): void {
  if (o.kind === 'scalar' && n.kind === 'scalar') {
    if (o.scalar === n.scalar) return;
    const s = scalarChange(ctx, o.scalar, n.scalar);
    edit(ctx, typeChange(ctx, { ...facts, via: s.via }, s.breaks, keep, s.code), pointer);
    return;
  }
  const bytes = (v: ValueType): boolean => v.kind === 'scalar' && v.scalar === ScalarType.BYTES;
  const plainMessage = (v: ValueType): boolean => v.kind === 'message' && !v.delimited;
  if ((bytes(o) && plainMessage(n)) || (plainMessage(o) && bytes(n))) {
    // bytes hold any encoded message; a message reader fails on bytes that are not one.
    if (ctx.json) edit(ctx, typeChange(ctx, { ...facts, via: 'json' }, BOTH, keep), pointer);
    else if (bytes(n)) edit(ctx, typeChange(ctx, { ...facts, via: 'values' }, ['forward'], keep, 'protobuf_field_type_widened'), pointer);
    else edit(ctx, typeChange(ctx, { ...facts, via: 'values' }, ['backward'], keep, 'protobuf_field_type_narrowed'), pointer);
    return;
  }
  if (o.kind === 'enum' && n.kind === 'enum') {
    if (o.enum.typeName !== n.enum.typeName) renamed(ctx, facts, o.enum.typeName, n.enum.typeName, pointer);
    ctx.enum(ctx, o.enum, n.enum, pointer);
    return;
  }
  if (o.kind === 'message' && n.kind === 'message') {
    if (o.delimited !== n.delimited) {
      edit(ctx, typeChange(ctx, { ...facts, via: 'encoding' }, BOTH, keep), pointer);
      return;
    }
    if (o.message.typeName !== n.message.typeName) {
      if (ctx.json && (hasOwnJson(o.message) || hasOwnJson(n.message))) {
        edit(ctx, typeChange(ctx, { ...facts, via: 'json' }, BOTH, keep), pointer);
        return;
      }
      renamed(ctx, facts, o.message.typeName, n.message.typeName, pointer);
    }
    ctx.message(ctx, o.message, n.message, pointer);
    return;
  }
  // Enum numbers and integers share an encoding but not a meaning (nor a JSON form); other pairs share neither.
  const varint = (v: ValueType): boolean => v.kind === 'enum' || (v.kind === 'scalar' && SCALARS[v.scalar].wire === 'varint');
  edit(ctx, typeChange(ctx, { ...facts, via: varint(o) && varint(n) ? 'values' : 'encoding' }, BOTH, keep), pointer);
}

/** A field's message or enum type under another name: compared by structure, noted as info. */
function renamed(ctx: Ctx, facts: Facts, from: string, to: string, pointer: string): void {
  edit(
    ctx,
    {
      code: 'protobuf_type_renamed',
      facts: { ...(facts.name === undefined ? {} : { name: facts.name }), from, to },
      breaks: NONE,
      info: true,
      before: from,
      after: to,
      fix: '',
    },
    pointer,
  );
}

function comparePresence(ctx: Ctx, o: FieldShape, n: FieldShape, pointer: string): void {
  if (o.presence === n.presence || o.cardinality !== 'singular' || n.cardinality !== 'singular') return;
  const name = n.field.name;
  if (n.presence === 'required' || o.presence === 'required') {
    // A required field missing fails the parse: old messages may lack a field made required; new ones one no longer required.
    const made = n.presence === 'required';
    edit(
      ctx,
      {
        code: made ? 'protobuf_field_made_required' : 'protobuf_field_made_optional',
        facts: { name },
        breaks: made ? ['backward'] : ['forward'],
        before: o.presence,
        after: n.presence,
        fix: made ? 'keep it optional' : 'keep it required',
      },
      pointer,
    );
    return;
  }
  // A field in a oneof, and a message field, has presence: the move or the type is the finding, not the presence that comes with it.
  if (o.oneof !== n.oneof || o.value.kind === 'message' || n.value.kind === 'message') return;
  edit(
    ctx,
    {
      code: 'protobuf_field_presence_changed',
      facts: { name, from: o.presence, to: n.presence },
      breaks: NONE,
      info: true,
      before: o.presence,
      after: n.presence,
      fix: '',
    },
    pointer,
  );
}

/** Fields of `message`'s oneof `oneof` other than number `except`, that also exist in `other`. */
function siblings(message: DescMessage, oneof: string, except: number, other: DescMessage): string[] {
  const numbers = new Set(other.fields.map((f) => f.number));
  return message.fields.filter((f) => f.oneof?.name === oneof && f.number !== except && numbers.has(f.number)).map((f) => f.name);
}

/**
 * A oneof keeps one of its fields. A field moved into one is read alone from old messages that
 * may also set another of its (then separate) fields; moved out, it may be written together with
 * fields an old reader holds in one oneof. Alone in the oneof, nothing is lost.
 */
function compareOneof(ctx: Ctx, o: FieldShape, n: FieldShape, pointer: string, oldMsg: DescMessage, newMsg: DescMessage): void {
  if (o.oneof === n.oneof) return;
  const name = n.field.name;
  const number = n.field.number;
  if (o.oneof === undefined || n.oneof === undefined) {
    const into = o.oneof === undefined;
    const oneof = (into ? n.oneof : o.oneof)!;
    const others = into ? siblings(newMsg, oneof, number, oldMsg) : siblings(oldMsg, oneof, number, newMsg);
    edit(
      ctx,
      {
        code: into ? 'protobuf_field_moved_into_oneof' : 'protobuf_field_moved_out_of_oneof',
        facts: { name, to: oneof, others },
        breaks: others.length === 0 ? NONE : into ? ['backward'] : ['forward'],
        before: o.oneof,
        after: n.oneof,
        fix: into ? `keep it out of oneof ${oneof}` : `keep it in oneof ${oneof}`,
      },
      pointer,
    );
    return;
  }
  // Another oneof: the same fields under a new oneof name reads alike; other company does not.
  const before = new Set([number, ...siblingNumbers(oldMsg, o.oneof, newMsg)]);
  const after = new Set([number, ...siblingNumbers(newMsg, n.oneof, oldMsg)]);
  const same = before.size === after.size && [...before].every((x) => after.has(x));
  edit(
    ctx,
    {
      code: 'protobuf_field_oneof_changed',
      facts: { name, from: o.oneof, to: n.oneof },
      breaks: same ? NONE : BOTH,
      before: o.oneof,
      after: n.oneof,
      fix: `keep it in oneof ${o.oneof}`,
    },
    pointer,
  );
}

function siblingNumbers(message: DescMessage, oneof: string, other: DescMessage): number[] {
  const names = new Set(siblings(message, oneof, -1, other));
  return message.fields.filter((f) => names.has(f.name)).map((f) => f.number);
}
