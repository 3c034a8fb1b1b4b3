/**
 * Protobuf payloads compared by wire compatibility, with Buf's breaking-change categories WIRE and
 * WIRE_JSON as the reference: the payload message and every message and enum it reaches, field
 * by field number. Each edit is found once, named old → new, with the directions in which a
 * reader breaks (backward: new reads old; forward: old reads new); where Buf flags an edit that
 * only one reader fails on, the other reading passes. docs/check.md (Protobuf payloads) lists
 * the rules and where they differ from Buf's.
 */
import type { SourceLocation } from '../../diagnostics.js';
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
  const locate = locator(after);
  return protobufEdits(before, after, rules).map((e) => change(e, direction, locate(e)));
}

/**
 * Where a field or enum value of the new side is declared in the payload's `.proto` file: the one
 * line that declares its name with a number. Descriptors carry no source info (the model keeps
 * them deterministic), so a name declared twice in the file, an imported file or an inline schema
 * is left to the contract's location of the payload.
 */
function locator(model: ProtobufPayloadModel): (e: ProtoEdit) => SourceLocation | undefined {
  const lines = model.source.split('\n');
  const file = payloadMessage(model).file.proto.name;
  return (e) => {
    const match = /\/(?:fields|values)\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(e.pointer);
    if (model.file === undefined || match === null || e.file !== file) return undefined;
    const declaration = new RegExp(`\\b${match[1]}\\s*=\\s*-?\\d`);
    const found = lines.flatMap((line, i) => {
      const at = line.search(declaration);
      return at < 0 || /^\s*(\/\/|reserved\b)/.test(line) ? [] : [{ line: i + 1, column: at + 1 }];
    });
    return found.length === 1 ? { file: model.file, ...found[0]!, pointer: '' } : undefined;
  };
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
    anchor: { name: n.typeName, base: '', file: n.file.proto.name ?? '' },
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
function change(e: ProtoEdit, direction: Direction, location: SourceLocation | undefined): SchemaChange {
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
    ...(location === undefined ? {} : { location }),
  };
}
