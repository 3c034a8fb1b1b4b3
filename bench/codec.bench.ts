/**
 * Decode + validate throughput of a generated codec (ajv standalone code compiled at
 * generate time) against two baselines in the same process: bare `JSON.parse` (no
 * validation) and ajv compiling the same schema at run time. Also the start-up cost a
 * service pays to compile its schemas with runtime ajv, which generated code avoids.
 */
import { createRequire } from 'node:module';
import { BookBorrowed } from '../generated/index.js';
import { toAjvSchema } from '../generator/emit/validators.js';
import { compileContract } from '../generator/index.js';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }).default;
const addFormats = require('ajv-formats') as (ajv: unknown) => void;

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const DURATION_MS = Number(process.env['BENCH_MS'] ?? 1500);

const payload = {
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-0042',
  borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
  renewals: 1,
  note: 'Handle with care',
};
const bytes = new TextEncoder().encode(JSON.stringify(payload));
const decoder = new TextDecoder();

/** Runs `fn` for about DURATION_MS after a warm-up and returns operations per second. */
function opsPerSecond(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn();
  let count = 0;
  const start = performance.now();
  let now = start;
  while (now - start < DURATION_MS) {
    for (let i = 0; i < 1000; i++) fn();
    count += 1000;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}

// The same schema as the generated validator, compiled by ajv at run time.
const model = (await compileContract('asyncapi.yaml')).model!;
const defs: Record<string, unknown> = {};
for (const [name, named] of Object.entries(model.schemas)) defs[name] = toAjvSchema(named.schema);
const compileStart = performance.now();
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, ownProperties: true });
addFormats(ajv);
const runtimeValidate = ajv.compile({ $defs: defs, $ref: '#/$defs/BookBorrowedPayload' });
const compileMs = performance.now() - compileStart;

if (!BookBorrowed.decode(bytes).ok || !runtimeValidate(JSON.parse(decoder.decode(bytes))))
  throw new Error('benchmark payload is not valid');

const bare = opsPerSecond(() => JSON.parse(decoder.decode(bytes)));
const generated = opsPerSecond(() => BookBorrowed.decode(bytes));
const runtime = opsPerSecond(() => {
  const value = JSON.parse(decoder.decode(bytes));
  if (!runtimeValidate(value)) throw new Error('invalid');
  return value;
});

const k = (n: number): string => `${(n / 1000).toFixed(0)}k ops/s`;
out(`payload: BookBorrowed, ${bytes.byteLength} bytes; ${DURATION_MS} ms per measurement`);
out(`bare JSON.parse (no validation)        : ${k(bare)}`);
out(`ajv compiled at run time, parse+valid. : ${k(runtime)}  (compiling the schema at start-up: ${compileMs.toFixed(1)} ms)`);
out(`keiyaku generated decode (+ tag, freeze): ${k(generated)}  (compiling at start-up: 0 ms)`);
out(`ratio generated/bare JSON.parse: ${(generated / bare).toFixed(2)}x`);
out(`ratio generated/runtime ajv    : ${(generated / runtime).toFixed(2)}x`);
