/** Protobuf payloads compared by wire compatibility. Until the rules land, any change of the message is breaking. */
import type { ProtobufPayloadModel } from '../../model/contract-model.js';
import type { Direction } from '../findings.js';
import type { SchemaChange } from '../schema/context.js';

export function diffProtobuf(before: ProtobufPayloadModel, after: ProtobufPayloadModel, _direction: Direction): SchemaChange[] {
  if (before.message === after.message && before.descriptorSet === after.descriptorSet) return [];
  return [
    {
      code: 'protobuf_schema_changed',
      severity: 'breaking',
      pointer: '',
      detail: `Protobuf message ${before.message} changed`,
      hint: 'keep the message, or acknowledge the change',
    },
  ];
}
