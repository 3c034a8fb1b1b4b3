/**
 * Payloads that are not JSON Schema: a change of format is breaking both ways; Avro payloads are
 * compared by Avro's schema resolution rules (compat/avro/), Protobuf payloads by its wire
 * compatibility rules (compat/protobuf/).
 */
import type { MessageModel } from '../model/contract-model.js';
import type { ProtobufRules } from '../model/vocabulary.js';
import { diffAvro } from './avro/index.js';
import type { Direction } from './findings.js';
import { diffProtobuf } from './protobuf/index.js';
import type { SchemaChange } from './schema/context.js';

const formatName = (message: MessageModel): string => message.format?.kind ?? 'json-schema';

/**
 * The changes of the payload of `before` → `after` when either is Avro or Protobuf; undefined when
 * both are JSON Schema. `protobuf`: the rules Protobuf payloads are compared by (the new contract's
 * `x-keiyaku.protobuf`; default `wire-json`).
 */
export function diffPayloadFormat(
  before: MessageModel,
  after: MessageModel,
  direction: Direction,
  options: { readonly protobuf?: ProtobufRules | undefined } = {},
): SchemaChange[] | undefined {
  const b = before.format;
  const a = after.format;
  if (b === undefined && a === undefined) return undefined;
  if (b === undefined || a === undefined || b.kind !== a.kind) {
    return [
      {
        code: 'payload_format_changed',
        severity: 'breaking',
        pointer: '',
        before: formatName(before),
        after: formatName(after),
        detail: `payload format ${formatName(before)} → ${formatName(after)}: no reader of one format reads the other`,
        hint: 'keep the payload format (add a new message type for the new format: adding one passes)',
      },
    ];
  }
  if (b.kind === 'avro' && a.kind === 'avro') return diffAvro(b, a, direction);
  if (b.kind === 'protobuf' && a.kind === 'protobuf') return diffProtobuf(b, a, direction, options.protobuf);
  return [];
}
