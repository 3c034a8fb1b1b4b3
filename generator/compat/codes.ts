/**
 * Every code a finding of `keiyaku check` can have, as a type (`FindingCode`) and as a list
 * (`FINDING_CODES`) built from the same constants, so the two cannot drift apart. Codes are
 * lowercase snake_case; a JSON Schema keyword in a code is spelled by {@link keywordCode}
 * (`maxLength` → `max_length`, `$comment` → `comment`).
 *
 * Codes are part of acknowledgment ids users write in their contracts. Earlier releases spelled
 * keywords in codes as JSON Schema does (`maxLength_narrowed`); {@link earlierSpellings} gives
 * those spellings so that acknowledgments written with them keep working (with a warning).
 */

/** `maxLength` → `max_length`, at the type level. */
type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/** The code part of a JSON Schema keyword: snake_case, without a leading `$`. */
export type KeywordCode<K extends string> = SnakeCase<K extends `$${infer R}` ? R : K>;

/** The code part of a JSON Schema keyword: `maxLength` → `max_length`, `$comment` → `comment`, `oneOf` → `one_of`. */
export function keywordCode<K extends string>(keyword: K): KeywordCode<K> {
  return keyword.replace(/^\$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as KeywordCode<K>;
}

/** Keywords that only annotate: an edit is `info` (`<keyword>_changed`). */
export const METADATA_KEYWORDS = [
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  '$comment',
  'readOnly',
  'writeOnly',
] as const;
/** Numeric bounds: `<keyword>_added`, `_removed`, `_narrowed`, `_widened`. */
export const BOUND_KEYWORDS = [
  'maxLength',
  'minLength',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'maxContains',
  'minContains',
] as const;
export type BoundKeyword = (typeof BOUND_KEYWORDS)[number];
/** String constraints compared as text: `<keyword>_added`, `_removed`, `_changed`. */
export const TEXT_KEYWORDS = ['pattern', 'format'] as const;
/** Keywords without a finer rule: `<keyword>_added`, `_removed`, `_changed`. */
export const OTHER_KEYWORDS = ['propertyNames', 'if', 'then', 'else', 'contentSchema'] as const;
export const UNION_KEYWORDS = ['oneOf', 'anyOf'] as const;
export type UnionKeyword = (typeof UNION_KEYWORDS)[number];
/** What a schema is made of, for `combined_type_changed_<from>_to_<to>`; `plain` is none of the others. */
export const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'plain'] as const;
export type Combinator = (typeof COMBINATORS)[number];

type Each<K extends string, S extends string> = `${KeywordCode<K>}_${S}`;

/** Every `<keyword>_<suffix>` of the keywords and suffixes, in order. */
function each<const K extends string, const S extends string>(keywords: readonly K[], suffixes: readonly S[]): Each<K, S>[] {
  return keywords.flatMap((k) => suffixes.map((s) => `${keywordCode(k)}_${s}` as Each<K, S>));
}

type CombinedTypeChanged = {
  [F in Combinator]: `combined_type_changed_${KeywordCode<F>}_to_${KeywordCode<Exclude<Combinator, F>>}`;
}[Combinator];

/** `combined_type_changed_<from>_to_<to>` for two different combinators. */
export function combinedTypeChanged(from: Combinator, to: Combinator): CombinedTypeChanged {
  return `combined_type_changed_${keywordCode(from)}_to_${keywordCode(to)}` as CombinedTypeChanged;
}

export const SCHEMA_CODES = [
  'schema_opened',
  'schema_restricted',
  'schema_forbidden',
  ...each(METADATA_KEYWORDS, ['changed']),
  'type_added',
  'type_removed',
  'type_changed',
  'type_narrowed',
  'type_widened',
  'type_union_narrowed',
  'const_added',
  'const_removed',
  'const_changed',
  'enum_added',
  'enum_removed',
  'enum_value_added',
  'enum_value_removed',
  ...each(BOUND_KEYWORDS, ['added', 'removed', 'narrowed', 'widened']),
  ...each(TEXT_KEYWORDS, ['added', 'removed', 'changed']),
  ...each(['multipleOf'], ['added', 'removed', 'reduced', 'expanded', 'changed']),
  ...each(['uniqueItems'], ['added', 'removed']),
  'item_added_is_covered_by_partially_open_model',
  'item_added_not_covered_by_partially_open_model',
  'item_removed_is_covered_by_partially_open_model',
  'item_removed_not_covered_by_partially_open_model',
  'item_added_to_open_model',
  'item_added_to_closed_model',
  'item_removed_from_open_model',
  'item_removed_from_closed_model',
  'items_added',
  'items_removed',
  'contains_added',
  'contains_removed',
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
  'required_attribute_added',
  'required_attribute_with_default_added',
  'required_attribute_removed',
  ...each(['additional_properties'], ['added', 'removed', 'narrowed', 'extended', 'changed']),
  'pattern_property_added',
  'pattern_property_removed',
  'dependent_required_added',
  'dependent_required_removed',
  'dependent_required_changed',
  'dependent_schema_added',
  'dependent_schema_removed',
  ...each(UNION_KEYWORDS, ['added', 'removed', 'branch_added', 'branch_removed_or_narrowed']),
  ...each(['allOf'], ['branch_added_or_narrowed', 'branch_removed']),
  'sum_type_extended',
  'sum_type_narrowed',
  'combined_type_changed',
  ...COMBINATORS.flatMap((from) => COMBINATORS.filter((to) => to !== from).map((to) => combinedTypeChanged(from, to))),
  ...each(['oneOf', 'anyOf', 'allOf', 'not'], ['rearranged']),
  'schema_rearranged',
  'not_added',
  'not_removed',
  'not_changed',
  'not_type_narrowed',
  'not_type_extended',
  ...each(OTHER_KEYWORDS, ['added', 'removed', 'changed']),
] as const;

/**
 * Codes of Avro and Protobuf payloads (compat/avro/, compat/protobuf/): named after the edit, by
 * each format's own rules (Avro schema resolution; Protobuf wire compatibility).
 */
export const AVRO_CODES = [
  'avro_field_added_with_default',
  'avro_field_added_without_default',
  'avro_field_removed_with_default',
  'avro_field_removed_without_default',
  'avro_field_renamed',
  'avro_field_renamed_with_alias',
  'avro_field_default_added',
  'avro_field_default_removed',
  'avro_field_default_changed',
  'avro_type_promoted',
  'avro_type_demoted',
  'avro_type_changed',
  'avro_name_changed',
  'avro_name_changed_with_alias',
  'avro_aliases_changed',
  'avro_doc_changed',
  'avro_enum_symbol_added',
  'avro_enum_symbol_removed',
  'avro_enum_default_added',
  'avro_enum_default_removed',
  'avro_enum_default_changed',
  'avro_union_branch_added',
  'avro_union_branch_removed',
  'avro_type_became_union',
  'avro_union_became_type',
  'avro_fixed_size_changed',
  'avro_logical_type_added',
  'avro_logical_type_removed',
  'avro_logical_type_changed',
  'avro_decimal_scale_changed',
  'avro_decimal_precision_widened',
  'avro_decimal_precision_narrowed',
] as const;
export type AvroCode = (typeof AVRO_CODES)[number];
export const PROTOBUF_CODES = [
  'protobuf_message_renamed',
  'protobuf_type_renamed',
  'protobuf_field_added',
  'protobuf_required_field_added',
  'protobuf_field_removed',
  'protobuf_field_removed_and_reserved',
  'protobuf_field_renamed',
  'protobuf_field_json_name_changed',
  'protobuf_field_number_changed',
  'protobuf_field_type_changed',
  'protobuf_field_type_widened',
  'protobuf_field_type_narrowed',
  'protobuf_field_made_repeated',
  'protobuf_field_made_singular',
  'protobuf_field_made_required',
  'protobuf_field_made_optional',
  'protobuf_field_presence_changed',
  'protobuf_field_moved_into_oneof',
  'protobuf_field_moved_out_of_oneof',
  'protobuf_field_oneof_changed',
  'protobuf_field_default_changed',
  'protobuf_field_packing_changed',
  'protobuf_enum_value_added',
  'protobuf_enum_value_removed',
  'protobuf_enum_value_removed_and_reserved',
  'protobuf_enum_value_renamed',
  'protobuf_reserved_removed',
] as const;
export type ProtobufCode = (typeof PROTOBUF_CODES)[number];
/** Codes of any payload format: the format itself changed (JSON Schema, Avro, Protobuf). */
export const FORMAT_CODES = ['payload_format_changed', ...AVRO_CODES, ...PROTOBUF_CODES] as const;

/** A code of a change inside a payload, headers or Kafka key schema. */
export type SchemaFindingCode = (typeof SCHEMA_CODES)[number] | (typeof FORMAT_CODES)[number];

const CONTRACT_CODES = [
  'channel_added',
  'channel_removed',
  'channel_address_changed',
  'channel_parameters_changed',
  'parameter_value_removed',
  'partition_count_increased',
  'partition_count_reduced',
  'iggy_partition_count_reduced',
  'message_added',
  'message_removed',
  'content_type_changed',
  'payload_schema_added',
  'payload_schema_removed',
  'headers_schema_added',
  'headers_schema_removed',
  'key_schema_added',
  'key_schema_removed',
  'acknowledgment_id_deprecated',
  'acknowledgment_unused',
] as const;

/** Every code a finding of `keiyaku check` can have: a contract-level code, a schema code, or `key_<schema code>` for a Kafka key. */
export type FindingCode = (typeof CONTRACT_CODES)[number] | SchemaFindingCode | `key_${SchemaFindingCode}`;

/** `key_<code>`: a change inside a Kafka key schema. */
export function keyCode(code: SchemaFindingCode): `key_${SchemaFindingCode}` {
  return `key_${code}`;
}

/** Every {@link FindingCode}, contract codes first, then schema codes, then Kafka key codes. */
export const FINDING_CODES: readonly FindingCode[] = Object.freeze([
  ...CONTRACT_CODES,
  ...SCHEMA_CODES,
  ...FORMAT_CODES,
  ...SCHEMA_CODES.map(keyCode),
]);

const known = new Set<string>(FINDING_CODES);

export function isFindingCode(code: string): code is FindingCode {
  return known.has(code);
}

/**
 * Codes whose spelling changed when every code became snake_case: earlier spelling → current code
 * (the same with `key_` in front, for Kafka keys: see {@link earlierSpellings}).
 */
export const RENAMED_CODES: Readonly<Record<string, SchemaFindingCode>> = Object.freeze(
  Object.fromEntries(
    (() => {
      const pairs: [string, SchemaFindingCode][] = [];
      const old = (keyword: string): string => keyword.replace(/^\$/, '');
      const family = (keywords: readonly string[], suffixes: readonly string[]): void => {
        for (const k of keywords) for (const s of suffixes) pairs.push([`${old(k)}_${s}`, `${keywordCode(k)}_${s}` as SchemaFindingCode]);
      };
      family(METADATA_KEYWORDS, ['changed']);
      family(BOUND_KEYWORDS, ['added', 'removed', 'narrowed', 'widened']);
      family(['multipleOf'], ['added', 'removed', 'reduced', 'expanded', 'changed']);
      family(['uniqueItems'], ['added', 'removed']);
      family(UNION_KEYWORDS, ['added', 'removed', 'branch_added', 'branch_removed_or_narrowed']);
      family(['allOf'], ['branch_added_or_narrowed', 'branch_removed']);
      family(['oneOf', 'anyOf', 'allOf'], ['rearranged']);
      family(OTHER_KEYWORDS, ['added', 'removed', 'changed']);
      for (const from of COMBINATORS)
        for (const to of COMBINATORS)
          if (from !== to) pairs.push([`combined_type_changed_${from}_to_${to}`, combinedTypeChanged(from, to)]);
      return pairs.filter(([earlier, current]) => earlier !== current);
    })(),
  ),
);

const earlier = new Map<string, string[]>();
for (const [spelling, code] of Object.entries(RENAMED_CODES)) earlier.set(code, [...(earlier.get(code) ?? []), spelling]);

/** How earlier releases spelled `code` (none when it is unchanged); `key_` codes keep their prefix. */
export function earlierSpellings(code: FindingCode): readonly string[] {
  if (code.startsWith('key_') && !isContractCode(code)) return (earlier.get(code.slice(4)) ?? []).map((c) => `key_${c}`);
  return earlier.get(code) ?? [];
}

function isContractCode(code: string): boolean {
  return (CONTRACT_CODES as readonly string[]).includes(code);
}

/**
 * The reverse reading of a schema code: the code of the same edit read new → old. Earlier
 * releases named forward findings that way (a value added to an enum was `enum_value_removed`),
 * and acknowledgments may still use those ids. Codes whose reverse depends on more than the code
 * (types, properties, `required_attribute_removed`, `schema_*`) are not here: the finding carries
 * its reverse reading itself.
 */
export const REVERSE_READING: ReadonlyMap<SchemaFindingCode, SchemaFindingCode> = (() => {
  const pairs: [string, string][] = [];
  const swap = (keywords: readonly string[], a: string, b: string): void => {
    for (const k of keywords) pairs.push([`${keywordCode(k)}_${a}`, `${keywordCode(k)}_${b}`]);
  };
  const same = (codes: readonly string[]): void => {
    for (const code of codes) pairs.push([code, code]);
  };
  swap(BOUND_KEYWORDS, 'added', 'removed');
  swap(BOUND_KEYWORDS, 'narrowed', 'widened');
  swap(
    [
      ...TEXT_KEYWORDS,
      ...OTHER_KEYWORDS,
      ...UNION_KEYWORDS,
      'multipleOf',
      'uniqueItems',
      'items',
      'contains',
      'const',
      'enum',
      'enum_value',
      'pattern_property',
      'dependent_required',
      'dependent_schema',
      'not',
      'additional_properties',
    ],
    'added',
    'removed',
  );
  swap(['multipleOf'], 'reduced', 'expanded');
  swap(['additional_properties'], 'narrowed', 'extended');
  swap(UNION_KEYWORDS, 'branch_added', 'branch_removed_or_narrowed');
  swap(['allOf'], 'branch_added_or_narrowed', 'branch_removed');
  swap(['sum_type'], 'extended', 'narrowed');
  for (const model of ['open', 'closed']) pairs.push([`item_added_to_${model}_model`, `item_removed_from_${model}_model`]);
  for (const covered of ['is_covered_by', 'not_covered_by'])
    pairs.push([`item_added_${covered}_partially_open_model`, `item_removed_${covered}_partially_open_model`]);
  same([
    ...METADATA_KEYWORDS.map((k) => `${keywordCode(k)}_changed`),
    ...[...TEXT_KEYWORDS, ...OTHER_KEYWORDS, 'multipleOf', 'additional_properties', 'dependent_required', 'const'].map(
      (k) => `${keywordCode(k)}_changed`,
    ),
    'combined_type_changed',
    ...COMBINATORS.flatMap((from) => COMBINATORS.filter((to) => to !== from).map((to) => combinedTypeChanged(from, to))),
    ...['oneOf', 'anyOf', 'allOf', 'not'].map((k) => `${keywordCode(k)}_rearranged`),
    'schema_rearranged',
    'not_type_narrowed',
    'not_type_extended',
  ]);
  const table = new Map<SchemaFindingCode, SchemaFindingCode>();
  for (const [a, b] of pairs) {
    table.set(a as SchemaFindingCode, b as SchemaFindingCode);
    if (a !== b) table.set(b as SchemaFindingCode, a as SchemaFindingCode);
  }
  // One way only: an attribute newly required (with a default or not), read backwards, is one no
  // longer required; the reverse of that depends on the default.
  table.set('required_attribute_added', 'required_attribute_removed');
  table.set('required_attribute_with_default_added', 'required_attribute_removed');
  return table;
})();
