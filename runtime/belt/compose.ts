/**
 * The composer of the belt: a record goes through a chain of steps, each of which does its part
 * and hands the record on with `next` (or does not: routing skips, a policy retries). It is the
 * shape of router middleware (Watermill) or hono's `compose`, with one property the belt needs:
 * nothing in it awaits. A step returns a value or a promise; when every step a record passes
 * returns a value, the chain returns a value, and the lane takes the next record without a
 * promise. That is the belt's fast path: a property of the chain, not a second copy of it.
 */

import { isThenable } from '../core/thenable.js';

/** What a step yields: its result now, or a promise of it. */
export type Outcome<R> = R | Promise<R>;

/** The rest of the chain after a step. */
export type Next<T, C, R> = (item: T, ctx: C) => Outcome<R>;

/** One step: does its part for `item` and calls `next` to go on (or answers itself). */
export type Step<T, C, R> = (item: T, ctx: C, next: Next<T, C, R>) => Outcome<R>;

/**
 * Whether `value` is a promise (a thenable) rather than a result. The results of the fast path
 * (`true`, `false`, a synchronous handler's `undefined`) are told apart by their type alone,
 * without looking up `then` on them.
 */
export function isPromise<R>(value: Outcome<R> | undefined): value is Promise<R> {
  return (typeof value === 'object' || typeof value === 'function') && isThenable(value);
}

/**
 * Folds `steps` around `end`, the first step outermost. An `undefined` step is an empty slot
 * (a policy this belt does not use) and costs nothing. The chain is built once: calling it
 * allocates nothing of its own.
 */
export function compose<T, C, R>(steps: readonly (Step<T, C, R> | undefined)[], end: Next<T, C, R>): Next<T, C, R> {
  let chain = end;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    if (step === undefined) continue;
    const next = chain;
    chain = (item, ctx) => step(item, ctx, next);
  }
  return chain;
}
