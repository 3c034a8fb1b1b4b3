/**
 * `keiyaku generate` on a synthetic contract of 500 channels × 4 messages, against
 * @asyncapi/modelina's TypeScript generator on the same document in the same process.
 * keiyaku's figure includes everything `generate` does: parse + validate the document,
 * build the model, emit types, channels, messages, ajv standalone validators, and format.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypeScriptGenerator } from '@asyncapi/modelina';
import { generateFromFile } from '../generator/index.js';
import { syntheticContract } from './synthetic.js';

const CHANNELS = Number(process.env['BENCH_CHANNELS'] ?? 500);
const MESSAGES = 4;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const dir = mkdtempSync(join(tmpdir(), 'keiyaku-bench-'));
const document = syntheticContract(CHANNELS, MESSAGES);
writeFileSync(join(dir, 'asyncapi.json'), JSON.stringify(document));

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

try {
  out(
    `contract: ${CHANNELS} channels x ${MESSAGES} messages (${JSON.stringify(document).length} bytes of JSON); ${ROUNDS} rounds each, median`,
  );
  let files = 0;
  let bytes = 0;
  const keiyakuTimes: number[] = [];
  const modelinaTimes: number[] = [];
  let models = 0;
  for (let round = 0; round < ROUNDS; round++) {
    keiyakuTimes.push(
      await time(async () => {
        const result = await generateFromFile('asyncapi.json', { cwd: dir });
        if (result.files.length === 0) throw new Error(`keiyaku generated nothing: ${JSON.stringify(result.diagnostics.slice(0, 3))}`);
        files = result.files.length;
        bytes = result.files.reduce((n, f) => n + f.content.length, 0);
      }),
    );
    modelinaTimes.push(
      await time(async () => {
        const generator = new TypeScriptGenerator({ modelType: 'interface' });
        const generated = await generator.generate(structuredClone(document));
        models = generated.length;
      }),
    );
  }
  const k = median(keiyakuTimes);
  const m = median(modelinaTimes);
  out(
    `keiyaku generate : ${k.toFixed(0)} ms  (${files} files, ${(bytes / 1024).toFixed(0)} KiB: types, validators, messages, channels, manifest; formatted)`,
  );
  out(`modelina (TS)    : ${m.toFixed(0)} ms  (${models} models: interfaces only, no validators)`);
  out(`ratio keiyaku/modelina: ${(k / m).toFixed(2)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
