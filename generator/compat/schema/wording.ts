/**
 * The words of every schema finding: one catalogue, code → detail, from the facts the comparer
 * found (zod's issues-then-locale shape: comparers name the code and the facts, never the text).
 * The reader that breaks is added by record(); a fix (the hint) stays with its comparer, which
 * knows the edit that gets through.
 */

import {
  BOUND_KEYWORDS,
  COMBINATORS,
  combinedTypeChanged,
  keywordCode,
  METADATA_KEYWORDS,
  OTHER_KEYWORDS,
  type SchemaFindingCode,
  TEXT_KEYWORDS,
  UNION_KEYWORDS,
} from '../codes.js';

/** What a comparer found at a node; each code reads the facts it needs. */
export interface Facts {
  /** The JSON Schema keyword the finding is about. */
  readonly keyword?: string;
  /** What a bound applies to: string, number, array, object. */
  readonly what?: string;
  /** The old and the new value, as the keyword holds them (types as lists). */
  readonly from?: unknown;
  readonly to?: unknown;
  /** A property, dependency or pattern. */
  readonly name?: string;
  /** A branch or tuple item. */
  readonly index?: number;
  /** Values (enum values, dependents, branch indexes) the edit added or removed. */
  readonly values?: readonly unknown[];
  /** The property was required (before its removal), or the reader requires it. */
  readonly required?: boolean;
  /** The rest of a tuple (closed, open or partially open) that judges an item on one side only. */
  readonly model?: 'closed' | 'open' | 'partial';
  /** Whether the other side accepts the values in question (a catch-all, a tuple's rest, a plain schema). */
  readonly accepted?: boolean;
  /** The rule a union finding comes from: a union replaced by one schema, a schema replaced by a union, … */
  readonly via?: 'union-to-plain' | 'plain-to-union' | 'reader-union' | 'union-removed';
  /** For a oneOf: values match more than one branch. */
  readonly twice?: boolean;
  /** How many branches a union has. */
  readonly count?: number;
  /** The reader requires the property `name` the writer may leave out: messages without it are rejected. */
  readonly missing?: boolean;
}

/** The finding's circumstances: its direction, and whether it breaks. */
export interface At {
  readonly forward: boolean;
  readonly breaking: boolean;
}

type Words = (f: Facts, at: At) => string;

const json = (value: unknown): string => JSON.stringify(value);
const list = (values: readonly unknown[] | undefined): string => (values ?? []).map(json).join(', ');
const them = (values: readonly unknown[] | undefined): string => ((values ?? []).length === 1 ? 'it' : 'them');
const types = (value: unknown, sep: string): string => (value as readonly string[]).join(sep);

function each(keywords: readonly string[], suffix: string): SchemaFindingCode[] {
  return keywords.map((k) => `${keywordCode(k)}_${suffix}` as SchemaFindingCode);
}

function unionAdded(f: Facts, at: At): string {
  const k = f.keyword;
  switch (f.via) {
    case 'union-to-plain':
    case 'plain-to-union': {
      const [ok, no] = unionReasons(f);
      return at.breaking ? `${k} added; ${no}` : `the schema became a ${k}; ${ok}`;
    }
    case 'reader-union':
      return `${k} added: values must now match one of ${f.count} branches`;
    default:
      return `${k} added`;
  }
}

function unionRemoved(f: Facts, at: At): string {
  const k = f.keyword;
  switch (f.via) {
    case 'union-to-plain':
    case 'plain-to-union': {
      const [ok, no] = unionReasons(f);
      return at.breaking ? `${k} removed; ${no}` : `${k} replaced by one schema; ${ok}`;
    }
    case 'reader-union':
      return `${k} replaced by a schema that does not accept all its branches`;
    default:
      return `${k} removed${f.index === -1 ? '; the schema accepts every branch' : `; branch ${f.index} is no longer accepted`}`;
  }
}

/** Why a union on one side only is read or not: [when it is, when it is not]. */
function unionReasons(f: Facts): [string, string] {
  if (f.via === 'union-to-plain')
    return ['it accepts every value of every branch', `branch ${(f.values ?? []).join(', ')} is not accepted`];
  return [
    `branch ${f.index} accepts every value of the old schema`,
    f.twice ? 'values match more than one branch, which oneOf rejects' : 'values valid before may match no branch',
  ];
}

function propertyLabel(f: Facts): string {
  return `${f.required ? 'required ' : ''}property ${f.name}`;
}

const rows: [readonly SchemaFindingCode[], Words][] = [
  [['schema_opened'], () => 'the schema now accepts anything'],
  [['schema_forbidden'], () => 'the schema now accepts nothing'],
  [['schema_restricted'], () => 'a schema that accepted anything now has constraints'],
  [
    [
      ...COMBINATORS.flatMap((from) => COMBINATORS.filter((to) => to !== from).map((to) => combinedTypeChanged(from, to))),
      ...each(['oneOf', 'anyOf', 'allOf', 'not'], 'rearranged'),
      'schema_rearranged',
    ],
    (f, at) =>
      `${f.from === f.to ? `${String(f.from)} branches rearranged` : `${String(f.from)} → ${String(f.to)}`}; the ${at.forward ? 'old' : 'new'} schema still accepts every value of the ${at.forward ? 'new' : 'old'} one`,
  ],
  [each(METADATA_KEYWORDS, 'changed'), (f) => `${f.keyword} edited`],

  [['type_removed'], (f) => `type ${types(f.from, '|')} no longer restricted`],
  [['type_added'], (f) => `type restricted to ${types(f.to, ', ')}`],
  [['type_changed', 'type_narrowed', 'type_union_narrowed', 'type_widened'], (f) => `type ${types(f.from, '|')} → ${types(f.to, '|')}`],

  [['const_removed', 'enum_removed'], (f) => `${f.keyword} removed: any value of the type is allowed`],
  [['const_added', 'enum_added'], (f) => `values restricted to ${list(f.values)}`],
  [['const_changed'], (f) => `const ${json(f.from)} → ${json(f.to)}`],
  [
    ['enum_value_added'],
    (f, at) =>
      at.breaking
        ? `enum gained ${list(f.values)}: consumers on the old contract reject messages with ${them(f.values)}`
        : `enum gained ${list(f.values)}`,
  ],
  [
    ['enum_value_removed'],
    (f, at) =>
      at.breaking ? `enum lost ${list(f.values)}` : `enum lost ${list(f.values)}: new messages no longer carry ${them(f.values)}`,
  ],

  [each(BOUND_KEYWORDS, 'removed'), (f) => `${f.what} ${f.keyword} ${String(f.from)} removed`],
  [each(BOUND_KEYWORDS, 'added'), (f) => `${f.what} gained ${f.keyword} ${String(f.to)}`],
  [
    [...each(BOUND_KEYWORDS, 'narrowed'), ...each(BOUND_KEYWORDS, 'widened')],
    (f) => `${f.what} ${f.keyword} ${String(f.from)} → ${String(f.to)}`,
  ],
  [each(TEXT_KEYWORDS, 'removed'), (f) => `${f.keyword} ${String(f.from)} removed`],
  [
    [...each(TEXT_KEYWORDS, 'added'), ...each(TEXT_KEYWORDS, 'changed')],
    (f) => `${f.keyword} ${String(f.from ?? '(none)')} → ${String(f.to)}`,
  ],
  [['multiple_of_removed'], () => 'multipleOf removed'],
  [['multiple_of_added'], (f) => `multipleOf ${String(f.to)} added`],
  [['multiple_of_reduced', 'multiple_of_expanded', 'multiple_of_changed'], (f) => `multipleOf ${String(f.from)} → ${String(f.to)}`],
  [['unique_items_added'], () => 'array items must now be unique'],
  [['unique_items_removed'], (_f, at) => (at.breaking ? 'uniqueItems removed: repeated items are allowed' : 'uniqueItems removed')],

  [
    [
      'item_added_is_covered_by_partially_open_model',
      'item_added_not_covered_by_partially_open_model',
      'item_added_to_open_model',
      'item_added_to_closed_model',
    ],
    (f) => `tuple item ${f.index} added${tupleRest(f)}`,
  ],
  [
    [
      'item_removed_is_covered_by_partially_open_model',
      'item_removed_not_covered_by_partially_open_model',
      'item_removed_from_open_model',
      'item_removed_from_closed_model',
    ],
    (f) => `tuple item ${f.index} removed${tupleRest(f)}`,
  ],
  [['items_added'], () => 'array items gained a schema'],
  [['items_removed'], () => 'array items lost their schema'],
  [['contains_added'], (_f, at) => (at.breaking ? 'arrays must now contain a matching item' : 'contains added')],
  [['contains_removed'], () => 'contains removed'],

  [['property_with_false_removed'], (f) => `property ${f.name} (which was forbidden) removed`],
  [
    ['property_removed_is_covered_by_partially_open_model', 'property_removed_not_covered_by_partially_open_model'],
    (f) => `${propertyLabel(f)} removed; the catch-all schema ${f.accepted ? 'accepts' : 'does not accept'} its old values`,
  ],
  [['property_removed_from_open_model'], (f) => `${propertyLabel(f)} removed from an open object`],
  [['property_removed_from_closed_model'], (f) => `${propertyLabel(f)} removed from a closed object`],
  [['required_property_added'], (f) => `new required property ${f.name}`],
  [['required_property_with_default_added'], (f) => `new required property ${f.name} (with a default)`],
  [['property_with_empty_schema_added'], (f) => `property ${f.name} added, accepting anything`],
  [['optional_property_added_to_open_model'], (f) => `optional property ${f.name} added to an open object`],
  [['optional_property_added_to_closed_model'], (f) => `optional property ${f.name} added to a closed object`],
  [
    ['property_added_is_covered_by_partially_open_model', 'property_added_not_covered_by_partially_open_model'],
    (f) => `property ${f.name} added; it ${f.accepted ? 'accepts' : 'does not accept'} what the catch-all accepted`,
  ],
  [['required_attribute_added', 'required_attribute_with_default_added'], (f) => `${f.name} is now required`],
  [
    ['required_attribute_removed'],
    (f, at) =>
      `${f.name} is no longer required${at.forward ? `: consumers on the old contract reject messages without \`${f.name}\`` : ''}`,
  ],
  [['additional_properties_removed'], () => 'the object was closed: undeclared properties are now rejected'],
  [['additional_properties_added'], () => 'the object was opened'],
  [['additional_properties_narrowed'], () => 'undeclared properties must now match a schema'],
  [['additional_properties_extended'], () => 'undeclared properties are no longer constrained'],
  [['additional_properties_changed'], () => 'the schema of undeclared properties changed'],
  [['pattern_property_added'], (f, at) => `keys matching ${f.name} are ${at.forward ? '' : 'now '}constrained`],
  [['pattern_property_removed'], (f, at) => `keys matching ${f.name} are no longer ${at.forward ? 'constrained' : 'allowed'}`],
  [['dependent_required_added'], (f) => `${f.name} now requires ${(f.values ?? []).join(', ')}`],
  [['dependent_required_removed'], (f) => `${f.name} no longer requires ${(f.values ?? []).join(', ')}`],
  [['dependent_required_changed'], (f) => `${f.name} requires ${types(f.to, ', ')} instead of ${types(f.from, ', ')}`],
  [['dependent_schema_added'], (f) => `a schema now applies when ${f.name} is present`],
  [['dependent_schema_removed'], (f) => `the schema that applied when ${f.name} is present was removed`],

  [each(UNION_KEYWORDS, 'added'), unionAdded],
  [each(UNION_KEYWORDS, 'removed'), unionRemoved],
  [
    each(UNION_KEYWORDS, 'branch_added'),
    (f, at) =>
      at.breaking
        ? `${f.keyword} gained branch ${f.index}, which consumers on the old contract do not accept`
        : `${f.keyword} gained branch ${f.index}`,
  ],
  [
    each(UNION_KEYWORDS, 'branch_removed_or_narrowed'),
    (f, at) =>
      at.breaking
        ? `${f.keyword} branch ${f.index} has no counterpart that accepts all its values`
        : `${f.keyword} lost branch ${f.index}: new messages no longer use it`,
  ],
  [
    ['all_of_branch_added_or_narrowed'],
    (f, at) => (at.breaking ? `allOf gained a constraint (branch ${f.index})` : `allOf gained branch ${f.index}`),
  ],
  [
    ['all_of_branch_removed'],
    (f, at) =>
      at.breaking ? `allOf lost branch ${f.index}, which consumers on the old contract still check` : `allOf lost branch ${f.index}`,
  ],
  [['sum_type_extended'], (f) => `the schema became a ${f.keyword} whose branch ${f.index} accepts every old value`],
  [['sum_type_narrowed'], (f) => `${f.keyword} replaced by its branch ${f.index}`],
  [
    ['combined_type_changed'],
    (f, at) =>
      `${String(f.from)} → ${String(f.to)}${at.breaking && f.to === 'oneOf' ? ': a value that matches two branches is now rejected' : ''}`,
  ],
  [['not_removed'], () => '`not` removed'],
  [['not_added'], () => '`not` added: values it matches are now excluded'],
  [['not_changed'], () => '`not` changed'],
  [['not_type_narrowed'], () => '`not` now excludes less'],
  [['not_type_extended'], () => '`not` now excludes more'],

  [each(OTHER_KEYWORDS, 'added'), (f) => `${f.keyword} added`],
  [each(OTHER_KEYWORDS, 'removed'), (f) => `${f.keyword} removed`],
  [each(OTHER_KEYWORDS, 'changed'), (f) => `${f.keyword} changed`],
];

/** `; the closed tuple does not accept its values` when the rest of the tuple rejects the item. */
function tupleRest(f: Facts): string {
  return f.accepted ? '' : `; the ${f.model === 'closed' ? 'closed tuple' : 'rest of the tuple'} does not accept its values`;
}

/** Code → its words. */
export const WORDING: ReadonlyMap<SchemaFindingCode, Words> = new Map(
  rows.flatMap(([codes, words]) => codes.map((code) => [code, words] as const)),
);

/** The detail of a finding with `code`, from the comparer's facts. */
export function detailOf(code: SchemaFindingCode, facts: Facts, at: At): string {
  const words = WORDING.get(code);
  const detail = words === undefined ? code : words(facts, at);
  if (!facts.missing) return detail;
  const rejected = at.forward
    ? 'consumers on the old contract reject messages'
    : 'consumers on the new contract reject messages written under the old one';
  return `${detail}: ${rejected} without \`${facts.name}\``;
}
