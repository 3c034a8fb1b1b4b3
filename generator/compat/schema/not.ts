/** `not`: the reader excludes what its `not` matches; fine when the writer already excludes at least that. */

import type { SchemaNode } from '../../model/contract-model.js';
import { type Context, compareSchema, type Edit, type Schema } from './context.js';
import { fix, record } from './record.js';
import { valueKey } from './resolve.js';
import { disjoint, probe } from './sets.js';

export function compareNot(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const nw = writer['not'] as SchemaNode | undefined;
  const nr = reader['not'] as SchemaNode | undefined;
  if (nw === undefined && nr === undefined) return;
  if (nw !== undefined && nr !== undefined && valueKey(nw) === valueKey(nr)) return;
  const describe = (o: Schema, n: Schema): Edit => {
    if (n['not'] === undefined) return { code: 'not_removed' };
    if (o['not'] === undefined) return { code: 'not_added' };
    return { code: 'not_changed' };
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
    ok,
    (o, n) => {
      const e = describe(o, n);
      return e.code === 'not_changed' ? { code: ok ? 'not_type_narrowed' : 'not_type_extended' } : e;
    },
    fix(
      ctx,
      'keep the old `not`: values valid before may now be excluded',
      'keep the old `not`: consumers on the old contract exclude more values',
    ),
    {
      ...(ctx.forward ? { before: nr, after: nw } : { before: nw, after: nr }),
      ...(nw !== undefined && nr !== undefined ? { earlier: 'not_changed' } : {}),
    },
  );
}
