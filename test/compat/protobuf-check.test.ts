// The Protobuf gate inside a whole-contract check: pointers into the message, words and fixes,
// ids and acknowledgments, a message type several payloads share, the `x-keiyaku.protobuf`
// switch, the output formats, and a descriptor set that does not decode.
import type { ContractModel, MessageModel } from 'keiyaku';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS, render } from '../../generator/compat/render.js';
import type { CompatibilitySettings, ProtobufPayloadModel } from '../../generator/model/contract-model.js';
import { rootCompatibility } from '../../generator/model/extensions.js';
import { acknowledge, codesIn, compareContracts, known } from './known-codes.js';
import { compileProtos, payloadModel, protoFile, removeImage } from './protobuf-proto.js';

const money = 'message Money { string currency = 1; int64 units = 2; }';
const v1 = protoFile(
  `message Order { string id = 1; Money total = 2; Status status = 3; int32 quantity = 4; }
   message Refund { string order = 1; Money amount = 2; }
   enum Status { STATUS_UNSPECIFIED = 0; STATUS_OPEN = 1; STATUS_CLOSED = 2; }
   ${money}`,
  'proto3',
  'shop.v1',
);
// Money lost `units` (unreserved); Order renamed `quantity` → `count`; Status lost STATUS_CLOSED (reserved).
const v2 = protoFile(
  `message Order { string id = 1; Money total = 2; Status status = 3; int32 count = 4; }
   message Refund { string order = 1; Money amount = 2; }
   enum Status { STATUS_UNSPECIFIED = 0; STATUS_OPEN = 1; reserved 2; reserved "STATUS_CLOSED"; }
   message Money { string currency = 1; }`,
  'proto3',
  'shop.v1',
);

function message(type: string, format: ProtobufPayloadModel): MessageModel {
  return {
    type,
    id: type,
    identifier: type,
    contentType: 'application/x-protobuf',
    payload: type,
    format,
    boxed: false,
    examples: [],
    deprecated: false,
  } as MessageModel;
}

function contract(version: string, formats: Record<string, ProtobufPayloadModel>, compatibility?: CompatibilitySettings): ContractModel {
  return {
    source: 'asyncapi.yaml',
    asyncapi: '3.0.0',
    info: { title: 'shop', version },
    channels: [
      { id: 'orders', identifier: 'Orders', address: 'orders', parameters: [], messages: Object.keys(formats), bindings: {}, roles: [] },
    ],
    messages: Object.fromEntries(Object.entries(formats).map(([type, format]) => [type, message(type, format)])),
    operations: [],
    schemas: {},
    ...(compatibility === undefined ? {} : { compatibility }),
  };
}

let before: ContractModel;
let newer: (compatibility?: CompatibilitySettings) => ContractModel;
const images: string[] = [];

beforeAll(async () => {
  const [a, b] = await Promise.all([compileProtos({ 'shop.proto': v1 }), compileProtos({ 'shop.proto': v2 })]);
  images.push(a.image, b.image);
  before = contract('1.0.0', { OrderPlaced: payloadModel(a, 'shop.v1.Order'), OrderRefunded: payloadModel(a, 'shop.v1.Refund') });
  newer = (compatibility) =>
    contract('2.0.0', { OrderPlaced: payloadModel(b, 'shop.v1.Order'), OrderRefunded: payloadModel(b, 'shop.v1.Refund') }, compatibility);
}, 30_000);

afterAll(() => {
  for (const image of images) removeImage(image);
});

describe('Protobuf payloads in keiyaku check', () => {
  it('points into the message, names the edit and the reader that breaks, and fixes it', () => {
    const findings = known(compareContracts(before, newer(), { mode: 'backward', policy: 'lenient' }));
    const rename = findings.find((f) => f.code === 'protobuf_field_renamed')!;
    expect(rename).toMatchObject({
      severity: 'breaking',
      channel: 'orders',
      message: 'OrderPlaced',
      pointer: '/payload/fields/count',
      id: 'orders/OrderPlaced/protobuf_field_renamed/payload/fields/count',
      before: 'quantity',
      after: 'count',
    });
    expect(rename.detail).toBe(
      'field 4 renamed quantity → count: its JSON name changes, and consumers on the new contract, reading messages written under the old one, do not find it in the JSON form',
    );
    expect(rename.hint).toMatch(
      /^keep the name quantity; the change itself passes only when acknowledged, once no message written under the old contract is left to read/,
    );
    const closed = findings.find((f) => f.code === 'protobuf_enum_value_removed_and_reserved')!;
    expect(closed).toMatchObject({ severity: 'compatible', pointer: '/payload/fields/status/values/STATUS_CLOSED' });
  });

  it('reports a change in a message type two payloads share once, under the type', () => {
    const findings = compareContracts(before, newer(), { mode: 'forward', policy: 'lenient' });
    const removed = findings.filter((f) => f.code === 'protobuf_field_removed');
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({
      severity: 'breaking',
      direction: 'forward',
      pointer: '/fields/units',
      id: 'schemas/shop.v1.Money/protobuf_field_removed/fields/units',
    });
    expect(removed[0]!.usages?.map((u) => `${u.message}${u.pointer}`)).toEqual([
      'OrderPlaced/payload/fields/total/fields/units',
      'OrderRefunded/payload/fields/amount/fields/units',
    ]);
    expect(removed[0]!.detail).toMatch(/^field units = 2 removed without reserving its number and name: a later field may take it/);
    // The fix is an edit that passes: reserving the number and the name.
    expect(removed[0]!.hint).toBe('reserve it where the field was: `reserved 2;` and `reserved "units";`');
  });

  it('lets an acknowledged break through, by id', () => {
    const acknowledged = newer({
      acknowledge: [
        { id: 'orders/OrderPlaced/protobuf_field_renamed/payload/fields/count', reason: 'no JSON reader of orders yet', version: '2.0.0' },
        { id: 'schemas/shop.v1.Money/protobuf_field_removed/fields/units', reason: 'units moved to Order', version: '2.0.0' },
      ],
    });
    const result = acknowledge(compareContracts(before, acknowledged, { mode: 'full', policy: 'lenient' }), acknowledged);
    expect(result.breaking).toBe(0);
    expect(
      result.findings
        .filter((f) => f.acknowledged)
        .map((f) => `${f.direction} ${f.code}`)
        .sort(),
    ).toEqual([
      'backward protobuf_field_removed',
      'backward protobuf_field_renamed',
      'forward protobuf_field_removed',
      'forward protobuf_field_renamed',
    ]);
    expect(result.acknowledged).toBe(4);
  });

  it('compares by the binary encoding alone under x-keiyaku.protobuf: wire', () => {
    const findings = known(compareContracts(before, newer({ protobuf: 'wire' }), { mode: 'full', policy: 'lenient' }));
    expect(findings.filter((f) => f.code === 'protobuf_field_renamed').map((f) => f.severity)).toEqual(['compatible', 'compatible']);
    // An unreserved number still breaks: a later field may take it.
    expect(findings.filter((f) => f.code === 'protobuf_field_removed').map((f) => f.severity)).toEqual(['breaking', 'breaking']);
  });

  it('reads x-keiyaku.protobuf, and names the values it takes', () => {
    const at = () => ({ file: 'asyncapi.yaml', line: 3, column: 3, pointer: '/x-keiyaku' });
    expect(rootCompatibility({ protobuf: 'wire' }, at).part).toEqual({ protobuf: 'wire' });
    const wrong = rootCompatibility({ protobuf: 'binary' }, at);
    expect(wrong.diagnostics.map((d) => d.message)).toEqual(['x-keiyaku.protobuf is "binary", which is not one of wire-json, wire']);
  });

  it('prints Protobuf codes in every output format', () => {
    const model = newer();
    const result = acknowledge(compareContracts(before, model, { mode: 'backward', policy: 'lenient' }), model);
    const codes = [...new Set(result.findings.filter((f) => f.severity === 'breaking').map((f) => f.code))].sort();
    expect(codes).toEqual(['protobuf_field_removed', 'protobuf_field_renamed']);
    for (const format of FORMATS) {
      const printed = codesIn(render(format, result, { against: 'v1', mode: 'backward', policy: 'lenient' }));
      for (const code of codes) expect(printed, format).toContain(code);
    }
  });

  it('fails clearly on a descriptor set that does not decode', () => {
    const broken = contract('2.0.0', {
      OrderPlaced: { ...before.messages.OrderPlaced!.format!, descriptorSet: 'bm90IGEgZGVzY3JpcHRvcg==' } as ProtobufPayloadModel,
      OrderRefunded: before.messages.OrderRefunded!.format as ProtobufPayloadModel,
    });
    expect(() => compareContracts(before, broken, { mode: 'backward', policy: 'lenient' })).toThrow(
      /the Protobuf payload shop\.v1\.Order cannot be compared: its descriptor set does not decode/,
    );
  });
});
