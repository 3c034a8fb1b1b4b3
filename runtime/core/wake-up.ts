/** A wake-up callback registered in a set of waiters; whoever holds the set calls it to wake the waiter. */
export type Waiter = () => void;

/**
 * Resolves when woken through `waiters`, when `timeoutMs` has passed, or when `signal`
 * aborts (at once if it already has), whichever comes first. Never rejects; the waiter
 * removes itself from `waiters` when it resolves.
 */
export function waitForWake(
  waiters: Set<Waiter>,
  options: { readonly timeoutMs?: number | undefined; readonly signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const { timeoutMs, signal } = options;
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done: Waiter = () => {
      clearTimeout(timer);
      waiters.delete(done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
    waiters.add(done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
