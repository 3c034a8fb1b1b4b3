/**
 * The options, dependencies, health and metrics of a subscription (`subscription.ts`), and the
 * error of a transactional subscription its transport cannot run.
 */
import type { BackoffOptions, DeadLetterPolicy } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';
import type { AnyContractMessage, MessageTypeOf } from '../core/contract.js';
import type { HistogramSnapshot, PartitionCounters } from '../core/counters.js';
import { KeiyakuError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { PartitionPosition, Transport } from '../core/transport.js';
import type { InboxStore } from '../inbox/inbox.js';
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import type { Stall } from './stall.js';

export interface SubscriptionOptions<M extends AnyContractMessage, P = never> {
  /** Most records per poll, and acks per commit (default 100). */
  readonly batchSize?: number;
  /** Opt in to parking poison messages instead of blocking on them. */
  readonly deadLetter?: DeadLetterPolicy;
  /**
   * Opt in to retrying failed messages later, on retry addresses with delay tiers, while the
   * partition keeps moving (order per key is not kept); parked after the last tier. See docs/retry-later.md.
   */
  readonly retryLater?: RetryLaterOptions;
  /** Backoff of the blocking retry (default 1 s doubling to 60 s, ±20 % jitter). */
  readonly retry?: BackoffOptions;
  /** Parameter values of a channel with parameters: which address to read (required there). */
  readonly parameters?: P;
  /**
   * @deprecated Pass `parameters` instead. A concrete address: on a channel with parameters it
   * must fit the channel's template and parameter rules (a warning is logged); on a channel
   * without parameters it is refused unless it is the channel's own address or `forceAddress` is set.
   */
  readonly address?: string;
  /** Read from `address` although it is not the channel's. */
  readonly forceAddress?: boolean;
  /** Message types this subscription wants; overrides `handler.accepts`. */
  readonly accepts?: readonly MessageTypeOf<M>[];
  /**
   * While a lane stays stalled, at most one warning per this many milliseconds (default 30 s), and
   * the same for commits that keep failing (a broker cut off):
   * the first failure is always a warning, later attempts in between are debug lines.
   */
  readonly stallLogIntervalMs?: number;
  /**
   * Run the handler once per message id, inside a transaction of this inbox's database that
   * records the id for the group (see docs/exactly-once.md). The handler reads the transaction
   * with `inboxTransaction(inbox, context)`; a message already recorded is acknowledged without it.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any store, whatever its transaction handle (the handler reads it typed through inboxTransaction)
  readonly inbox?: InboxStore<any>;
  /**
   * Consume-process-produce in transactions (Kafka → Kafka): what the handler publishes with the
   * service's publishers of this transport, and the offsets of the records it acknowledges, commit
   * together in one transaction per commit of the belt, or not at all (see docs/runtime.md). Inside
   * the handler `publish()` resolves when the record is buffered. The transactional id defaults to
   * `keiyaku.<groupId>.<topic>.<hostname>`; two instances of one group on one host need their own.
   */
  readonly transactional?: boolean | { readonly transactionalId?: string };
}

/** The transport cannot run a transactional subscription, or a transactional id is unusable. */
export class TransactionalSubscriptionError extends KeiyakuError {
  override readonly name = 'TransactionalSubscriptionError';
}

export interface SubscriptionDeps {
  readonly transport: Transport;
  readonly deadLetters?: DeadLetterStore;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Source of jitter (default Math.random). */
  readonly random?: () => number;
}

export type SubscriptionState = 'idle' | 'running' | 'stalled' | 'stopping' | 'stopped' | 'failed';

export interface SubscriptionHealth {
  readonly channel: string;
  readonly address: string;
  /** The broker's name of the address (Kafka topic, Iggy `stream/topic`); the address when the transport has none. */
  readonly topic: string;
  readonly groupId: string;
  readonly state: SubscriptionState;
  /** Running and not stalled. */
  readonly ready: boolean;
  readonly stalls: readonly Stall[];
  readonly processed: number;
  /** Records skipped by routing (a type this handler does not accept, or one the channel does not declare). */
  readonly skipped: number;
  /** Records parked by this subscription since it started. */
  readonly parked: number;
  /** Records its inbox found already processed by the group, acknowledged without the handler (0 without an inbox). */
  readonly duplicatesSkipped: number;
  readonly positions: readonly PartitionPosition[];
  readonly lastError?: string;
  /** The retry tiers of a subscription with `retryLater`, in order. */
  readonly retryTiers?: readonly RetryTierHealth[];
}

/** Counts per partition and the handler-duration histogram of one subscription. */
export interface SubscriptionMetrics {
  readonly channel: string;
  readonly address: string;
  /** The broker's name of the address, as in {@link SubscriptionHealth}. */
  readonly topic: string;
  readonly groupId: string;
  readonly partitions: readonly PartitionCounters[];
  /** Handler durations in seconds (every attempt, successful or not). */
  readonly handlerDuration: HistogramSnapshot;
}

/** The `retryLater` option of a subscription. */
export interface RetryLaterOptions {
  /** The delay of each tier in milliseconds, in the order a record goes through them (at least one). */
  readonly tiers: readonly number[];
  /** Attempts again at once (on the `retry` backoff) before a record moves to the next tier (default 0). */
  readonly immediateRetries?: number;
}

/** What health shows of one tier. */
export interface RetryTierHealth {
  readonly tier: number;
  readonly delayMs: number;
  readonly address: string;
  /** The broker's name of the retry address. */
  readonly topic: string;
  readonly state: SubscriptionState;
  readonly ready: boolean;
  /** Records on the tier not yet committed by the group (the sum of its partitions' lag), when the transport reports lag. */
  readonly depth: number | undefined;
  /** Partitions whose lane holds its next record until it is due (one record each; the partition is paused meanwhile). */
  readonly waiting: number;
  /** How long ago the oldest record its lanes hold was moved to the tier (undefined when none waits). */
  readonly oldestWaitingAgeMs: number | undefined;
  /** Handled on this tier since the start. */
  readonly processed: number;
  /** Moved on to the next tier since the start. */
  readonly movedOn: number;
  /** Parked after the last tier (or because they do not decode) since the start. */
  readonly parked: number;
  /** Lanes stopped at a failing publish to the next tier (or a failing park). */
  readonly stalls: readonly Stall[];
}
