/**
 * Redrive: a parked message back onto its channel, where the consumers read it. One
 * implementation for `Messaging.redrive`, the operations page and `keiyaku dead-letters redrive`:
 *
 * 1. claim the record (the store's `claim`, else a claim in this process), so that of any number
 *    of concurrent redrives of one record exactly one republishes it;
 * 2. check it again: the payload decodes with its channel's codec, its contract headers validate,
 *    its address fits the channel (parameters as the publisher checks them);
 * 3. resolve the target as a publisher does — the address from the channel's parameters
 *    (`chooseAddress`), the broker's name from the channel's bindings through the transport
 *    (`destination`, the code `provision` uses: the Kafka binding's `topic`, the namespace, the
 *    Iggy stream/topic) — and tell it (`onTarget`, the logger) before anything is sent;
 * 4. refuse a destination that does not exist (a redrive never creates a topic), and one that is
 *    not the topic the record was read from (when the store kept it: another namespace or binding);
 * 5. send the record as it was received (payload, key, headers, plus `keiyaku-redriven-from`),
 *    and remove it from the store only after the transport acknowledged the send. A failure
 *    before that releases the claim: the record stays parked.
 */
import { type AddressChoice, ChannelAddressError, chooseAddress, parseAddress } from '../../core/address.js';
import { exponentialBackoff } from '../../core/backoff.js';
import { type Clock, systemClock } from '../../core/clock.js';
import type { AnyChannel } from '../../core/contract.js';
import { CE_HEADERS } from '../../core/envelope.js';
import { KeiyakuError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import { retry } from '../../core/retry.js';
import type { OutgoingRecord, Transport, TransportProducer } from '../../core/transport.js';
import type { DeadLetterStore, ParkedMessage } from './store.js';

/** The header a redriven record carries: the id of the parked record it came from. */
export const REDRIVEN_FROM_HEADER = 'keiyaku-redriven-from';

export type RedriveErrorCode =
  /** No parked message has the id (never had, or it was redriven or removed meanwhile). */
  | 'dead_letter_not_found'
  /** Another redrive holds the record right now. */
  | 'redrive_in_progress'
  /** The record's channel is not one the caller knows. */
  | 'redrive_unknown_channel'
  /** The payload, its contract headers or its address still do not satisfy the contract. */
  | 'redrive_invalid'
  /** The destination (topic, stream/topic) does not exist; a redrive never creates it. */
  | 'redrive_target_missing'
  /** The target resolved here is not the topic the record was read from (another namespace, transport or binding). */
  | 'redrive_target_mismatch'
  /** The transport did not acknowledge the send. */
  | 'redrive_failed';

/** Why a redrive did not happen; in every case the record stays parked. */
export class RedriveError extends KeiyakuError {
  override readonly name = 'RedriveError';
  override readonly code: RedriveErrorCode;
  /** The parked message's id. */
  readonly id: string;
  /** Where it would have gone, when that was resolved. */
  readonly target: RedriveTarget | undefined;

  constructor(code: RedriveErrorCode, id: string, message: string, options: { cause?: unknown; target?: RedriveTarget } = {}) {
    super(code, message, { ...(options.cause === undefined ? {} : { cause: options.cause }), retriable: code === 'redrive_failed' });
    this.code = code;
    this.id = id;
    this.target = options.target;
  }
}

/** Where a redrive sends a parked message. */
export interface RedriveTarget {
  /** The parked message's id. */
  readonly id: string;
  readonly channel: string;
  /** Contract message type (`ce_type`). */
  readonly type: string;
  /** The channel's concrete address (the contract's name). */
  readonly address: string;
  /** The transport's name: `kafka`, `iggy`, `memory`, … */
  readonly transport: string;
  /** The broker's name of the address, where consumers read: the Kafka topic, Iggy `stream/topic`. */
  readonly destination: string;
  /** Whether the destination exists now; undefined when the transport cannot tell. */
  readonly exists: boolean | undefined;
  /** The message's event id (`ce_id`), which the republished record keeps. */
  readonly messageId: string;
  readonly key?: string;
}

export interface RedriveResult {
  readonly target: RedriveTarget;
  /** The republished record's `ce_id` (the original one). */
  readonly messageId: string;
  /** False when the record was already gone from the store after the send (removed by someone else). */
  readonly removed: boolean;
}

export interface RedriveOptions {
  readonly transport: Transport;
  readonly deadLetters: DeadLetterStore;
  /** The channel descriptor of a channel id; undefined when the caller does not know the channel. */
  readonly channel: (id: string) => AnyChannel | undefined;
  /** Says why a channel is unknown, e.g. "which this host neither subscribes to nor publishes". */
  readonly unknownChannel?: (channel: string) => string;
  /** The producer to send with (a host's shared one); without it one is made for the redrive and closed after. */
  readonly producer?: TransportProducer;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** How long a claim holds before another redrive may take the record (default 10 min: longer than a send may take). */
  readonly leaseMs?: number;
  /** Attempts of the send (default 3). */
  readonly maxAttempts?: number;
  /** Told the target after it was checked, before anything is sent. */
  readonly onTarget?: (target: RedriveTarget) => void;
}

interface Prepared {
  readonly target: RedriveTarget;
  readonly record: OutgoingRecord;
}

/** Claims of stores that cannot claim themselves: per store object, in this process only. */
const localClaims = new WeakMap<DeadLetterStore, Map<string, number>>();

async function claim(store: DeadLetterStore, id: string, leaseMs: number, now: number): Promise<ParkedMessage> {
  if (store.claim !== undefined && store.release !== undefined) {
    const claimed = await store.claim(id, leaseMs);
    if (claimed !== undefined) return claimed;
  } else {
    let claims = localClaims.get(store);
    if (claims === undefined) {
      claims = new Map();
      localClaims.set(store, claims);
    }
    const until = claims.get(id);
    if (until === undefined || until <= now) {
      // Taken before the first await: of concurrent callers in this process only one gets past here.
      claims.set(id, now + leaseMs);
      try {
        const parked = await store.get(id);
        if (parked !== undefined) return parked;
      } catch (error) {
        claims.delete(id);
        throw error;
      }
      claims.delete(id);
      throw notFound(id);
    }
  }
  if ((await store.get(id)) === undefined) throw notFound(id);
  throw new RedriveError('redrive_in_progress', id, `parked message ${id} is being redriven by someone else right now; nothing changed`);
}

async function release(store: DeadLetterStore, id: string): Promise<void> {
  if (store.claim !== undefined && store.release !== undefined) await store.release(id);
  else localClaims.get(store)?.delete(id);
}

function notFound(id: string): RedriveError {
  return new RedriveError('dead_letter_not_found', id, `no parked message with id ${id} (it may have been redriven or removed already)`);
}

/** How a publisher of `channel` names `address`: parameters parsed from it, or the fixed address (forced when it is not the channel's own: the consumer read there). */
function addressChoice(channel: AnyChannel, parked: ParkedMessage): AddressChoice {
  if (typeof channel.address === 'function') {
    const parameters = parseAddress(channel, parked.address);
    if (parameters === undefined)
      throw new RedriveError(
        'redrive_invalid',
        parked.id,
        `parked message ${parked.id} was read from ${parked.address}, which does not fit the address ${channel.addressTemplate} of channel ${channel.id}; it stays parked`,
      );
    return { parameters };
  }
  return parked.address === channel.address ? {} : { address: parked.address, forceAddress: true };
}

async function prepare(parked: ParkedMessage, options: RedriveOptions): Promise<Prepared> {
  const id = parked.id;
  const channel = options.channel(parked.channel);
  if (channel === undefined)
    throw new RedriveError(
      'redrive_unknown_channel',
      id,
      `parked message ${id} belongs to channel ${parked.channel}, ${options.unknownChannel?.(parked.channel) ?? 'which is not known here'}`,
    );
  // A channel framed for a Schema Registry reads the writer's schema by id first.
  await channel.prepareRecord?.(parked.payload, parked.type);
  const decoded = channel.decode(parked.payload, parked.type);
  if (!decoded.ok)
    throw new RedriveError('redrive_invalid', id, `parked message ${id} still does not decode: ${decoded.error.message}; it stays parked`, {
      cause: decoded.error,
    });
  const headers = channel.message(parked.type)?.headers?.decode(parked.headers);
  if (headers !== undefined && !headers.ok)
    throw new RedriveError('redrive_invalid', id, `parked message ${id} still does not decode: ${headers.error.message}; it stays parked`, {
      cause: headers.error,
    });
  let address: string | undefined;
  try {
    // The publisher's own resolution: parameters checked against the contract's rules.
    address = chooseAddress(channel, addressChoice(channel, parked));
  } catch (error) {
    if (!(error instanceof ChannelAddressError)) throw error;
    throw new RedriveError('redrive_invalid', id, `parked message ${id}: ${error.message}; it stays parked`, { cause: error });
  }
  if (address === undefined) throw new RedriveError('redrive_invalid', id, `parked message ${id} has no address; it stays parked`);
  const transport = options.transport;
  try {
    // What a publisher of the channel would be refused (structured mode for Avro/Protobuf payloads).
    transport.checkChannel?.(channel, address);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RedriveError('redrive_invalid', id, `parked message ${id}: ${reason}; it stays parked`, { cause: error });
  }
  // The code `provision` resolves a topic with (bindings, namespace); it creates nothing.
  const destination = transport.destination?.(address, channel.bindings) ?? address;
  if (parked.topic !== undefined && parked.topic !== destination)
    throw new RedriveError(
      'redrive_target_mismatch',
      id,
      `parked message ${id} was read from ${parked.topic}, but the address ${address} of channel ${channel.id} resolves to ` +
        `${transport.name} ${destination} here: check the namespace, the transport and the contract's binding against the ` +
        "service's configuration; it stays parked",
    );
  const exists = transport.destinationExists === undefined ? undefined : await transport.destinationExists(address, channel.bindings);
  const messageId = parked.headers[CE_HEADERS.id] ?? id;
  const target: RedriveTarget = {
    id,
    channel: channel.id,
    type: parked.type,
    address,
    transport: transport.name,
    destination,
    exists,
    messageId,
    ...(parked.key === undefined ? {} : { key: parked.key }),
  };
  const wire: Record<string, string> = {};
  for (const [name, value] of Object.entries(parked.headers))
    if (name === '__proto__') Object.defineProperty(wire, name, { value, enumerable: true, writable: true, configurable: true });
    else wire[name] = value;
  wire[REDRIVEN_FROM_HEADER] = id;
  const record: OutgoingRecord = {
    address,
    value: parked.payload,
    headers: wire,
    ...(parked.key === undefined ? {} : { key: parked.key }),
  };
  return { target, record };
}

/** The refusal of a redrive whose destination does not exist (what {@link redrive} throws; a dry run can say it beforehand). */
export function missingDestination(target: RedriveTarget): RedriveError {
  return new RedriveError(
    'redrive_target_missing',
    target.id,
    `${target.transport} ${target.destination} (the address ${target.address} of channel ${target.channel}) does not exist; ` +
      'a redrive never creates it: create it, or check the binding and the namespace; the message stays parked',
    { target },
  );
}

/**
 * Where {@link redrive} would send parked message `id`, checked as a redrive checks it (the
 * contract, the address, whether the destination exists), without claiming or sending anything.
 * @throws RedriveError `dead_letter_not_found`, `redrive_unknown_channel`, `redrive_invalid` or `redrive_target_mismatch`.
 */
export async function planRedrive(id: string, options: RedriveOptions): Promise<RedriveTarget> {
  const parked = await options.deadLetters.get(id);
  if (parked === undefined) throw notFound(id);
  return (await prepare(parked, options)).target;
}

/**
 * Republishes parked message `id` where its channel's consumers read and removes it from the
 * store once the transport acknowledged it. Of concurrent redrives of one record exactly one
 * sends; the others reject with `redrive_in_progress` (or `dead_letter_not_found` once it is gone).
 * @throws RedriveError — and then the record stays parked.
 */
export async function redrive(id: string, options: RedriveOptions): Promise<RedriveResult> {
  const store = options.deadLetters;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const parked = await claim(store, id, options.leaseMs ?? 600_000, clock.now());
  let target: RedriveTarget | undefined;
  try {
    const prepared = await prepare(parked, options);
    target = prepared.target;
    if (target.exists === false) throw missingDestination(target);
    if (target.exists === undefined)
      logger.warn('redrive: this transport cannot say whether the destination exists; sending anyway', { ...target });
    logger.info('redriving a parked message', { ...target });
    options.onTarget?.(target);
    const producer = options.producer ?? options.transport.producer();
    try {
      await retry(() => producer.send([prepared.record]), {
        maxAttempts: Math.max(1, options.maxAttempts ?? 3),
        backoff: exponentialBackoff({ initialMs: 200, maxMs: 2_000 }),
        clock,
        onRetry: (error, attempt, delayMs) => logger.warn('redrive: send failed; retrying', { id, attempt, delayMs, error: String(error) }),
      });
    } catch (error) {
      throw new RedriveError(
        'redrive_failed',
        id,
        `republishing parked message ${id} to ${target.transport} ${target.destination} failed: ${error instanceof Error ? error.message : String(error)}; it stays parked`,
        { cause: error, target },
      );
    } finally {
      if (options.producer === undefined) await producer.close().catch(() => undefined);
    }
  } catch (error) {
    await release(store, id).catch((cause: unknown) => logger.error('redrive: releasing the claim failed', { id, error: String(cause) }));
    throw error;
  }
  // Acknowledged: only now does the record go.
  let removed: boolean;
  try {
    removed = await store.remove(id);
  } finally {
    localClaims.get(store)?.delete(id);
  }
  if (!removed) logger.warn('redrive: the record was already gone from the store after the send', { id });
  logger.info('redrove a parked message', { id, channel: target.channel, destination: target.destination, messageId: target.messageId });
  return { target, messageId: target.messageId, removed };
}
