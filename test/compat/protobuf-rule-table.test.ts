// The rule table of the Protobuf gate: for each kind of change, real `.proto` text before and
// after (compiled with `buf build`, as the contract model holds it), the backward verdict (does a
// consumer on the new contract read what was written under the old one?), the forward verdict
// (does a consumer on the old contract read what the new one writes?) and the code, under the
// default `wire-json` rules and, where they differ, under `wire`. The table is also run through
// `buf breaking` (WIRE_JSON and WIRE): keiyaku breaks in some direction exactly when Buf reports a
// break, except in the rows that say why not (docs/check.md lists those differences).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProtobufCode } from '../../generator/compat/codes.js';
import { diffProtobuf } from '../../generator/compat/protobuf/index.js';
import type { ProtobufPayloadModel } from '../../generator/model/contract-model.js';
import type { ProtobufRules } from '../../generator/model/vocabulary.js';
import { known } from './known-codes.js';
import { bufBreaking, type Compiled, compileProtos, payloadModel, protoFile, removeImage, type Syntax } from './protobuf-proto.js';

type V = 'reads' | 'breaks';
type Category = 'WIRE_JSON' | 'WIRE';
/** [backward, forward, the codes found]. */
type Verdicts = readonly [V, V, ...ProtobufCode[]];

interface Row {
  readonly change: string;
  readonly before: string;
  readonly after: string;
  readonly syntax?: Syntax;
  /** Under `wire-json` (the default). */
  readonly json: Verdicts;
  /** Under `wire`, when it differs. */
  readonly wire?: Verdicts;
  /** Why keiyaku's verdict differs from `buf breaking` in a category. */
  readonly buf?: Partial<Record<Category, string>>;
}

const TRUNCATES = 'Buf calls integer types of one encoding compatible; a reader of the smaller type truncates the other values';
const SIGN = 'Buf calls them compatible; the bytes parse, but negative values read as large positive ones (and back)';

const rows: Row[] = [
  // Fields added, removed, renamed, renumbered.
  {
    change: 'field added',
    before: 'message M { int32 a = 1; }',
    after: 'message M { int32 a = 1; string b = 2; }',
    json: ['reads', 'reads', 'protobuf_field_added'],
  },
  {
    change: 'field removed, nothing reserved',
    before: 'message M { int32 a = 1; string b = 2; }',
    after: 'message M { int32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_removed'],
  },
  {
    change: 'field removed, its number and name reserved',
    before: 'message M { int32 a = 1; string b = 2; }',
    after: 'message M { int32 a = 1; reserved 2; reserved "b"; }',
    json: ['reads', 'reads', 'protobuf_field_removed_and_reserved'],
  },
  {
    change: 'field removed, only its number reserved',
    before: 'message M { int32 a = 1; string b = 2; }',
    after: 'message M { int32 a = 1; reserved 2; }',
    json: ['breaks', 'breaks', 'protobuf_field_removed'],
    wire: ['reads', 'reads', 'protobuf_field_removed_and_reserved'],
  },
  {
    change: 'field renamed',
    before: 'message M { int32 a = 1; }',
    after: 'message M { int32 b = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_renamed'],
    wire: ['reads', 'reads', 'protobuf_field_renamed'],
  },
  {
    change: 'json_name changed',
    before: 'message M { int32 a = 1; }',
    after: 'message M { int32 a = 1 [json_name = "x"]; }',
    json: ['breaks', 'breaks', 'protobuf_field_json_name_changed'],
    wire: ['reads', 'reads', 'protobuf_field_json_name_changed'],
  },
  {
    change: 'field number changed',
    before: 'message M { int32 a = 1; }',
    after: 'message M { int32 a = 2; }',
    json: ['breaks', 'breaks', 'protobuf_field_number_changed'],
  },
  // Scalar types.
  {
    change: 'int32 → int64',
    before: 'message M { int32 a = 1; }',
    after: 'message M { int64 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: TRUNCATES },
  },
  {
    change: 'int64 → int32',
    before: 'message M { int64 a = 1; }',
    after: 'message M { int32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['breaks', 'reads', 'protobuf_field_type_narrowed'],
    buf: { WIRE: TRUNCATES },
  },
  {
    change: 'uint32 → int64',
    before: 'message M { uint32 a = 1; }',
    after: 'message M { int64 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: TRUNCATES },
  },
  {
    change: 'int32 → uint32',
    before: 'message M { int32 a = 1; }',
    after: 'message M { uint32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    buf: { WIRE: SIGN, WIRE_JSON: SIGN },
  },
  {
    change: 'fixed32 → sfixed32',
    before: 'message M { fixed32 a = 1; }',
    after: 'message M { sfixed32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    buf: { WIRE: SIGN, WIRE_JSON: SIGN },
  },
  {
    change: 'sint32 → sint64',
    before: 'message M { sint32 a = 1; }',
    after: 'message M { sint64 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: TRUNCATES },
  },
  {
    change: 'int32 → sint32 (another encoding)',
    before: 'message M { int32 a = 1; }',
    after: 'message M { sint32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
  },
  {
    change: 'float → double',
    before: 'message M { float a = 1; }',
    after: 'message M { double a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
  },
  {
    change: 'int32 → bool',
    before: 'message M { int32 a = 1; }',
    after: 'message M { bool a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['breaks', 'reads', 'protobuf_field_type_narrowed'],
    buf: { WIRE: 'Buf calls bool an integer; a bool reader reads every other number as true' },
  },
  {
    change: 'string → bytes',
    before: 'message M { string a = 1; }',
    after: 'message M { bytes a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: 'Buf calls them compatible; a string reader rejects bytes that are not UTF-8' },
  },
  {
    change: 'bytes → string',
    before: 'message M { bytes a = 1; }',
    after: 'message M { string a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['breaks', 'reads', 'protobuf_field_type_narrowed'],
  },
  {
    change: 'message → bytes',
    before: 'message M { N a = 1; } message N { int32 x = 1; }',
    after: 'message M { bytes a = 1; } message N { int32 x = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
  },
  {
    change: 'enum → int32',
    before: 'message M { E a = 1; } enum E { E_U = 0; }',
    after: 'message M { int32 a = 1; } enum E { E_U = 0; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
  },
  // Cardinality, presence, maps.
  {
    change: 'singular → repeated (string)',
    before: 'message M { string a = 1; }',
    after: 'message M { repeated string a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_made_repeated'],
    wire: ['reads', 'breaks', 'protobuf_field_made_repeated'],
  },
  {
    change: 'repeated → singular (message)',
    before: 'message M { repeated N a = 1; } message N { int32 x = 1; }',
    after: 'message M { N a = 1; } message N { int32 x = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_made_singular'],
    wire: ['breaks', 'reads', 'protobuf_field_made_singular'],
  },
  {
    change: 'implicit presence → proto3 optional',
    before: 'message M { int32 a = 1; }',
    after: 'message M { optional int32 a = 1; }',
    json: ['reads', 'reads', 'protobuf_field_presence_changed'],
  },
  {
    change: 'map → repeated entry message',
    before: 'message M { map<string, int32> a = 1; }',
    after: 'message M { repeated E a = 1; message E { string key = 1; int32 value = 2; } }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
  },
  {
    change: 'map value int32 → int64',
    before: 'message M { map<string, int32> a = 1; }',
    after: 'message M { map<string, int64> a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: TRUNCATES },
  },
  // Oneofs.
  {
    change: 'field moved into a new oneof, alone',
    before: 'message M { int32 a = 1; int32 b = 2; }',
    after: 'message M { oneof o { int32 a = 1; } int32 b = 2; }',
    json: ['reads', 'reads', 'protobuf_field_moved_into_oneof'],
    buf: {
      WIRE: 'Buf flags every oneof move; a oneof of one field reads as the field',
      WIRE_JSON: 'Buf flags every oneof move; a oneof of one field reads as the field',
    },
  },
  {
    change: 'two fields moved into one oneof',
    before: 'message M { int32 a = 1; int32 b = 2; }',
    after: 'message M { oneof o { int32 a = 1; int32 b = 2; } }',
    json: ['breaks', 'reads', 'protobuf_field_moved_into_oneof', 'protobuf_field_moved_into_oneof'],
  },
  {
    change: 'field moved out of a oneof it shared',
    before: 'message M { oneof o { int32 a = 1; int32 b = 2; } }',
    after: 'message M { int32 a = 1; oneof o { int32 b = 2; } }',
    json: ['reads', 'breaks', 'protobuf_field_moved_out_of_oneof'],
  },
  {
    change: 'fields of two oneofs merged into one',
    before: 'message M { oneof o { int32 a = 1; } oneof p { int32 b = 2; } }',
    after: 'message M { oneof q { int32 a = 1; int32 b = 2; } }',
    json: ['breaks', 'breaks', 'protobuf_field_oneof_changed', 'protobuf_field_oneof_changed'],
  },
  {
    change: 'oneof renamed',
    before: 'message M { oneof o { int32 a = 1; int32 b = 2; } }',
    after: 'message M { oneof p { int32 a = 1; int32 b = 2; } }',
    json: ['reads', 'reads', 'protobuf_field_oneof_changed', 'protobuf_field_oneof_changed'],
    buf: {
      WIRE: 'Buf flags every oneof move; the same fields under another oneof name read alike (the name is in neither form)',
      WIRE_JSON: 'Buf flags every oneof move; the same fields under another oneof name read alike (the name is in neither form)',
    },
  },
  // proto2: required, defaults, packing, closed enums.
  {
    change: 'required field added',
    syntax: 'proto2',
    before: 'message M { optional int32 a = 1; }',
    after: 'message M { optional int32 a = 1; required int32 b = 2; }',
    json: ['breaks', 'reads', 'protobuf_required_field_added'],
  },
  {
    change: 'optional → required',
    syntax: 'proto2',
    before: 'message M { optional int32 a = 1; }',
    after: 'message M { required int32 a = 1; }',
    json: ['breaks', 'reads', 'protobuf_field_made_required'],
  },
  {
    change: 'required → optional',
    syntax: 'proto2',
    before: 'message M { required int32 a = 1; }',
    after: 'message M { optional int32 a = 1; }',
    json: ['reads', 'breaks', 'protobuf_field_made_optional'],
  },
  {
    change: 'required field removed and reserved',
    syntax: 'proto2',
    before: 'message M { optional int32 a = 1; required int32 b = 2; }',
    after: 'message M { optional int32 a = 1; reserved 2; reserved "b"; }',
    json: ['reads', 'breaks', 'protobuf_field_removed_and_reserved'],
  },
  {
    change: 'default changed',
    syntax: 'proto2',
    before: 'message M { optional int32 a = 1 [default = 1]; }',
    after: 'message M { optional int32 a = 1 [default = 2]; }',
    json: ['breaks', 'breaks', 'protobuf_field_default_changed'],
  },
  {
    change: 'repeated scalar packed',
    syntax: 'proto2',
    before: 'message M { repeated int32 a = 1; }',
    after: 'message M { repeated int32 a = 1 [packed = true]; }',
    json: ['reads', 'reads', 'protobuf_field_packing_changed'],
  },
  {
    change: 'value added to a closed enum',
    syntax: 'proto2',
    before: 'enum E { E_U = 0; } message M { optional E e = 1; }',
    after: 'enum E { E_U = 0; E_A = 1; } message M { optional E e = 1; }',
    json: ['reads', 'breaks', 'protobuf_enum_value_added'],
    buf: {
      WIRE: 'Buf does not flag added values; a reader of a closed enum drops a value it does not know',
      WIRE_JSON: 'Buf does not flag added values; a reader of a closed enum drops a value it does not know',
    },
  },
  // Enums.
  {
    change: 'value added to an open enum',
    before: 'enum E { E_U = 0; } message M { E e = 1; }',
    after: 'enum E { E_U = 0; E_A = 1; } message M { E e = 1; }',
    json: ['reads', 'reads', 'protobuf_enum_value_added'],
  },
  {
    change: 'enum value removed, nothing reserved',
    before: 'enum E { E_U = 0; E_A = 1; } message M { E e = 1; }',
    after: 'enum E { E_U = 0; } message M { E e = 1; }',
    json: ['breaks', 'breaks', 'protobuf_enum_value_removed'],
  },
  {
    change: 'enum value removed, its number and name reserved',
    before: 'enum E { E_U = 0; E_A = 1; } message M { E e = 1; }',
    after: 'enum E { E_U = 0; reserved 1; reserved "E_A"; } message M { E e = 1; }',
    json: ['reads', 'reads', 'protobuf_enum_value_removed_and_reserved'],
  },
  {
    change: 'enum value renamed',
    before: 'enum E { E_U = 0; E_A = 1; } message M { E e = 1; }',
    after: 'enum E { E_U = 0; E_B = 1; } message M { E e = 1; }',
    json: ['breaks', 'breaks', 'protobuf_enum_value_renamed'],
    wire: ['reads', 'reads', 'protobuf_enum_value_renamed'],
  },
  {
    change: 'enum alias added',
    before: 'enum E { E_U = 0; E_A = 1; } message M { E e = 1; }',
    after: 'enum E { option allow_alias = true; E_U = 0; E_A = 1; E_B = 1; } message M { E e = 1; }',
    json: ['reads', 'reads'],
  },
  // Reservations.
  {
    change: 'reserved number dropped',
    before: 'message M { int32 a = 1; reserved 5 to 9; }',
    after: 'message M { int32 a = 1; reserved 5 to 7; }',
    json: ['breaks', 'breaks', 'protobuf_reserved_removed'],
  },
  {
    change: 'reserved name dropped',
    before: 'message M { int32 a = 1; reserved "b"; }',
    after: 'message M { int32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_reserved_removed'],
  },
  {
    change: 'reserved number used by a new field',
    before: 'message M { int32 a = 1; reserved 5; }',
    after: 'message M { int32 a = 1; string e = 5; }',
    json: ['breaks', 'breaks', 'protobuf_field_added', 'protobuf_reserved_removed'],
  },
  // Messages reached from the payload.
  {
    change: 'field removed from a nested message',
    before: 'message M { N n = 1; } message N { int32 x = 1; int32 y = 2; }',
    after: 'message M { N n = 1; } message N { int32 x = 1; }',
    json: ['breaks', 'breaks', 'protobuf_field_removed'],
  },
  {
    change: 'nested message type renamed, same fields',
    before: 'message M { N n = 1; } message N { int32 x = 1; }',
    after: 'message M { O n = 1; } message O { int32 x = 1; }',
    json: ['reads', 'reads', 'protobuf_type_renamed'],
    buf: {
      WIRE: 'Buf compares message types by name; neither the binary nor the JSON form carries it',
      WIRE_JSON: 'Buf compares message types by name; neither the binary nor the JSON form carries it',
    },
  },
  {
    change: 'google.protobuf.Timestamp → a message of the same fields',
    before: 'import "google/protobuf/timestamp.proto"; message M { google.protobuf.Timestamp t = 1; }',
    after: 'message M { T t = 1; } message T { int64 seconds = 1; int32 nanos = 2; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'reads', 'protobuf_type_renamed'],
    buf: { WIRE: 'Buf compares message types by name; the binary form does not carry it' },
  },
  {
    change: 'recursive message, a field widened',
    before: 'message M { int32 a = 1; M child = 2; }',
    after: 'message M { int64 a = 1; M child = 2; }',
    json: ['breaks', 'breaks', 'protobuf_field_type_changed'],
    wire: ['reads', 'breaks', 'protobuf_field_type_widened'],
    buf: { WIRE: TRUNCATES },
  },
  {
    change: 'payload message renamed',
    before: 'message M { int32 a = 1; }',
    after: 'message M2 { int32 a = 1; }',
    json: ['breaks', 'breaks', 'protobuf_message_renamed'],
    buf: {
      WIRE: 'the payload type is found by name (RecordNameStrategy subjects, typed deserializers)',
      WIRE_JSON: 'the payload type is found by name (RecordNameStrategy subjects, typed deserializers)',
    },
  },
];

interface Case {
  readonly before: ProtobufPayloadModel;
  readonly after: ProtobufPayloadModel;
  readonly buf: Record<Category, string[]>;
}

// Every row is its own file and package (`r<i>.proto`, `package r<i>`) of one module per side, so
// that two `buf build`s and one `buf breaking` per category judge the whole table.
const cases = new Map<string, Case>();
const images: string[] = [];

beforeAll(async () => {
  const file = (i: number): string => `r${i}.proto`;
  const side = (which: 'before' | 'after'): Promise<Compiled> =>
    compileProtos(Object.fromEntries(rows.map((row, i) => [file(i), protoFile(row[which], row.syntax, `r${i}`)])));
  const [before, after] = await Promise.all([side('before'), side('after')]);
  images.push(before.image, after.image);
  const [json, wire] = await Promise.all([
    bufBreaking(before.image, after.image, 'WIRE_JSON'),
    bufBreaking(before.image, after.image, 'WIRE'),
  ]);
  rows.forEach((row, i) => {
    const renamed = /message M2 /.test(row.after) && !/message M2 /.test(row.before);
    cases.set(row.change, {
      before: payloadModel(before, `r${i}.M`),
      after: payloadModel(after, `r${i}.${renamed ? 'M2' : 'M'}`),
      buf: { WIRE_JSON: json.get(file(i)) ?? [], WIRE: wire.get(file(i)) ?? [] },
    });
  });
}, 60_000);

afterAll(() => {
  for (const image of images) removeImage(image);
});

function verdicts(c: Case, rules: ProtobufRules): Verdicts {
  const backward = known(diffProtobuf(c.before, c.after, 'backward', rules));
  const forward = known(diffProtobuf(c.before, c.after, 'forward', rules));
  expect(
    forward.map((f) => f.code),
    'both directions find the same edits',
  ).toEqual(backward.map((f) => f.code));
  const v = (changes: typeof backward): V => (changes.some((f) => f.severity === 'breaking') ? 'breaks' : 'reads');
  return [v(backward), v(forward), ...(backward.map((f) => f.code).sort() as ProtobufCode[])];
}

describe('Protobuf rule table: backward and forward verdicts, and codes', () => {
  it.each(rows.map((r) => [r.change, r] as const))('%s', (_change, row) => {
    const c = cases.get(row.change)!;
    expect(verdicts(c, 'wire-json'), 'wire-json').toEqual([row.json[0], row.json[1], ...row.json.slice(2).sort()]);
    const wire = row.wire ?? row.json;
    expect(verdicts(c, 'wire'), 'wire').toEqual([wire[0], wire[1], ...wire.slice(2).sort()]);
  });
});

describe('Protobuf rule table against `buf breaking`', () => {
  it.each(rows.map((r) => [r.change, r] as const))('%s', (_change, row) => {
    const c = cases.get(row.change)!;
    for (const [category, ours] of [
      ['WIRE_JSON', row.json],
      ['WIRE', row.wire ?? row.json],
    ] as const) {
      const keiyaku = ours[0] === 'breaks' || ours[1] === 'breaks';
      const buf = c.buf[category].length > 0;
      const differs = row.buf?.[category];
      expect(
        keiyaku === buf,
        `${category}: buf reports [${c.buf[category].join(', ')}]${differs ? `; keiyaku differs: ${differs}` : ''}`,
      ).toBe(differs === undefined);
    }
  });

  it('covers every Protobuf code', async () => {
    const { PROTOBUF_CODES } = await import('../../generator/compat/codes.js');
    const seen = new Set(rows.flatMap((r) => [...r.json.slice(2), ...(r.wire ?? []).slice(2)]));
    expect(PROTOBUF_CODES.filter((code) => !seen.has(code))).toEqual([]);
  });
});
