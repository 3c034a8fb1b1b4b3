/**
 * The host's figures as OpenTelemetry metrics, through `@opentelemetry/api` only: observable
 * instruments read the belt counters, publisher stats, lag and hosted components when the
 * service's SDK collects (nothing is recorded on the hot path, and without an SDK the meter is
 * the API's no-op). The handler-duration histogram (`messaging.process.duration`) is recorded
 * by the belt itself.
 */
import type { Attributes, ObservableResult } from '@opentelemetry/api';
import { otelApi } from '../core/otel-api.js';
import { INSTRUMENTATION_NAME } from '../core/tracing.js';
import type { MessagingView } from '../health.js';
import { backlogOf } from './state.js';

/** Registers the observable instruments of `messaging` on the global meter provider. */
export function instrumentMessaging(messaging: MessagingView): void {
  const api = otelApi();
  if (api === undefined) return;
  const meter = api.metrics.getMeter(INSTRUMENTATION_NAME);
  const system = messaging.transport.name;
  const belt = (field: 'consumed' | 'handled' | 'failed' | 'retried' | 'parked' | 'skipped') => (result: ObservableResult) => {
    for (const s of messaging.subscriptions) {
      const m = s.metrics();
      for (const p of m.partitions)
        result.observe(p[field], {
          'messaging.system': system,
          'messaging.destination.name': m.address,
          'messaging.consumer.group.name': m.groupId,
          'messaging.destination.partition.id': String(p.partition),
        });
    }
  };
  meter
    .createObservableCounter('messaging.client.consumed.messages', {
      description: 'Records the belt took from the transport',
      unit: '{message}',
    })
    .addCallback(belt('consumed'));
  meter.createObservableCounter('keiyaku.messages.handled', { unit: '{message}' }).addCallback(belt('handled'));
  meter
    .createObservableCounter('keiyaku.messages.failed', { description: 'Handler attempts that threw', unit: '{message}' })
    .addCallback(belt('failed'));
  meter.createObservableCounter('keiyaku.messages.retried', { unit: '{message}' }).addCallback(belt('retried'));
  meter.createObservableCounter('keiyaku.messages.parked', { unit: '{message}' }).addCallback(belt('parked'));
  meter
    .createObservableCounter('keiyaku.messages.skipped', { description: 'Skipped by routing', unit: '{message}' })
    .addCallback(belt('skipped'));
  meter.createObservableGauge('keiyaku.consumer.lag', { unit: '{message}' }).addCallback((result) => {
    for (const s of messaging.health().subscriptions)
      for (const p of s.positions)
        if (p.lag !== undefined)
          result.observe(p.lag, {
            'messaging.system': system,
            'messaging.destination.name': s.address,
            'messaging.consumer.group.name': s.groupId,
            'messaging.destination.partition.id': String(p.partition),
          });
  });
  meter
    .createObservableCounter('messaging.client.sent.messages', { description: 'Messages the transport acknowledged', unit: '{message}' })
    .addCallback((result) => {
      for (const p of messaging.publishers) {
        const st = p.stats();
        result.observe(st.sent, { 'messaging.system': system, 'messaging.destination.name': st.address });
      }
    });
  meter.createObservableCounter('keiyaku.publish.failed', { unit: '{message}' }).addCallback((result) => {
    for (const p of messaging.publishers) {
      const st = p.stats();
      result.observe(st.failed, { 'messaging.system': system, 'messaging.destination.name': st.address });
    }
  });
  meter.createObservableGauge('keiyaku.publisher.queued', { unit: 'By' }).addCallback((result) => {
    for (const p of messaging.publishers) {
      const st = p.stats();
      result.observe(st.queuedBytes, { 'messaging.system': system, 'messaging.destination.name': st.address });
    }
  });
  meter.createObservableGauge('keiyaku.component.backlog', { unit: '{message}' }).addCallback((result) => {
    for (const c of messaging.health().components) {
      const { backlog } = backlogOf(c);
      const attributes: Attributes = { 'keiyaku.component.kind': c.kind, 'keiyaku.component.name': c.name };
      if (backlog !== undefined) result.observe(backlog, attributes);
    }
  });
}
