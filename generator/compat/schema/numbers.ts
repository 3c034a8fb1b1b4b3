/** Bounds (`minimum`, `maxLength`, `maxItems`, …) and `multipleOf`. */

import type { BoundKeyword } from '../codes.js';
import { keywordCode } from '../codes.js';
import type { Context, Schema } from './context.js';
import { fix, record } from './record.js';

export function bound(
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
    !breaking,
    (o, n) => {
      if (typeof n !== 'number') return { code: `${keywordCode(keyword)}_removed`, facts: { what, keyword, from: o } };
      if (typeof o !== 'number') return { code: `${keywordCode(keyword)}_added`, facts: { what, keyword, to: n } };
      return { code: `${keywordCode(keyword)}_${tighter(o, n) ? 'narrowed' : 'widened'}`, facts: { what, keyword, from: o, to: n } };
    },
    fix(
      ctx,
      typeof w === 'number' ? `keep ${keyword} at ${w} or looser` : `drop ${keyword} (add it in a new message type)`,
      `keep ${keyword} at ${String(r)} or ${tighterWhen === 'lower' ? 'lower' : 'higher'} (widen it in a new message type)`,
    ),
    ctx.forward ? { before: r, after: w } : { before: w, after: r },
  );
}

export function compareMultipleOf(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
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
    ok,
    (o, n) => {
      const code = keywordCode('multipleOf');
      if (typeof n !== 'number') return { code: `${code}_removed` };
      if (typeof o !== 'number') return { code: `${code}_added`, facts: { to: n } };
      return {
        code: divides(o, n) ? `${code}_reduced` : divides(n, o) ? `${code}_expanded` : `${code}_changed`,
        facts: { from: o, to: n },
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

/** Every bound keyword, in the order findings are reported. */
export function compareBounds(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
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
}
