/**
 * JSON Schema → TypeScript types, over the normalized schemas of a {@link ContractModel}.
 *
 * Every keyword either has a type-level meaning here or a documented fallback
 * (docs/schema-mapping.md): constraints the type system cannot state (`pattern`,
 * `minimum`, `not`, `if`/`then`/`else`, …) are left to the generated validators and
 * noted in JSDoc where useful. Nothing here throws on a valid schema.
 */
import { type NamedSchema, refName, type SchemaNode } from '../model/contract-model.js';
import { jsDoc, jsonLiteral, propertyKey, stringLiteral } from './escape.js';

type Schema = { readonly [keyword: string]: unknown };

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A type for a JSON value used in `const`/`enum`: literal for primitives, structural for objects and arrays. */
export function literalType(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return jsonLiteral(value);
  if (Array.isArray(value)) return `readonly [${value.map(literalType).join(', ')}]`;
  if (isObject(value)) {
    const members = Object.entries(value).map(([k, v]) => `readonly ${propertyKey(k)}: ${literalType(v)}`);
    return `{ ${members.join('; ')} }`;
  }
  return 'unknown';
}

/** Splits `A | (B | C) | "x|y"` at its top-level bars, unwrapping one level of parentheses. */
function unionMembers(type: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const ch = type[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ('([{<'.includes(ch)) depth++;
    else if (')]}>'.includes(ch) && type[i - 1] !== '=') depth--;
    else if (ch === '|' && depth === 0) {
      members.push(type.slice(start, i).trim());
      start = i + 1;
    }
  }
  members.push(type.slice(start).trim());
  if (members.length === 1) {
    const only = members[0]!;
    if (only.startsWith('(') && only.endsWith(')') && matchingParen(only) === only.length - 1) return unionMembers(only.slice(1, -1));
    return [only];
  }
  return members
    .filter((m) => m.length > 0)
    .flatMap((m) => (m.startsWith('(') && matchingParen(m) === m.length - 1 ? unionMembers(m.slice(1, -1)) : [m]));
}

function matchingParen(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}

function union(parts: readonly string[]): string {
  if (parts.length === 1) {
    // One type without a bar: nothing to split (unionMembers gives it back trimmed, unwrapped from parentheses).
    const only = parts[0]!.trim();
    if (!only.includes('|') && !only.startsWith('(')) return only;
  }
  const unique = [...new Set(parts.flatMap(unionMembers))];
  if (unique.length === 0) return 'never';
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? unique[0]! : unique.map(wrap).join(' | ');
}

function intersection(parts: readonly string[]): string {
  if (parts.length === 1) return parts[0]!;
  const unique = [...new Set(parts)].filter((p) => p !== 'unknown');
  if (unique.length === 0) return 'unknown';
  return unique.length === 1 ? unique[0]! : unique.map(wrap).join(' & ');
}

/** Parenthesise compound types where precedence needs it. */
function wrap(type: string): string {
  return /^[\w$.]+$/.test(type) || /^"(?:[^"\\]|\\.)*"$/.test(type) ? type : `(${type})`;
}

function arrayOf(type: string): string {
  return `readonly ${/^[\w$.<>]+$/.test(type) ? type : `(${type})`}[]`;
}

/** Keywords the types cannot state, named in a declaration's JSDoc. */
const RUNTIME_ONLY = ['not', 'if', 'dependentSchemas', 'dependentRequired', 'unevaluatedProperties', 'propertyNames', 'contains'];

/** Lines of JSDoc for a property or declaration from the schema's annotations. */
export function annotationLines(schema: SchemaNode): string[] {
  if (!isObject(schema)) return [];
  const lines: string[] = [];
  if (typeof schema['description'] === 'string') lines.push(schema['description']);
  else if (typeof schema['title'] === 'string') lines.push(schema['title']);
  if (typeof schema['format'] === 'string') lines.push(`@format ${schema['format']}`);
  if (typeof schema['pattern'] === 'string') lines.push(`@pattern ${schema['pattern']}`);
  if (schema['default'] !== undefined) lines.push(`@default ${JSON.stringify(schema['default'])}`);
  if (schema['deprecated'] === true) lines.push('@deprecated');
  const runtimeOnly = RUNTIME_ONLY.filter((k) => k in schema);
  if (runtimeOnly.length > 0) lines.push(`@remarks Checked by the generated validator, not by the type: ${runtimeOnly.join(', ')}.`);
  return lines;
}

/**
 * Members every object inherits. An optional property with one of these names reads as the
 * inherited member when absent, and TypeScript checks object literals against it, so its
 * type is widened to include the inherited member's type (docs/schema-mapping.md).
 */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'valueOf',
  'toString',
  'toLocaleString',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
]);

const OBJECT_HINTS = ['properties', 'patternProperties', 'additionalProperties', 'required', 'minProperties', 'maxProperties'];
const ARRAY_HINTS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'];

const VARIANTS = ['oneOf', 'anyOf'] as const;

export class SchemaTypeWriter {
  /** The type expression of `schema`. */
  type(schema: SchemaNode): string {
    if (schema === true) return 'unknown';
    if (schema === false) return 'never';
    const parts: string[] = [];
    const ref = schema['$ref'];
    if (typeof ref === 'string') parts.push(refName(ref) ?? 'unknown');
    if ('const' in schema) parts.push(literalType(schema['const']));
    else if (Array.isArray(schema['enum'])) parts.push(union(schema['enum'].map(literalType)));
    else {
      const base = this.#byType(schema);
      if (base !== undefined) parts.push(base);
    }
    for (const member of (schema['allOf'] as SchemaNode[] | undefined) ?? []) parts.push(this.type(member));
    for (const key of VARIANTS) {
      const variants = schema[key] as SchemaNode[] | undefined;
      if (Array.isArray(variants) && variants.length > 0) parts.push(union(variants.map((v) => this.type(v))));
    }
    return intersection(parts);
  }

  #byType(schema: Schema): string | undefined {
    let types: string[];
    if (typeof schema['type'] === 'string') types = [schema['type']];
    else if (Array.isArray(schema['type'])) types = schema['type'].filter((t): t is string => typeof t === 'string');
    else if (OBJECT_HINTS.some((k) => k in schema)) types = ['object'];
    else if (ARRAY_HINTS.some((k) => k in schema)) types = ['array'];
    else return undefined;
    return union(
      types.map((type) => {
        switch (type) {
          case 'string':
            return 'string';
          case 'number':
          case 'integer':
            return 'number';
          case 'boolean':
            return 'boolean';
          case 'null':
            return 'null';
          case 'object':
            return this.objectType(schema);
          case 'array':
            return this.#arrayType(schema);
          default:
            return 'unknown';
        }
      }),
    );
  }

  /** `{ readonly a: string; readonly b?: number; readonly [key: string]: … }` for an object schema. */
  objectType(schema: Schema): string {
    const members = this.objectMembers(schema);
    if (members.length === 0)
      return schema['additionalProperties'] === false ? '{ readonly [key: string]: never }' : '{ readonly [key: string]: unknown }';
    return `{\n${indentMembers(members)}\n}`;
  }

  /** The members of an object type, each with its JSDoc, one per entry. */
  objectMembers(schema: Schema): string[] {
    const properties = isObject(schema['properties']) ? (schema['properties'] as Record<string, SchemaNode>) : {};
    const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
    const members: string[] = [];
    const propertyTypes: string[] = [];
    let anyOptional = false;
    for (const [name, child] of Object.entries(properties)) {
      const optional = !required.has(name);
      const type = optional && OBJECT_MEMBERS.has(name) ? union([this.type(child), `Object[${stringLiteral(name)}]`]) : this.type(child);
      anyOptional ||= optional;
      propertyTypes.push(type);
      members.push(`${jsDoc(annotationLines(child))}readonly ${propertyKey(name)}${optional ? '?' : ''}: ${type};`);
    }
    // Required names without a property schema still exist on valid values.
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) {
        members.push(`readonly ${propertyKey(name)}: unknown;`);
        propertyTypes.push('unknown');
      }
    }
    const extra: string[] = [];
    const patterns = isObject(schema['patternProperties']) ? (schema['patternProperties'] as Record<string, SchemaNode>) : {};
    for (const child of Object.values(patterns)) extra.push(this.type(child));
    const additional = schema['additionalProperties'];
    if (additional !== undefined && additional !== false) extra.push(this.type(additional as SchemaNode));
    const noProperties = Object.keys(properties).length === 0 && required.size === 0;
    if (extra.length === 0 && noProperties && additional !== false) extra.push('unknown');
    if (extra.length > 0) {
      const patternNote =
        Object.keys(patterns).length > 0
          ? jsDoc([
              `Keys matching ${Object.keys(patterns)
                .map((p) => stringLiteral(p))
                .join(', ')}${additional !== undefined && additional !== false ? ' and any other key' : ''}.`,
            ])
          : '';
      const indexType = union([...extra, ...propertyTypes, ...(anyOptional ? ['undefined'] : [])]);
      members.push(`${patternNote}readonly [key: string]: ${indexType};`);
    }
    return members;
  }

  #arrayType(schema: Schema): string {
    const prefix = Array.isArray(schema['prefixItems']) ? (schema['prefixItems'] as SchemaNode[]) : undefined;
    const items = schema['items'] as SchemaNode | undefined;
    if (prefix === undefined) return arrayOf(items === undefined ? 'unknown' : this.type(items));
    const minItems = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
    const elements = prefix.map((child, i) => `${this.type(child)}${i >= minItems ? '?' : ''}`);
    if (items !== false) elements.push(`...${arrayOf(items === undefined ? 'unknown' : this.type(items)).replace(/^readonly /, '')}`);
    return `readonly [${elements.join(', ')}]`;
  }

  /** The declaration of a named schema: an interface for plain object schemas, a type alias otherwise. */
  declaration(named: NamedSchema, docLines: readonly string[]): string {
    const schema = named.schema;
    const doc = jsDoc([...annotationLines(schema), ...docLines]);
    if (isObject(schema) && isPlainObject(schema)) {
      const members = this.objectMembers(schema);
      if (members.length > 0) return `${doc}export interface ${named.name} {\n${indentMembers(members)}\n}\n`;
    }
    return `${doc}export type ${named.name} = ${this.type(schema)};\n`;
  }
}

/** An object schema with nothing but object keywords and annotations: it can be an interface. */
function isPlainObject(schema: Schema): boolean {
  const typed = schema['type'] === 'object' || (schema['type'] === undefined && 'properties' in schema);
  const combinators = ['$ref', 'allOf', 'anyOf', 'oneOf', 'enum', 'const'].some((k) => k in schema);
  return typed && !combinators;
}

/**
 * Members of an object type, one level in from its braces: each line of each member (a member's
 * JSDoc, the lines of an object type nested in it) already laid out relative to the member.
 */
function indentMembers(members: readonly string[]): string {
  return members.map((member) => `  ${member.replaceAll('\n', '\n  ')}`).join('\n');
}
