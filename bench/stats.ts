/** Helpers the benchmark scripts share. */

/** The middle value of `values` (the upper one of the two middle values when their count is even). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
