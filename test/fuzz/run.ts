// `npm run fuzz`: 1,000,000 inputs (FUZZ_INPUTS, FUZZ_SEED) over every decoder that reads bytes
// from the network or a store; exits non-zero on any crash, hang, allocation or pollution finding.
import { fuzz } from './harness.js';

const inputs = Number(process.env['FUZZ_INPUTS'] ?? 1_000_000);
const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 1_000_000);
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
out(`fuzz: ${inputs.toLocaleString('en')} inputs, seed ${seed} (replay with FUZZ_SEED=${seed})`);
const started = performance.now();
const report = fuzz({
  inputs,
  seed,
  progress: (target, n, ms) => out(`  ${target}: ${n.toLocaleString('en')} (${(ms / 1000).toFixed(1)} s)`),
});
for (const finding of report.findings)
  out(`  ${finding.kind} in ${finding.target}: ${finding.detail}\n    input ${finding.input.slice(0, 400)}`);
out(`time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
out(`fuzz: ${report.inputs} inputs, ${report.crashes} crashes, ${report.hangs} hangs`);
process.exitCode = report.crashes + report.hangs === 0 ? 0 : 1;
