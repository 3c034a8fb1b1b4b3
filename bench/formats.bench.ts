/**
 * Decode + validate of binary payload formats through keiyaku's generated descriptors, against
 * the format's library used directly and against JSON for the same record:
 * - Avro: the descriptor (`defineMessage` with `avroCodec`, as generated code builds it) decoding
 *   the record, against avsc alone (`type.fromBuffer` + `type.isValid`; goal ≥ 0.8×), against avsc
 *   with keiyaku's logical types (the same values: Dates, checked uuids), and against
 *   JSON (`JSON.parse` + the validator `generate` writes for an equivalent JSON Schema).
 * - Protobuf: the descriptor (`defineMessage` with `protobufCodec`) decoding the same record as a
 *   Protobuf message, against protobuf-es alone (`fromBinary`, which needs no separate validation:
 *   its values are valid by construction; goal ≥ 0.8×), and against the same JSON.
 *
 * The variants run in interleaved short rounds and each ratio is the median of the ratios of one
 * round, so a load spike on a shared machine hits both sides of a ratio alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { avroCodec, avroType } from '@keiyaku/avro';
import { protobufCodec } from '@keiyaku/protobuf';
import { defineMessage, type StandaloneValidator, validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import avro from 'avsc';
import { compileProtoSource } from '../generator/formats/protobuf/compile.js';
import { type ContractModel, compileContract, generate } from '../generator/index.js';
import { median, ROUND_MS, ROUNDS, round, verdict } from './stats.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const decoder = new TextDecoder();

/** Validators of a contract as `generate` writes them, evaluated in this process. */
async function validatorsOf(model: ContractModel): Promise<Record<string, StandaloneValidator>> {
  const { files } = await generate(model, { source: model.source });
  const code = files.find((f) => f.path === 'validators.ts')!.content;
  const body = code
    .replace(/^import \{ validatorRuntime \} from "@keiyaku\/runtime\/codegen-v1";$/m, '')
    .replace(/^export const /gm, 'exports.');
  const exports: Record<string, StandaloneValidator> = {};
  new Function('validatorRuntime', 'exports', body)(validatorRuntime, exports);
  return exports;
}

/** Interleaved rounds of `variants`; prints each one's median ops/s and the medians of `keiyaku` over each other. */
function measure(title: string, variants: readonly (readonly [string, () => unknown])[], goals: Readonly<Record<string, number>>): void {
  for (const [, fn] of variants) for (let i = 0; i < 20_000; i++) fn();
  const ops = new Map(variants.map(([name]) => [name, [] as number[]]));
  const ratios = new Map(variants.filter(([name]) => name !== 'keiyaku').map(([name]) => [name, [] as number[]]));
  for (let r = 0; r < ROUNDS; r++) {
    const now = new Map<string, number>();
    for (const [name, fn] of r % 2 === 0 ? variants : [...variants].reverse()) now.set(name, round(fn));
    for (const [name, list] of ops) list.push(now.get(name)!);
    for (const [name, list] of ratios) list.push(now.get('keiyaku')! / now.get(name)!);
  }
  out(`${title}; ${ROUNDS} interleaved rounds of ${ROUND_MS} ms, medians`);
  for (const [name, list] of ops) out(`  ${name.padEnd(40)}: ${(median(list) / 1000).toFixed(0)}k ops/s`);
  for (const [name, list] of ratios) {
    const ratio = median(list).toFixed(2);
    const goal = goals[name];
    out(`  ratio keiyaku/${name.padEnd(32)}: ${ratio}x${goal === undefined ? '' : `   (goal >= ${goal}x: ${verdict(ratio, goal)})`}`);
  }
}

const orderAvro = {
  type: 'record',
  name: 'OrderPlaced',
  namespace: 'bench',
  fields: [
    { name: 'orderId', type: { type: 'string', logicalType: 'uuid' } },
    { name: 'placedAt', type: { type: 'long', logicalType: 'timestamp-millis' } },
    {
      name: 'customer',
      type: {
        type: 'record',
        name: 'Customer',
        fields: [
          { name: 'customerId', type: { type: 'string', logicalType: 'uuid' } },
          { name: 'email', type: 'string' },
        ],
      },
    },
    {
      name: 'lines',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'Line',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'quantity', type: 'int' },
            {
              name: 'price',
              type: {
                type: 'record',
                name: 'Price',
                fields: [
                  { name: 'amount', type: 'long' },
                  { name: 'currency', type: { type: 'enum', name: 'Currency', symbols: ['EUR', 'USD', 'JPY'] } },
                ],
              },
            },
            { name: 'tags', type: { type: 'array', items: 'string' }, default: [] },
          ],
        },
      },
    },
    { name: 'deliverBy', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }], default: null },
  ],
};

/** The same record as JSON Schema (date-times as text, the JSON form of a timestamp). */
const orderJsonSchema = {
  type: 'object',
  required: ['orderId', 'placedAt', 'customer', 'lines'],
  additionalProperties: false,
  properties: {
    orderId: { type: 'string', format: 'uuid' },
    placedAt: { type: 'string', format: 'date-time' },
    customer: {
      type: 'object',
      required: ['customerId', 'email'],
      additionalProperties: false,
      properties: { customerId: { type: 'string', format: 'uuid' }, email: { type: 'string' } },
    },
    lines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sku', 'quantity', 'price', 'tags'],
        additionalProperties: false,
        properties: {
          sku: { type: 'string' },
          quantity: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
          price: {
            type: 'object',
            required: ['amount', 'currency'],
            additionalProperties: false,
            properties: { amount: { type: 'integer' }, currency: { enum: ['EUR', 'USD', 'JPY'] } },
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    deliverBy: { type: ['string', 'null'], format: 'date-time' },
  },
};

const lines = [
  { sku: 'ABC-0001', quantity: 2, price: { amount: 1999, currency: 'EUR' }, tags: ['gift', 'fragile'] },
  { sku: 'XYZ-0420', quantity: 1, price: { amount: 500, currency: 'EUR' }, tags: [] },
  { sku: 'QRS-1234', quantity: 5, price: { amount: 75, currency: 'EUR' }, tags: [] },
];
const order = {
  orderId: '0b6f1c2e-8a3d-4e5f-9a0b-1c2d3e4f5a6b',
  placedAt: new Date('2026-11-02T09:15:00.123Z'),
  customer: { customerId: '7d1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6c', email: 'ada.lovelace@example.org' },
  lines,
  deliverBy: new Date('2026-11-05T18:00:00Z'),
};

async function avroRows(): Promise<void> {
  const Order = defineMessage({
    type: 'OrderPlaced',
    id: 'OrderPlaced',
    contentType: 'application/avro',
    schemaHash: '',
    codec: avroCodec(orderAvro),
  });
  const avroBytes = Order.encode(Order.create(order));
  const plain = avro.Type.forSchema(orderAvro as avro.Schema);
  // avsc with keiyaku's logical types (Dates, checked uuids): what avsc alone costs for the same values.
  const logical = avroType(orderAvro);
  const plainBuffer = Buffer.from(avroBytes);

  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-formats-bench-'));
  try {
    const contract = {
      asyncapi: '3.0.0',
      info: { title: 'Orders', version: '1.0.0' },
      channels: { orders: { address: 'orders', messages: { OrderPlaced: { name: 'OrderPlaced', payload: orderJsonSchema } } } },
    };
    writeFileSync(join(dir, 'asyncapi.json'), JSON.stringify(contract));
    const model = (await compileContract('asyncapi.json', { cwd: dir })).model!;
    const validate = (await validatorsOf(model))[`validate${model.messages['OrderPlaced']!.payload}`]!;
    const jsonBytes = new TextEncoder().encode(JSON.stringify(order));
    const checks = [
      Order.decode(avroBytes).ok,
      plain.isValid(plain.fromBuffer(plainBuffer)),
      validate(JSON.parse(decoder.decode(jsonBytes))),
    ];
    if (checks.includes(false)) throw new Error(`the benchmark record is not valid in every variant: ${checks.join(', ')}`);
    measure(
      `Avro OrderPlaced (nested records, arrays, enum, uuid, timestamp-millis): ${avroBytes.byteLength} bytes Avro, ${jsonBytes.byteLength} bytes JSON`,
      [
        ['keiyaku', () => Order.decode(avroBytes)],
        [
          'avsc fromBuffer + isValid',
          () => {
            const value = plain.fromBuffer(plainBuffer);
            if (!plain.isValid(value)) throw new Error('invalid');
            return value;
          },
        ],
        [
          'avsc + logical types, fromBuffer+isValid',
          () => {
            const value = logical.fromBuffer(plainBuffer);
            if (!logical.isValid(value)) throw new Error('invalid');
            return value;
          },
        ],
        [
          'JSON.parse + generated validator',
          () => {
            const value = JSON.parse(decoder.decode(jsonBytes));
            if (!validate(value)) throw new Error('invalid');
            return value;
          },
        ],
      ],
      { 'avsc fromBuffer + isValid': 0.8 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const orderProto = `syntax = "proto3";

package bench;

import "google/protobuf/timestamp.proto";

enum Currency {
  CURRENCY_UNSPECIFIED = 0;
  CURRENCY_EUR = 1;
  CURRENCY_USD = 2;
  CURRENCY_JPY = 3;
}

message OrderPlaced {
  string order_id = 1;
  google.protobuf.Timestamp placed_at = 2;
  Customer customer = 3;
  repeated Line lines = 4;
  google.protobuf.Timestamp deliver_by = 5;
}

message Customer {
  string customer_id = 1;
  string email = 2;
}

message Line {
  string sku = 1;
  int32 quantity = 2;
  Price price = 3;
  repeated string tags = 4;
}

message Price {
  int64 amount = 1;
  Currency currency = 2;
}
`;

/** Protobuf: the descriptor (`defineMessage` with `protobufCodec`) against protobuf-es `fromBinary` alone and against JSON, for the same record. */
async function protobufRows(): Promise<void> {
  const compiled = compileProtoSource(orderProto, 'order.proto');
  if (!compiled.ok) throw new Error(`the benchmark .proto does not compile: ${compiled.errors.map((e) => e.message).join('; ')}`);
  const descriptorSet = Buffer.from(compiled.descriptorSet).toString('base64');
  const Order = defineMessage({
    type: 'OrderPlaced',
    id: 'OrderPlaced',
    contentType: 'application/x-protobuf',
    schemaHash: '',
    codec: protobufCodec(descriptorSet, 'bench.OrderPlaced', { source: orderProto }),
  });
  const timestamp = (date: Date) => ({ seconds: BigInt(Math.floor(date.getTime() / 1000)), nanos: (date.getTime() % 1000) * 1_000_000 });
  const currency = { EUR: 1, USD: 2, JPY: 3 } as const;
  const protoBytes = Order.encode(
    Order.create({
      orderId: order.orderId,
      placedAt: timestamp(order.placedAt),
      customer: order.customer,
      lines: order.lines.map((line) => ({
        ...line,
        price: { amount: BigInt(line.price.amount), currency: currency[line.price.currency as 'EUR'] },
      })),
      deliverBy: timestamp(order.deliverBy),
    }),
  );
  const desc = createFileRegistry(fromBinary(FileDescriptorSetSchema, compiled.descriptorSet)).getMessage('bench.OrderPlaced')!;
  const json = await jsonVariant();
  const checks = [Order.decode(protoBytes).ok, fromBinary(desc, protoBytes).$typeName === 'bench.OrderPlaced', json.check()];
  if (checks.includes(false)) throw new Error(`the benchmark record is not valid in every variant: ${checks.join(', ')}`);
  measure(
    `Protobuf OrderPlaced (nested messages, repeated, enum, int64, Timestamp): ${protoBytes.byteLength} bytes Protobuf, ${json.bytes} bytes JSON`,
    [
      ['keiyaku', () => Order.decode(protoBytes)],
      ['protobuf-es fromBinary', () => fromBinary(desc, protoBytes)],
      ['JSON.parse + generated validator', json.run],
    ],
    { 'protobuf-es fromBinary': 0.8 },
  );
}

/** JSON for the same record: its bytes, and `JSON.parse` + the validator `generate` writes for orderJsonSchema. */
async function jsonVariant(): Promise<{ bytes: number; check: () => boolean; run: () => unknown }> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-formats-bench-'));
  try {
    const contract = {
      asyncapi: '3.0.0',
      info: { title: 'Orders', version: '1.0.0' },
      channels: { orders: { address: 'orders', messages: { OrderPlaced: { name: 'OrderPlaced', payload: orderJsonSchema } } } },
    };
    writeFileSync(join(dir, 'asyncapi.json'), JSON.stringify(contract));
    const model = (await compileContract('asyncapi.json', { cwd: dir })).model!;
    const validate = (await validatorsOf(model))[`validate${model.messages['OrderPlaced']!.payload}`]!;
    const jsonBytes = new TextEncoder().encode(JSON.stringify(order));
    return {
      bytes: jsonBytes.byteLength,
      check: () => validate(JSON.parse(decoder.decode(jsonBytes))),
      run: () => {
        const value = JSON.parse(decoder.decode(jsonBytes));
        if (!validate(value)) throw new Error('invalid');
        return value;
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await avroRows();
await protobufRows();
