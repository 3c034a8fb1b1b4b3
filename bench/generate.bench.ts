/**
 * How long the commands take, side by side in one run:
 * 1. Whole processes (`node generator/bin/keiyaku.js …`, from dist/: run `npm run build` first) against
 *    a bare `node -e 0` start: --version, --help, `generate --check` and `validate` of this
 *    repository's contract, `check` of two small contracts, and `--watch` from a save to the
 *    regenerated file on disk.
 * 2. `generate` on a synthetic contract of 500 channels × 4 messages (the built code in
 *    generator/dist/ when present, as users run it; else the sources through tsx) against
 *    @asyncapi/modelina's TypeScript generator on the same document, each tool in a process of
 *    its own (bench/generate-rounds.ts), the rounds alternating after `BENCH_WARMUP` (1) warm-up
 *    rounds of each that are printed but not counted. Each round's ratio (Modelina's time over
 *    keiyaku's) is printed, in wall-clock time and in CPU time (which the load of other processes
 *    on the machine changes far less), and the goals are judged on the worst round: the minimum
 *    ratio (>= 12x) and keiyaku's maximum time (<= 1 s). Then the size of the validators per
 *    message, and the same for a variant with shared component schemas.
 * 3. `check` of the 500-channel pair against one load (bench/check.bench.ts).
 * Last, every goal of the run with its figure, its ratio and whether it is met.
 * `BENCH_ONLY=synthetic` runs part 2 alone.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPair, processMs } from './check.bench.js';
import { median, verdict } from './stats.js';
import { sharedSyntheticContract, syntheticContract } from './synthetic.js';

const CHANNELS = Number(process.env['BENCH_CHANNELS'] ?? 500);
const MESSAGES = 4;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const PROCESS_ROUNDS = Number(process.env['BENCH_PROCESS_ROUNDS'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 1);
const ONLY = process.env['BENCH_ONLY'];
/** The row's goals: keiyaku at least this many times faster than Modelina in every round, and no round over the limit. */
const RATIO_GOAL = 12;
const LIMIT_MS = 1000;
const root = join(import.meta.dirname, '..');
const bin = join(root, 'generator', 'bin', 'keiyaku.js');

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

interface Goal {
  readonly name: string;
  readonly measured: string;
  readonly ratio: string;
  readonly goal: string;
  readonly met: boolean;
}
const goals: Goal[] = [];

/** From a save of the contract (a channel's description) to the regenerated channel file on disk, under `generate --watch`. */
async function watchLatency(dir: string, saves: number): Promise<number[]> {
  const child = spawn(process.execPath, [bin, 'generate', '--watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const until = async (ready: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (!ready()) {
      if (Date.now() > deadline) throw new Error(`watch: timed out waiting for ${what}; output: ${output}`);
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  const latencies: number[] = [];
  try {
    await until(() => output.includes('watching'), 'the first run');
    const spec = join(dir, 'asyncapi.yaml');
    const channelFile = join(dir, 'generated', 'channels', 'book-integration-events.ts');
    const original = readFileSync(spec, 'utf8');
    for (let i = 0; i < saves; i++) {
      const marker = `Save number ${i} of the benchmark.`;
      const seen = output.length;
      const start = performance.now();
      writeFileSync(spec, original.replace("Every change to a book's lending state", marker));
      await until(() => {
        try {
          return readFileSync(channelFile, 'utf8').includes(marker);
        } catch {
          return false;
        }
      }, `save ${i}`);
      latencies.push(performance.now() - start);
      await until(() => output.slice(seen).includes('watching'), `the watchers of save ${i}`);
    }
  } finally {
    child.kill('SIGINT');
  }
  return latencies;
}

async function processes(): Promise<void> {
  if (!existsSync(join(root, 'generator', 'dist', 'cli', 'run.js'))) {
    out('whole processes: skipped (generator/dist/ is missing; run `npm run build`)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-process-bench-'));
  try {
    // Two small contracts: a fixture and a copy with one compatible change.
    const fixture = join(root, 'test', 'fixtures', 'unions', 'asyncapi.yaml');
    writeFileSync(join(dir, 'before.yaml'), readFileSync(fixture, 'utf8'));
    writeFileSync(join(dir, 'after.yaml'), readFileSync(fixture, 'utf8').replace('version: 2.0.0', 'version: 2.1.0'));
    const runs: [string, string[], string, number][] = [
      ['node -e 0 (baseline)', ['-e', '0'], root, 0],
      ['keiyaku --version', [bin, '--version'], root, 0],
      ['keiyaku --help', [bin, '--help'], root, 0],
      ['keiyaku validate (repository)', [bin, 'validate', '--quiet'], root, 0],
      ['keiyaku generate --check (repository)', [bin, 'generate', '--check', '--quiet'], root, 0],
      ['keiyaku check (two small contracts)', [bin, 'check', '--spec', 'after.yaml', '--against', 'before.yaml', '--quiet'], dir, 0],
    ];
    const times = new Map<string, number[]>(runs.map(([name]) => [name, []]));
    for (let r = 0; r < PROCESS_ROUNDS; r++)
      for (const [name, args, cwd, code] of runs) times.get(name)!.push(processMs(args, cwd, [code]));
    const baseline = median(times.get('node -e 0 (baseline)')!);
    out(`whole processes: median of ${PROCESS_ROUNDS} runs each, interleaved`);
    const limits: Record<string, number> = {
      'keiyaku --version': 150,
      'keiyaku --help': 150,
      'keiyaku generate --check (repository)': 500,
      'keiyaku check (two small contracts)': 500,
    };
    for (const [name, values] of times) {
      const ms = median(values);
      const limit = limits[name];
      const goal = limit !== undefined ? `  (goal <= ${limit} ms)` : '';
      out(`  ${name.padEnd(40)}: ${ms.toFixed(0).padStart(5)} ms = ${(ms / baseline).toFixed(2)}x node -e 0${goal}`);
      if (limit !== undefined)
        goals.push({
          name,
          measured: `${ms.toFixed(0)} ms`,
          ratio: `${(ms / baseline).toFixed(2)}x node -e 0 (${baseline.toFixed(0)} ms)`,
          goal: `<= ${limit} ms`,
          met: ms <= limit,
        });
    }
    const project = join(dir, 'watch');
    cpSync(join(root, 'asyncapi.yaml'), join(project, 'asyncapi.yaml'));
    cpSync(join(root, 'schemas'), join(project, 'schemas'), { recursive: true });
    const latencies = await watchLatency(project, PROCESS_ROUNDS);
    goals.push({
      name: 'keiyaku generate --watch, save → files',
      measured: `${median(latencies).toFixed(0)} ms median`,
      ratio: `${(median(latencies) / baseline).toFixed(2)}x node -e 0`,
      goal: '<= 300 ms',
      met: median(latencies) <= 300,
    });
    out(
      `  keiyaku generate --watch, save → files  : ${median(latencies).toFixed(0).padStart(5)} ms median of ${latencies.length} saves (goal <= 300 ms; max ${Math.max(...latencies).toFixed(0)} ms)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A generator process (bench/generate-rounds.ts) for `tool` on `file`: each round() is one generation, timed inside it. */
async function roundsProcess(
  tool: 'keiyaku' | 'modelina',
  file: string,
): Promise<{ round(): Promise<Record<string, number>>; close(): void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=keiyaku-source', join(root, 'bench', 'generate-rounds.ts'), tool, file],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    wake?.();
  });
  const next = async (): Promise<string> => {
    while (lines.length === 0) {
      if (child.exitCode !== null) throw new Error(`the ${tool} process exited with ${child.exitCode}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 1_000);
      });
    }
    return lines.shift()!;
  };
  if ((await next()) !== 'ready') throw new Error(`the ${tool} process did not start`);
  return {
    async round() {
      child.stdin.write('run\n');
      return JSON.parse(await next()) as Record<string, number>;
    },
    close: () => child.kill(),
  };
}

async function synthetic(name: string, document: Record<string, unknown>, compare: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-bench-'));
  try {
    writeFileSync(join(dir, 'asyncapi.json'), JSON.stringify(document));
    let files = 0;
    let bytes = 0;
    let validatorBytes = 0;
    let prettierFiles = 0;
    let fromBuild = false;
    const keiyakuTimes: { ms: number; cpu: number }[] = [];
    const modelinaTimes: { ms: number; cpu: number }[] = [];
    const warmups: string[] = [];
    let models = 0;
    // Each tool in a process of its own (bench/generate-rounds.ts), one round per request: the
    // rounds alternate, and neither tool collects the other's garbage.
    const file = join(dir, 'asyncapi.json');
    const keiyaku = await roundsProcess('keiyaku', file);
    const modelina = compare ? await roundsProcess('modelina', file) : undefined;
    try {
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        const k = await keiyaku.round();
        files = k['count']!;
        bytes = k['bytes']!;
        validatorBytes = k['validatorBytes']!;
        prettierFiles = k['prettier']!;
        fromBuild = k['built'] === 1;
        const m = modelina ? await modelina.round() : undefined;
        if (m) models = m['count']!;
        if (round < WARMUP) {
          warmups.push(`${k['ms']!.toFixed(0)} ms${m ? ` vs ${m['ms']!.toFixed(0)} ms = ${(m['ms']! / k['ms']!).toFixed(1)}x` : ''}`);
          continue;
        }
        keiyakuTimes.push({ ms: k['ms']!, cpu: k['cpu']! });
        if (m) modelinaTimes.push({ ms: m['ms']!, cpu: m['cpu']! });
      }
    } finally {
      keiyaku.close();
      modelina?.close();
    }
    const messages = CHANNELS * MESSAGES;
    const wall = keiyakuTimes.map((t) => t.ms);
    const cpu = keiyakuTimes.map((t) => t.cpu);
    const list = (values: readonly number[], unit = ' ms'): string =>
      values.map((v) => `${v.toFixed(unit === 'x' ? 1 : 0)}${unit}`).join(', ');
    out(
      `${name}: ${CHANNELS} channels x ${MESSAGES} messages (${JSON.stringify(document).length} bytes of JSON); ${ROUNDS} rounds after ${WARMUP} warm-up round(s); each tool in a process of its own; keiyaku from the ${fromBuild ? 'built code, generator/dist' : 'TypeScript sources through tsx (run `npm run build` to measure the built code)'}`,
    );
    if (warmups.length > 0) out(`  warm-up (not counted): keiyaku ${warmups.join('; ')}`);
    out(
      `  keiyaku generate : median ${median(wall).toFixed(0)} ms, max ${Math.max(...wall).toFixed(0)} ms  (${files} files, ${(bytes / 1024).toFixed(0)} KiB: types, validators, messages, channels, manifest; formatted, ${prettierFiles} of them by prettier)`,
    );
    out(`    rounds: wall ${list(wall)}; CPU ${list(cpu)}`);
    out(
      `  validators.ts    : ${(validatorBytes / 1024).toFixed(0)} KiB = ${(validatorBytes / messages / 1024).toFixed(2)} KiB per message (goal <= 2 KiB)`,
    );
    const perMessage = validatorBytes / messages / 1024;
    goals.push({
      name: `validators per message, ${name}`,
      measured: `${perMessage.toFixed(2)} KiB`,
      ratio: '',
      goal: '<= 2 KiB',
      met: perMessage <= 2,
    });
    const maxWall = Math.max(...wall);
    const maxCpu = Math.max(...cpu);
    if (compare) {
      const mWall = modelinaTimes.map((t) => t.ms);
      const mCpu = modelinaTimes.map((t) => t.cpu);
      out(`  modelina (TS)    : median ${median(mWall).toFixed(0)} ms  (${models} models: interfaces only, no validators)`);
      out(`    rounds: wall ${list(mWall)}; CPU ${list(mCpu)}`);
      const wallRatios = mWall.map((m, i) => m / wall[i]!);
      const cpuRatios = mCpu.map((m, i) => m / cpu[i]!);
      const minWall = Math.min(...wallRatios);
      const minCpu = Math.min(...cpuRatios);
      out(
        `  Modelina / keiyaku, wall clock: ${list(wallRatios, 'x')}; min ${minWall.toFixed(1)}x: ${verdict(minWall.toFixed(1), RATIO_GOAL)} (goal >= ${RATIO_GOAL}x in every round)`,
      );
      out(
        `  Modelina / keiyaku, CPU time  : ${list(cpuRatios, 'x')}; min ${minCpu.toFixed(1)}x: ${verdict(minCpu.toFixed(1), RATIO_GOAL)} (goal >= ${RATIO_GOAL}x in every round)`,
      );
      for (const [clock, min, median_] of [
        ['wall clock', minWall, median(wallRatios)],
        ['CPU time', minCpu, median(cpuRatios)],
      ] as const)
        goals.push({
          name: `generate ${CHANNELS} x ${MESSAGES} vs Modelina, every round (${clock})`,
          measured: `min ${min.toFixed(1)}x`,
          ratio: `median ${median_.toFixed(1)}x over ${ROUNDS} rounds`,
          goal: `>= ${RATIO_GOAL}x in every round`,
          met: verdict(min.toFixed(1), RATIO_GOAL) === 'met',
        });
    }
    out(
      `  keiyaku, slowest round: ${maxWall.toFixed(0)} ms wall clock: ${verdict(maxWall.toFixed(0), LIMIT_MS, true)}; ${maxCpu.toFixed(0)} ms CPU: ${verdict(maxCpu.toFixed(0), LIMIT_MS, true)} (goal <= ${LIMIT_MS} ms, judged on the maximum)`,
    );
    if (compare)
      for (const [clock, max, values] of [
        ['wall clock', maxWall, wall],
        ['CPU time', maxCpu, cpu],
      ] as const)
        goals.push({
          name: `generate ${CHANNELS} x ${MESSAGES}, slowest round (${clock})`,
          measured: `${max.toFixed(0)} ms`,
          ratio: `median ${median(values).toFixed(0)} ms`,
          goal: `<= ${LIMIT_MS} ms`,
          met: verdict(max.toFixed(0), LIMIT_MS, true) === 'met',
        });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY === undefined) await processes();
await synthetic('synthetic contract', syntheticContract(CHANNELS, MESSAGES), true);
if (ONLY === undefined) {
  await synthetic('synthetic contract with shared component schemas', sharedSyntheticContract(CHANNELS, MESSAGES), false);
  const pair = await checkPair(out);
  goals.push({
    name: 'check of the 500-channel pair',
    measured: `${pair.total.toFixed(0)} ms`,
    ratio: `${(pair.total / pair.load).toFixed(2)}x one load (${pair.load.toFixed(0)} ms)`,
    goal: '<= 2x one load',
    met: pair.total / pair.load <= 2,
  });
}

out('');
out('goals of this run:');
for (const g of goals)
  out(`  ${g.met ? 'met    ' : 'NOT MET'}  ${g.name.padEnd(52)} ${g.measured.padStart(12)}  ${g.ratio}  (goal ${g.goal})`);
