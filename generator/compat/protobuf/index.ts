/**
 * Protobuf payloads compared by wire compatibility, with Buf's breaking-change categories WIRE and
 * WIRE_JSON as the reference: the payload message and every message and enum it reaches, field
 * by field number. Each edit is found once, named old → new, with the directions in which a
 * reader breaks (backward: new reads old; forward: old reads new); where Buf flags an edit that
 * only one reader fails on, the other reading passes. docs/check.md (Protobuf payloads) lists
 * the rules and where they differ from Buf's.
 */
import type { ProtobufPayloadModel } from '../../model/contract-model.js';
import { DEFAULT_PROTOBUF_RULES, type ProtobufRules } from '../../model/vocabulary.js';
import { type Direction, keepOrAcknowledge } from '../findings.js';
import type { SchemaChange } from '../schema/context.js';
import { ACKNOWLEDGE_WHEN } from '../schema/record.js';
import { BOTH, type Ctx, edit, type ProtoEdit } from './context.js';
import { payloadMessage } from './descriptors.js';
import { compareEnum, compareMessage } from './messages.js';
import { protobufDetail } from './wording.js';

export function diffProtobuf(
  before: ProtobufPayloadModel,
  after: ProtobufPayloadModel,
  direction: Direction,
  rules: ProtobufRules = DEFAULT_PROTOBUF_RULES,
): SchemaChange[] {
  if (before.message === after.message && before.descriptorSet === after.descriptorSet) return [];
  return protobufEdits(before, after, rules).map((e) => change(e, direction));
}

/** Every edit between the two payload messages, with the directions it breaks. */
export function protobufEdits(before: ProtobufPayloadModel, after: ProtobufPayloadModel, rules: ProtobufRules): ProtoEdit[] {
  const o = payloadMessage(before);
  const n = payloadMessage(after);
  const ctx: Ctx = {
    rules,
    json: rules === 'wire-json',
    seen: new Set(),
    out: [],
    anchor: { name: n.typeName, base: '' },
    message: compareMessage,
    enum: compareEnum,
  };
  if (o.typeName !== n.typeName)
    edit(
      ctx,
      {
        code: 'protobuf_message_renamed',
        facts: { from: o.typeName, to: n.typeName },
        breaks: BOTH,
        before: o.typeName,
        after: n.typeName,
        fix: `keep the message name ${o.typeName} (a message under a new name is a new message type: adding one passes)`,
      },
      '',
    );
  compareMessage(ctx, o, n, '');
  return ctx.out;
}

/** The finding of an edit in `direction`: breaking when that reader breaks, with its words and fix. */
function change(e: ProtoEdit, direction: Direction): SchemaChange {
  const breaking = e.breaks.includes(direction);
  return {
    code: e.code,
    severity: breaking ? 'breaking' : e.info ? 'info' : 'compatible',
    pointer: e.pointer,
    ...(e.before === undefined ? {} : { before: e.before }),
    ...(e.after === undefined ? {} : { after: e.after }),
    detail: protobufDetail(e.code, e.facts, { forward: direction === 'forward', breaking }),
    hint: breaking ? (e.step ? e.fix : keepOrAcknowledge(e.fix, ACKNOWLEDGE_WHEN[direction])) : '',
    schema: e.schema,
  };
}
