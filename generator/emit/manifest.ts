/**
 * `generated/manifest.json`: channels, message types and schema hashes, for the runtime
 * and for `keiyaku check`. Hashes are over canonical JSON (sorted keys) of a payload
 * schema and every named schema it reaches, so they change exactly when the schema does.
 */
import { createHash } from 'node:crypto';
import { type ContractModel, refName, type SchemaNode } from '../model/contract-model.js';

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Named schemas reachable from `name`, including itself, sorted. */
export function schemaClosure(model: ContractModel, name: string): string[] {
  const seen = new Set<string>();
  const visit = (current: string): void => {
    if (seen.has(current)) return;
    const named = model.schemas[current];
    if (named === undefined) return;
    seen.add(current);
    JSON.stringify(named.schema, (key, value) => {
      if (key === '$ref' && typeof value === 'string') {
        const target = refName(value);
        if (target !== undefined) visit(target);
      }
      return value;
    });
  };
  visit(name);
  return [...seen].sort();
}

export function schemaHash(model: ContractModel, name: string): string {
  const closure: Record<string, SchemaNode> = {};
  for (const member of schemaClosure(model, name)) closure[member] = model.schemas[member]!.schema;
  return `sha256:${createHash('sha256')
    .update(canonicalJson({ root: name, schemas: closure }))
    .digest('hex')}`;
}

/** The manifest; `hashes` holds {@link schemaHash} of each message's payload, by message type. */
export function buildManifest(model: ContractModel, source: string, hashes: ReadonlyMap<string, string>): string {
  const manifest = {
    $schema: 'keiyaku-manifest/v1',
    generator: 'keiyaku',
    source,
    asyncapi: model.asyncapi,
    info: model.info,
    channels: model.channels.map((c) => ({
      id: c.id,
      address: c.address,
      parameters: c.parameters.map((p) => p.name),
      messages: c.messages,
      bindings: c.bindings,
    })),
    messages: Object.values(model.messages).map((m) => ({
      type: m.type,
      id: m.id,
      contentType: m.contentType,
      payload: m.payload,
      ...(m.headers ? { headers: m.headers } : {}),
      schemaHash: hashes.get(m.type)!,
    })),
    operations: model.operations,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
