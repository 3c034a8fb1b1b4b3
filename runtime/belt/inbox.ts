/**
 * The inbox policy: each attempt at the handler runs inside a transaction of the inbox's
 * database that records the message id for the group (see `inbox/inbox.ts`). A message already
 * recorded is done without calling the handler (a duplicate, counted as such). It sits inside
 * the retry policy, so every attempt is its own transaction: a failed attempt rolls back and
 * leaves no row, and the retry or park policy goes on as without an inbox.
 */
import type { AnyContractMessage } from '../core/contract.js';
import { InboxError, type InboxOutcome, type InboxStore } from '../inbox/inbox.js';
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

/**
 * An inbox beside a Kafka transaction is refused rather than lossy: the inbox row commits with each
 * record, the transaction with the batch, so a transaction aborted after a record's inbox row
 * committed would lose that record's outputs for good (read again, it is skipped as a duplicate).
 */
export function refuseInboxInTransaction(groupId: string, channel: string, options: { inbox?: unknown; transactional?: unknown }): void {
  if (options.inbox === undefined || options.transactional === undefined || options.transactional === false) return;
  throw new InboxError(
    'inbox_with_transactional',
    `the subscription of ${groupId} to ${channel} has both an inbox and \`transactional\`: the inbox commits per record and the Kafka transaction per batch, so an aborted transaction would lose outputs the inbox then skips. Keep the inbox and write the outputs to the outbox in the inbox's transaction (a \`transactional\` dispatcher publishes them in Kafka transactions), or drop the inbox`,
  );
}
