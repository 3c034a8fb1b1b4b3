/**
 * `keiyaku check` on a 500-channel contract against a variant with 50 scattered changes:
 * the time of the comparison, and the ratio against loading the contract alone (goal: the
 * check end to end ≤ 2× one load). bench/generate.bench.ts runs it too, in its goal summary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { acknowledge, compareContracts } from '../generator/compat/contract-diff.js';
import { compileContract } from '../generator/index.js';
import { syntheticContract } from './synthetic.js';

export interface CheckPairResult {
  /** Loading the first contract (modules included), ms. */
  readonly load: number;
  /** Both loads and the comparison, ms. */
  readonly total: number;
}

export async function checkPair(out: (line: string) => void): Promise<CheckPairResult> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-check-bench-'));
  try {
    const before = syntheticContract(500, 4);
    const after = structuredClone(before) as {
      components: { messages: Record<string, { payload: { properties: Record<string, Record<string, unknown>>; required: string[] } }> };
    };
    const names = Object.keys(after.components.messages);
    for (let i = 0; i < 50; i++) {
      const message = after.components.messages[names[(i * 37) % names.length]!]!;
      if (i % 3 === 0) message.payload.properties['status']!['enum'] = ['new', 'active'];
      else if (i % 3 === 1) message.payload.properties['extra'] = { type: 'string' };
      else message.payload.required = [...message.payload.required, 'note'];
    }
    writeFileSync(join(dir, 'before.json'), JSON.stringify(before));
    writeFileSync(join(dir, 'after.json'), JSON.stringify(after));
    // As the issue measured it: the first load (including loading the modules), the second load, the comparison.
    const t0 = performance.now();
    const loadedBefore = await compileContract('before.json', { cwd: dir });
    const t1 = performance.now();
    const loadedAfter = await compileContract('after.json', { cwd: dir });
    const t2 = performance.now();
    const result = acknowledge(
      compareContracts(loadedBefore.model!, loadedAfter.model!, { mode: 'full', policy: 'lenient' }),
      loadedAfter.model!,
    );
    const t3 = performance.now();
    const load = t1 - t0;
    const compare = t3 - t2;
    out(`check of a 500 channels x 4 messages contract against a variant with 50 scattered changes (mode full, policy lenient)`);
    out(`  loading one contract    : ${load.toFixed(0)} ms (the second: ${(t2 - t1).toFixed(0)} ms)`);
    out(`  comparing the two models: ${compare.toFixed(0)} ms (${result.breaking} breaking, ${result.compatible} compatible findings)`);
    out(
      `  check end to end (two loads + compare): ${(t3 - t0).toFixed(0)} ms = ${((t3 - t0) / load).toFixed(2)}x loading alone (goal <= 2x); the comparison itself is ${((compare / load) * 100).toFixed(1)} % of one load`,
    );
    return { load, total: t3 - t0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await checkPair((line) => {
    process.stdout.write(`${line}\n`);
  });
}
