/** Avro payloads compared by Avro's schema resolution rules. Until the rules land, any change of the schema is breaking. */
import type { AvroPayloadModel } from '../../model/contract-model.js';
import type { Direction } from '../findings.js';
import type { SchemaChange } from '../schema/context.js';

export function diffAvro(before: AvroPayloadModel, after: AvroPayloadModel, _direction: Direction): SchemaChange[] {
  if (JSON.stringify(before.schema) === JSON.stringify(after.schema)) return [];
  return [
    {
      code: 'avro_schema_changed',
      severity: 'breaking',
      pointer: '',
      detail: `Avro schema ${before.name} changed`,
      hint: 'keep the schema, or acknowledge the change',
    },
  ];
}
