/** Helpers the benchmark scripts share. */

/** `met` when `value` (as printed, so the verdict agrees with the figure shown) reaches `goal` (at least, or with `atMost` at most), else `NOT MET`. */
export function verdict(value: number | string, goal: number, atMost = false): string {
  const shown = Number(value);
  return (atMost ? shown <= goal : shown >= goal) ? 'met' : 'NOT MET';
}

/** The middle value of `values` (the upper one of the two middle values when their count is even). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Interleaved rounds the micro-benchmarks run (`BENCH_ROUNDS`), each about `BENCH_ROUND_MS` long. */
export const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 15);
export const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 100);

/** Operations per second of `fn` over about {@link ROUND_MS}. */
export function round(fn: () => unknown): number {
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
