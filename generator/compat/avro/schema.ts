/**
 * An Avro schema (its JSON form) read into a graph the comparer walks: every named type
 * (record, enum, fixed) is one node, however often it is referenced, with its full name and
 * aliases qualified by the namespace rules of the Avro specification; a recursive record refers
 * back to itself.
 */
import { ContractError } from '../../errors.js';

export const PRIMITIVES = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'] as const;
export type Primitive = (typeof PRIMITIVES)[number];

/** A `logicalType` annotation; `precision` and `scale` for `decimal`. */
export interface Logical {
  readonly name: string;
  readonly precision?: number;
  readonly scale?: number;
}

interface Named {
  /** The full name (`com.example.Book`). */
  readonly name: string;
  /** Aliases as full names. */
  readonly aliases: readonly string[];
  readonly doc?: string;
}

export interface AvroField {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly doc?: string;
  readonly type: AvroNode;
  /** The default, when the field has one (`null` is a default). */
  readonly default?: { readonly value: unknown };
}

export type AvroNode =
  | { readonly kind: 'primitive'; readonly type: Primitive; readonly logical?: Logical }
  | (Named & { readonly kind: 'record'; readonly fields: AvroField[] })
  | (Named & { readonly kind: 'enum'; readonly symbols: readonly string[]; readonly default?: string })
  | (Named & { readonly kind: 'fixed'; readonly size: number; readonly logical?: Logical })
  | { readonly kind: 'array'; readonly items: AvroNode }
  | { readonly kind: 'map'; readonly values: AvroNode }
  | { readonly kind: 'union'; readonly branches: readonly AvroNode[] };

export type NamedNode = Extract<AvroNode, { readonly kind: 'record' | 'enum' | 'fixed' }>;

type Json = { readonly [key: string]: unknown };

const isPrimitive = (name: unknown): name is Primitive => (PRIMITIVES as readonly unknown[]).includes(name);

/** `name` qualified by `namespace` unless it already has one. */
function qualify(name: string, namespace: string): string {
  return name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
}

const namespaceOf = (fullname: string): string => fullname.slice(0, Math.max(0, fullname.lastIndexOf('.')));

function logicalOf(schema: Json): Logical | undefined {
  if (typeof schema.logicalType !== 'string') return undefined;
  return {
    name: schema.logicalType,
    ...(typeof schema.precision === 'number' ? { precision: schema.precision } : {}),
    ...(schema.logicalType === 'decimal' ? { scale: typeof schema.scale === 'number' ? schema.scale : 0 } : {}),
  };
}

const docOf = (schema: Json): { doc?: string } => (typeof schema.doc === 'string' ? { doc: schema.doc } : {});

const stringsOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** Reads an Avro schema (the JSON form, self-contained); `label` names it in errors. */
export function readAvro(schema: unknown, label: string): AvroNode {
  const names = new Map<string, NamedNode>();
  const fail = (what: string): never => {
    throw new ContractError(`Avro schema ${label}: ${what}`, [
      { severity: 'error', code: 'avro_schema_invalid', message: `Avro schema ${label}: ${what}`, hint: 'fix the Avro schema' },
    ]);
  };

  const reference = (name: string, namespace: string): AvroNode =>
    names.get(qualify(name, namespace)) ?? names.get(name) ?? fail(`unknown type ${name}`);

  const named = (json: Json, namespace: string): Named & { readonly space: string } => {
    if (typeof json.name !== 'string') return fail(`a ${String(json.type)} without a name`);
    const space = typeof json.namespace === 'string' && !json.name.includes('.') ? json.namespace : namespace;
    const name = qualify(json.name, space);
    const own = namespaceOf(name);
    return { name, aliases: stringsOf(json.aliases).map((a) => qualify(a, own)), ...docOf(json), space: own };
  };

  const register = <T extends NamedNode>(node: T): T => {
    if (names.has(node.name)) fail(`type ${node.name} defined twice`);
    names.set(node.name, node);
    return node;
  };

  const read = (value: unknown, namespace: string): AvroNode => {
    if (typeof value === 'string') return isPrimitive(value) ? { kind: 'primitive', type: value } : reference(value, namespace);
    if (Array.isArray(value)) return { kind: 'union', branches: value.map((v) => read(v, namespace)) };
    if (value === null || typeof value !== 'object') return fail(`${JSON.stringify(value)} is not a schema`);
    const json = value as Json;
    const type = json.type;
    if (typeof type !== 'string') return read(type, namespace);
    if (isPrimitive(type)) {
      const logical = logicalOf(json);
      return { kind: 'primitive', type, ...(logical ? { logical } : {}) };
    }
    switch (type) {
      case 'record':
      case 'error': {
        const { space, ...head } = named(json, namespace);
        const fields: AvroField[] = [];
        const node = register({ kind: 'record', ...head, fields });
        if (!Array.isArray(json.fields)) return fail(`record ${head.name} has no fields list`);
        for (const f of json.fields as Json[]) {
          if (typeof f?.name !== 'string') return fail(`record ${head.name} has a field without a name`);
          fields.push({
            name: f.name,
            aliases: stringsOf(f.aliases),
            ...docOf(f),
            type: read(f.type, space),
            ...(Object.hasOwn(f, 'default') ? { default: { value: f.default } } : {}),
          });
        }
        return node;
      }
      case 'enum': {
        const { space: _space, ...head } = named(json, namespace);
        return register({
          kind: 'enum',
          ...head,
          symbols: stringsOf(json.symbols),
          ...(typeof json.default === 'string' ? { default: json.default } : {}),
        });
      }
      case 'fixed': {
        const { space: _space, ...head } = named(json, namespace);
        if (typeof json.size !== 'number') return fail(`fixed ${head.name} has no size`);
        const logical = logicalOf(json);
        return register({ kind: 'fixed', ...head, size: json.size, ...(logical ? { logical } : {}) });
      }
      case 'array':
        return { kind: 'array', items: read(json.items, namespace) };
      case 'map':
        return { kind: 'map', values: read(json.values, namespace) };
      default:
        return reference(type, namespace);
    }
  };
  return read(schema, '');
}

/**
 * What identifies a union branch, since a union holds at most one schema of each unnamed type:
 * the primitive's or unnamed type's name, or a named type's full name.
 */
export function branchKey(node: AvroNode): string {
  switch (node.kind) {
    case 'primitive':
      return node.type;
    case 'record':
    case 'enum':
    case 'fixed':
      return node.name;
    default:
      return node.kind;
  }
}

export function isNamed(node: AvroNode): node is NamedNode {
  return node.kind === 'record' || node.kind === 'enum' || node.kind === 'fixed';
}
