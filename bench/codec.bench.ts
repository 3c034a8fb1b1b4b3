/**
 * Decode + validate throughput of generated codecs (validators written by keiyaku at generate
 * time) against two baselines in the same process: bare `JSON.parse` of the same bytes (no
 * validation) and ajv compiling the same schema at run time. Two messages: this repository's
 * BookBorrowed, and an order with nested arrays and `date-time`, `uuid` and `email` formats.
 *
 * The variants run in interleaved short rounds and each ratio is the median of the ratios of
 * one round, so a load spike on a shared machine hits both sides of a ratio alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineMessage, type StandaloneValidator, validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import { BookBorrowed } from '../generated/index.js';
import { toAjvSchema } from '../generator/emit/validators.js';
import { type ContractModel, compileContract, generate } from '../generator/index.js';
import { median, ROUND_MS, ROUNDS, round, verdict } from './stats.js';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }).default;
const addFormats = require('ajv-formats') as (ajv: unknown) => void;

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const decoder = new TextDecoder();

function runtimeAjv(model: ContractModel, root: string): { validate: (d: unknown) => boolean; compileMs: number } {
  const defs: Record<string, unknown> = {};
  for (const [name, named] of Object.entries(model.schemas)) defs[name] = toAjvSchema(named.schema);
  const start = performance.now();
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, ownProperties: true });
  addFormats(ajv);
  const validate = ajv.compile({ $defs: defs, $ref: `#/$defs/${root}` });
  return { validate, compileMs: performance.now() - start };
}

interface Case {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly decode: (bytes: Uint8Array) => { ok: boolean };
  readonly model: ContractModel;
  readonly root: string;
}

function measure(c: Case): void {
  const { validate, compileMs } = runtimeAjv(c.model, c.root);
  const variants: [string, () => unknown][] = [
    ['bare', () => JSON.parse(decoder.decode(c.bytes))],
    [
      'ajv',
      () => {
        const value = JSON.parse(decoder.decode(c.bytes));
        if (!validate(value)) throw new Error('invalid');
        return value;
      },
    ],
    ['keiyaku', () => c.decode(c.bytes)],
  ];
  if (!c.decode(c.bytes).ok || !validate(JSON.parse(decoder.decode(c.bytes)))) throw new Error(`${c.name}: benchmark payload is not valid`);
  for (const [, fn] of variants) for (let i = 0; i < 20_000; i++) fn();
  const ops: Record<string, number[]> = { bare: [], ajv: [], keiyaku: [] };
  const vsBare: number[] = [];
  const vsAjv: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const now: Record<string, number> = {};
    for (const [name, fn] of r % 2 === 0 ? variants : [...variants].reverse()) now[name] = round(fn);
    for (const name of Object.keys(ops)) ops[name]!.push(now[name]!);
    vsBare.push(now['keiyaku']! / now['bare']!);
    vsAjv.push(now['keiyaku']! / now['ajv']!);
  }
  const k = (name: string): string => `${(median(ops[name]!) / 1000).toFixed(0)}k ops/s`;
  out(`payload: ${c.name}, ${c.bytes.byteLength} bytes; ${ROUNDS} interleaved rounds of ${ROUND_MS} ms, medians`);
  out(`  bare JSON.parse (no validation)         : ${k('bare')}`);
  out(`  ajv compiled at run time, parse+validate: ${k('ajv')}  (compiling the schema at start-up: ${compileMs.toFixed(1)} ms)`);
  out(`  keiyaku generated decode (+ tag, freeze): ${k('keiyaku')}  (compiling at start-up: 0 ms)`);
  const bare = median(vsBare).toFixed(2);
  const ajv = median(vsAjv).toFixed(2);
  out(`  ratio generated/bare JSON.parse: ${bare}x   (goal >= 0.6x: ${verdict(bare, 0.6)})`);
  out(`  ratio generated/runtime ajv    : ${ajv}x   (goal >= 1.2x: ${verdict(ajv, 1.2)})`);
}

/** Validators of a contract as `generate` writes them, evaluated in this process. */
async function validatorsOf(model: ContractModel): Promise<Record<string, StandaloneValidator>> {
  const { files } = await generate(model, { source: model.source });
  const code = files.find((f) => f.path === 'validators.ts')!.content;
  const body = code
    .replace(/^import \{ validatorRuntime \} from "(?:@keiyaku\/runtime|keiyaku)\/codegen-v1";$/m, '')
    .replace(/^export const /gm, 'exports.');
  const exports: Record<string, StandaloneValidator> = {};
  new Function('validatorRuntime', 'exports', body)(validatorRuntime, exports);
  return exports;
}

const repoModel = (await compileContract('asyncapi.yaml')).model!;
const borrowed = {
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-0042',
  borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
  renewals: 1,
  note: 'Handle with care',
};

const dir = mkdtempSync(join(tmpdir(), 'keiyaku-codec-bench-'));
try {
  writeFileSync(
    join(dir, 'asyncapi.json'),
    JSON.stringify({
      asyncapi: '3.0.0',
      info: { title: 'Orders', version: '1.0.0' },
      channels: { orders: { address: 'orders', messages: { OrderPlaced: { $ref: '#/components/messages/OrderPlaced' } } } },
      components: {
        messages: {
          OrderPlaced: {
            name: 'OrderPlaced',
            payload: {
              type: 'object',
              required: ['orderId', 'placedAt', 'customer', 'lines'],
              properties: {
                orderId: { type: 'string', format: 'uuid' },
                placedAt: { type: 'string', format: 'date-time' },
                customer: {
                  type: 'object',
                  required: ['customerId', 'email'],
                  properties: { customerId: { type: 'string', format: 'uuid' }, email: { type: 'string', format: 'email' } },
                },
                lines: {
                  type: 'array',
                  minItems: 1,
                  items: {
                    type: 'object',
                    required: ['sku', 'quantity', 'price'],
                    properties: {
                      sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
                      quantity: { type: 'integer', minimum: 1 },
                      price: {
                        type: 'object',
                        required: ['amount', 'currency'],
                        properties: { amount: { type: 'integer' }, currency: { type: 'string', enum: ['EUR', 'USD', 'JPY'] } },
                      },
                      tags: { type: 'array', items: { type: 'string' } },
                    },
                  },
                },
                deliverBy: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    }),
  );
  const orderModel = (await compileContract('asyncapi.json', { cwd: dir })).model!;
  const orderRoot = orderModel.messages['OrderPlaced']!.payload;
  const Order = defineMessage({
    type: 'OrderPlaced',
    id: 'OrderPlaced',
    contentType: 'application/json',
    schemaHash: '',
    validate: (await validatorsOf(orderModel))[`validate${orderRoot}`]!,
  });
  const order = {
    orderId: '0b6f1c2e-8a3d-4e5f-9a0b-1c2d3e4f5a6b',
    placedAt: '2026-11-02T10:15:00.123+01:00',
    customer: { customerId: '7d1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6c', email: 'ada.lovelace@example.org' },
    lines: [
      { sku: 'ABC-0001', quantity: 2, price: { amount: 1999, currency: 'EUR' }, tags: ['gift', 'fragile'] },
      { sku: 'XYZ-0420', quantity: 1, price: { amount: 500, currency: 'EUR' }, tags: [] },
      { sku: 'QRS-1234', quantity: 5, price: { amount: 75, currency: 'EUR' } },
    ],
    deliverBy: '2026-11-05T18:00:00Z',
  };
  measure({
    name: 'BookBorrowed (this repository)',
    bytes: new TextEncoder().encode(JSON.stringify(borrowed)),
    decode: (b) => BookBorrowed.decode(b),
    model: repoModel,
    root: 'BookBorrowedPayload',
  });
  measure({
    name: 'OrderPlaced (nested arrays; date-time, uuid, email)',
    bytes: new TextEncoder().encode(JSON.stringify(order)),
    decode: (b) => Order.decode(b),
    model: orderModel,
    root: orderRoot,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
