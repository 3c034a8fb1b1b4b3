/**
 * What the operations server reads from a `Messaging` host: readiness with its reasons,
 * and the Prometheus families built from health, belt counters, publisher stats and the
 * hosted components (outbox, producer).
 */
import type { HostedComponentHealth } from '../core/hosted.js';
import type { MessagingHealth, MessagingView } from '../health.js';
import type { SubscriptionHealth } from '../subscription.js';
import { Exposition } from './prometheus.js';

export interface ReadinessLimits {
  /** A hosted `outbox` with more pending rows than this makes the service not ready (default 10 000). */
  readonly outboxBacklogLimit?: number;
  /** A hosted `outbox` whose oldest pending row is older than this makes the service not ready (default 5 min). */
  readonly outboxMaxAgeMs?: number;
}

export interface Readiness {
  readonly ready: boolean;
  /** Why not, one line per cause; empty when ready. */
  readonly reasons: readonly string[];
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** `details.backlog` and `details.oldestPendingAgeMs` of a hosted component, when it reports them. */
export function backlogOf(component: HostedComponentHealth): { backlog?: number; oldestPendingAgeMs?: number } {
  const backlog = num(component.details?.['backlog']);
  const age = num(component.details?.['oldestPendingAgeMs']);
  return { ...(backlog === undefined ? {} : { backlog }), ...(age === undefined ? {} : { oldestPendingAgeMs: age }) };
}

function subscriptionReason(s: SubscriptionHealth): string | undefined {
  const who = `subscription ${s.groupId} on ${s.channel}`;
  if (s.state === 'stalled')
    return s.stalls
      .map(
        (stall) =>
          `${who} is stalled at partition ${stall.partition} offset ${stall.offset} (${stall.type || 'no type'}) since ${stall.since.toISOString()} after ${stall.attempts} attempt(s): ${stall.reason}`,
      )
      .join('; ');
  if (s.state === 'failed') return `${who} failed${s.lastError ? `: ${s.lastError}` : ''}`;
  if (!s.ready) return `${who} is ${s.state}`;
  return undefined;
}

/** Ready when start-up finished, no subscription is stalled or down, the transport is connected and every outbox is within its limits. */
export function readiness(health: MessagingHealth, limits: ReadinessLimits = {}): Readiness {
  const reasons: string[] = [];
  if (!health.started) reasons.push('start-up has not finished');
  for (const s of health.subscriptions) {
    const reason = subscriptionReason(s);
    if (reason) reasons.push(reason);
  }
  if (health.transport && !health.transport.ready)
    reasons.push(`transport ${health.transport.name} is cut off: ${health.transport.reason ?? 'not connected'}`);
  const backlogLimit = limits.outboxBacklogLimit ?? 10_000;
  const ageLimit = limits.outboxMaxAgeMs ?? 300_000;
  for (const c of health.components) {
    if (!c.ready) reasons.push(`${c.kind} ${c.name} is not ready${c.reason ? `: ${c.reason}` : ''}`);
    if (c.kind !== 'outbox') continue;
    const { backlog, oldestPendingAgeMs } = backlogOf(c);
    if (backlog !== undefined && backlog > backlogLimit)
      reasons.push(`outbox ${c.name} backlog ${backlog} is past the limit of ${backlogLimit}`);
    if (oldestPendingAgeMs !== undefined && oldestPendingAgeMs > ageLimit)
      reasons.push(
        `outbox ${c.name} oldest pending message is ${Math.round(oldestPendingAgeMs / 1000)} s old, past the limit of ${Math.round(ageLimit / 1000)} s`,
      );
  }
  return { ready: reasons.length === 0, reasons };
}

const STATES = ['idle', 'running', 'stalled', 'stopping', 'stopped', 'failed'] as const;

/** The host's metrics in the Prometheus text format. */
export async function prometheusText(messaging: MessagingView, limits: ReadinessLimits = {}): Promise<string> {
  const health = messaging.health();
  const out = new Exposition();
  const ready = readiness(health, limits);
  out.gauge('keiyaku_ready', 'Whether the service is ready (1) or not (0), as /readyz answers.', undefined, ready.ready ? 1 : 0);

  // Belt state, stalls and positions per subscription and partition.
  out.declare('keiyaku_subscription_state', 'gauge', 'Belt state of a subscription: 1 for its current state, 0 for the others.');
  out.declare('keiyaku_partition_stalled', 'gauge', 'Whether the lane of a partition is stopped at a failing message (1) or moving (0).');
  out.declare('keiyaku_partition_stall_attempts', 'gauge', 'Handler attempts on the message a stalled lane is stopped at.');
  out.declare('keiyaku_consumer_lag', 'gauge', 'Records of a partition not yet committed by the consumer group.');
  out.declare('keiyaku_consumer_committed_offset', 'gauge', 'Next offset the consumer group reads after a restart.');
  out.declare('keiyaku_partition_high_watermark', 'gauge', 'Offset after the newest record of a partition.');
  const subscriptions = messaging.subscriptions;
  health.subscriptions.forEach((s, i) => {
    const base = { channel: s.channel, address: s.address, topic: s.topic, group: s.groupId };
    for (const state of STATES) out.gauge('keiyaku_subscription_state', '', { ...base, state }, s.state === state ? 1 : 0);
    const stalled = new Map(s.stalls.map((stall) => [stall.partition, stall]));
    const partitions = new Set<number>([...s.positions.map((p) => p.partition), ...stalled.keys()]);
    for (const counters of subscriptions[i]?.metrics().partitions ?? []) partitions.add(counters.partition);
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const labels = { ...base, partition };
      const stall = stalled.get(partition);
      out.gauge('keiyaku_partition_stalled', '', labels, stall ? 1 : 0);
      if (stall) out.gauge('keiyaku_partition_stall_attempts', '', labels, stall.attempts);
    }
    for (const p of s.positions) {
      const labels = { ...base, partition: p.partition };
      if (p.lag !== undefined) out.gauge('keiyaku_consumer_lag', '', labels, p.lag);
      if (p.committed !== undefined) out.gauge('keiyaku_consumer_committed_offset', '', labels, Number(p.committed));
      if (p.highWatermark !== undefined) out.gauge('keiyaku_partition_high_watermark', '', labels, Number(p.highWatermark));
    }
  });

  // Belt counters and handler durations.
  const counters = [
    ['consumed', 'keiyaku_messages_consumed_total', 'Records the belt took from the transport.'],
    ['handled', 'keiyaku_messages_handled_total', 'Records the handler finished without throwing.'],
    ['failed', 'keiyaku_messages_failed_total', 'Handler attempts that threw, or records that did not decode.'],
    ['retried', 'keiyaku_messages_retried_total', 'Retries scheduled after a failed attempt.'],
    ['parked', 'keiyaku_messages_parked_total', 'Records parked in the dead-letter store.'],
    ['skipped', 'keiyaku_messages_skipped_total', 'Records skipped by routing: a type the subscription does not handle.'],
  ] as const;
  for (const [, name, help] of counters) out.declare(name, 'counter', help);
  out.declare('keiyaku_handler_duration_seconds', 'histogram', 'Duration of the handler per attempt.');
  for (const subscription of subscriptions) {
    const m = subscription.metrics();
    const base = { channel: m.channel, address: m.address, topic: m.topic, group: m.groupId };
    for (const p of m.partitions)
      for (const [field, name, help] of counters) out.counter(name, help, { ...base, partition: p.partition }, p[field]);
    out.histogram('keiyaku_handler_duration_seconds', '', base, m.handlerDuration);
  }

  // Publishers.
  out.declare('keiyaku_published_messages_total', 'counter', 'Messages the transport acknowledged.');
  out.declare('keiyaku_published_bytes_total', 'counter', 'Payload bytes of the messages the transport acknowledged.');
  out.declare('keiyaku_publish_failed_messages_total', 'counter', 'Messages whose publish finally failed.');
  out.declare('keiyaku_publisher_queued_messages', 'gauge', 'Messages waiting for a batch.');
  out.declare('keiyaku_publisher_queued_bytes', 'gauge', 'Payload bytes waiting for a batch.');
  out.declare('keiyaku_publisher_in_flight_batches', 'gauge', 'Batches on their way to the transport.');
  for (const publisher of messaging.publishers) {
    const st = publisher.stats();
    const labels = {
      channel: st.channel,
      address: st.address,
      topic: messaging.transport.destination?.(st.address, publisher.channel.bindings) ?? st.address,
    };
    out.counter('keiyaku_published_messages_total', '', labels, st.sent);
    out.counter('keiyaku_published_bytes_total', '', labels, st.sentBytes);
    out.counter('keiyaku_publish_failed_messages_total', '', labels, st.failed);
    out.gauge('keiyaku_publisher_queued_messages', '', labels, st.queued);
    out.gauge('keiyaku_publisher_queued_bytes', '', labels, st.queuedBytes);
    out.gauge('keiyaku_publisher_in_flight_batches', '', labels, st.inFlightBatches);
  }

  // Hosted components: outbox dispatchers, producers.
  out.declare('keiyaku_component_ready', 'gauge', 'Whether a hosted component (outbox, producer) is ready.');
  out.declare('keiyaku_component_backlog', 'gauge', 'Messages a hosted component has not handed on yet (outbox rows, producer events).');
  out.declare('keiyaku_component_oldest_pending_age_seconds', 'gauge', 'Age of the oldest message a hosted component has not handed on.');
  for (const c of health.components) {
    const labels = { kind: c.kind, name: c.name };
    out.gauge('keiyaku_component_ready', '', labels, c.ready ? 1 : 0);
    const { backlog, oldestPendingAgeMs } = backlogOf(c);
    if (backlog !== undefined) out.gauge('keiyaku_component_backlog', '', labels, backlog);
    if (oldestPendingAgeMs !== undefined) out.gauge('keiyaku_component_oldest_pending_age_seconds', '', labels, oldestPendingAgeMs / 1000);
  }

  // The transport's connections.
  if (health.transport) {
    const t = health.transport;
    const labels = { transport: t.name };
    out.gauge('keiyaku_transport_ready', 'Whether the transport is connected (1) or cut off (0).', labels, t.ready ? 1 : 0);
    const rebuilds = num(t.details?.['rebuilds']);
    if (rebuilds !== undefined)
      out.counter('keiyaku_transport_rebuilds_total', 'Kafka clients replaced after a cut-off or a crash.', labels, rebuilds);
    const reconnects = num(t.details?.['reconnects']);
    if (reconnects !== undefined)
      out.counter(
        'keiyaku_transport_reconnects_total',
        'Reconnections of Iggy clients (new login under the same client id).',
        labels,
        reconnects,
      );
  }

  // Parked messages per channel and group, from the dead-letter store.
  out.declare('keiyaku_dead_letters', 'gauge', 'Messages parked in the dead-letter store.');
  const seen = new Set<string>();
  for (const s of health.subscriptions) {
    const key = `${s.channel}\u0000${s.groupId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.gauge(
      'keiyaku_dead_letters',
      '',
      { channel: s.channel, group: s.groupId },
      await messaging.deadLetters.count({ channel: s.channel, groupId: s.groupId }),
    );
  }
  return out.render();
}
