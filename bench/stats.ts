/** Helpers the benchmark scripts share. */

/** The middle value of `values` (the upper one of the two middle values when their count is even). */
/** `met` when `value` (as printed, so the verdict agrees with the figure shown) reaches `goal` (at least, or with `atMost` at most), else `NOT MET`. */
export function verdict(value: number | string, goal: number, atMost = false): string {
  const shown = Number(value);
  return (atMost ? shown <= goal : shown >= goal) ? 'met' : 'NOT MET';
}

export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
