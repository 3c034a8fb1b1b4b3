import { keywordCode } from '../codes.js';
import type { Context, Schema } from './context.js';
import { fix, record } from './record.js';
import { valueKey } from './resolve.js';

export function compareValues(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
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
      true,
      (o, n) =>
        allowed(n) === undefined
          ? { code: `${keywordCode(keyword(o))}_removed`, facts: { keyword: keyword(o) } }
          : { code: `${keywordCode(keyword(n))}_added`, facts: { values: allowed(n)! } },
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
      false,
      (o, n) =>
        allowed(n) === undefined
          ? { code: `${keywordCode(keyword(o))}_removed`, facts: { keyword: keyword(o) } }
          : { code: `${keywordCode(keyword(n))}_added`, facts: { values: allowed(n)! } },
      fix(
        ctx,
        `drop the ${keyword(reader)}: values outside it were valid before`,
        `keep the ${keyword(reader)} ${vr.map(valueKey).join(', ')}: consumers on the old contract accept only those`,
      ),
      { after: vr },
    );
    return;
  }
  compareValueSets(ctx, writer, reader, pointer, vw, vr);
}

/** Both sides list values: a `const` replaced, or `enum` values the reader lacks (breaking) or gained. */
function compareValueSets(
  ctx: Context,
  writer: Schema,
  reader: Schema,
  pointer: string,
  vw: readonly unknown[],
  vr: readonly unknown[],
): void {
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
      false,
      (o, n) => ({ code: 'const_changed', facts: { from: o['const'], to: n['const'] } }),
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
      false,
      (o) =>
        o !== writer
          ? {
              code: 'enum_value_added',
              facts: { values: added },
            }
          : { code: 'enum_value_removed', facts: { values: removed } },
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
      true,
      (o) =>
        o !== writer
          ? {
              code: 'enum_value_removed',
              facts: { values: removed },
            }
          : { code: 'enum_value_added', facts: { values: added } },
      '',
      ctx.forward ? { before: removed } : { after: added },
    );
}
