/**
 * One generator in a process of its own, for bench/generate.bench.ts: keiyaku (`generate` from
 * the build in generator/dist/ when present, else the sources through tsx) or Modelina's
 * TypeScript generator, so that neither tool's heap, nor its garbage, is the other's. Reads the
 * AsyncAPI document at argv[3] once, then runs one generation per `run` line on stdin and prints
 * one line of JSON for each: `{"ms":…,"cpu":…,"count":…}` (keiyaku adds its output's sizes): `ms`
 * the wall-clock time of the generation, `cpu` the CPU time the process spent in it (user and
 * system, every thread: the collector's helpers included), which another process's load on the
 * machine changes far less than the wall clock.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const [tool, file] = [process.argv[2], process.argv[3]!];
const root = join(import.meta.dirname, '..');
const built = existsSync(join(root, 'generator', 'dist', 'index.js'));

type Round = () => Promise<Record<string, number>>;
let round: Round;
if (tool === 'keiyaku') {
  const { generateFromFile } = (built ? await import('../generator/dist/index.js') : await import('../generator/index.js')) as Pick<
    typeof import('../generator/index.js'),
    'generateFromFile'
  >;
  const { prettierFileCount } = (
    built ? await import('../generator/dist/emit/format.js') : await import('../generator/emit/format.js')
  ) as Pick<typeof import('../generator/emit/format.js'), 'prettierFileCount'>;
  round = async () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = await generateFromFile(basename(file), { cwd: dirname(file) });
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (result.files.length === 0) throw new Error(`keiyaku generated nothing: ${JSON.stringify(result.diagnostics.slice(0, 3))}`);
    return {
      ms,
      cpu: (used.user + used.system) / 1000,
      count: result.files.length,
      bytes: result.files.reduce((n, f) => n + f.content.length, 0),
      validatorBytes: result.files.find((f) => f.path === 'validators.ts')!.content.length,
      prettier: prettierFileCount(),
      built: built ? 1 : 0,
    };
  };
} else if (tool === 'modelina') {
  const { TypeScriptGenerator } = await import('@asyncapi/modelina');
  const document = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  round = async () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const generator = new TypeScriptGenerator({ modelType: 'interface' });
    const generated = await generator.generate(structuredClone(document));
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { ms, cpu: (used.user + used.system) / 1000, count: generated.length };
  };
} else throw new Error('usage: generate-rounds.ts keiyaku|modelina <asyncapi.json>');

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'run') process.stdout.write(`${JSON.stringify(await round())}\n`);
}
