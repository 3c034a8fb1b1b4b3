/**
 * The Avro schemas of a contract, checked and made self-contained with avsc: names referenced
 * across schemas (a record of one `.avsc` used by another) resolve to the schema that defines
 * them, in any order; avsc's errors come back located at the node they are about.
 */
import avro from 'avsc';
import type { Diagnostic, SourceLocation } from '../../diagnostics.js';
import { type FallbackNote, markerLogicalTypes } from './logical.js';
import { type SchemaSites, schemaSites } from './walk.js';

type Tokens = readonly (string | number)[];

/** One Avro schema of the contract: a message payload (or a component) and where it is. */
export interface AvroInput {
  /** What the schema is, for messages: `message "OrderPlaced"`. */
  readonly what: string;
  readonly schema: unknown;
  /** Tokens of the schema node in the resolved document. */
  readonly tokens: Tokens;
}

/** A schema avsc accepted: its type (with the generator's logical markers) and its self-contained JSON. */
export interface BuiltAvro {
  readonly type: avro.Type;
  /** The schema's JSON as avsc writes it: full names, defaults, logical types, docs; every named type defined in place. */
  readonly schema: unknown;
}

/** avsc's Type of a self-contained schema, with the generator's logical markers and `wrapUnions: 'auto'` (as @keiyaku/avro). */
export function avroTypeOf(schema: unknown, notes: FallbackNote[] = []): avro.Type {
  return avro.Type.forSchema(schema as avro.Schema, { logicalTypes: markerLogicalTypes(notes) as never, wrapUnions: 'auto' });
}

/** The schema of a string payload: Avro JSON text (`'{"type":"record",…}'`), else a type name. */
function parsed(schema: unknown): unknown {
  if (typeof schema !== 'string') return schema;
  const text = schema.trim();
  if (!text.startsWith('{') && !text.startsWith('[') && !text.startsWith('"')) return schema;
  try {
    return JSON.parse(text);
  } catch {
    return schema;
  }
}

/** Where avsc's error `message` is about, from its wording; the schema's root when it names nothing findable. */
function errorTokens(message: string, sites: SchemaSites, root: Tokens): Tokens {
  const undefinedName = /undefined type name: (\S+)/.exec(message)?.[1];
  if (undefinedName !== undefined) return sites.referenced.find((s) => s.fullname === undefinedName)?.tokens ?? root;
  const duplicate = /duplicate type name: (\S+)/.exec(message)?.[1];
  if (duplicate !== undefined) return sites.defined.filter((s) => s.fullname === duplicate)[1]?.tokens ?? root;
  const unknown = /unknown type: (".*")/.exec(message)?.[1];
  if (unknown !== undefined) {
    const node = sites.nodes.find((n) => JSON.stringify(n.node['type']) === unknown);
    return node === undefined ? root : [...node.tokens, 'type'];
  }
  const invalidValue = /^incompatible field default (.*) \(/.exec(message)?.[1] ?? /^invalid .*: (.*)$/.exec(message)?.[1];
  if (invalidValue !== undefined) {
    const field = sites.nodes.find((n) => 'default' in n.node && JSON.stringify(n.node['default']) === invalidValue);
    if (field !== undefined) return [...field.tokens, 'default'];
  }
  if (/symbol/.test(message)) {
    const node = sites.nodes.find((n) => n.node['type'] === 'enum' && message.includes(JSON.stringify(n.node['symbols'] ?? '')));
    if (node !== undefined) return [...node.tokens, 'symbols'];
  }
  if (/field name/.test(message)) {
    const node = sites.nodes.find((n) => Array.isArray(n.node['fields']) && message.includes(JSON.stringify(n.node['fields'])));
    if (node !== undefined) return [...node.tokens, 'fields'];
  }
  return root;
}

function hintFor(message: string): string {
  if (/undefined type name/.test(message))
    return 'define the type, or $ref the .avsc that defines it from another Avro payload or from components.schemas';
  if (/duplicate type name/.test(message)) return 'give each named type one definition; refer to it by name after the first';
  if (/default/.test(message) || /^invalid /.test(message))
    return "make the field's default a value of its type (of the union's first branch)";
  return 'fix the Avro schema (Avro specification 1.11, "Schema Declaration")';
}

/**
 * Checks every Avro schema of the contract and returns each one's type and self-contained JSON
 * (by the index of its input), with the diagnostics of those that failed.
 */
export function buildAvroSchemas(
  inputs: readonly AvroInput[],
  locate: (tokens: Tokens) => SourceLocation,
): {
  built: Map<number, BuiltAvro>;
  diagnostics: Diagnostic[];
} {
  const diagnostics: Diagnostic[] = [];
  const schemas = inputs.map((input) => parsed(input.schema));
  const sites = inputs.map((input, i) => schemaSites(schemas[i], input.tokens));
  const definer = new Map<string, number>();
  sites.forEach((s, i) => {
    for (const site of s.defined) if (!definer.has(site.fullname)) definer.set(site.fullname, i);
  });
  const registries = new Map<number, Record<string, avro.Type>>();
  const built = new Map<number, BuiltAvro>();
  const failed = new Set<number>();
  const visiting = new Set<number>();

  const build = (i: number): boolean => {
    if (built.has(i)) return true;
    if (failed.has(i) || visiting.has(i)) return false;
    visiting.add(i);
    const own = new Set(sites[i]!.defined.map((s) => s.fullname));
    const registry: Record<string, avro.Type> = {};
    for (const ref of sites[i]!.referenced) {
      const from = definer.get(ref.fullname);
      if (own.has(ref.fullname) || from === undefined || from === i || registry[ref.fullname] !== undefined) continue;
      if (build(from)) registry[ref.fullname] = registries.get(from)![ref.fullname]!;
    }
    try {
      const type = avro.Type.forSchema(schemas[i] as avro.Schema, {
        registry,
        logicalTypes: markerLogicalTypes([]) as never,
        wrapUnions: 'auto',
      });
      registries.set(i, registry);
      built.set(i, { type, schema: type.schema({ exportAttrs: true }) });
      return true;
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      failed.add(i);
      diagnostics.push({
        severity: 'error',
        code: 'avro_schema_invalid',
        message: `${inputs[i]!.what}: the Avro schema is not valid: ${message}`,
        hint: hintFor(message),
        location: locate(errorTokens(message, sites[i]!, inputs[i]!.tokens)),
      });
      return false;
    } finally {
      visiting.delete(i);
    }
  };
  for (let i = 0; i < inputs.length; i += 1) build(i);
  diagnostics.push(...conflicts(inputs, sites, registries, locate));
  return { built, diagnostics };
}

/** A full name two schemas define differently: an error at the second definition. */
function conflicts(
  inputs: readonly AvroInput[],
  sites: readonly SchemaSites[],
  registries: ReadonlyMap<number, Record<string, avro.Type>>,
  locate: (tokens: Tokens) => SourceLocation,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const first = new Map<string, { text: string; at: SourceLocation }>();
  sites.forEach((s, i) => {
    const registry = registries.get(i);
    if (registry === undefined) return;
    for (const site of s.defined) {
      const type = registry[site.fullname];
      if (type === undefined) continue;
      const text = JSON.stringify(type.schema({ exportAttrs: true }));
      const seen = first.get(site.fullname);
      if (seen === undefined) first.set(site.fullname, { text, at: locate(site.tokens) });
      else if (seen.text !== text) {
        diagnostics.push({
          severity: 'error',
          code: 'avro_name_conflict',
          message: `${inputs[i]!.what}: the Avro type ${site.fullname} is defined differently at ${seen.at.file}:${seen.at.line}`,
          hint: 'give one definition a different name (or namespace), or make the two the same',
          location: locate(site.tokens),
        });
      }
    }
  });
  return diagnostics;
}
