// The rows of the Avro rule table (test/compat/avro-rule-table.test.ts): each kind of Avro schema
// change with its backward verdict (the new schema reads what the old one wrote) and forward
// verdict (the old schema reads what the new one writes), the code of the finding that decides,
// and where it points. avsc's resolver is the oracle; a row whose verdict deliberately differs
// from avsc's gives avsc's verdicts and the reason.

export type Verdict = 'yes' | 'no';

export interface AvroRow {
  readonly kind: string;
  readonly change: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly backward: Verdict;
  readonly forward: Verdict;
  /** The code of a finding of the change, and its pointer. */
  readonly code: string;
  readonly pointer: string;
  /** avsc's verdicts where keiyaku decides otherwise, and why. */
  readonly avsc?: { readonly backward: Verdict; readonly forward: Verdict; readonly why: string };
}

/** `library.Book` with an `id` and the fields given. */
export const book = (fields: readonly object[], extra: Record<string, unknown> = {}): object => ({
  type: 'record',
  name: 'Book',
  namespace: 'library',
  fields: [{ name: 'id', type: 'string' }, ...fields],
  ...extra,
});
/** `library.Book` with a field `x` of `type`. */
const x = (type: unknown, extra: Record<string, unknown> = {}): object => book([{ name: 'x', type, ...extra }]);
const X = '/fields/x/type';
const author = (fields: readonly object[] = []): object => ({
  type: 'record',
  name: 'Author',
  fields: [{ name: 'name', type: 'string' }, ...fields],
});
const status = (symbols: string[], extra: Record<string, unknown> = {}): object => ({
  type: 'enum',
  name: 'Status',
  symbols,
  ...extra,
});
const decimal = (precision: number, scale: number): object => ({ type: 'bytes', logicalType: 'decimal', precision, scale });
const IGNORES_LOGICAL = 'avsc, like Avro Java and Confluent, resolves the underlying type and ignores logical types';

const row = (
  kind: string,
  change: string,
  before: unknown,
  after: unknown,
  verdicts: `${Verdict}/${Verdict}`,
  code: string,
  pointer: string,
  avsc?: AvroRow['avsc'],
): AvroRow => {
  const [backward, forward] = verdicts.split('/') as [Verdict, Verdict];
  return { kind, change, before, after, backward, forward, code, pointer, ...(avsc ? { avsc } : {}) };
};

export const avroRows: AvroRow[] = [
  row('field', 'added with a default', book([]), x('string', { default: '' }), 'yes/yes', 'avro_field_added_with_default', '/fields/x'),
  row('field', 'added without a default', book([]), x('string'), 'no/yes', 'avro_field_added_without_default', '/fields/x'),
  row(
    'field',
    'removed, it had a default',
    x('string', { default: '' }),
    book([]),
    'yes/yes',
    'avro_field_removed_with_default',
    '/fields/x',
  ),
  row('field', 'removed, it had no default', x('string'), book([]), 'yes/no', 'avro_field_removed_without_default', '/fields/x'),
  row(
    'field',
    'renamed, the old name an alias',
    book([{ name: 'title', type: 'string' }]),
    book([{ name: 'name', type: 'string', aliases: ['title'] }]),
    'yes/no',
    'avro_field_renamed_with_alias',
    '/fields/name',
  ),
  row(
    'field',
    'renamed, the old name an alias, the old field with a default',
    book([{ name: 'title', type: 'string', default: '' }]),
    book([{ name: 'name', type: 'string', aliases: ['title'] }]),
    'yes/yes',
    'avro_field_renamed_with_alias',
    '/fields/name',
  ),
  row(
    'field',
    'renamed back: only the old field named the new name as an alias',
    book([{ name: 'title', type: 'string', aliases: ['name'] }]),
    book([{ name: 'name', type: 'string' }]),
    'no/yes',
    'avro_field_renamed',
    '/fields/name',
  ),
  row(
    'field',
    'renamed without aliases: removed and added',
    book([{ name: 'title', type: 'string' }]),
    book([{ name: 'name', type: 'string' }]),
    'no/no',
    'avro_field_removed_without_default',
    '/fields/title',
  ),
  row('field', 'default changed', x('int', { default: 1 }), x('int', { default: 2 }), 'yes/yes', 'avro_field_default_changed', '/fields/x'),
  row('field', 'default added', x('int'), x('int', { default: 0 }), 'yes/yes', 'avro_field_default_added', '/fields/x'),
  row('field', 'alias added', x('int'), x('int', { aliases: ['y'] }), 'yes/yes', 'avro_aliases_changed', '/fields/x'),
  row('field', 'doc edited', x('int', { doc: 'a' }), x('int', { doc: 'b' }), 'yes/yes', 'avro_doc_changed', '/fields/x'),

  row('type', 'int → long', x('int'), x('long'), 'yes/no', 'avro_type_promoted', X),
  row('type', 'int → float', x('int'), x('float'), 'yes/no', 'avro_type_promoted', X),
  row('type', 'long → double', x('long'), x('double'), 'yes/no', 'avro_type_promoted', X),
  row('type', 'float → double', x('float'), x('double'), 'yes/no', 'avro_type_promoted', X),
  row('type', 'long → int', x('long'), x('int'), 'no/yes', 'avro_type_demoted', X),
  row('type', 'double → float', x('double'), x('float'), 'no/yes', 'avro_type_demoted', X),
  row('type', 'string → bytes', x('string'), x('bytes'), 'yes/yes', 'avro_type_promoted', X),
  row('type', 'bytes → string', x('bytes'), x('string'), 'yes/yes', 'avro_type_promoted', X),
  row('type', 'string → int', x('string'), x('int'), 'no/no', 'avro_type_changed', X),
  row('type', 'boolean → int', x('boolean'), x('int'), 'no/no', 'avro_type_changed', X),
  row('type', 'record → enum', x(author()), x(status(['A'])), 'no/no', 'avro_type_changed', X),
  row('type', 'array → map', x({ type: 'array', items: 'int' }), x({ type: 'map', values: 'int' }), 'no/no', 'avro_type_changed', X),

  row('name', 'record renamed', book([]), { ...book([]), name: 'Volume' }, 'no/no', 'avro_name_changed', ''),
  row(
    'name',
    'record renamed, the old name an alias',
    book([]),
    { ...book([]), name: 'Volume', aliases: ['Book'] },
    'yes/no',
    'avro_name_changed_with_alias',
    '',
  ),
  row('name', 'namespace changed', book([]), { ...book([]), namespace: 'catalog' }, 'no/no', 'avro_name_changed', ''),
  row(
    'name',
    'namespace changed, the old full name an alias',
    book([]),
    { ...book([]), namespace: 'catalog', aliases: ['library.Book'] },
    'yes/no',
    'avro_name_changed_with_alias',
    '',
  ),
  row('name', 'enum renamed', x(status(['A'])), x({ ...status(['A']), name: 'State' }), 'no/no', 'avro_name_changed', X),
  row('name', 'record doc edited', book([], { doc: 'a' }), book([], { doc: 'b' }), 'yes/yes', 'avro_doc_changed', ''),

  row('enum', 'symbol added', x(status(['A'])), x(status(['A', 'B'])), 'yes/no', 'avro_enum_symbol_added', `${X}/symbols`),
  row(
    'enum',
    'symbol added, the old enum with a default',
    x(status(['A'], { default: 'A' })),
    x(status(['A', 'B'], { default: 'A' })),
    'yes/yes',
    'avro_enum_symbol_added',
    `${X}/symbols`,
  ),
  row('enum', 'symbol removed', x(status(['A', 'B'])), x(status(['A'])), 'no/yes', 'avro_enum_symbol_removed', `${X}/symbols`),
  row(
    'enum',
    'symbol removed, the new enum with a default',
    x(status(['A', 'B'])),
    x(status(['A'], { default: 'A' })),
    'yes/yes',
    'avro_enum_symbol_removed',
    `${X}/symbols`,
  ),
  row('enum', 'default added', x(status(['A'])), x(status(['A'], { default: 'A' })), 'yes/yes', 'avro_enum_default_added', `${X}/default`),
  row(
    'enum',
    'default removed',
    x(status(['A'], { default: 'A' })),
    x(status(['A'])),
    'yes/yes',
    'avro_enum_default_removed',
    `${X}/default`,
  ),
  row(
    'enum',
    'default changed',
    x(status(['A', 'B'], { default: 'A' })),
    x(status(['A', 'B'], { default: 'B' })),
    'yes/yes',
    'avro_enum_default_changed',
    `${X}/default`,
  ),
  row('enum', 'symbols reordered', x(status(['A', 'B'])), x(status(['B', 'A'])), 'yes/yes', '', ''),

  row('union', 'branch added', x(['null', 'string']), x(['null', 'string', 'int']), 'yes/no', 'avro_union_branch_added', `${X}/int`),
  row(
    'union',
    'branch int added where long reads it',
    x(['null', 'long']),
    x(['null', 'long', 'int']),
    'yes/yes',
    'avro_union_branch_added',
    `${X}/int`,
  ),
  row('union', 'branch removed', x(['null', 'string', 'int']), x(['null', 'string']), 'no/yes', 'avro_union_branch_removed', `${X}/int`),
  row('union', 'branch int → long', x(['null', 'int']), x(['null', 'long']), 'yes/no', 'avro_type_promoted', `${X}/long`),
  row('union', 'a type became a union with it', x('string'), x(['null', 'string']), 'yes/no', 'avro_type_became_union', X),
  row('union', 'a type became a union without it', x('string'), x(['null', 'int']), 'no/no', 'avro_type_became_union', X),
  row('union', 'a union became one of its branches', x(['null', 'string']), x('string'), 'no/yes', 'avro_union_became_type', X),
  row(
    'union',
    'a record branch gained a field with a default',
    x(['null', author()]),
    x(['null', author([{ name: 'born', type: 'int', default: 0 }])]),
    'yes/yes',
    'avro_field_added_with_default',
    `${X}/library.Author/fields/born`,
  ),

  row(
    'union',
    'a record branch renamed, the old name an alias',
    x(['null', author()]),
    x(['null', { ...author(), name: 'Writer', aliases: ['Author'] }]),
    'yes/no',
    'avro_name_changed_with_alias',
    `${X}/library.Writer`,
  ),
  row('union', 'branches reordered', x(['null', 'string']), x(['string', 'null']), 'yes/yes', '', ''),
  row(
    'field',
    'fields reordered',
    book([
      { name: 'a', type: 'int' },
      { name: 'b', type: 'string' },
    ]),
    book([
      { name: 'b', type: 'string' },
      { name: 'a', type: 'int' },
    ]),
    'yes/yes',
    '',
    '',
  ),
  row(
    'fixed',
    'size changed',
    x({ type: 'fixed', name: 'Hash', size: 16 }),
    x({ type: 'fixed', name: 'Hash', size: 32 }),
    'no/no',
    'avro_fixed_size_changed',
    `${X}/size`,
  ),
  row(
    'array',
    'items int → long',
    x({ type: 'array', items: 'int' }),
    x({ type: 'array', items: 'long' }),
    'yes/no',
    'avro_type_promoted',
    `${X}/items`,
  ),
  row(
    'map',
    'values string → int',
    x({ type: 'map', values: 'string' }),
    x({ type: 'map', values: 'int' }),
    'no/no',
    'avro_type_changed',
    `${X}/values`,
  ),
  row(
    'map',
    'values: a record gained a field without a default',
    x({ type: 'map', values: author() }),
    x({ type: 'map', values: author([{ name: 'born', type: 'int' }]) }),
    'no/yes',
    'avro_field_added_without_default',
    `${X}/values/fields/born`,
  ),

  row(
    'named',
    'a record used twice, by name the second time, gained a field without a default',
    book([
      { name: 'author', type: author() },
      { name: 'editor', type: 'Author' },
    ]),
    book([
      { name: 'author', type: author([{ name: 'born', type: 'int' }]) },
      { name: 'editor', type: 'Author' },
    ]),
    'no/yes',
    'avro_field_added_without_default',
    '/fields/author/type/fields/born',
  ),
  row(
    'named',
    'a recursive record: a field promoted',
    {
      type: 'record',
      name: 'Node',
      fields: [
        { name: 'value', type: 'int' },
        { name: 'next', type: ['null', 'Node'] },
      ],
    },
    {
      type: 'record',
      name: 'Node',
      fields: [
        { name: 'value', type: 'long' },
        { name: 'next', type: ['null', 'Node'] },
      ],
    },
    'yes/no',
    'avro_type_promoted',
    '/fields/value/type',
  ),
  row(
    'named',
    'a nested record in its own namespace renamed within it, with an alias',
    x({ type: 'record', name: 'Author', namespace: 'people', fields: [] }),
    x({ type: 'record', name: 'Writer', namespace: 'people', aliases: ['Author'], fields: [] }),
    'yes/no',
    'avro_name_changed_with_alias',
    X,
  ),

  row(
    'logical',
    'timestamp-millis → timestamp-micros',
    x({ type: 'long', logicalType: 'timestamp-millis' }),
    x({ type: 'long', logicalType: 'timestamp-micros' }),
    'no/no',
    'avro_logical_type_changed',
    X,
    { backward: 'yes', forward: 'yes', why: `${IGNORES_LOGICAL}: the same longs are read 1000 times off` },
  ),
  row(
    'logical',
    'date (int) → timestamp-millis (long)',
    x({ type: 'int', logicalType: 'date' }),
    x({ type: 'long', logicalType: 'timestamp-millis' }),
    'no/no',
    'avro_logical_type_changed',
    X,
    { backward: 'yes', forward: 'no', why: `${IGNORES_LOGICAL}: int → long promotes, but days are read as milliseconds` },
  ),
  row(
    'logical',
    'timestamp-millis added to a long',
    x('long'),
    x({ type: 'long', logicalType: 'timestamp-millis' }),
    'yes/yes',
    'avro_logical_type_added',
    X,
  ),
  row(
    'logical',
    'timestamp-millis removed',
    x({ type: 'long', logicalType: 'timestamp-millis' }),
    x('long'),
    'yes/yes',
    'avro_logical_type_removed',
    X,
  ),
  row(
    'logical',
    'uuid added to a string',
    x('string'),
    x({ type: 'string', logicalType: 'uuid' }),
    'no/yes',
    'avro_logical_type_added',
    X,
    { backward: 'yes', forward: 'yes', why: `${IGNORES_LOGICAL}: a reader of uuid rejects the strings that are not` },
  ),
  row('logical', 'decimal scale changed', x(decimal(10, 2)), x(decimal(10, 3)), 'no/no', 'avro_decimal_scale_changed', X, {
    backward: 'yes',
    forward: 'yes',
    why: `${IGNORES_LOGICAL}: the same unscaled integers are read 10 times off`,
  }),
  row('logical', 'decimal precision widened', x(decimal(10, 2)), x(decimal(12, 2)), 'yes/no', 'avro_decimal_precision_widened', X, {
    backward: 'yes',
    forward: 'yes',
    why: `${IGNORES_LOGICAL}: old readers reject values with more digits than their precision`,
  }),
  row('logical', 'decimal precision narrowed', x(decimal(12, 2)), x(decimal(10, 2)), 'no/yes', 'avro_decimal_precision_narrowed', X, {
    backward: 'yes',
    forward: 'yes',
    why: `${IGNORES_LOGICAL}: new readers reject old values with more digits than their precision`,
  }),
];
