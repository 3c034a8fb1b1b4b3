/** `type`: the reader must accept every type the writer produces (an integer is a number). */

import type { Context, Edit, Schema } from './context.js';
import { fix, record } from './record.js';
import { accepts, types } from './resolve.js';

export function compareTypes(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const tw = types(writer);
  const tr = types(reader);
  if (tr === undefined && tw === undefined) return;
  const describe = (o: Schema, n: Schema): Edit => {
    const to = types(o);
    const tn = types(n);
    if (tn === undefined) return { code: 'type_removed', facts: { from: [...to!] } };
    if (to === undefined) return { code: 'type_added', facts: { to: [...tn] } };
    const lost = [...to].filter((t) => !accepts(tn, t));
    const gained = [...tn].filter((t) => !accepts(to, t));
    const facts = { from: [...to], to: [...tn] };
    if (lost.length > 0) {
      if (lost.every((t) => t === 'number') && tn.has('integer')) return { code: 'type_narrowed', facts };
      if (gained.length > 0 && to.size === 1 && tn.size === 1) return { code: 'type_changed', facts };
      return { code: to.size > 1 || tn.size > 1 ? 'type_union_narrowed' : 'type_changed', facts };
    }
    return { code: 'type_widened', facts };
  };
  if (tr === undefined) {
    record(ctx, `${pointer}/type`, writer, reader, true, describe, '', typePair(ctx, writer, reader));
    return;
  }
  if (tw === undefined) {
    record(
      ctx,
      `${pointer}/type`,
      writer,
      reader,
      false,
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
      false,
      describe,
      fix(
        ctx,
        `keep accepting ${lost.join(', ')} (keep the type ${[...tw].join('|')}, or a wider one)`,
        `keep the type ${[...tr].join('|')}: consumers on the old contract accept only that (use another type in a new message type)`,
      ),
      typePair(ctx, writer, reader),
    );
  else if (widened) record(ctx, `${pointer}/type`, writer, reader, true, describe, '', typePair(ctx, writer, reader));
}

function typePair(ctx: Context, writer: Schema, reader: Schema): { before?: unknown; after?: unknown } {
  return ctx.forward ? { before: reader['type'], after: writer['type'] } : { before: writer['type'], after: reader['type'] };
}
