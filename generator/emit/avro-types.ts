/**
 * TypeScript declarations of Avro payloads (types.ts): one exported type per named Avro type
 * (records as readonly interfaces, enums as unions of string literals, fixed as Uint8Array),
 * each under the name the model gave it. The values are @keiyaku/avro's (docs/avro.md), and
 * unions are wrapped exactly where avsc's `wrapUnions: 'auto'` wraps them.
 */
import type avro from 'avsc';
import { avroTypeOf } from '../formats/avro/build.js';
import { LOGICAL_TS } from '../formats/avro/logical.js';
import { namedTypes } from '../formats/avro/named.js';
import type { AvroPayloadModel } from '../model/contract-model.js';
import { jsDoc, propertyKey, stringLiteral } from './escape.js';

type Names = Readonly<Record<string, string>>;

const PRIMITIVE_TS: Readonly<Record<string, string>> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  string: 'string',
  bytes: 'Uint8Array',
};

/** The TypeScript type of values of `type`, naming named types by `names`. */
function tsOf(type: avro.Type, names: Names): string {
  const kind = type.typeName;
  if (kind.startsWith('logical:'))
    return LOGICAL_TS[kind.slice('logical:'.length)] ?? tsOf((type as avro.types.LogicalType).underlyingType, names);
  const primitive = PRIMITIVE_TS[kind];
  if (primitive !== undefined) return primitive;
  if (type.name !== undefined) return names[type.name] ?? 'never';
  if (kind === 'array') return `readonly ${group(tsOf((type as avro.types.ArrayType).itemsType, names))}[]`;
  if (kind === 'map') return `Readonly<Record<string, ${tsOf((type as avro.types.MapType).valuesType, names)}>>`;
  const branches = (type as avro.types.WrappedUnionType).types;
  if (kind === 'union:wrapped') {
    return branches
      .map((branch) => `{ readonly ${propertyKey(branch.branchName ?? branch.typeName)}: ${tsOf(branch, names)} }`)
      .join(' | ');
  }
  return [...new Set(branches.map((branch) => tsOf(branch, names)))].join(' | ');
}

/** `T` ready to be followed by `[]`. */
function group(ts: string): string {
  return /^[\w.<>, ]+$/.test(ts) && !ts.includes(',') ? ts : `(${ts})`;
}

function declaration(type: avro.Type, names: Names, notes: readonly string[]): string {
  const name = names[type.name!]!;
  const doc = (extra: readonly (string | undefined)[]) =>
    jsDoc([(type as { doc?: string }).doc, ...extra, `Avro ${type.typeName} ${type.name}.`, ...notes]);
  if (type.typeName === 'enum') {
    const symbols = (type as avro.types.EnumType).symbols.map((s) => stringLiteral(s)).join(' | ');
    return `${doc([])}export type ${name} = ${symbols};`;
  }
  if (type.typeName === 'fixed') {
    return `${doc([`${(type as avro.types.FixedType).size} bytes.`])}export type ${name} = Uint8Array;`;
  }
  const fields = (type as avro.types.RecordType).fields.map((field) => {
    const fieldDoc = (field as unknown as { doc?: string }).doc;
    const fallback = field.defaultValue();
    const defaultNote = fallback === undefined ? undefined : `@default ${JSON.stringify(defaultJson(fallback))}`;
    const optional = fallback === undefined ? '' : '?';
    const member = `readonly ${propertyKey(field.name)}${optional}: ${tsOf(field.type, names)};`;
    return `${jsDoc([fieldDoc, defaultNote], '  ')}  ${member}`;
  });
  return `${doc([])}export interface ${name} {\n${fields.join('\n')}\n}`;
}

/** A default value as JSON text for a comment (bytes as their length, dates as ISO text). */
function defaultJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}

/**
 * Declarations of every named type of the contract's Avro payloads, each once (the first
 * payload that reaches it), with the notes `notesOf` gives for its full name.
 */
export function avroDeclarations(payloads: readonly AvroPayloadModel[], notesOf: (fullname: string) => readonly string[]): string[] {
  const declared = new Set<string>();
  const out: string[] = [];
  for (const payload of payloads) {
    const names = payload.typeNames ?? {};
    for (const type of namedTypes(avroTypeOf(payload.schema))) {
      const name = names[type.name!];
      if (name === undefined || declared.has(name)) continue;
      declared.add(name);
      out.push(declaration(type, names, notesOf(type.name!)).trimEnd());
    }
  }
  return out;
}
