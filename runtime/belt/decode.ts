/**
 * Decoding: opens the envelope of a record (contract headers, payload, validation). A record
 * that does not decode goes on all the same: the handle step fails it, so it is retried, parked
 * and logged like a failing handler (under a dead-letter policy it is parked at once).
 */
import type { AnyContractMessage } from '../core/contract.js';
import { openEnvelope } from '../core/envelope.js';
import type { Belt, BeltStep } from './belt.js';

export function decodeStep<M extends AnyContractMessage>(belt: Pick<Belt<M>, 'channel'>): BeltStep<M> {
  const channel = belt.channel;
  return (record, delivery, next) => {
    delivery.opened = openEnvelope(channel, record);
    return next(record, delivery);
  };
}
