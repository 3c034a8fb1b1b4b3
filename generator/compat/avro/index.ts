/**
 * Avro payloads compared by Avro's schema resolution rules, direction-aware like the JSON Schema
 * gate: backward, the new schema (reader) reads what the old one wrote; forward, the old schema
 * reads what the new one writes. Findings are named after the edit, old → new.
 */
import type { AvroPayloadModel } from '../../model/contract-model.js';
import type { Direction } from '../findings.js';
import type { SchemaChange } from '../schema/context.js';
import { compare, type Walk } from './diff.js';
import { readAvro } from './schema.js';
import { writtenPointer } from './written.js';

export function diffAvro(before: AvroPayloadModel, after: AvroPayloadModel, direction: Direction): SchemaChange[] {
  if (JSON.stringify(before.schema) === JSON.stringify(after.schema)) return [];
  const walk: Walk = { forward: direction === 'forward', out: [], seen: new Map() };
  compare(walk, readAvro(before.schema, before.name), readAvro(after.schema, after.name), '');
  return walk.out.map((change) => ({ ...change, written: writtenPointer(after.schema, change.pointer) }));
}
