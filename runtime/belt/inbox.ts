/**
 * The inbox policy: each attempt at the handler runs inside a transaction of the inbox's
 * database that records the message id for the group (see `inbox/inbox.ts`). A message already
 * recorded is done without calling the handler (a duplicate, counted as such). It sits inside
 * the retry policy, so every attempt is its own transaction: a failed attempt rolls back and
 * leaves no row, and the retry or park policy goes on as without an inbox.
 */
import type { AnyContractMessage } from '../core/contract.js';
import type { InboxOutcome, InboxStore } from '../inbox/inbox.js';
import type { Belt, BeltStep } from './belt.js';
import { isPromise } from './compose.js';

export function inboxStep<M extends AnyContractMessage>(belt: Belt<M>, inbox: InboxStore): BeltStep<M> {
  const groupId = belt.groupId;
  const outcome = (result: InboxOutcome, done: boolean, delivery: { duplicate: boolean }): boolean => {
    if (result === 'duplicate') delivery.duplicate = true;
    return result === 'duplicate' || done;
  };
  return (record, delivery, next) => {
    // A record that does not decode fails in the handler step as usual; it gets no transaction.
    if (!delivery.opened.decoded.ok) return next(record, delivery);
    let done = false;
    const work = (tx: unknown): unknown => {
      delivery.transaction = tx;
      const result = next(record, delivery);
      if (!isPromise(result)) {
        done = result;
        return undefined;
      }
      return result.then((value) => {
        done = value;
      });
    };
    let result: InboxOutcome | Promise<InboxOutcome>;
    try {
      result = inbox.process(groupId, delivery.opened.id, work);
    } finally {
      if (!isPromise(result!)) delivery.transaction = undefined;
    }
    if (!isPromise(result)) return outcome(result, done, delivery);
    return result.then(
      (settled) => {
        delivery.transaction = undefined;
        return outcome(settled, done, delivery);
      },
      (error: unknown) => {
        delivery.transaction = undefined;
        throw error;
      },
    );
  };
}
