/**
 * `keiyaku check` on a 500-channel contract against a variant with 50 scattered changes, as
 * whole processes of the built CLI (`npm run build` first): `check after.json --against
 * before.json` (two loads and the comparison) against
 * `check after.json` with no baseline (one load, the same command otherwise); goal: ≤ 2× one
 * load. Also the same in process: two loads and the comparison against the first load. bench/generate.bench.ts runs
 * it too, in its goal summary.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { acknowledge, compareContracts } from '../generator/compat/contract-diff.js';
import { compileContract } from '../generator/index.js';
import { syntheticContract } from './synthetic.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const bin = join(import.meta.dirname, '..', 'generator', 'bin', 'keiyaku.js');

/** Wall time of a whole `node args` process, in ms; fails when it exits with a code not in `codes`. */
export function processMs(args: string[], cwd: string, codes: readonly number[] = [0]): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const elapsed = performance.now() - start;
  if (!codes.includes(result.status ?? -1)) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

/** Median wall time of `keiyaku args` as a whole process, in ms; exit code 1 (breaking changes found) is expected too. */
function cliMs(args: string[], cwd: string): number {
  const times = Array.from({ length: ROUNDS }, () => processMs([bin, ...args], cwd, [0, 1]));
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export interface CheckPairResult {
  /** `keiyaku check` with one load (no baseline), whole process, ms. */
  readonly load: number;
  /** `keiyaku check --against`: both loads and the comparison, whole process, ms. */
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
    // In process: the first load (its modules included), the second, and the comparison.
    const t0 = performance.now();
    const loadedBefore = await compileContract('before.json', { cwd: dir });
    const t1 = performance.now();
    const loadedAfter = await compileContract('after.json', { cwd: dir });
    const t2 = performance.now();
    const result = acknowledge(
      compareContracts(loadedBefore.model!, loadedAfter.model!, { mode: 'full', policy: 'lenient' }),
      loadedAfter.model!,
    );
    const compare = performance.now() - t2;
    // Whole processes, as a user runs them.
    // One load through the same command: a transitive mode with an empty history compares with nothing.
    const load = cliMs(['check', '--spec', 'after.json', '--mode', 'full-transitive', '--history', 'none.json', '--quiet'], dir);
    const total = cliMs(['check', '--spec', 'after.json', '--against', 'before.json', '--mode', 'full', '--quiet'], dir);
    out(
      `check of a 500 channels x 4 messages contract against a variant with 50 scattered changes (mode full); whole processes, median of ${ROUNDS}`,
    );
    out(`  keiyaku check after.json, empty history (one load)     : ${load.toFixed(0)} ms`);
    out(
      `  keiyaku check after.json --against before.json         : ${total.toFixed(0)} ms = ${(total / load).toFixed(2)}x one load (goal <= 2x)`,
    );
    out(
      `  in process: loads ${(t1 - t0).toFixed(0)} ms (modules included) and ${(t2 - t1).toFixed(0)} ms, comparison ${compare.toFixed(0)} ms (${result.breaking} breaking, ${result.compatible} compatible findings): ${((t2 - t0 + compare) / (t1 - t0)).toFixed(2)}x the first load`,
    );
    return { load, total };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await checkPair((line) => {
    process.stdout.write(`${line}\n`);
  });
}
