/**
 * What the operations server reads from a `Messaging` host: readiness with its reasons,
 * and the Prometheus rendering of the metric catalogue (`core/metrics.ts`): one reader per
 * family, from health, belt counters, publisher stats and the hosted components (outbox,
 * producer); names, help texts and label order come from the catalogue.
 */

import type { RetryTierHealth, SubscriptionHealth, SubscriptionMetrics } from '../belt/subscription.js';
import type { HistogramSnapshot, PartitionCounters } from '../core/counters.js';
import { backlogOf, figureOf, labelsOf, METRICS, type MetricDefinition, type MetricKey } from '../core/metrics.js';
import type { MessagingHealth, MessagingView } from '../host/health.js';
import type { PublisherStats } from '../publish/publisher.js';
import { Exposition, type Labels } from './prometheus.js';

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
  const tier = s.retryTiers?.find((t) => !t.ready);
  if (tier !== undefined)
    return `${who}: retry tier ${tier.tier} (${tier.topic}) is ${tier.state}${tier.stalls[0] ? `: ${tier.stalls[0].reason}` : ''}`;
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

/** What one scrape reads from the host, read once. */
interface Scrape {
  readonly messaging: MessagingView;
  readonly health: MessagingHealth;
  readonly ready: boolean;
  readonly metrics: readonly SubscriptionMetrics[];
  readonly publishers: readonly { readonly labels: Labels; readonly stats: PublisherStats }[];
}

type Sample = readonly [facts: Labels, value: number | HistogramSnapshot];
type Reader = (scrape: Scrape) => Iterable<Sample> | Promise<Iterable<Sample>>;

const subscriptionFacts = (s: SubscriptionHealth | SubscriptionMetrics) => ({
  channel: s.channel,
  address: s.address,
  topic: s.topic,
  group: s.groupId,
});

function* stalls(scrape: Scrape, attempts: boolean): Iterable<Sample> {
  for (const [i, s] of scrape.health.subscriptions.entries()) {
    const stalled = new Map(s.stalls.map((stall) => [stall.partition, stall]));
    const partitions = new Set<number>([...s.positions.map((p) => p.partition), ...stalled.keys()]);
    for (const counters of scrape.metrics[i]?.partitions ?? []) partitions.add(counters.partition);
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const stall = stalled.get(partition);
      if (!attempts) yield [{ ...subscriptionFacts(s), partition }, stall ? 1 : 0];
      else if (stall) yield [{ ...subscriptionFacts(s), partition }, stall.attempts];
    }
  }
}

function* positions(scrape: Scrape, field: 'lag' | 'committed' | 'highWatermark'): Iterable<Sample> {
  for (const s of scrape.health.subscriptions)
    for (const p of s.positions) {
      const value = p[field];
      if (value !== undefined) yield [{ ...subscriptionFacts(s), partition: p.partition }, Number(value)];
    }
}

function* belt(scrape: Scrape, field: Exclude<keyof PartitionCounters, 'partition'>): Iterable<Sample> {
  for (const m of scrape.metrics) for (const p of m.partitions) yield [{ ...subscriptionFacts(m), partition: p.partition }, p[field]];
}

function* publisher(
  scrape: Scrape,
  field: 'sent' | 'sentBytes' | 'failed' | 'queued' | 'queuedBytes' | 'inFlightBatches',
): Iterable<Sample> {
  for (const p of scrape.publishers) yield [p.labels, p.stats[field]];
}

function* components(scrape: Scrape, read: (c: MessagingHealth['components'][number]) => number | undefined): Iterable<Sample> {
  for (const c of scrape.health.components) {
    const value = read(c);
    if (value !== undefined) yield [{ kind: c.kind, name: c.name }, value];
  }
}

/** The replies each requester read, by outcome (its `details`: `replies`, `late`, `unknown`). */
function* requesterReplies(scrape: Scrape): Iterable<Sample> {
  for (const c of scrape.health.components) {
    if (c.kind !== 'requester') continue;
    for (const [outcome, field] of [
      ['settled', 'replies'],
      ['late', 'late'],
      ['unknown', 'unknown'],
    ] as const) {
      const value = figureOf(c.details?.[field]);
      if (value !== undefined) yield [{ kind: c.kind, name: c.name, outcome }, value];
    }
  }
}

function* transport(scrape: Scrape, read: (t: NonNullable<MessagingHealth['transport']>) => number | undefined): Iterable<Sample> {
  const t = scrape.health.transport;
  const value = t && read(t);
  if (t && value !== undefined) yield [{ transport: t.name }, value];
}

async function deadLetters(scrape: Scrape): Promise<Sample[]> {
  const samples: Sample[] = [];
  const seen = new Set<string>();
  for (const s of scrape.health.subscriptions) {
    const key = `${s.channel}\u0000${s.groupId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const count = await scrape.messaging.deadLetters.count({ channel: s.channel, groupId: s.groupId });
    samples.push([{ channel: s.channel, group: s.groupId }, count]);
  }
  return samples;
}

function* retryTiers(scrape: Scrape, read: (t: RetryTierHealth) => number | undefined): Iterable<Sample> {
  for (const s of scrape.health.subscriptions)
    for (const t of s.retryTiers ?? []) {
      const value = read(t);
      if (value !== undefined) yield [{ ...subscriptionFacts(s), tier: t.tier, tier_topic: t.topic }, value];
    }
}

/** Where each family of the catalogue reads its samples. */
const READERS = {
  ready: (scrape) => [[{}, scrape.ready ? 1 : 0]],
  subscriptionState: (scrape) =>
    scrape.health.subscriptions.flatMap((s) =>
      STATES.map((state): Sample => [{ ...subscriptionFacts(s), state }, s.state === state ? 1 : 0]),
    ),
  partitionStalled: (scrape) => stalls(scrape, false),
  stallAttempts: (scrape) => stalls(scrape, true),
  consumerLag: (scrape) => positions(scrape, 'lag'),
  committedOffset: (scrape) => positions(scrape, 'committed'),
  highWatermark: (scrape) => positions(scrape, 'highWatermark'),
  consumed: (scrape) => belt(scrape, 'consumed'),
  handled: (scrape) => belt(scrape, 'handled'),
  failed: (scrape) => belt(scrape, 'failed'),
  retried: (scrape) => belt(scrape, 'retried'),
  parked: (scrape) => belt(scrape, 'parked'),
  skipped: (scrape) => belt(scrape, 'skipped'),
  duplicates: (scrape) => belt(scrape, 'duplicates'),
  handlerDuration: (scrape) => scrape.metrics.map((m): Sample => [subscriptionFacts(m), m.handlerDuration]),
  published: (scrape) => publisher(scrape, 'sent'),
  publishedBytes: (scrape) => publisher(scrape, 'sentBytes'),
  publishFailed: (scrape) => publisher(scrape, 'failed'),
  queued: (scrape) => publisher(scrape, 'queued'),
  queuedBytes: (scrape) => publisher(scrape, 'queuedBytes'),
  inFlightBatches: (scrape) => publisher(scrape, 'inFlightBatches'),
  componentReady: (scrape) => components(scrape, (c) => (c.ready ? 1 : 0)),
  componentBacklog: (scrape) => components(scrape, (c) => backlogOf(c).backlog),
  oldestPendingAge: (scrape) =>
    components(scrape, (c) => {
      const age = backlogOf(c).oldestPendingAgeMs;
      return age === undefined ? undefined : age / 1000;
    }),
  requesterReplies,
  requesterTimeouts: (scrape) => components(scrape, (c) => (c.kind === 'requester' ? figureOf(c.details?.['timeouts']) : undefined)),
  transportReady: (scrape) => transport(scrape, (t) => (t.ready ? 1 : 0)),
  transportRebuilds: (scrape) => transport(scrape, (t) => figureOf(t.details?.['rebuilds'])),
  transportReconnects: (scrape) => transport(scrape, (t) => figureOf(t.details?.['reconnects'])),
  deadLetters,
  retryTierDepth: (scrape) => retryTiers(scrape, (t) => t.depth),
  retryTierOldestAge: (scrape) => retryTiers(scrape, (t) => (t.oldestWaitingAgeMs === undefined ? undefined : t.oldestWaitingAgeMs / 1000)),
} satisfies Record<MetricKey, Reader>;

function write(out: Exposition, metric: MetricDefinition, [facts, value]: Sample): void {
  const labels = labelsOf(metric.labels, facts);
  if (typeof value !== 'number') out.histogram(metric.prometheus, metric.help, labels, value);
  else if (metric.type === 'counter') out.counter(metric.prometheus, metric.help, labels, value);
  else out.gauge(metric.prometheus, metric.help, labels, value);
}

/** The host's metrics in the Prometheus text format: every family of the catalogue, in its order. */
export async function prometheusText(messaging: MessagingView, limits: ReadinessLimits = {}): Promise<string> {
  const health = messaging.health();
  const scrape: Scrape = {
    messaging,
    health,
    ready: readiness(health, limits).ready,
    metrics: messaging.subscriptions.map((s) => s.metrics()),
    publishers: messaging.publishers.map((p) => {
      const stats = p.stats();
      const topic = messaging.transport.destination?.(stats.address, p.channel.bindings) ?? stats.address;
      return { labels: { channel: stats.channel, address: stats.address, topic }, stats };
    }),
  };
  const out = new Exposition();
  for (const key of Object.keys(METRICS) as MetricKey[]) {
    const metric: MetricDefinition = METRICS[key];
    if (!metric.whenReported) out.declare(metric.prometheus, metric.type, metric.help);
    for (const sample of await READERS[key](scrape)) write(out, metric, sample);
  }
  return out.render();
}
