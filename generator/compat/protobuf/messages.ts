/**
 * Messages and enums compared by number, as their encodings are: fields and values added,
 * removed (reserved or not), renumbered and renamed, and the reservations that keep numbers and
 * names from coming back with another meaning.
 */
import type { DescEnum, DescField, DescMessage } from '@bufbuild/protobuf';
import { BOTH, type Ctx, edit, NONE, seg } from './context.js';
import { fieldType, isNameReserved, isReserved, reservedRanges, shapeOf } from './descriptors.js';
import { compareField } from './fields.js';

/** Compares the messages at `pointer`: each field by number, then reservations. Each pair of types once. */
export function compareMessage(outer: Ctx, o: DescMessage, n: DescMessage, pointer: string): void {
  const key = `message|${o.typeName}|${n.typeName}`;
  if (outer.seen.has(key)) return;
  outer.seen.add(key);
  const ctx: Ctx = { ...outer, anchor: { name: n.typeName, base: pointer } };
  const oldNumbers = new Set(o.fields.map((f) => f.number));
  const newByNumber = new Map(n.fields.map((f) => [f.number, f]));
  const renumbered = new Set<number>();
  const at = (f: DescField): string => `${pointer}/fields${seg(f.name)}`;
  for (const of of o.fields) {
    const nf = newByNumber.get(of.number);
    if (nf !== undefined) {
      compareField(ctx, shapeOf(of), shapeOf(nf), at(nf), o, n);
      continue;
    }
    const moved = n.fields.find((f) => f.name === of.name && !oldNumbers.has(f.number));
    if (moved !== undefined) {
      renumbered.add(moved.number);
      edit(
        ctx,
        {
          code: 'protobuf_field_number_changed',
          facts: { name: of.name, from: String(of.number), to: String(moved.number) },
          breaks: BOTH,
          before: of.number,
          after: moved.number,
          fix: `keep the number ${of.number} (a new field needs a new name as well as a new number)`,
        },
        at(moved),
      );
      compareField(ctx, shapeOf(of), shapeOf(moved), at(moved), o, n);
      continue;
    }
    removed(ctx, of, n, at(of));
  }
  for (const nf of n.fields) {
    if (oldNumbers.has(nf.number) || renumbered.has(nf.number)) continue;
    const required = shapeOf(nf).presence === 'required';
    edit(
      ctx,
      {
        code: required ? 'protobuf_required_field_added' : 'protobuf_field_added',
        facts: { name: nf.name, number: nf.number, required },
        breaks: required ? ['backward'] : NONE,
        after: fieldType(shapeOf(nf)),
        fix: `make it optional (\`optional ${fieldType(shapeOf(nf))} ${nf.name} = ${nf.number};\`)`,
        step: true,
      },
      at(nf),
    );
  }
  compareReserved(ctx, o, n, pointer);
}

/**
 * A field gone from the new message. Readers skip a number they do not know, so the removal itself
 * reads fine; what breaks is the number (under `wire-json`, the name) used again later for another
 * field, which reads old messages as its own. Reserving them is what makes the removal safe, as in
 * Buf's FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED (and _NAME_RESERVED). A required field is missed by
 * old readers however it goes.
 */
function removed(ctx: Ctx, of: DescField, n: DescMessage, pointer: string): void {
  const unreserved = [
    ...(isReserved(n, of.number) ? [] : (['number'] as const)),
    ...(ctx.json && !isNameReserved(n, of.name) ? (['name'] as const) : []),
  ];
  const required = shapeOf(of).presence === 'required';
  const reserve = `reserve it where the field was: \`reserved ${of.number};\`${ctx.json ? ` and \`reserved "${of.name}";\`` : ''}`;
  const keep = `keep the required field ${of.name} = ${of.number}`;
  const facts = { name: of.name, number: of.number, required, unreserved };
  if (unreserved.length === 0) {
    edit(
      ctx,
      { code: 'protobuf_field_removed_and_reserved', facts, breaks: required ? ['forward'] : NONE, before: of.name, fix: keep },
      pointer,
    );
    return;
  }
  edit(
    ctx,
    { code: 'protobuf_field_removed', facts, breaks: BOTH, before: of.name, fix: required ? keep : reserve, step: !required },
    pointer,
  );
}

/** Compares the enums at `pointer`: values by number. Each pair of enums once. */
export function compareEnum(outer: Ctx, o: DescEnum, n: DescEnum, pointer: string): void {
  const key = `enum|${o.typeName}|${n.typeName}`;
  if (outer.seen.has(key)) return;
  outer.seen.add(key);
  const ctx: Ctx = { ...outer, anchor: { name: n.typeName, base: pointer } };
  const names = (e: DescEnum, number: number): string[] => e.values.filter((v) => v.number === number).map((v) => v.name);
  const owner = n.typeName;
  const oldNumbers = [...new Set(o.values.map((v) => v.number))];
  for (const number of oldNumbers) {
    const before = names(o, number);
    const after = names(n, number);
    const where = `${pointer}/values${seg(after[0] ?? before[0]!)}`;
    if (after.length === 0) {
      const unreserved = [
        ...(isReserved(n, number) ? [] : (['number'] as const)),
        ...(ctx.json && !before.every((v) => isNameReserved(n, v)) ? (['name'] as const) : []),
      ];
      const reserve = `reserve it: \`reserved ${number};\`${ctx.json ? ` and \`reserved ${before.map((v) => `"${v}"`).join(', ')};\`` : ''}`;
      edit(
        ctx,
        {
          code: unreserved.length === 0 ? 'protobuf_enum_value_removed_and_reserved' : 'protobuf_enum_value_removed',
          facts: { owner, name: before.join(', '), number, unreserved },
          breaks: unreserved.length === 0 ? NONE : BOTH,
          before: before.join(', '),
          fix: reserve,
          step: true,
        },
        where,
      );
      continue;
    }
    // A name added beside the old ones is an alias: JSON readers accept every name of a number.
    if (before.every((v) => after.includes(v))) continue;
    edit(
      ctx,
      {
        code: 'protobuf_enum_value_renamed',
        facts: { owner, number, from: before.join(', '), to: after.join(', ') },
        breaks: ctx.json ? BOTH : NONE,
        before: before.join(', '),
        after: after.join(', '),
        fix: `keep the name ${before.join(', ')} (an alias keeps both: \`option allow_alias = true;\`)`,
      },
      where,
    );
  }
  for (const number of new Set(n.values.map((v) => v.number))) {
    if (oldNumbers.includes(number)) continue;
    // An open enum keeps a number it does not know; a closed one (proto2) moves it to unknown fields, and the field reads unset.
    const closed = !o.open;
    const name = names(n, number).join(', ');
    edit(
      ctx,
      {
        code: 'protobuf_enum_value_added',
        facts: { owner, name, number, closed },
        breaks: closed ? ['forward'] : NONE,
        after: name,
        fix: 'keep the values of the closed enum (an open enum, in proto3 or with `enum_type = OPEN`, keeps numbers it does not know)',
      },
      `${pointer}/values${seg(names(n, number)[0]!)}`,
    );
  }
  compareReserved(ctx, o, n, pointer);
}

/** Whether the inclusive ranges `ranges` cover every number of [start, end]. */
function covers(ranges: readonly [number, number][], start: number, end: number): boolean {
  let next = start;
  for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (s > next) break;
    if (e >= next) next = e + 1;
    if (next > end) return true;
  }
  return next > end;
}

/** Reserved numbers and names no longer reserved (Buf's RESERVED_MESSAGE_NO_DELETE, RESERVED_ENUM_NO_DELETE). */
function compareReserved(ctx: Ctx, o: DescMessage | DescEnum, n: DescMessage | DescEnum, pointer: string): void {
  const now = reservedRanges(n);
  const max = o.kind === 'message' ? 536870911 : 2147483647;
  const found = (label: string, written: string, before: unknown): void =>
    edit(
      ctx,
      {
        code: 'protobuf_reserved_removed',
        facts: { owner: n.typeName, name: label },
        breaks: BOTH,
        before,
        fix: `keep the reservation: \`reserved ${written};\``,
      },
      `${pointer}/reserved${seg(label)}`,
    );
  for (const [start, end] of reservedRanges(o)) {
    if (covers(now, start, end)) continue;
    const label = start === end ? String(start) : `${start}-${end === max ? 'max' : end}`;
    found(label, start === end ? String(start) : `${start} to ${end === max ? 'max' : end}`, [start, end]);
  }
  for (const name of o.proto.reservedName) if (!n.proto.reservedName.includes(name)) found(name, `"${name}"`, name);
}
