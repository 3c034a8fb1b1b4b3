/** String keywords without bounds: `pattern` and `format`. */

import { keywordCode, TEXT_KEYWORDS } from '../codes.js';
import type { Context, Schema } from './context.js';
import { fix, record } from './record.js';

/** `pattern` and `format`: a change or an addition is breaking, a removal compatible. */
export function compareText(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of TEXT_KEYWORDS) {
    if (writer[keyword] === reader[keyword]) continue;
    const breaking = reader[keyword] !== undefined;
    record(
      ctx,
      `${pointer}/${keyword}`,
      writer[keyword],
      reader[keyword],
      !breaking,
      (o, n) =>
        n === undefined
          ? { code: `${keywordCode(keyword)}_removed`, facts: { keyword, from: o } }
          : {
              code: o === undefined ? `${keywordCode(keyword)}_added` : `${keywordCode(keyword)}_changed`,
              facts: { keyword, from: o, to: n },
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
}
