/**
 * JSON Schema objects inside a contract: discovery, naming and normalization.
 *
 * The parser hands over payload schemas with every `$ref` resolved into shared (and,
 * for recursive schemas, cyclic) JavaScript objects. This module turns that graph into
 * a registry of named, acyclic schemas that refer to each other by `#/schemas/<Name>`,
 * rewrites draft-07 spellings into their 2020-12 equivalents, and reports keywords it
 * does not support.
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-core
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#schemaObject
 */
import { createRequire } from 'node:module';
import { type Diagnostic, didYouMean, type SourceLocation } from '../diagnostics.js';
import type { SourceCursor } from '../load/source-locator.js';
import { unescapeToken } from '../pointer.js';
import { type NamedSchema, SCHEMA_REF_PREFIX, type SchemaNode } from './contract-model.js';
import { type NameAllocator, pascalCase, safeIdentifier } from './identifiers.js';

type RawSchema = Record<string, unknown>;
type Tokens = readonly (string | number)[];

/**
 * A place in the resolved document: its tokens, or tokens below another place. The walk and the
 * normalization go through every schema node, but a place's tokens are only read for a
 * diagnostic or a name, so they are joined then ({@link tokensOf}), not copied at every level.
 */
type Where = Tokens | Below;

class Below {
  constructor(
    readonly parent: Where,
    readonly path: Tokens,
  ) {}
}

function tokensOf(where: Where): Tokens {
  if (!(where instanceof Below)) return where;
  const paths: Tokens[] = [];
  let at: Where = where;
  for (; at instanceof Below; at = at.parent) paths.push(at.path);
  const out = [...at];
  for (let i = paths.length - 1; i >= 0; i--) out.push(...paths[i]!);
  return out;
}

/** Keywords whose value is one subschema. */
const SINGLE = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const;
/** Keywords whose value is an array of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value is a map of subschemas. */
const MAP = ['properties', 'patternProperties', 'dependentSchemas'] as const;
const SINGLE_SET: ReadonlySet<string> = new Set(SINGLE);
const LIST_SET: ReadonlySet<string> = new Set(LIST);
const MAP_SET: ReadonlySet<string> = new Set(MAP);
const DEFINITIONS = ['$defs', 'definitions'] as const;
/** The key of a node written under `$defs` or `definitions`. */
const DEFINITION = /\/(?:\$defs|definitions)\/([^/]+)$/;

/** Validation and annotation keywords keiyaku understands (draft-07, 2019-09, 2020-12, AsyncAPI extras). */
const KNOWN = new Set<string>([
  ...SINGLE,
  ...LIST,
  ...MAP,
  ...DEFINITIONS,
  'type',
  'enum',
  'const',
  'required',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependencies',
  'minContains',
  'maxContains',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  '$ref',
  '$id',
  '$schema',
  '$comment',
  '$anchor',
  'title',
  'description',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'nullable',
  'discriminator',
  'externalDocs',
  'xml',
]);
/** Keywords dropped from normalized schemas (identity, comments, AsyncAPI/OpenAPI-only annotations). */
const DROPPED = new Set([
  '$id',
  '$schema',
  '$comment',
  '$anchor',
  '$defs',
  'definitions',
  'example',
  'xml',
  'externalDocs',
  'discriminator',
  'nullable',
  'dependencies',
]);
/** The formats generated validators check (ajv-formats' full set). */
const KNOWN_FORMATS: readonly string[] = Object.keys(
  (createRequire(import.meta.url)('ajv-formats/dist/formats') as { fullFormats: object }).fullFormats,
);
const KNOWN_FORMAT_SET: ReadonlySet<string> = new Set(KNOWN_FORMATS);

/** Keywords that cannot be honoured; named in a warning and ignored (documented in docs/schema-mapping.md). */
const UNSUPPORTED: Record<string, string> = {
  $dynamicRef: 'dynamic references cannot be resolved statically; replace $dynamicRef with $ref',
  $dynamicAnchor: 'dynamic anchors are not supported; use $defs and $ref',
  $recursiveRef: 'recursive references (2019-09) are not supported; use $ref to a $defs entry',
  $recursiveAnchor: 'recursive anchors (2019-09) are not supported; use $defs and $ref',
  $vocabulary: 'custom vocabularies are not supported',
};

export interface SchemaRoot {
  readonly schema: unknown;
  /** Position of the root in the resolved document. */
  readonly tokens: Tokens;
  /** Name to use when the schema itself carries none (`BookBorrowedPayload`). */
  readonly fallbackName: string;
}

interface NodeInfo {
  tokens: Where;
  /** Basename of the file when the node is a whole file (`event-headers` for `schemas/event-headers.json`). */
  fileName?: string;
  references: number;
  cyclic: boolean;
  definitionKey?: string;
  contextName: string;
  /** Where the node was written (after following `$ref`s in the files): its cursor, and its location once asked for. */
  cursor: SourceCursor;
  location?: SourceLocation;
}

/** What the registry asks of the source locator (see generator/load/source-locator.ts). */
export interface SchemaLocator {
  start(): SourceCursor;
  step(from: SourceCursor, tokens: Tokens): SourceCursor;
  location(cursor: SourceCursor): SourceLocation;
  locate(tokens: Tokens): SourceLocation;
  /** The absolute path of a file as locations name it (relative to the load's working directory). */
  resolvePath?(file: string): string;
}

function isSchemaObject(value: unknown): value is RawSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function componentId(node: RawSchema): string | undefined {
  const id = node['x-parser-schema-id'];
  return typeof id === 'string' && !id.startsWith('<') ? id : undefined;
}

/** The path and the context name suffix of each single-subschema keyword (`items` → `Item`, `additionalProperties` → `AdditionalProperties`). */
const SINGLE_CHILDREN: readonly (readonly [key: string, path: Tokens, suffix: string])[] = SINGLE.map((key) => [
  key,
  Object.freeze([key]),
  key === 'items' ? 'Item' : pascalCase(key),
]);

/**
 * Calls `visit` with each child of a raw schema node: its keyword path tokens, the child, its
 * context name suffix (`pascal` of a property name, which repeats from schema to schema).
 */
function eachChild(node: RawSchema, pascal: (name: string) => string, visit: (path: Tokens, child: unknown, suffix: string) => void): void {
  for (const [key, path, suffix] of SINGLE_CHILDREN) {
    const child = node[key];
    if (child !== undefined && !Array.isArray(child)) visit(path, child, suffix);
  }
  const legacyItems = node['items'];
  if (Array.isArray(legacyItems)) for (let i = 0; i < legacyItems.length; i++) visit(['items', i], legacyItems[i], `Item${i}`);
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list))
      for (let i = 0; i < list.length; i++) visit([key, i], list[i], key === 'prefixItems' ? `Item${i}` : `Variant${i + 1}`);
  }
  for (const key of MAP) {
    const map = node[key];
    if (isSchemaObject(map)) for (const name of Object.keys(map)) visit([key, name], map[name], pascal(name) || 'Property');
  }
  const dependencies = node['dependencies'];
  if (isSchemaObject(dependencies)) {
    for (const name of Object.keys(dependencies)) {
      const child = dependencies[name];
      if (!Array.isArray(child)) visit(['dependencies', name], child, pascal(name));
    }
  }
}

/**
 * Builds the named-schema registry for one contract. One instance per generate run:
 * all state lives here, nothing at module level.
 */
export class SchemaRegistry {
  readonly #info = new Map<object, NodeInfo>();
  readonly #names = new Map<object, string>();
  readonly #entries = new Map<string, NamedSchema>();
  readonly #pending: [object, string][] = [];
  readonly #allocator: NameAllocator;
  readonly #locator: SchemaLocator;
  readonly #diagnostics: Diagnostic[] = [];
  readonly #reported = new Set<string>();
  readonly #roots = new Map<object, SchemaRoot>();
  /** {@link pascalCase} of the property names met, each worked out once. */
  readonly #pascalCases = new Map<string, string>();
  readonly #pascal = (name: string): string => {
    let pascal = this.#pascalCases.get(name);
    if (pascal === undefined) {
      pascal = pascalCase(name);
      this.#pascalCases.set(name, pascal);
    }
    return pascal;
  };

  constructor(allocator: NameAllocator, locator: SchemaLocator) {
    this.#allocator = allocator;
    this.#locator = locator;
  }

  #locate(tokens: Tokens): SourceLocation {
    return this.#locator.locate(tokens);
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.#diagnostics;
  }

  /** Pass 1: learn shapes, sharing, cycles and definition keys of every root's graph. Call for every root before {@link named}. */
  discover(root: SchemaRoot): void {
    if (!isSchemaObject(root.schema)) return;
    if (!this.#roots.has(root.schema)) this.#roots.set(root.schema, root);
    this.#walk(root.schema, root.tokens, root.fallbackName, new Set(), this.#locator.start(), root.tokens);
  }

  /** `node` sits at `tokens` of the resolved document, `path` below the node at `from`. */
  #walk(node: RawSchema, tokens: Where, contextName: string, stack: Set<object>, from: SourceCursor, path: Tokens): void {
    const existing = this.#info.get(node);
    if (existing !== undefined) {
      existing.references++;
      if (stack.has(node)) existing.cyclic = true;
      return;
    }
    const cursor = this.#locator.step(from, path);
    // Where the node was written tells whether it is a definition (`…#/$defs/BookId`) or a whole
    // file; its line and column are worked out only for a name or a diagnostic.
    const info: NodeInfo = { tokens, references: 1, cyclic: false, contextName, cursor };
    const pointer = cursor.pointer;
    const definition = pointer.includes('/definitions/') || pointer.includes('/$defs/') ? DEFINITION.exec(pointer) : null;
    if (definition) info.definitionKey = unescapeToken(definition[1]!);
    else if (pointer === '') {
      const written = this.#locationOf(info);
      if (written.line > 0) info.fileName = written.file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
    }
    this.#info.set(node, info);
    stack.add(node);
    for (const key of DEFINITIONS) {
      const defs = node[key];
      if (!isSchemaObject(defs)) continue;
      for (const [name, child] of Object.entries(defs)) {
        if (!isSchemaObject(child)) continue;
        if (!this.#info.has(child)) {
          const below: Tokens = [key, name];
          this.#walk(child, new Below(tokens, below), pascalCase(name), stack, cursor, below);
          this.#info.get(child)!.references--; // a definition is not a use
        }
        const info = this.#info.get(child)!;
        info.definitionKey ??= name;
      }
    }
    eachChild(node, this.#pascal, (path, child, suffix) => {
      if (isSchemaObject(child)) this.#walk(child, new Below(tokens, path), `${contextName}${suffix}`, stack, cursor, path);
    });
    stack.delete(node);
  }

  /** Where the node of `info` was written. */
  #locationOf(info: NodeInfo): SourceLocation {
    info.location ??= this.#locator.location(info.cursor);
    return info.location;
  }

  /** Pass 2: the name of a root schema (registering it and everything it needs). */
  named(root: SchemaRoot): string {
    const schema = root.schema;
    if (!isSchemaObject(schema)) {
      // `true`, `false` or a non-object: still a named type so messages can refer to it.
      const name = this.#allocator.allocate(safeIdentifier(pascalCase(root.fallbackName), 'Schema'));
      const location = this.#locate(root.tokens);
      this.#entries.set(name, { name, schema: typeof schema === 'boolean' ? schema : true, origin: 'message', location });
      return name;
    }
    if (!this.#info.has(schema)) this.discover(root);
    const name = this.#nameOf(schema, root.fallbackName);
    this.#drain();
    return name;
  }

  /** Every named schema, in the order they were named. */
  entries(): Record<string, NamedSchema> {
    this.#drain();
    return Object.fromEntries(this.#entries);
  }

  #drain(): void {
    while (this.#pending.length > 0) {
      const [node, name] = this.#pending.shift()!;
      const info = this.#info.get(node)!;
      const normalized = this.#normalize(node as RawSchema, info.tokens);
      const origin = info.definitionKey
        ? 'definition'
        : componentId(node as RawSchema)
          ? 'component'
          : this.#roots.has(node)
            ? 'message'
            : typeof (node as RawSchema)['title'] === 'string'
              ? 'title'
              : 'place';
      this.#entries.set(name, { name, schema: normalized, origin, location: this.#locationOf(info) });
    }
  }

  #needsName(node: RawSchema, info: NodeInfo): boolean {
    if (this.#roots.has(node) || info.cyclic || info.definitionKey !== undefined || componentId(node) !== undefined) return true;
    // A titled object or union (a `oneOf` variant with a title), and an inline object with
    // properties, get an exported name: from the title, else from where they sit.
    if (typeof node['title'] === 'string' && isStructural(node)) return true;
    if (isObjectWithProperties(node)) return true;
    return info.references > 1 && isStructural(node);
  }

  #nameOf(node: RawSchema, fallback: string): string {
    const known = this.#names.get(node);
    if (known !== undefined) return known;
    const info = this.#info.get(node);
    const root = this.#roots.get(node);
    const title = typeof node['title'] === 'string' ? pascalCase(node['title']) : '';
    const sharedFile = root !== undefined && (info?.references ?? 0) > 1 ? info?.fileName : undefined;
    const candidates = [info?.definitionKey, componentId(node), sharedFile, root ? root.fallbackName : title, info?.contextName, fallback];
    const base = candidates.map((c) => (c ? pascalCase(c) : '')).find((c) => c.length > 0) ?? 'Schema';
    const wanted = safeIdentifier(base, 'Schema');
    const tokens = info?.tokens ?? root?.tokens ?? [];
    const where = info === undefined ? this.#locate(tokensOf(tokens)) : this.#locationOf(info);
    const name = this.#allocator.allocate(wanted, `the schema at ${where.file}#${where.pointer}`);
    if (name !== wanted)
      this.#warn(
        'name_clash',
        `the schema at ${where.file}#${where.pointer} is named ${name}: ${wanted} is taken by ${this.#allocator.ownerOf(wanted)}`,
        tokens,
        'give one of them a distinct title (or $defs key) to choose its name',
      );
    this.#names.set(node, name);
    this.#pending.push([node, name]);
    return name;
  }

  #reference(child: unknown, tokens: Where): SchemaNode {
    if (typeof child === 'boolean') return child;
    if (!isSchemaObject(child)) {
      this.#warn(
        'invalid_schema',
        `a schema must be an object or a boolean, found ${JSON.stringify(child)}`,
        tokens,
        'replace it with a JSON Schema object',
      );
      return true;
    }
    const info = this.#info.get(child);
    if (info !== undefined && this.#needsName(child, info)) {
      return { $ref: `${SCHEMA_REF_PREFIX}${this.#nameOf(child, info.contextName)}` };
    }
    return this.#normalize(child, tokens);
  }

  #normalize(node: RawSchema, tokens: Where): SchemaNode {
    const out: Record<string, unknown> = {};
    const keys = Object.keys(node);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const value = node[key];
      if (key.startsWith('x-')) continue;
      if (key in UNSUPPORTED) {
        this.#warn(
          'unsupported_keyword',
          `JSON Schema keyword "${key}" is not supported and is ignored by generated types and validators`,
          new Below(tokens, [key]),
          UNSUPPORTED[key]!,
        );
        continue;
      }
      if (!KNOWN.has(key)) {
        const meant = didYouMean(key, KNOWN);
        this.#warn(
          'unknown_keyword',
          `"${key}" is not a JSON Schema keyword keiyaku knows; generated types and validators ignore it`,
          new Below(tokens, [key]),
          meant === undefined ? `fix its spelling, or prefix it with "x-" if it is an extension` : `did you mean "${meant}"?`,
        );
        continue;
      }
      if (key === 'format' && typeof value === 'string' && !KNOWN_FORMAT_SET.has(value)) {
        const meant = didYouMean(value, KNOWN_FORMATS);
        this.#warn(
          'unknown_format',
          `format "${value}" is not one keiyaku validates; it is kept as documentation only`,
          new Below(tokens, [key]),
          meant === undefined
            ? `use a format ajv-formats knows (date-time, uuid, email, uri, …), or drop "format"`
            : `did you mean "${meant}"?`,
        );
      }
      if (DROPPED.has(key)) continue;
      if (key === 'pattern' && typeof value === 'string') this.#checkPattern(value, new Below(tokens, [key]));
      if (key === 'patternProperties' && isSchemaObject(value))
        for (const p of Object.keys(value)) this.#checkPattern(p, new Below(tokens, [key, p]));
      if (SINGLE_SET.has(key) && !Array.isArray(value)) {
        out[key] = this.#reference(value, new Below(tokens, [key]));
      } else if (key === 'items' && Array.isArray(value)) {
        // draft-07 tuple: items: [..] + additionalItems  →  prefixItems + items
        out['prefixItems'] = value.map((child, i) => this.#reference(child, new Below(tokens, ['items', i])));
      } else if (LIST_SET.has(key) && Array.isArray(value)) {
        out[key] = value.map((child, i) => this.#reference(child, new Below(tokens, [key, i])));
      } else if (MAP_SET.has(key) && isSchemaObject(value)) {
        const map: Record<string, unknown> = {};
        for (const name of Object.keys(value)) defineEntry(map, name, this.#reference(value[name], new Below(tokens, [key, name])));
        out[key] = map;
      } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') {
        // draft-04 spelling: a boolean beside minimum/maximum
        const bound = node[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'];
        if (value && typeof bound === 'number') out[key] = bound;
      } else {
        out[key] = typeof value === 'object' && value !== null ? copy(value) : value;
      }
    }
    if (Array.isArray(node['items'])) {
      const additional = node['additionalItems'];
      delete out['additionalItems'];
      delete out['items'];
      if (additional !== undefined) out['items'] = this.#reference(additional, new Below(tokens, ['additionalItems']));
    }
    // draft-04: the bound moved into exclusiveMinimum/Maximum above, so minimum/maximum go
    if (node['exclusiveMinimum'] === true && typeof node['minimum'] === 'number') delete out['minimum'];
    if (node['exclusiveMaximum'] === true && typeof node['maximum'] === 'number') delete out['maximum'];
    const dependencies = node['dependencies'];
    if (isSchemaObject(dependencies)) {
      for (const [name, dep] of Object.entries(dependencies)) {
        if (Array.isArray(dep)) {
          out['dependentRequired'] = { ...(out['dependentRequired'] as object | undefined), [name]: [...dep] };
        } else {
          out['dependentSchemas'] = {
            ...(out['dependentSchemas'] as object | undefined),
            [name]: this.#reference(dep, new Below(tokens, ['dependencies', name])),
          };
        }
      }
    }
    if (node['nullable'] === true) return nullable(out);
    if (node['discriminator'] !== undefined) out['x-discriminator'] = structuredClone(node['discriminator']);
    return out;
  }

  #checkPattern(pattern: string, tokens: Where): void {
    try {
      new RegExp(pattern, 'u');
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message.replace(/^Invalid regular expression: /, '') : String(cause);
      this.#diagnostics.push({
        severity: 'error',
        code: 'invalid_pattern',
        message: `pattern ${JSON.stringify(pattern)} is not a valid regular expression (${detail})`,
        hint: 'fix the expression; patterns are ECMA-262 regular expressions with the u flag',
        location: this.#locate(tokensOf(tokens)),
      });
    }
  }

  #warn(code: string, message: string, tokens: Where, hint: string): void {
    const location = this.#locate(tokensOf(tokens));
    const key = `${code}|${location.file}|${location.pointer}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#diagnostics.push({ severity: 'warning', code, message, hint, location });
  }
}

/** `map[name] = value` as a new own property, also for the name `__proto__` (as `Object.fromEntries` does). */
function defineEntry(map: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  else map[name] = value;
}

/** A deep copy of a keyword's value: a list of plain values (`required`, `enum`, `type`) is copied as is, anything else cloned. */
function copy(value: object): unknown {
  if (Array.isArray(value)) {
    let plain = true;
    for (let i = 0; i < value.length && plain; i++) plain = i in value && (value[i] === null || typeof value[i] !== 'object');
    if (plain && Object.keys(value).length === value.length) return value.slice();
  }
  return structuredClone(value);
}

/** OpenAPI-style `nullable: true` as a 2020-12 schema. */
function nullable(schema: Record<string, unknown>): SchemaNode {
  const type = schema['type'];
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...type, 'null'] };
  if (Array.isArray(schema['enum']))
    return (schema['enum'] as unknown[]).includes(null) ? schema : { ...schema, enum: [...(schema['enum'] as unknown[]), null] };
  return { anyOf: [schema, { type: 'null' }] };
}

function isObjectWithProperties(node: RawSchema): boolean {
  const properties = node['properties'];
  if (!isSchemaObject(properties)) return false;
  for (const name in properties) if (Object.hasOwn(properties, name)) return true;
  return false;
}

const STRUCTURAL = ['properties', 'patternProperties', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'enum', 'items', 'prefixItems'];

function isStructural(node: RawSchema): boolean {
  for (const key of STRUCTURAL) if (key in node) return true;
  return node['type'] === 'object';
}
