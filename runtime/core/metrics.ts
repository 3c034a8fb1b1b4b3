/**
 * The metric catalogue of a `Messaging` host, as data: every figure the host shows, with its
 * type, unit, help and labels, its Prometheus family name and, where the host also reports it
 * through OpenTelemetry, its instrument name, description and attributes. Two short renderers
 * read it: the Prometheus exposition of the operations server (`ops/state.ts`) and the
 * observable instruments the host registers (`host/otel-metrics.ts`); the belt records the
 * handler-duration histogram itself. Neither renderer spells a name, a unit or a help text.
 *
 * Label lists are in the order the exposition writes them.
 *
 * @see https://prometheus.io/docs/practices/naming/
 * @see https://opentelemetry.io/docs/specs/semconv/messaging/messaging-metrics/
 */
import type { HostedComponentHealth } from './hosted.js';

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** How a figure reaches an OpenTelemetry `MeterProvider`. */
export interface OtelInstrument {
  readonly name: string;
  /** The instrument's description, when it has one. */
  readonly description?: string;
  /** Attribute names of every observation, in order. */
  readonly attributes: readonly string[];
  /** Recorded where the figure happens (the belt) rather than observed at collection. */
  readonly recorded?: true;
}

export interface MetricDefinition {
  readonly type: MetricType;
  /** UCUM, as OpenTelemetry takes it (`{message}`, `By`, `s`, `1`). */
  readonly unit: string;
  /** The Prometheus HELP text. */
  readonly help: string;
  /** Prometheus label names, in order (a histogram adds `le` to its buckets). */
  readonly labels: readonly string[];
  /** The Prometheus family name. */
  readonly prometheus: string;
  /** Only written when there is a sample (figures some transports do not report). */
  readonly whenReported?: true;
  readonly otel?: OtelInstrument;
}

const SUBSCRIPTION = ['channel', 'address', 'topic', 'group'] as const;
const PARTITION = [...SUBSCRIPTION, 'partition'] as const;
const PUBLISHER = ['channel', 'address', 'topic'] as const;
const COMPONENT = ['kind', 'name'] as const;
const OTEL_PARTITION = [
  'messaging.system',
  'messaging.destination.name',
  'messaging.consumer.group.name',
  'messaging.destination.partition.id',
] as const;
const OTEL_PUBLISHER = ['messaging.system', 'messaging.destination.name'] as const;
const OTEL_COMPONENT = ['keiyaku.component.kind', 'keiyaku.component.name'] as const;

/** Every figure, in the order the exposition writes the families. */
export const METRICS = {
  ready: {
    type: 'gauge',
    unit: '1',
    help: 'Whether the service is ready (1) or not (0), as /readyz answers.',
    labels: [],
    prometheus: 'keiyaku_ready',
  },
  subscriptionState: {
    type: 'gauge',
    unit: '1',
    help: 'Belt state of a subscription: 1 for its current state, 0 for the others.',
    labels: [...SUBSCRIPTION, 'state'],
    prometheus: 'keiyaku_subscription_state',
  },
  partitionStalled: {
    type: 'gauge',
    unit: '1',
    help: 'Whether the lane of a partition is stopped at a failing message (1) or moving (0).',
    labels: PARTITION,
    prometheus: 'keiyaku_partition_stalled',
  },
  stallAttempts: {
    type: 'gauge',
    unit: '{attempt}',
    help: 'Handler attempts on the message a stalled lane is stopped at.',
    labels: PARTITION,
    prometheus: 'keiyaku_partition_stall_attempts',
  },
  consumerLag: {
    type: 'gauge',
    unit: '{message}',
    help: 'Records of a partition not yet committed by the consumer group.',
    labels: PARTITION,
    prometheus: 'keiyaku_consumer_lag',
    otel: { name: 'keiyaku.consumer.lag', attributes: OTEL_PARTITION },
  },
  committedOffset: {
    type: 'gauge',
    unit: '{offset}',
    help: 'Next offset the consumer group reads after a restart.',
    labels: PARTITION,
    prometheus: 'keiyaku_consumer_committed_offset',
  },
  highWatermark: {
    type: 'gauge',
    unit: '{offset}',
    help: 'Offset after the newest record of a partition.',
    labels: PARTITION,
    prometheus: 'keiyaku_partition_high_watermark',
  },
  consumed: {
    type: 'counter',
    unit: '{message}',
    help: 'Records the belt took from the transport.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_consumed_total',
    otel: {
      name: 'messaging.client.consumed.messages',
      description: 'Records the belt took from the transport',
      attributes: OTEL_PARTITION,
    },
  },
  handled: {
    type: 'counter',
    unit: '{message}',
    help: 'Records the handler finished without throwing.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_handled_total',
    otel: { name: 'keiyaku.messages.handled', attributes: OTEL_PARTITION },
  },
  failed: {
    type: 'counter',
    unit: '{message}',
    help: 'Handler attempts that threw, or records that did not decode.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_failed_total',
    otel: { name: 'keiyaku.messages.failed', description: 'Handler attempts that threw', attributes: OTEL_PARTITION },
  },
  retried: {
    type: 'counter',
    unit: '{message}',
    help: 'Retries scheduled after a failed attempt.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_retried_total',
    otel: { name: 'keiyaku.messages.retried', attributes: OTEL_PARTITION },
  },
  parked: {
    type: 'counter',
    unit: '{message}',
    help: 'Records parked in the dead-letter store.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_parked_total',
    otel: { name: 'keiyaku.messages.parked', attributes: OTEL_PARTITION },
  },
  skipped: {
    type: 'counter',
    unit: '{message}',
    help: 'Records skipped by routing: a type the subscription does not handle.',
    labels: PARTITION,
    prometheus: 'keiyaku_messages_skipped_total',
    otel: { name: 'keiyaku.messages.skipped', description: 'Skipped by routing', attributes: OTEL_PARTITION },
  },
  duplicates: {
    type: 'counter',
    unit: '{message}',
    help: 'Records the inbox found already processed by the group: acknowledged without calling the handler.',
    labels: PARTITION,
    prometheus: 'keiyaku_inbox_duplicates_skipped_total',
    otel: { name: 'keiyaku.inbox.duplicates_skipped', description: 'Skipped by the inbox as duplicates', attributes: OTEL_PARTITION },
  },
  handlerDuration: {
    type: 'histogram',
    unit: 's',
    help: 'Duration of the handler per attempt.',
    labels: SUBSCRIPTION,
    prometheus: 'keiyaku_handler_duration_seconds',
    otel: {
      name: 'messaging.process.duration',
      description: 'Duration of the handler, per attempt',
      attributes: OTEL_PARTITION,
      recorded: true,
    },
  },
  published: {
    type: 'counter',
    unit: '{message}',
    help: 'Messages the transport acknowledged.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_published_messages_total',
    otel: { name: 'messaging.client.sent.messages', description: 'Messages the transport acknowledged', attributes: OTEL_PUBLISHER },
  },
  publishedBytes: {
    type: 'counter',
    unit: 'By',
    help: 'Payload bytes of the messages the transport acknowledged.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_published_bytes_total',
  },
  publishFailed: {
    type: 'counter',
    unit: '{message}',
    help: 'Messages whose publish finally failed.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_publish_failed_messages_total',
    otel: { name: 'keiyaku.publish.failed', attributes: OTEL_PUBLISHER },
  },
  queued: {
    type: 'gauge',
    unit: '{message}',
    help: 'Messages waiting for a batch.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_publisher_queued_messages',
  },
  queuedBytes: {
    type: 'gauge',
    unit: 'By',
    help: 'Payload bytes waiting for a batch.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_publisher_queued_bytes',
    otel: { name: 'keiyaku.publisher.queued', attributes: OTEL_PUBLISHER },
  },
  inFlightBatches: {
    type: 'gauge',
    unit: '{batch}',
    help: 'Batches on their way to the transport.',
    labels: PUBLISHER,
    prometheus: 'keiyaku_publisher_in_flight_batches',
  },
  componentReady: {
    type: 'gauge',
    unit: '1',
    help: 'Whether a hosted component (outbox, producer) is ready.',
    labels: COMPONENT,
    prometheus: 'keiyaku_component_ready',
  },
  componentBacklog: {
    type: 'gauge',
    unit: '{message}',
    help: 'Messages a hosted component has not handed on yet (outbox rows, producer events).',
    labels: COMPONENT,
    prometheus: 'keiyaku_component_backlog',
    otel: { name: 'keiyaku.component.backlog', attributes: OTEL_COMPONENT },
  },
  oldestPendingAge: {
    type: 'gauge',
    unit: 's',
    help: 'Age of the oldest message a hosted component has not handed on.',
    labels: COMPONENT,
    prometheus: 'keiyaku_component_oldest_pending_age_seconds',
  },
  requesterReplies: {
    type: 'counter',
    unit: '{reply}',
    help: 'Replies a requester read, by outcome: settled (answered a request), late (its request had timed out) or unknown (no request of this instance); late and unknown replies are dropped.',
    labels: [...COMPONENT, 'outcome'],
    prometheus: 'keiyaku_requester_replies_total',
    otel: { name: 'keiyaku.requester.replies', attributes: [...OTEL_COMPONENT, 'keiyaku.reply.outcome'] },
  },
  requesterTimeouts: {
    type: 'counter',
    unit: '{request}',
    help: 'Requests that got no reply within their timeout.',
    labels: COMPONENT,
    prometheus: 'keiyaku_requester_timeouts_total',
    otel: { name: 'keiyaku.requester.timeouts', attributes: OTEL_COMPONENT },
  },
  transportReady: {
    type: 'gauge',
    unit: '1',
    help: 'Whether the transport is connected (1) or cut off (0).',
    labels: ['transport'],
    prometheus: 'keiyaku_transport_ready',
    whenReported: true,
  },
  transportRebuilds: {
    type: 'counter',
    unit: '{rebuild}',
    help: 'Kafka clients replaced after a cut-off or a crash.',
    labels: ['transport'],
    prometheus: 'keiyaku_transport_rebuilds_total',
    whenReported: true,
  },
  transportReconnects: {
    type: 'counter',
    unit: '{reconnect}',
    help: 'Reconnections of Iggy clients (new login under the same client id).',
    labels: ['transport'],
    prometheus: 'keiyaku_transport_reconnects_total',
    whenReported: true,
  },
  deadLetters: {
    type: 'gauge',
    unit: '{message}',
    help: 'Messages parked in the dead-letter store.',
    labels: ['channel', 'group'],
    prometheus: 'keiyaku_dead_letters',
  },
  retryTierDepth: {
    type: 'gauge',
    unit: '{message}',
    help: 'Records on a retry tier of a subscription (retryLater) not yet committed by the tier: its lag.',
    labels: [...SUBSCRIPTION, 'tier', 'tier_topic'],
    prometheus: 'keiyaku_retry_tier_depth',
  },
  retryTierOldestAge: {
    type: 'gauge',
    unit: 's',
    help: 'Age of the oldest record a retry tier holds until it is due (since it was moved to the tier).',
    labels: [...SUBSCRIPTION, 'tier', 'tier_topic'],
    prometheus: 'keiyaku_retry_tier_oldest_waiting_age_seconds',
  },
} as const satisfies Readonly<Record<string, MetricDefinition>>;

export type MetricKey = keyof typeof METRICS;

/** The figures reported to OpenTelemetry by observation (everything but what the belt records). */
export type ObservedMetricKey = {
  [K in MetricKey]: (typeof METRICS)[K] extends { readonly otel: { readonly recorded: true } }
    ? never
    : (typeof METRICS)[K] extends { readonly otel: OtelInstrument }
      ? K
      : never;
}[MetricKey];

/** The label (or attribute) set of a sample, in the catalogue's order, from the facts at hand. */
export function labelsOf<V>(names: readonly string[], facts: Readonly<Record<string, V>>): Record<string, V> {
  const labels: Record<string, V> = {};
  for (const name of names) {
    const value = facts[name];
    if (value !== undefined) labels[name] = value;
  }
  return labels;
}

/** A finite number from a transport's or component's `details`, or `undefined`. */
export function figureOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `details.backlog` and `details.oldestPendingAgeMs` of a hosted component, when it reports them. */
export function backlogOf(component: HostedComponentHealth): { backlog?: number; oldestPendingAgeMs?: number } {
  const backlog = figureOf(component.details?.['backlog']);
  const age = figureOf(component.details?.['oldestPendingAgeMs']);
  return { ...(backlog === undefined ? {} : { backlog }), ...(age === undefined ? {} : { oldestPendingAgeMs: age }) };
}
