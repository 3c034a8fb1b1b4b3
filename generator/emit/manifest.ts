/**
 * `generated/manifest.json`: channels, message types and schema hashes, for the runtime
 * and for `keiyaku check`. Hashes are over canonical JSON (sorted keys) of a payload
 * schema and every named schema it reaches, so they change exactly when the schema does.
 */
import { createHash } from 'node:crypto';
import { avroTypeOf } from '../formats/avro/build.js';
import { type ContractModel, type PayloadFormatModel, refName } from '../model/contract-model.js';

export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    // A list of plain values has no keys to sort: JSON.stringify writes it the same (`null` for what JSON has no word for).
    let plain = true;
    for (let i = 0; i < value.length && plain; i++) plain = typeof value[i] !== 'object' || value[i] === null;
    if (plain) return JSON.stringify(value);
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out += ',';
    out += JSON.stringify(keys[i]);
    out += ':';
    out += canonicalJson((value as Record<string, unknown>)[keys[i]!]);
  }
  return `${out}}`;
}

/** Per model: the named schemas each named schema refers to directly, and its canonical JSON (computed once each). */
const cache = new WeakMap<ContractModel, { refs: Map<string, string[]>; canonical: Map<string, string> }>();

function cacheOf(model: ContractModel): { refs: Map<string, string[]>; canonical: Map<string, string> } {
  let entry = cache.get(model);
  if (entry === undefined) {
    entry = { refs: new Map(), canonical: new Map() };
    cache.set(model, entry);
  }
  return entry;
}

/** The named schemas `$ref`s under `value` point at, in document order. */
function collectRefs(value: unknown, found: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, found);
    return;
  }
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (key === '$ref' && typeof child === 'string') {
      const target = refName(child);
      if (target !== undefined) found.push(target);
    } else collectRefs(child, found);
  }
}

function directRefs(model: ContractModel, name: string): string[] {
  const { refs } = cacheOf(model);
  let direct = refs.get(name);
  if (direct === undefined) {
    const found: string[] = [];
    collectRefs(model.schemas[name]!.schema, found);
    direct = found;
    refs.set(name, direct);
  }
  return direct;
}

/** Named schemas reachable from `name`, including itself, sorted. */
export function schemaClosure(model: ContractModel, name: string): string[] {
  const seen = new Set<string>();
  const visit = (current: string): void => {
    if (seen.has(current)) return;
    if (model.schemas[current] === undefined) return;
    seen.add(current);
    for (const target of directRefs(model, current)) visit(target);
  };
  visit(name);
  return [...seen].sort();
}

export function schemaHash(model: ContractModel, name: string): string {
  // canonicalJson({ root: name, schemas: closure }), with each named schema's part computed once per model.
  const { canonical } = cacheOf(model);
  const parts = schemaClosure(model, name).map((member) => {
    let text = canonical.get(member);
    if (text === undefined) {
      text = canonicalJson(model.schemas[member]!.schema);
      canonical.set(member, text);
    }
    return `${JSON.stringify(member)}:${text}`;
  });
  return `sha256:${createHash('sha256')
    .update(`{"root":${JSON.stringify(name)},"schemas":{${parts.join(',')}}}`)
    .digest('hex')}`;
}

/**
 * The hash of an Avro or Protobuf payload: sha256 of the Avro Parsing Canonical Form (avsc's
 * `schema()`: full names, no docs, defaults or aliases — what identifies the schema), or of the
 * Protobuf message name and its descriptor set.
 */
export function formatSchemaHash(format: PayloadFormatModel): string {
  const text = format.kind === 'avro' ? JSON.stringify(avroTypeOf(format.schema).schema()) : `${format.message}\n${format.descriptorSet}`;
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * The manifest as JSON text on one line (its layout is prettier's, given by format.ts's
 * `printJson` when the file is finished); `hashes` holds {@link schemaHash} of each message's
 * payload, by message type.
 */
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
      ...(m.format ? { format: m.format.kind } : {}),
      ...(m.headers ? { headers: m.headers } : {}),
      schemaHash: hashes.get(m.type)!,
    })),
    operations: model.operations,
  };
  return JSON.stringify(manifest);
}
