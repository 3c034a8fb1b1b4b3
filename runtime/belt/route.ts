/**
 * Routing: a record of a type this subscription does not handle is skipped and acknowledged,
 * decided from its type header before its payload is decoded. A type the channel does not
 * declare at all is skipped too (a newer producer), and logged once per type. A record without
 * a type goes on (it is decoded, and fails); on a channel of one message type, a record without a
 * `ce_type` header is of that type.
 */
import type { AnyContractMessage } from '../core/contract.js';
import { recordType } from '../core/envelope.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Belt, BeltStep } from './belt.js';

/** Types outside the channel that a subscription remembers (each logged once); past it, one more line says so. */
const MAX_UNKNOWN_TYPES = 100;

/**
 * The routing step. `wanted` are the types this subscription handles, `declared` every type of
 * the channel.
 */
export function routeStep<M extends AnyContractMessage>(
  belt: Belt<M>,
  wanted: ReadonlySet<string>,
  declared: ReadonlySet<string>,
): BeltStep<M> {
  const unknown = new UnknownTypes(belt, declared);
  return (record, delivery, next) => {
    const type = recordType(record, belt.channel);
    if (type === undefined || type === '' || wanted.has(type)) {
      delivery.type = type;
      return next(record, delivery);
    }
    belt.lanes.skipped++;
    delivery.lane.counters.skipped++;
    if (declared.has(type))
      belt.logger.debug('skipped: message type not wanted by this subscription', {
        channel: belt.channel.id,
        groupId: belt.groupId,
        type,
        offset: record.offset,
      });
    else unknown.seen(type, record);
    return true;
  };
}

/** Types outside the channel seen so far (each logged once), at most {@link MAX_UNKNOWN_TYPES}. */
class UnknownTypes {
  readonly #belt: Belt<AnyContractMessage>;
  readonly #declared: ReadonlySet<string>;
  readonly #types = new Set<string>();
  #overflow = false;

  constructor(belt: Belt<AnyContractMessage>, declared: ReadonlySet<string>) {
    this.#belt = belt;
    this.#declared = declared;
  }

  /** Logs a type the channel does not declare: once per type, for at most {@link MAX_UNKNOWN_TYPES} types. */
  seen(type: string, record: IncomingRecord): void {
    if (this.#types.has(type)) return;
    const { channel, groupId, logger } = this.#belt;
    const fields = { channel: channel.id, groupId, partition: record.partition, offset: record.offset };
    if (this.#types.size >= MAX_UNKNOWN_TYPES) {
      if (!this.#overflow)
        logger.warn(
          `skipped: more than ${MAX_UNKNOWN_TYPES} message types this channel does not declare; further new ones are skipped without a log line`,
          { ...fields, type },
        );
      this.#overflow = true;
      return;
    }
    this.#types.add(type);
    logger.warn(
      'skipped: a message type this channel does not declare (a newer producer?); records of this type are acknowledged and counted as skipped, and this is said once per type',
      { ...fields, type, declared: [...this.#declared].join(', ') },
    );
  }
}
