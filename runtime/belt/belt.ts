/**
 * What the steps of the belt share: the subscription's side of them ({@link Belt}), and what
 * one record carries from step to step ({@link Delivery}).
 */
import type { Context } from '@opentelemetry/api';
import type { Clock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, MessageHandler } from '../core/contract.js';
import type { OpenedEnvelope } from '../core/envelope.js';
import type { Logger } from '../core/logger.js';
import type { IncomingRecord, OutgoingRecord, Transport } from '../core/transport.js';
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import type { Next, Step } from './compose.js';
import type { Lane, Lanes } from './lanes.js';
import type { StallLog } from './stall.js';

/** The subscription as its steps see it. */
export interface Belt<M extends AnyContractMessage> {
  readonly channel: AnyChannel<M>;
  readonly handler: MessageHandler<M>;
  readonly address: string;
  readonly groupId: string;
  /** The broker's name of the address (read when a record is parked). */
  readonly topic: string;
  readonly transport: Transport;
  readonly deadLetters: DeadLetterStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly lanes: Lanes;
  readonly stallLog: StallLog;
  /** Aborts when the belt stops (or restarts from the committed offsets): waits between attempts end. */
  readonly stop: AbortSignal;
  /** Aborts when the shutdown budget is spent: the in-flight handler is abandoned. */
  readonly abandon: AbortSignal;
  /** The state of {@link abandon} as a plain field (read once per record, cheaper than asking the signal). */
  readonly abandoned: { readonly aborted: boolean };
  /** Sets the `lastError` health shows. */
  noteError(reason: string): void;
  /** Records the duration of one handler attempt that began at `started` (`performance.now()`). */
  observe(lane: Lane, started: number): void;
}

/**
 * One record on its way through the chain: each step fills in what later ones read. `true` at
 * the end of the chain means done (handled, parked or skipped: the lane acknowledges it),
 * `false` that stopping interrupted it (it stays unacknowledged).
 */
export interface Delivery<M extends AnyContractMessage> {
  readonly lane: Lane;
  /** The record's message type as routing read it (set by the route step; undefined when the record names none). */
  type: string | undefined;
  /** The opened envelope (set by the decode step). */
  opened: OpenedEnvelope<M>;
  /** Which attempt at the handler this is, from 1 (set by the retry policy). */
  attempt: number;
  /** The trace context the record carries (set by the trace step when tracing is on). */
  parent: Context | undefined;
  /** The inbox transaction the handler runs in (set by the inbox policy for one attempt). */
  transaction: unknown;
  /** The inbox found the message recorded: it is done without the handler (set by the inbox policy). */
  duplicate: boolean;
  /** What the succeeded attempt of a transactional subscription published (set by the capture policy). */
  captured: Captured | undefined;
}

/** The records a transactional attempt published, and the provisioning of their addresses. */
export interface Captured {
  readonly records: OutgoingRecord[];
  readonly ready: Promise<void>[];
}

export type BeltStep<M extends AnyContractMessage> = Step<IncomingRecord, Delivery<M>, boolean>;
export type BeltNext<M extends AnyContractMessage> = Next<IncomingRecord, Delivery<M>, boolean>;

/** A fresh delivery of a record on `lane` (one literal shape, so every step sees the same one). */
export function delivery<M extends AnyContractMessage>(lane: Lane): Delivery<M> {
  return {
    lane,
    type: undefined,
    opened: undefined as unknown as OpenedEnvelope<M>,
    attempt: 1,
    parent: undefined,
    transaction: undefined,
    duplicate: false,
    captured: undefined,
  };
}
