/**
 * The capture policy of a transactional subscription: each attempt at the handler runs in a
 * capture scope (`core/capture.ts`), so what it publishes with the service's publishers of the
 * same transport is buffered for the attempt instead of sent. A failed attempt's buffer is
 * dropped (the retry runs the handler again, and publishes again); a succeeded one's is left on
 * the delivery (once the addresses it publishes to are provisioned: a failure there fails the
 * attempt), and the belt sends it into its open transaction before it acknowledges the record.
 *
 * It sits inside the retry policy (one buffer per attempt) and outside the inbox policy (a
 * buffer is kept only when the inbox transaction committed too).
 */
import { type PublishCapture, withCapture } from '../core/capture.js';
import type { AnyContractMessage } from '../core/contract.js';
import { KeiyakuError } from '../core/errors.js';
import type { Belt, BeltStep, Captured, Delivery } from './belt.js';
import { isPromise } from './compose.js';

export function captureStep<M extends AnyContractMessage>(belt: Belt<M>): BeltStep<M> {
  const transport = belt.transport;
  return (record, delivery, next) => {
    delivery.captured = undefined;
    const buffer: Captured = { records: [], ready: [] };
    let open = true;
    const scope: PublishCapture = {
      transport,
      capture: (published, ready) => {
        if (!open)
          throw new KeiyakuError(
            'publish_after_attempt',
            `a publish to ${published.address} came after its transactional handler attempt on ${belt.channel.id} ended; await every publish inside the handler`,
          );
        buffer.records.push(published);
        if (ready !== undefined) buffer.ready.push(ready);
      },
    };
    const settle = (done: boolean): boolean | Promise<boolean> => {
      open = false;
      if (!done || buffer.records.length === 0) return done;
      const keep = (): boolean => {
        (delivery as Delivery<M>).captured = buffer;
        return true;
      };
      // Addresses not provisioned yet are waited for here: a provisioning failure fails the attempt (retried).
      return buffer.ready.length === 0 ? keep() : Promise.all(buffer.ready).then(keep);
    };
    let result: boolean | Promise<boolean>;
    try {
      result = withCapture(scope, () => next(record, delivery));
    } catch (error) {
      open = false;
      throw error;
    }
    if (!isPromise(result)) return settle(result);
    return result.then(settle, (error: unknown) => {
      open = false;
      throw error;
    });
  };
}
