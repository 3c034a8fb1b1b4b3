/** `$ref` resolution, the one-spelling view of a schema, and the predicates every comparer uses. */

import { refName, type SchemaNode } from '../../model/contract-model.js';
import { METADATA_KEYWORDS } from '../codes.js';
import type { Schema, Side } from './context.js';

const METADATA = METADATA_KEYWORDS;
/** Keywords that only identify or annotate, and the raw-schema containers keiyaku removes on load. */
export const IGNORED = new Set([
  ...METADATA,
  '$id',
  '$schema',
  '$anchor',
  '$defs',
  'definitions',
  'example',
  'x-discriminator',
  'discriminator',
  'externalDocs',
  'xml',
  'contentEncoding',
  'contentMediaType',
]);

export function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function valueKey(value: unknown): string {
  return JSON.stringify(value);
}

/** Follows a JSON pointer (`#/$defs/Money`) inside `root`. */
export function pointerInto(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return typeof node === 'boolean' || isObject(node) ? (node as SchemaNode) : undefined;
}

/** Follows references (`#/schemas/<Name>` of `side.model`, or local pointers) and chains of them. */
export function resolve(side: Side, node: SchemaNode): { node: SchemaNode; name?: string } {
  let current = node;
  let name: string | undefined;
  for (let hops = 0; hops < 32 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    const ref = current['$ref'] as string;
    const target = refName(ref);
    const named = target === undefined ? pointerInto(side.root, ref) : side.model.schemas[target]?.schema;
    if (named === undefined) break;
    name = target ?? ref;
    const { $ref: _ref, ...siblings } = current;
    current = Object.keys(siblings).filter((k) => !IGNORED.has(k)).length === 0 ? named : { allOf: [named, siblings] };
  }
  return name === undefined ? { node: current } : { node: current, name };
}

/**
 * The schema in one spelling: draft-07 `dependencies` as `dependentRequired`/`dependentSchemas`,
 * array `items` + `additionalItems` as `prefixItems` + `items`, draft-04 boolean exclusive bounds
 * as numbers, duplicate branches of a combinator collapsed, and `{ allOf: [X] }` (or a
 * one-branch `anyOf`/`oneOf`) with nothing beside it as X.
 */
export function view(side: Side, input: SchemaNode): SchemaNode {
  const node = resolve(side, input).node;
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = { ...node };
  if (Array.isArray(node['items'])) {
    out['prefixItems'] = node['items'];
    delete out['items'];
    if (node['additionalItems'] !== undefined) out['items'] = node['additionalItems'];
    delete out['additionalItems'];
  }
  if (isObject(node['dependencies'])) {
    for (const [name, dep] of Object.entries(node['dependencies'])) {
      if (Array.isArray(dep)) out['dependentRequired'] = { ...(out['dependentRequired'] as object | undefined), [name]: dep };
      else out['dependentSchemas'] = { ...(out['dependentSchemas'] as object | undefined), [name]: dep };
    }
    delete out['dependencies'];
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[exclusive] === 'boolean') {
      if (node[exclusive] === true && typeof node[bound] === 'number') {
        out[exclusive] = node[bound];
        delete out[bound];
      } else delete out[exclusive];
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(node[keyword])) out[keyword] = uniqueBranches(side, node[keyword] as SchemaNode[]);
  }
  return out;
}

export function uniqueBranches(side: Side, list: readonly SchemaNode[]): SchemaNode[] {
  const seen = new Set<string>();
  return list.filter((branch) => {
    const key = valueKey(strip(resolve(side, branch).node));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The schema without annotations, for comparing branches by meaning. */
export function strip(node: SchemaNode): SchemaNode {
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !IGNORED.has(k)));
}

export function types(schema: Schema): Set<string> | undefined {
  const t = schema['type'];
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  return undefined;
}

export function accepts(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

export function isEmpty(schema: SchemaNode): boolean {
  return schema === true || (isObject(schema) && Object.keys(schema).filter((k) => !IGNORED.has(k)).length === 0);
}

export function hasCombinator(schema: SchemaNode): boolean {
  return isObject(schema) && ['allOf', 'anyOf', 'oneOf', 'not'].some((k) => schema[k] !== undefined);
}

const serialized = new WeakMap<object, string>();

/** The JSON of a (frozen) schema node, computed once per node. */
export function serialize(node: object): string {
  let text = serialized.get(node);
  if (text === undefined) {
    text = JSON.stringify(node);
    serialized.set(node, text);
  }
  return text;
}

export function sameWithoutRefs(a: object, b: object): boolean {
  const text = serialize(a);
  return !text.includes('"$ref"') && text === serialize(b);
}

export function branchesOf(schema: Schema, keyword: 'anyOf' | 'oneOf' | 'allOf'): SchemaNode[] | undefined {
  return Array.isArray(schema[keyword]) ? (schema[keyword] as SchemaNode[]) : undefined;
}

export function without(schema: Schema, ...keywords: string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !keywords.includes(k)));
}
