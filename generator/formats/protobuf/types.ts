/**
 * TypeScript declarations of Protobuf payloads, from their compiled descriptors: the message
 * shapes protobuf-es v2 gives at run time (docs/protobuf.md), so the types say what the codec of
 * `@keiyaku/protobuf` holds. Each message gets its type and an `…Init` type (what a factory
 * takes: every field optional, like protobuf-es's `create`); each enum a union of its numbers
 * and a const object of its values.
 */
import { createFileRegistry, type DescEnum, type DescField, type DescMessage, fromBinary, ScalarType, toBinary } from '@bufbuild/protobuf';
import { DescriptorProtoSchema, EnumDescriptorProtoSchema, FileDescriptorSetSchema, isWrapperDesc } from '@bufbuild/protobuf/wkt';

/** A payload message to declare: its descriptors, its fully qualified name, its name in generated code. */
export interface ProtobufTypeRoot {
  /** Base64 binary FileDescriptorSet (the file and its imports). */
  readonly descriptorSet: string;
  readonly message: string;
  readonly name: string;
}

export interface ProtobufDeclarations {
  /** Type declarations (types.ts): interfaces, Init interfaces, enum unions. */
  readonly types: string;
  /** Value declarations: the const object of each enum (a module with values, not types.ts). */
  readonly values: string;
  /** The names of the enum const objects in {@link values}. */
  readonly enumNames: readonly string[];
  /** The generated name of every declared Protobuf type, by fully qualified name. */
  readonly names: ReadonlyMap<string, string>;
}

type Declared = { readonly kind: 'message'; readonly desc: DescMessage } | { readonly kind: 'enum'; readonly desc: DescEnum };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The declarations of `roots` and every message and enum they reach. A type reached from several
 * roots is declared once (by fully qualified name); names avoid `taken` (the contract's other
 * generated names) by prefixing the package, then a number — unless `given` names them (the
 * model's names, allocated with every other name of the contract).
 */
export function protobufDeclarations(
  roots: readonly ProtobufTypeRoot[],
  taken: ReadonlySet<string>,
  given: ReadonlyMap<string, string> = new Map(),
): ProtobufDeclarations {
  const declared = new Map<string, Declared>();
  const names = new Map<string, string>(given);
  const used = new Set([...taken, ...given.values(), ...[...given.values()].map((name) => `${name}Init`)]);
  for (const root of roots) {
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(root.descriptorSet, 'base64')));
    const desc = registry.getMessage(root.message);
    if (desc === undefined) throw new Error(`protobufDeclarations: no message ${root.message} in its descriptors`);
    if (!names.has(desc.typeName)) {
      names.set(desc.typeName, root.name);
      used.add(root.name);
    }
    collect(desc, declared);
  }
  for (const [typeName, entry] of declared) {
    if (names.has(typeName)) {
      if (entry.kind === 'message') used.add(`${names.get(typeName)}Init`);
      continue;
    }
    // A message also declares `<name>Init`: both must be free.
    const free = (name: string) => !used.has(name) && (entry.kind === 'enum' || !used.has(`${name}Init`));
    const local = localName(entry.desc);
    let name = free(local) ? local : typeName.replace(/\./g, '_');
    for (let n = 2; !free(name); n++) name = `${typeName.replace(/\./g, '_')}${n}`;
    names.set(typeName, name);
    used.add(name);
    if (entry.kind === 'message') used.add(`${name}Init`);
  }
  const writer = new DeclarationWriter(names, used);
  const types: string[] = [];
  const values: string[] = [];
  const enumNames: string[] = [];
  for (const entry of declared.values()) {
    if (entry.kind === 'message') types.push(writer.message(entry.desc), writer.messageInit(entry.desc));
    else {
      types.push(writer.enumType(entry.desc));
      values.push(writer.enumObject(entry.desc));
      enumNames.push(writer.name(entry.desc.typeName));
    }
  }
  if (writer.usesJson) types.push(JSON_TYPES.replace(/ProtobufJson/g, writer.jsonPrefix));
  return { types: types.join('\n\n'), values: values.join('\n\n'), enumNames, names };
}

/** A message or enum a payload reaches: its fully qualified name and the name protobuf-es gives it. */
export interface ReachedType {
  readonly typeName: string;
  readonly kind: 'message' | 'enum';
  /** protobuf-es's name: the name inside the package, nested names joined with `_` (`BookBorrowed_Item`). */
  readonly local: string;
  /** Its declaration as compiled (base64 of its descriptor): equal for the same definition. */
  readonly shape: string;
}

/** Every message and enum the payload message `message` reaches, itself first, in field order. */
export function reachedTypes(descriptorSet: string, message: string): ReachedType[] {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorSet, 'base64')));
  const desc = registry.getMessage(message);
  if (desc === undefined) throw new Error(`reachedTypes: no message ${message} in its descriptors`);
  const declared = new Map<string, Declared>();
  collect(desc, declared);
  return [...declared.values()].map((entry) => ({
    typeName: entry.desc.typeName,
    kind: entry.kind,
    local: localName(entry.desc),
    shape: Buffer.from(
      entry.kind === 'message' ? toBinary(DescriptorProtoSchema, entry.desc.proto) : toBinary(EnumDescriptorProtoSchema, entry.desc.proto),
    ).toString('base64'),
  }));
}

/** The name protobuf-es gives a type: its name inside the package, nested names joined with `_`. */
function localName(desc: DescMessage | DescEnum): string {
  const inPackage = desc.file.proto.package === '' ? desc.typeName : desc.typeName.slice(desc.file.proto.package.length + 1);
  return inPackage.replace(/\./g, '_');
}

/** Every message and enum `desc` reaches through its fields, `desc` first, in field order. */
function collect(desc: DescMessage, declared: Map<string, Declared>): void {
  if (declared.has(desc.typeName)) return;
  declared.set(desc.typeName, { kind: 'message', desc });
  for (const field of desc.fields) {
    if (field.enum !== undefined && !declared.has(field.enum.typeName))
      declared.set(field.enum.typeName, { kind: 'enum', desc: field.enum });
    const message = field.message;
    if (message === undefined || usesJson(field)) continue;
    if (field.fieldKind === 'message' && field.oneof === undefined && isWrapperDesc(message)) continue;
    collect(message, declared);
  }
}

/** protobuf-es holds a google.protobuf.Struct field as a JSON object (except inside google.protobuf.Value). */
function usesJson(field: DescField): boolean {
  return field.message?.typeName === 'google.protobuf.Struct' && field.parent.typeName !== 'google.protobuf.Value';
}

const JSON_TYPES = `/** A JSON value, as protobuf-es holds a \`google.protobuf.Struct\` field's content. */
export type ProtobufJsonValue = string | number | boolean | null | ProtobufJsonObject | readonly ProtobufJsonValue[];

/** A JSON object: the value of a \`google.protobuf.Struct\` field. */
export interface ProtobufJsonObject {
  readonly [key: string]: ProtobufJsonValue;
}`;

function scalarType(scalar: ScalarType, longAsString: boolean): string {
  switch (scalar) {
    case ScalarType.STRING:
      return 'string';
    case ScalarType.BOOL:
      return 'boolean';
    case ScalarType.BYTES:
      return 'Uint8Array';
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return longAsString ? 'string' : 'bigint';
    default:
      return 'number';
  }
}

const SCALAR_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(ScalarType)
    .filter(([, value]) => typeof value === 'number')
    .map(([key, value]) => [value, key.toLowerCase()]),
);

function comment(lines: readonly string[]): string {
  return lines.length === 1 ? `/** ${lines[0]} */` : `/**\n${lines.map((line) => ` * ${line}`).join('\n')}\n */`;
}

function property(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

class DeclarationWriter {
  usesJson = false;
  /** The prefix of the JSON helper types (`ProtobufJsonValue`, `ProtobufJsonObject`), free of the names in use. */
  readonly jsonPrefix: string;

  constructor(
    private readonly names: ReadonlyMap<string, string>,
    used: ReadonlySet<string>,
  ) {
    let prefix = 'ProtobufJson';
    for (let n = 2; used.has(`${prefix}Value`) || used.has(`${prefix}Object`); n++) prefix = `ProtobufJson${n}`;
    this.jsonPrefix = prefix;
  }

  name(typeName: string): string {
    const name = this.names.get(typeName);
    if (name === undefined) throw new Error(`protobufDeclarations: ${typeName} was not collected`);
    return name;
  }

  message(desc: DescMessage): string {
    const lines = [`  readonly $typeName: ${JSON.stringify(desc.typeName)};`];
    for (const member of desc.members) {
      if (member.kind === 'oneof') {
        const cases = member.fields.map(
          (field) => `{ readonly case: ${JSON.stringify(field.localName)}; readonly value: ${this.singular(field, false)} }`,
        );
        lines.push(`  /** oneof ${member.name} */`);
        lines.push(
          `  readonly ${property(member.localName)}: ${[...cases, '{ readonly case: undefined; readonly value?: undefined }'].join(' | ')};`,
        );
        continue;
      }
      lines.push(...this.fieldLines(member, false));
    }
    return `${comment([`Protobuf message \`${desc.typeName}\`.`, `@generated from ${desc.file.name}.proto`])}\nexport interface ${this.name(desc.typeName)} {\n${lines.join('\n')}\n}`;
  }

  messageInit(desc: DescMessage): string {
    const name = this.name(desc.typeName);
    const lines = [`  readonly $typeName?: ${JSON.stringify(desc.typeName)};`];
    for (const member of desc.members) {
      if (member.kind === 'oneof') {
        const cases = member.fields.map(
          (field) => `{ readonly case: ${JSON.stringify(field.localName)}; readonly value: ${this.singular(field, true)} }`,
        );
        lines.push(
          `  readonly ${property(member.localName)}?: ${[...cases, '{ readonly case: undefined; readonly value?: undefined }'].join(' | ')} | undefined;`,
        );
        continue;
      }
      lines.push(...this.fieldLines(member, true));
    }
    const doc = comment([
      `What a factory of \`${desc.typeName}\` takes: {@link ${name}} or any part of it (unset fields take their defaults).`,
    ]);
    return `${doc}\nexport interface ${name}Init {\n${lines.join('\n')}\n}`;
  }

  private fieldLines(field: DescField, init: boolean): string[] {
    const docs: string[] = [];
    if (field.deprecated) docs.push('@deprecated');
    if (field.fieldKind === 'scalar' && field.longAsString)
      docs.push(`${SCALAR_NAMES[field.scalar]} as a decimal string (jstype = JS_STRING)`);
    const head = docs.length === 0 ? [] : [`  ${comment(docs)}`];
    const key = property(field.localName);
    // Message fields and fields with explicit presence may be unset; a proto2 `required` one may not.
    const optional =
      init || field.fieldKind === 'message' || ((field.fieldKind === 'scalar' || field.fieldKind === 'enum') && field.presence === 1);
    const type = this.fieldType(field, init);
    return [...head, optional ? `  readonly ${key}?: ${type} | undefined;` : `  readonly ${key}: ${type};`];
  }

  private fieldType(field: DescField, init: boolean): string {
    switch (field.fieldKind) {
      case 'list': {
        const item =
          field.listKind === 'scalar'
            ? scalarType(field.scalar, field.longAsString)
            : field.listKind === 'enum'
              ? this.name(field.enum.typeName)
              : this.messageType(field.message, usesJson(field), init);
        return `readonly ${item.includes(' ') ? `(${item})` : item}[]`;
      }
      case 'map': {
        const value =
          field.mapKind === 'scalar'
            ? scalarType(field.scalar, false)
            : field.mapKind === 'enum'
              ? this.name(field.enum.typeName)
              : this.messageType(field.message, usesJson(field), init);
        return `{ readonly [key: string]: ${value} }`;
      }
      default:
        return this.singular(field, init);
    }
  }

  /** The type of a singular field (also one of a oneof). */
  private singular(field: DescField, init: boolean): string {
    if (field.fieldKind === 'scalar') return scalarType(field.scalar, field.longAsString);
    if (field.fieldKind === 'enum') return this.name(field.enum.typeName);
    if (field.fieldKind !== 'message') return 'never';
    if (field.oneof === undefined && isWrapperDesc(field.message)) {
      const inner = field.message.fields[0];
      return inner?.fieldKind === 'scalar' ? scalarType(inner.scalar, inner.longAsString) : 'never';
    }
    return this.messageType(field.message, usesJson(field), init);
  }

  private messageType(desc: DescMessage, json: boolean, init: boolean): string {
    if (json) {
      this.usesJson = true;
      return `${this.jsonPrefix}Object`;
    }
    return init ? `${this.name(desc.typeName)}Init` : this.name(desc.typeName);
  }

  enumType(desc: DescEnum): string {
    const numbers = [...new Set(desc.values.map((value) => value.number))];
    const doc = [
      `Protobuf enum \`${desc.typeName}\`${desc.open ? '' : ' (closed: only these values)'}: ${desc.values.map((value) => `${value.name} = ${value.number}`).join(', ')}.`,
      `@generated from ${desc.file.name}.proto`,
    ];
    return `${comment(doc)}\nexport type ${this.name(desc.typeName)} = ${numbers.join(' | ')};`;
  }

  enumObject(desc: DescEnum): string {
    const entries = desc.values.map((value) => `  ${property(value.localName)}: ${value.number},`);
    const name = this.name(desc.typeName);
    return `${comment([`The values of the Protobuf enum \`${desc.typeName}\` by name (protobuf-es names: the enum's prefix dropped).`])}\nexport const ${name} = {\n${entries.join('\n')}\n} as const;`;
  }
}
