/**
 * An avsc type's schema as JSON, whole. avsc's own export (`type.schema({ exportAttrs: true })`)
 * leaves out an enum's `default`, which is what lets a reader read symbols it does not know: the
 * model, the generated codecs and the compatibility check need it, so it is put back.
 */
import type avro from 'avsc';

type Json = Record<string, unknown>;

/** Every enum type `type` reaches, by full name. */
function enums(type: avro.Type, out = new Map<string, avro.Type>(), seen = new Set<avro.Type>()): Map<string, avro.Type> {
  if (seen.has(type)) return out;
  seen.add(type);
  const t = type as unknown as {
    typeName: string;
    name?: string;
    fields?: { type: avro.Type }[];
    itemsType?: avro.Type;
    valuesType?: avro.Type;
    types?: avro.Type[];
    underlyingType?: avro.Type;
  };
  if (t.typeName === 'enum' && t.name !== undefined) out.set(t.name, type);
  for (const next of [...(t.fields ?? []).map((f) => f.type), t.itemsType, t.valuesType, ...(t.types ?? []), t.underlyingType])
    if (next !== undefined) enums(next, out, seen);
  return out;
}

/** `type.schema({ exportAttrs: true })`, with each enum's default. */
export function exportSchema(type: avro.Type): unknown {
  const byName = enums(type);
  const schema = type.schema({ exportAttrs: true }) as unknown;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      const json = node as Json;
      const fallback =
        json.type === 'enum' && typeof json.name === 'string'
          ? (byName.get(json.name) as { default?: unknown } | undefined)?.default
          : undefined;
      if (fallback !== undefined && json.default === undefined) json.default = fallback;
      for (const value of Object.values(json)) visit(value);
    }
  };
  visit(schema);
  return schema;
}
