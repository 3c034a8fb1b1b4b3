/** Recording a finding: the code named old → new, its severity and words from the tables, the fix in the words of the direction. */

import { REVERSE_READING, type SchemaFindingCode } from '../codes.js';
import { keepOrAcknowledge } from '../findings.js';
import type { Context, Edit } from './context.js';
import { severityOf } from './severity.js';
import { detailOf } from './wording.js';

/** Who rejects what, in the words of the direction being checked. */
export function rejecter(ctx: Context): string {
  return ctx.forward
    ? 'consumers on the old contract reject new messages'
    : 'consumers on the new contract reject messages written under the old one';
}

/**
 * Records a finding. `describe` names the edit from (old, new) — its code and the facts its words
 * (wording.ts) need — called with the sides in their old → new order; the severity comes from the
 * table (severity.ts) by code and direction, with
 * `accepted` — does the reader accept every value the writer produces here? — for the codes the
 * table leaves to the comparer. The code earlier versions gave the finding is resolved where
 * acknowledgments are read; a forward finding whose reverse reading the code alone does not
 * tell carries it (`describe` read writer → reader).
 */
export function record<T>(
  ctx: Context,
  pointer: string,
  writer: T,
  reader: T,
  accepted: boolean,
  describe: (old: T, neu: T) => Edit,
  hint: string,
  values: { before?: unknown; after?: unknown; earlier?: SchemaFindingCode } = {},
): void {
  const [old, neu] = ctx.forward ? [reader, writer] : [writer, reader];
  const edit = describe(old, neu);
  const severity = severityOf(edit.code, ctx.forward ? 'forward' : 'backward', accepted);
  const detail = detailOf(edit.code, edit.facts ?? {}, { forward: ctx.forward, breaking: severity === 'breaking' });
  const { earlier: earlierCode, ...shown } = values;
  const reverseCode = ctx.forward && !REVERSE_READING.has(edit.code) ? describe(writer, reader).code : undefined;
  ctx.out.push({
    code: edit.code,
    severity,
    pointer,
    ...shown,
    detail: severity === 'breaking' && !detail.includes('reject') ? `${detail}: ${rejecter(ctx)}` : detail,
    hint: severity === 'breaking' ? hint : '',
    ...(earlierCode === undefined ? {} : { earlierCode }),
    ...(reverseCode === undefined ? {} : { reverseCode }),
    ...(ctx.anchor === undefined ? {} : { schema: { name: ctx.anchor.name, pointer: pointer.slice(ctx.anchor.base.length) } }),
  });
}

/** When an acknowledgment of a change that no edit gets through is due, per direction. */
export const ACKNOWLEDGE_WHEN = {
  backward: 'once no message written under the old contract is left to read',
  forward: 'once every consumer reads the new contract',
} as const;

/**
 * A fix in the words of the direction: the reader that breaks is new (backward) or old (forward).
 * The first step each names passes the gate (`keep …`: the schema as it was at that node; test/compat/fix-advice.test.ts
 * applies it). A `keep` fix says that the change itself passes only when acknowledged; a backward fix marked
 * `step` names another edit that reaches the same end and passes, and says nothing of acknowledgments.
 */
export function fix(ctx: Context, backward: string, forward: string, backwardIs: 'keep' | 'step' = 'keep'): string {
  if (ctx.forward) return keepOrAcknowledge(forward, ACKNOWLEDGE_WHEN.forward);
  return backwardIs === 'step' ? backward : keepOrAcknowledge(backward, ACKNOWLEDGE_WHEN.backward);
}
