/**
 * Avro's schema resolution as a yes/no question: can a reader on one schema read every datum
 * written with another? The rules of the specification's "Schema Resolution", as avsc applies
 * them (names compared in full, aliases of the reader only), with logical types ignored as the
 * specification and avsc ignore them: the comparer (diff.ts) judges those on its own.
 */
import type { AvroNode, NamedNode, Primitive } from './schema.js';

/** Writer type → the reader types that read it (itself included). */
const PROMOTIONS: Readonly<Record<Primitive, readonly Primitive[]>> = {
  null: ['null'],
  boolean: ['boolean'],
  int: ['int', 'long', 'float', 'double'],
  long: ['long', 'float', 'double'],
  float: ['float', 'double'],
  double: ['double'],
  bytes: ['bytes', 'string'],
  string: ['string', 'bytes'],
};

/** A reader of type `reader` reads values written as `writer`. */
export function promotes(writer: Primitive, reader: Primitive): boolean {
  return PROMOTIONS[writer].includes(reader);
}

/** The reader's name or one of its aliases is the writer's full name. */
export function namesMatch(reader: NamedNode, writer: NamedNode): boolean {
  return reader.name === writer.name || reader.aliases.includes(writer.name);
}

/** The reader fields that find a writer field: by name, else by one of the reader field's aliases. */
export function fieldFor<F extends { readonly name: string; readonly aliases: readonly string[] }>(
  reader: F,
  writerFields: readonly F[],
): F[] {
  const names = new Set([reader.name, ...reader.aliases]);
  return writerFields.filter((w) => names.has(w.name));
}

/** Whether `reader` reads every datum written with `writer`. Recursive records are assumed readable while being checked. */
export function readable(reader: AvroNode, writer: AvroNode, assumed = new Map<AvroNode, Set<AvroNode>>()): boolean {
  if (writer.kind === 'union') return writer.branches.every((w) => readable(reader, w, assumed));
  if (reader.kind === 'union') return reader.branches.some((r) => readable(r, writer, assumed));
  switch (reader.kind) {
    case 'primitive':
      return writer.kind === 'primitive' && promotes(writer.type, reader.type);
    case 'array':
      return writer.kind === 'array' && readable(reader.items, writer.items, assumed);
    case 'map':
      return writer.kind === 'map' && readable(reader.values, writer.values, assumed);
    case 'fixed':
      return writer.kind === 'fixed' && namesMatch(reader, writer) && reader.size === writer.size;
    case 'enum':
      return (
        writer.kind === 'enum' &&
        namesMatch(reader, writer) &&
        (reader.default !== undefined || writer.symbols.every((s) => reader.symbols.includes(s)))
      );
    case 'record': {
      if (writer.kind !== 'record' || !namesMatch(reader, writer)) return false;
      const seen = assumed.get(reader) ?? new Set<AvroNode>();
      if (seen.has(writer)) return true;
      assumed.set(reader, seen.add(writer));
      return reader.fields.every((field) => {
        const found = fieldFor(field, writer.fields);
        if (found.length > 1) return false;
        return found.length === 0 ? field.default !== undefined : readable(field.type, found[0]!.type, assumed);
      });
    }
  }
}
