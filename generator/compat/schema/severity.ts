/**
 * The severity of every schema finding code, per direction: one table. Codes are named after the
 * edit (old → new), so most codes say by themselves which reader breaks: an edit that narrows
 * what is accepted (`maximum_narrowed`) breaks new readers of old values (backward) and none of
 * the old readers of new values (forward); one that widens, the reverse. Where the code alone
 * cannot tell (a property added to an object whose catch-all may or may not accept it, a policy
 * that softens), the table says `judged`: the comparer's verdict — does the reader accept every
 * value the writer produces there? — decides.
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
import type { CompatSeverity, Direction } from '../findings.js';

/** A fixed severity, or `judged`: breaking exactly when the comparer found values the reader rejects. */
export type SeverityRule = Exclude<CompatSeverity, 'warning'> | 'judged';

export type DirectedRule = { readonly [D in Direction]: SeverityRule };

/** Breaks new readers of old values only: the edit narrows what is accepted. */
const NARROWS: DirectedRule = { backward: 'breaking', forward: 'compatible' };
/** Breaks old readers of new values only: the edit widens what is accepted. */
const WIDENS: DirectedRule = { backward: 'compatible', forward: 'breaking' };
/** Breaks readers either way (a value replaced by another). */
const BOTH: DirectedRule = { backward: 'breaking', forward: 'breaking' };
const COMPATIBLE: DirectedRule = { backward: 'compatible', forward: 'compatible' };
const INFO: DirectedRule = { backward: 'info', forward: 'info' };
const JUDGED: DirectedRule = { backward: 'judged', forward: 'judged' };
/** Breaking one way; the other way the comparer's verdict decides. */
const breaksBackward: DirectedRule = { backward: 'breaking', forward: 'judged' };
const breaksForward: DirectedRule = { backward: 'judged', forward: 'breaking' };
const passesBackward: DirectedRule = { backward: 'compatible', forward: 'judged' };
const passesForward: DirectedRule = { backward: 'judged', forward: 'compatible' };

function each(keywords: readonly string[], suffix: string): SchemaFindingCode[] {
  return keywords.map((k) => `${keywordCode(k)}_${suffix}` as SchemaFindingCode);
}

const rows: [readonly SchemaFindingCode[], DirectedRule][] = [
  [['schema_opened'], WIDENS],
  [['schema_forbidden'], NARROWS],
  // Restricted: a schema that accepted anything (breaking backward); forward it may also have been `false`.
  [['schema_restricted'], breaksBackward],
  [each(METADATA_KEYWORDS, 'changed'), INFO],

  [['type_added'], NARROWS],
  [['type_removed'], WIDENS],
  [['type_changed'], BOTH],
  // Forward, the new types may still include one the old reader lacks.
  [['type_narrowed', 'type_union_narrowed'], breaksBackward],
  [['type_widened'], passesBackward],

  [['const_added', 'enum_added', 'enum_value_removed'], NARROWS],
  [['const_removed', 'enum_removed', 'enum_value_added'], WIDENS],
  [['const_changed'], BOTH],

  [[...each(BOUND_KEYWORDS, 'added'), ...each(BOUND_KEYWORDS, 'narrowed')], NARROWS],
  [[...each(BOUND_KEYWORDS, 'removed'), ...each(BOUND_KEYWORDS, 'widened')], WIDENS],
  [each(TEXT_KEYWORDS, 'added'), NARROWS],
  [each(TEXT_KEYWORDS, 'removed'), WIDENS],
  [each(TEXT_KEYWORDS, 'changed'), BOTH],
  [['multiple_of_added', 'multiple_of_expanded'], NARROWS],
  [['multiple_of_removed', 'multiple_of_reduced'], WIDENS],
  [['multiple_of_changed'], BOTH],
  [['unique_items_added'], NARROWS],
  [['unique_items_removed'], WIDENS],

  // Tuple items: whether the rest of the tuple accepts the item's values is in the code where the rest is a schema.
  [['item_added_is_covered_by_partially_open_model', 'item_removed_is_covered_by_partially_open_model'], COMPATIBLE],
  [['item_added_not_covered_by_partially_open_model', 'item_removed_not_covered_by_partially_open_model'], BOTH],
  [['item_added_to_open_model', 'item_added_to_closed_model', 'item_removed_from_open_model', 'item_removed_from_closed_model'], JUDGED],
  [['items_added'], breaksBackward],
  [['items_removed'], breaksForward],
  [['contains_added'], NARROWS],
  [['contains_removed'], WIDENS],

  // Properties: the content model, the catch-all, `required`, defaults and the policy decide.
  [
    [
      'property_removed_from_open_model',
      'property_removed_from_closed_model',
      'property_removed_is_covered_by_partially_open_model',
      'property_removed_not_covered_by_partially_open_model',
      'property_with_false_removed',
      'required_property_added',
      'required_property_with_default_added',
      'property_with_empty_schema_added',
      'optional_property_added_to_open_model',
      'optional_property_added_to_closed_model',
      'property_added_is_covered_by_partially_open_model',
      'property_added_not_covered_by_partially_open_model',
    ],
    JUDGED,
  ],
  [['required_attribute_added'], NARROWS],
  [['required_attribute_with_default_added'], COMPATIBLE],
  // Forward, an attribute no longer required breaks old readers unless its old schema has a default.
  [['required_attribute_removed'], passesBackward],
  // Opening or widening the catch-all is judged forward: the lenient policy may let old readers pass.
  [['additional_properties_removed', 'additional_properties_narrowed'], NARROWS],
  [['additional_properties_added', 'additional_properties_extended'], passesBackward],
  [['additional_properties_changed'], breaksBackward],
  [['pattern_property_added'], breaksForward],
  [['pattern_property_removed'], breaksBackward],
  [['dependent_required_added'], NARROWS],
  [['dependent_required_removed'], WIDENS],
  [['dependent_required_changed'], BOTH],
  [['dependent_schema_added'], passesForward],
  [['dependent_schema_removed'], passesBackward],

  // Combinators: a union on one side only is judged by whether its branches are read.
  [[...each(UNION_KEYWORDS, 'added'), ...each(UNION_KEYWORDS, 'removed'), 'combined_type_changed'], JUDGED],
  [each(UNION_KEYWORDS, 'branch_added'), WIDENS],
  [each(UNION_KEYWORDS, 'branch_removed_or_narrowed'), NARROWS],
  [['all_of_branch_added_or_narrowed'], NARROWS],
  [['all_of_branch_removed'], WIDENS],
  [['sum_type_extended', 'sum_type_narrowed'], COMPATIBLE],
  // Reported only when set reasoning shows every old value is still read.
  [
    [
      ...COMBINATORS.flatMap((from) => COMBINATORS.filter((to) => to !== from).map((to) => combinedTypeChanged(from, to))),
      ...each(['oneOf', 'anyOf', 'allOf', 'not'], 'rearranged'),
      'schema_rearranged',
    ],
    COMPATIBLE,
  ],
  [['not_added'], passesForward],
  [['not_removed'], passesBackward],
  // `not_changed` names no finding today (the earlier code of a changed `not`); the two below say which way it went.
  [['not_changed'], JUDGED],
  [['not_type_narrowed'], COMPATIBLE],
  [['not_type_extended'], BOTH],

  [each(OTHER_KEYWORDS, 'added'), passesForward],
  [each(OTHER_KEYWORDS, 'removed'), passesBackward],
  [each(OTHER_KEYWORDS, 'changed'), JUDGED],
];

/** Code → its rule per direction. */
export const SEVERITY: ReadonlyMap<SchemaFindingCode, DirectedRule> = new Map(
  rows.flatMap(([codes, rule]) => codes.map((code) => [code, rule] as const)),
);

/**
 * The severity of a finding with `code` in `direction`. `accepted` is the comparer's verdict
 * (the reader accepts every value the writer produces at that node), read for `judged` rules only.
 */
export function severityOf(code: SchemaFindingCode, direction: Direction, accepted: boolean): CompatSeverity {
  const rule = SEVERITY.get(code)?.[direction] ?? 'judged';
  if (rule !== 'judged') return rule;
  return accepted ? 'compatible' : 'breaking';
}
