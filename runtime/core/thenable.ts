/** True for a thenable: an answer that comes later (a promise), rather than a value now. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
