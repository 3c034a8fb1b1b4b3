/** Annotations, and the keywords without a finer rule (`propertyNames`, `if`/`then`/`else`, `contentSchema`). */

import type { SchemaNode } from '../../model/contract-model.js';
import { escapeToken as esc } from '../../pointer.js';
import { keywordCode, METADATA_KEYWORDS as METADATA, OTHER_KEYWORDS } from '../codes.js';
import { type Context, compareSchema, type Schema } from './context.js';
import { fix, record } from './record.js';
import { isEmpty, valueKey } from './resolve.js';

/** Annotations (`title`, `description`, …): an edit is `info`, whatever the direction. */
export function compareMetadata(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  for (const keyword of METADATA) {
    if (valueKey(writer[keyword]) !== valueKey(reader[keyword]) && (writer[keyword] !== undefined || reader[keyword] !== undefined)) {
      record(
        ctx,
        `${pointer}/${esc(keyword)}`,
        writer[keyword],
        reader[keyword],
        true,
        () => ({
          code: `${keywordCode(keyword)}_changed`,
          facts: { keyword },
        }),
        '',
        ctx.forward ? { before: reader[keyword], after: writer[keyword] } : { before: writer[keyword], after: reader[keyword] },
      );
    }
  }
}

/** Keywords without a finer rule: a change (or an addition) is breaking, a removal compatible. */
export function compareOthers(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
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
      ok,
      (o, n) =>
        n[keyword] === undefined
          ? { code: `${keywordCode(keyword)}_removed`, facts: { keyword } }
          : o[keyword] === undefined
            ? { code: `${keywordCode(keyword)}_added`, facts: { keyword } }
            : { code: `${keywordCode(keyword)}_changed`, facts: { keyword } },
      fix(
        ctx,
        `keep ${keyword} as it was: values valid before may fail the new one`,
        `keep ${keyword} as it was: consumers on the old contract check it`,
      ),
    );
  }
}
