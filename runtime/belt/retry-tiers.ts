/**
 * The names of the retry-later policy (docs/retry-later.md): its error, the headers a record
 * carries on a tier, and the tiers of a subscription with their addresses and bindings. Apart from
 * the policy itself (`retry-later.ts`), so what the package exports of it needs no belt types.
 */
import type { ChannelBindings } from '../core/contract.js';
import { KeiyakuError } from '../core/errors.js';
import type { RetryLaterOptions } from './options.js';

/** A `retryLater` option the subscription cannot run (no tiers, a delay that is not a positive integer, a conflicting option, a group id unfit for a topic name). */
export class RetryLaterError extends KeiyakuError {
  override readonly name = 'RetryLaterError';
}

/** The headers a record carries on a retry tier (the names follow `keiyaku-redriven-from`). */
export const RETRY_HEADERS = Object.freeze({
  /** Handler attempts so far, over the subscription and every tier (decimal). */
  attempts: 'keiyaku-retry-attempts',
  /** The tier the record is on, from 1. */
  tier: 'keiyaku-retry-tier',
  /** When the handler first failed on it (ISO 8601). */
  firstFailure: 'keiyaku-retry-first-failure',
  /** `Name: message` of the last failure, cut to {@link MAX_ERROR_BYTES} UTF-8 bytes. */
  lastError: 'keiyaku-retry-last-error',
  /** Where the record was first read: the channel's address, partition and offset. */
  originalAddress: 'keiyaku-retry-original-address',
  originalPartition: 'keiyaku-retry-original-partition',
  originalOffset: 'keiyaku-retry-original-offset',
  /** When the tier hands it to the handler again (ISO 8601). */
  due: 'keiyaku-retry-due',
});

/** The longest last-error header, in UTF-8 bytes (Iggy carries at most 255 per header value). */
export const MAX_ERROR_BYTES = 240;

/** The group id in a retry address: the characters every transport's topic names allow. */
const NAME_PART = /^[A-Za-z0-9._-]+$/;

/** A delay as the last part of a retry address: `200ms`, `30s`, `5m`, `1h` (the largest whole unit). */
export function delayLabel(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/** One tier: where it reads, and how long it holds a record. */
export interface RetryTier {
  /** From 1. */
  readonly tier: number;
  readonly delayMs: number;
  /** The retry address, `<address>.retry.<groupId>.<delay>`. */
  readonly address: string;
  /** The channel's bindings with the suffix on a binding `topic`; stream, partitions and replicas kept. */
  readonly bindings: ChannelBindings;
}

/** The tiers of `groupId` on `address` (checked: see {@link RetryLaterError}). */
export function retryTiers(address: string, bindings: ChannelBindings, groupId: string, options: RetryLaterOptions): RetryTier[] {
  if (options.tiers.length === 0) throw new RetryLaterError('retry_later_invalid', 'retryLater needs at least one tier');
  for (const ms of options.tiers)
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new RetryLaterError('retry_later_invalid', `retryLater tier delays are positive whole milliseconds; got ${ms}`);
  const retries = options.immediateRetries ?? 0;
  if (!Number.isSafeInteger(retries) || retries < 0)
    throw new RetryLaterError('retry_later_invalid', `retryLater.immediateRetries is a whole number from 0; got ${retries}`);
  if (!NAME_PART.test(groupId))
    throw new RetryLaterError(
      'retry_later_invalid',
      `retryLater names its addresses after the group id; "${groupId}" has characters other than letters, digits, ".", "_" and "-"`,
    );
  const labels = new Set<string>();
  return options.tiers.map((delayMs, i) => {
    const suffix = `.retry.${groupId}.${delayLabel(delayMs)}`;
    if (labels.has(suffix)) throw new RetryLaterError('retry_later_invalid', `retryLater has the tier ${delayLabel(delayMs)} twice`);
    labels.add(suffix);
    const { kafka, iggy } = bindings;
    const tierBindings: { -readonly [K in keyof ChannelBindings]: ChannelBindings[K] } = {};
    if (kafka !== undefined)
      tierBindings.kafka = {
        ...(kafka.topic ? { topic: `${kafka.topic}${suffix}` } : {}),
        ...(kafka.partitions === undefined ? {} : { partitions: kafka.partitions }),
        ...(kafka.replicas === undefined ? {} : { replicas: kafka.replicas }),
      };
    if (iggy !== undefined)
      tierBindings.iggy = {
        ...(iggy.stream === undefined ? {} : { stream: iggy.stream }),
        ...(iggy.topic ? { topic: `${iggy.topic}${suffix}` } : {}),
        ...(iggy.partitions === undefined ? {} : { partitions: iggy.partitions }),
      };
    return { tier: i + 1, delayMs, address: `${address}${suffix}`, bindings: tierBindings };
  });
}
