/**
 * The host's figures as OpenTelemetry metrics, through `@opentelemetry/api` only: observable
 * instruments read the belt counters, publisher stats, lag and hosted components when the
 * service's SDK collects (nothing is recorded on the hot path, and without an SDK the meter is
 * the API's no-op). Names, units, descriptions and attributes come from the metric catalogue
 * (`core/metrics.ts`); the handler-duration histogram (`messaging.process.duration`) is
 * recorded by the belt itself. The host registers these when it starts; the operations
 * package re-exports `instrumentMessaging` and depends on the host, never the other way.
 */
import type { Attributes } from '@opentelemetry/api';
import type { PartitionCounters } from '../core/counters.js';
import { backlogOf, labelsOf, METRICS, type ObservedMetricKey } from '../core/metrics.js';
import { otelApi } from '../core/otel-api.js';
import { INSTRUMENTATION_NAME } from '../core/tracing.js';
import type { MessagingView } from './health.js';

type Observation = readonly [facts: Attributes, value: number];
type Observer = (messaging: MessagingView, system: string) => Iterable<Observation>;

function* belt(messaging: MessagingView, system: string, field: Exclude<keyof PartitionCounters, 'partition'>) {
  for (const s of messaging.subscriptions) {
    const m = s.metrics();
    for (const p of m.partitions)
      yield [
        {
          'messaging.system': system,
          'messaging.destination.name': m.address,
          'messaging.consumer.group.name': m.groupId,
          'messaging.destination.partition.id': String(p.partition),
        },
        p[field],
      ] as const;
  }
}

function* publisher(messaging: MessagingView, system: string, field: 'sent' | 'failed' | 'queuedBytes') {
  for (const p of messaging.publishers) {
    const st = p.stats();
    yield [{ 'messaging.system': system, 'messaging.destination.name': st.address }, st[field]] as const;
  }
}

function* lag(messaging: MessagingView, system: string) {
  for (const s of messaging.health().subscriptions)
    for (const p of s.positions)
      if (p.lag !== undefined)
        yield [
          {
            'messaging.system': system,
            'messaging.destination.name': s.address,
            'messaging.consumer.group.name': s.groupId,
            'messaging.destination.partition.id': String(p.partition),
          },
          p.lag,
        ] as const;
}

function* backlog(messaging: MessagingView) {
  for (const c of messaging.health().components) {
    const { backlog } = backlogOf(c);
    if (backlog !== undefined) yield [{ 'keiyaku.component.kind': c.kind, 'keiyaku.component.name': c.name }, backlog] as const;
  }
}

/** Each requester's replies by outcome, or its timeouts (its health details: `replies`, `late`, `unknown`, `timeouts`). */
function* requester(messaging: MessagingView, what: 'replies' | 'timeouts') {
  for (const c of messaging.health().components) {
    if (c.kind !== 'requester') continue;
    const facts = { 'keiyaku.component.kind': c.kind, 'keiyaku.component.name': c.name };
    if (what === 'timeouts') yield [facts, Number(c.details?.['timeouts'] ?? 0)] as const;
    else
      for (const [outcome, field] of [
        ['settled', 'replies'],
        ['late', 'late'],
        ['unknown', 'unknown'],
      ] as const)
        yield [{ ...facts, 'keiyaku.reply.outcome': outcome }, Number(c.details?.[field] ?? 0)] as const;
  }
}

/** What each observed instrument reads, in the order the instruments are registered. */
const OBSERVERS = {
  consumed: (m, system) => belt(m, system, 'consumed'),
  handled: (m, system) => belt(m, system, 'handled'),
  failed: (m, system) => belt(m, system, 'failed'),
  retried: (m, system) => belt(m, system, 'retried'),
  parked: (m, system) => belt(m, system, 'parked'),
  skipped: (m, system) => belt(m, system, 'skipped'),
  duplicates: (m, system) => belt(m, system, 'duplicates'),
  consumerLag: lag,
  published: (m, system) => publisher(m, system, 'sent'),
  publishFailed: (m, system) => publisher(m, system, 'failed'),
  queuedBytes: (m, system) => publisher(m, system, 'queuedBytes'),
  componentBacklog: backlog,
  requesterReplies: (m) => requester(m, 'replies'),
  requesterTimeouts: (m) => requester(m, 'timeouts'),
} satisfies Record<ObservedMetricKey, Observer>;

/** Registers the observable instruments of `messaging` on the global meter provider. */
export function instrumentMessaging(messaging: MessagingView): void {
  const api = otelApi();
  if (api === undefined) return;
  const meter = api.metrics.getMeter(INSTRUMENTATION_NAME);
  const system = messaging.transport.name;
  for (const key of Object.keys(OBSERVERS) as ObservedMetricKey[]) {
    const metric = METRICS[key];
    const { name, attributes } = metric.otel;
    const description: string | undefined = 'description' in metric.otel ? metric.otel.description : undefined;
    const options = { ...(description === undefined ? {} : { description }), unit: metric.unit };
    const instrument =
      metric.type === 'counter' ? meter.createObservableCounter(name, options) : meter.createObservableGauge(name, options);
    const observe: Observer = OBSERVERS[key];
    instrument.addCallback((result) => {
      for (const [facts, value] of observe(messaging, system)) result.observe(value, labelsOf(attributes, facts));
    });
  }
}
