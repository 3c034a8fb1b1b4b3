/**
 * The keywords a generated validator checks, by the group they belong to: those of one type of
 * value (checked where the value has that type), those of any value, and `unevaluated*`. A schema
 * node with none of a group's keywords writes nothing for that group (generator/emit/validator-function.ts).
 */

/** The groups of keywords that apply to one type of value, in the order their checks are written. */
export type TypeGroup = 'number' | 'string' | 'array' | 'object';
export const TYPE_GROUPS: readonly TypeGroup[] = ['number', 'string', 'array', 'object'];
export const GROUP_BITS: Readonly<Record<TypeGroup, number>> = { number: 1, string: 2, array: 4, object: 8 };
/** Keywords of any type of value (`const`, `enum`, the applicators), and `unevaluated*`. */
export const ANY = 16;
export const UNEVALUATED = 32;
/** The group each keyword the checks read belongs to. */
export const KEYWORD_GROUPS: ReadonlyMap<string, number> = new Map([
  ...['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].map((k) => [k, GROUP_BITS.number] as const),
  ...['minLength', 'maxLength', 'pattern'].map((k) => [k, GROUP_BITS.string] as const),
  ...['minItems', 'maxItems', 'uniqueItems', 'prefixItems', 'items', 'contains'].map((k) => [k, GROUP_BITS.array] as const),
  ...[
    'minProperties',
    'maxProperties',
    'required',
    'dependentRequired',
    'propertyNames',
    'dependentSchemas',
    'properties',
    'patternProperties',
    'additionalProperties',
  ].map((k) => [k, GROUP_BITS.object] as const),
  ...['const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if'].map((k) => [k, ANY] as const),
  ...['unevaluatedProperties', 'unevaluatedItems'].map((k) => [k, UNEVALUATED] as const),
]);
