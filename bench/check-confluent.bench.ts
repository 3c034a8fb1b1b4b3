/**
 * `keiyaku check`'s JSON Schema verdicts against the cases of Confluent Schema Registry's JSON
 * Schema diff tests (its repository's json-schema-provider/src/test/resources/diff-schema-examples.json,
 * diff-schema-examples-2020-12.json, diff-combined-schema-examples.json and
 * diff-combined-schema-examples-2020-12.json: each case an original_schema, an update_schema and
 * whether the update is `compatible`, backward, under the registry's STRICT policy). Those files are
 * not in this repository: CONFLUENT_DIFF_EXAMPLES names them, or the folder holding them (several
 * paths separated by the platform's path delimiter).
 *
 * Each pair goes through the schema comparison `keiyaku check` runs (diffSchemas, backward, the
 * strict policy); a case agrees when keiyaku finds a breaking change exactly when the registry says
 * the update is not compatible. Goal: agreement >= 99%. Every disagreement is printed with the case's
 * description and whether it is one of the deliberate differences docs/check.md lists.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { diffSchemas, type SchemaChange } from '../generator/compat/schema-diff.js';
import type { ContractModel, SchemaNode } from '../generator/model/contract-model.js';
import { verdict } from './stats.js';

const GOAL = 99;

interface Case {
  readonly file: string;
  readonly description: string;
  readonly original: SchemaNode;
  readonly update: SchemaNode;
  readonly compatible: boolean;
}

type Json = unknown;

/** A deliberate difference (docs/check.md, "Deliberate differences from the registry"): when it applies, and why. */
interface Deliberate {
  readonly id: string;
  readonly reason: string;
  readonly applies: (c: Case, breaking: readonly SchemaChange[]) => boolean;
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The node at a JSON pointer of keiyaku's findings (`/properties/a/required` → the object holding `required`). */
function at(root: Json, pointer: string): Json {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, Json>)[token];
  }
  return node;
}

/** The schema with `additionalItems` taken out wherever `items` is not an array (there it applies to nothing). */
function withoutIdleAdditionalItems(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutIdleAdditionalItems);
  if (!isObject(node)) return node;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalItems' && !Array.isArray(node['items'])) continue;
    out[key] = withoutIdleAdditionalItems(value);
  }
  return out;
}

const DELIBERATE: readonly Deliberate[] = [
  {
    id: 'required name not declared',
    reason:
      'keiyaku: breaking, old values need not carry a name the new schema requires, declared in properties or not; the registry compares required only for properties both sides declare',
    applies: (c, breaking) =>
      c.compatible &&
      breaking.length > 0 &&
      breaking.every((change) => {
        if (change.code !== 'required_attribute_added' || !change.pointer.endsWith('/required')) return false;
        const name = change.after;
        const object = change.pointer.slice(0, -'/required'.length);
        const declared = (schema: SchemaNode): boolean => {
          const properties = at(at(schema, object), '/properties');
          return isObject(properties) && typeof name === 'string' && Object.hasOwn(properties, name);
        };
        return typeof name === 'string' && !(declared(c.original) && declared(c.update));
      }),
  },
  {
    id: 'additionalItems without an items array',
    reason:
      'keiyaku: compatible, additionalItems applies only beside an array of items (draft-07, 2019-09), so the change accepts the same values; the registry compares the keyword as written',
    applies: (c, breaking) =>
      !c.compatible &&
      breaking.length === 0 &&
      JSON.stringify(withoutIdleAdditionalItems(c.original)) === JSON.stringify(withoutIdleAdditionalItems(c.update)),
  },
];

/** The files CONFLUENT_DIFF_EXAMPLES names, a folder standing for its diff*examples*.json files. */
function files(setting: string): string[] {
  return setting
    .split(delimiter)
    .filter((p) => p !== '')
    .flatMap((p) =>
      statSync(p).isDirectory()
        ? readdirSync(p)
            .filter((name) => /^diff.*examples.*\.json$/.test(name) && !name.includes('-with-meta'))
            .sort()
            .map((name) => join(p, name))
        : [p],
    );
}

/** The cases of one file; the registry's reader (org.json) accepts a trailing comma, so this does too. */
function cases(file: string): Case[] {
  const text = readFileSync(file, 'utf8');
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = JSON.parse(text.replace(/,(\s*[}\]])/g, '$1'));
  }
  if (!Array.isArray(parsed)) throw new Error(`${file}: expected an array of cases`);
  return parsed.map((raw: Json, i) => {
    if (!isObject(raw) || typeof raw['compatible'] !== 'boolean') throw new Error(`${file}: case ${i} has no boolean "compatible"`);
    return {
      file: basename(file),
      description: String(raw['description'] ?? `case ${i}`),
      original: raw['original_schema'] as SchemaNode,
      update: raw['update_schema'] as SchemaNode,
      compatible: raw['compatible'],
    };
  });
}

function model(root: SchemaNode): ContractModel {
  return {
    source: 'schema.json',
    asyncapi: '3.0.0',
    info: { title: 'case', version: '1' },
    channels: [],
    messages: {},
    operations: [],
    schemas: { Root: { name: 'Root', schema: root, origin: 'component' } },
  };
}

/** The breaking findings of `keiyaku check` for the case: backward (the update reads the original's values), strict policy. */
function breakingOf(c: Case): SchemaChange[] {
  return diffSchemas(model(c.original), 'Root', model(c.update), 'Root', 'strict', 'backward').filter((x) => x.severity === 'breaking');
}

export interface ConfluentAgreement {
  readonly agreed: number;
  readonly total: number;
  readonly deliberate: number;
}

export function checkConfluent(setting: string, out: (line: string) => void): ConfluentAgreement {
  const all = files(setting).flatMap(cases);
  let agreed = 0;
  let deliberate = 0;
  const disagreements: string[] = [];
  for (const c of all) {
    const breaking = breakingOf(c);
    if ((breaking.length === 0) === c.compatible) {
      agreed++;
      continue;
    }
    const listed = DELIBERATE.find((d) => d.applies(c, breaking));
    if (listed !== undefined) deliberate++;
    const keiyaku =
      breaking.length === 0 ? 'compatible' : `breaking (${[...new Set(breaking.map((b) => `${b.code} ${b.pointer || '/'}`))].join(', ')})`;
    disagreements.push(
      `  ${c.file}: "${c.description}": registry ${c.compatible ? 'compatible' : 'not compatible'}, keiyaku ${keiyaku}; ` +
        (listed === undefined ? 'NOT a listed deliberate difference' : `deliberate difference "${listed.id}": ${listed.reason}`),
    );
  }
  const pct = ((agreed / all.length) * 100).toFixed(2);
  const settled = (((agreed + deliberate) / all.length) * 100).toFixed(2);
  out(
    `keiyaku check (JSON Schema, backward, strict policy) vs the registry's "compatible" on ${all.length} cases of ${files(setting).length} files`,
  );
  out(`  agreement: ${agreed}/${all.length} = ${pct}% (goal >= ${GOAL}%): ${verdict(pct, GOAL)}`);
  out(
    `  disagreements: ${all.length - agreed}, of which listed deliberate differences: ${deliberate}; agreement counting those as decided: ${agreed + deliberate}/${all.length} = ${settled}%: ${verdict(settled, GOAL)}`,
  );
  for (const line of disagreements) out(line);
  return { agreed, total: all.length, deliberate };
}

const setting = process.env['CONFLUENT_DIFF_EXAMPLES'];
if (setting === undefined || setting === '') {
  process.stdout.write(
    'skipped: CONFLUENT_DIFF_EXAMPLES is not set (the path of Confluent Schema Registry json-schema-provider/src/test/resources, or of its diff-*schema-examples*.json files)\n',
  );
} else {
  checkConfluent(setting, (line) => {
    process.stdout.write(`${line}\n`);
  });
}
