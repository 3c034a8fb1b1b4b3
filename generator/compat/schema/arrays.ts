/** Arrays: `uniqueItems`, tuple items (`prefixItems`), the rest (`items`), `unevaluatedItems`, `contains`. */

import type { SchemaNode } from '../../model/contract-model.js';
import { keywordCode } from '../codes.js';
import { type Context, compareSchema, type Schema } from './context.js';
import { fix, record } from './record.js';
import { isEmpty } from './resolve.js';
import { covers } from './sets.js';

/** `uniqueItems`: required by the reader only is breaking. */
export function compareUniqueItems(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  if (writer['uniqueItems'] !== true && reader['uniqueItems'] === true)
    record(
      ctx,
      `${pointer}/uniqueItems`,
      writer,
      reader,
      false,
      (o) =>
        o['uniqueItems'] === true ? { code: `${keywordCode('uniqueItems')}_removed` } : { code: `${keywordCode('uniqueItems')}_added` },
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
      true,
      (o) =>
        o['uniqueItems'] === true ? { code: `${keywordCode('uniqueItems')}_removed` } : { code: `${keywordCode('uniqueItems')}_added` },
      '',
    );
}

export function compareArrays(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  compareTuple(ctx, writer, reader, pointer);
  compareRest(ctx, writer, reader, pointer);
  compareContains(ctx, writer, reader, pointer);
}

/** What an array accepts after its tuple items: `items`, else `unevaluatedItems`, else anything. */
function restOf(s: Schema): SchemaNode {
  return (s['items'] as SchemaNode | undefined) ?? (s['unevaluatedItems'] as SchemaNode | undefined) ?? true;
}

/** Tuple items (`prefixItems`): an item on one side only is judged by the rest of the side that lacks it. */
function compareTuple(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = Array.isArray(writer['prefixItems']) ? (writer['prefixItems'] as SchemaNode[]) : [];
  const pr = Array.isArray(reader['prefixItems']) ? (reader['prefixItems'] as SchemaNode[]) : [];
  const restW = restOf(writer);
  const restR = restOf(reader);
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
      ok,
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
          facts: { index: i, accepted: ok, model: kind },
        };
      },
      fix(
        ctx,
        "keep the tuple as it was, or let the rest of the tuple accept the item's values",
        'keep the tuple as it was: consumers on the old contract check it',
        'step',
      ),
      { earlier: 'schema_restricted' },
    );
  }
}

/** The rest of the array (`items`, `unevaluatedItems`). */
function compareRest(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const restW = restOf(writer);
  const restR = restOf(reader);
  if ('items' in writer || 'items' in reader) {
    if (writer['items'] !== undefined && reader['items'] !== undefined) compareSchema(ctx, restW, restR, `${pointer}/items`);
    else if (reader['items'] !== undefined && writer['items'] === undefined) {
      if (!covers(ctx, restW, restR))
        record(
          ctx,
          `${pointer}/items`,
          writer,
          reader,
          false,
          (o) => (o['items'] === undefined ? { code: 'items_added' } : { code: 'items_removed' }),
          fix(
            ctx,
            'drop the item schema: items valid before may not match it',
            'keep the item schema: consumers on the old contract check it',
          ),
          { earlier: 'schema_restricted' },
        );
    } else if (!isEmpty(restW))
      record(
        ctx,
        `${pointer}/items`,
        writer,
        reader,
        covers(ctx, restW, restR),
        (o) => (o['items'] === undefined ? { code: 'items_added' } : { code: 'items_removed' }),
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
}

/** `contains`: each array the writer produces must have an item the reader's `contains` accepts. */
function compareContains(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const cw = writer['contains'] as SchemaNode | undefined;
  const cr = reader['contains'] as SchemaNode | undefined;
  if (cw !== undefined || cr !== undefined) {
    if (cr === undefined)
      record(
        ctx,
        `${pointer}/contains`,
        cw,
        cr,
        true,
        (o) => (o === undefined ? { code: 'contains_added' } : { code: 'contains_removed' }),
        '',
      );
    else if (cw === undefined)
      record(
        ctx,
        `${pointer}/contains`,
        cw,
        cr,
        false,
        (o) => (o === undefined ? { code: 'contains_added' } : { code: 'contains_removed' }),
        fix(
          ctx,
          'drop contains: arrays valid before may have no such item',
          'keep contains: consumers on the old contract require a matching item',
        ),
      );
    else compareSchema(ctx, cw, cr, `${pointer}/contains`);
  }
}
