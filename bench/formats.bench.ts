/**
 * Decode + validate of binary payload formats through keiyaku's generated descriptors, against
 * the format's library used directly and against JSON for the same record:
 * - Avro: the descriptor (`defineMessage` with `avroCodec`, as generated code builds it) decoding
 *   the record, against avsc alone (`type.fromBuffer` + `type.isValid`; goal ≥ 0.8×), and against
 *   JSON (`JSON.parse` + the validator `generate` writes for an equivalent JSON Schema).
 * - Protobuf: its rows go in {@link protobufRows} (the same three variants, protobuf-es in place of avsc).
 *
 * The variants run in interleaved short rounds and each ratio is the median of the ratios of one
 * round, so a load spike on a shared machine hits both sides of a ratio alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { avroCodec } from '@keiyaku/avro';
import { defineMessage, type StandaloneValidator, validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import avro from 'avsc';
import { type ContractModel, compileContract, generate } from '../generator/index.js';
import { median, verdict } from './stats.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 15);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 100);
const decoder = new TextDecoder();

/** Operations per second of `fn` over about ROUND_MS. */
function round(fn: () => unknown): number {
  let count = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < 500; i++) fn();
    count += 500;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}

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

/** Protobuf: the descriptor against protobuf-es (`fromBinary`) and against JSON for the same message, when @keiyaku/protobuf lands. */
async function protobufRows(): Promise<void> {
  out('Protobuf: no rows yet (the Protobuf codec is not in this build)');
}

await avroRows();
await protobufRows();
