/** The named types (records, enums, fixed) an Avro type reaches, in the order a reader meets them. */
import type avro from 'avsc';

export function namedTypes(root: avro.Type): avro.Type[] {
  const found: avro.Type[] = [];
  const seen = new Set<avro.Type>();
  const visit = (type: avro.Type): void => {
    if (seen.has(type)) return;
    seen.add(type);
    const name = type.typeName;
    // A logical type's value is its own (decimal text): a fixed beneath it gets no declaration.
    if (name.startsWith('logical:')) return;
    if (name === 'record' || name === 'error' || name === 'enum' || name === 'fixed') found.push(type);
    if (name === 'record' || name === 'error') for (const field of (type as avro.types.RecordType).fields) visit(field.type);
    else if (name === 'array') visit((type as avro.types.ArrayType).itemsType);
    else if (name === 'map') visit((type as avro.types.MapType).valuesType);
    else if (name.startsWith('union')) for (const branch of (type as avro.types.WrappedUnionType).types) visit(branch);
  };
  visit(root);
  return found;
}
