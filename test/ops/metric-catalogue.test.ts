// The metric catalogue (runtime/core/metrics.ts) is the one list of the host's figures: the
// Prometheus exposition writes exactly its families, with its help texts and label names, and
// the OpenTelemetry instruments the host registers (and the belt's histogram) are exactly its
// `otel` entries, with their units, descriptions and attributes.

import { createMessaging, type HostedComponent, type TransportHealth } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { prometheusText } from '@keiyaku/runtime/ops';
import {
  type Attributes,
  createNoopMeter,
  type Meter,
  type MeterProvider,
  type MetricOptions,
  metrics,
  type ObservableCallback,
} from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, LookUpCopies } from '../../generated/index.js';
import { METRICS, type MetricDefinition } from '../../runtime/core/metrics.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';

afterEach(() => {
  metrics.disable();
});

const catalogue: [string, MetricDefinition][] = Object.entries(METRICS);

/** A memory transport that reports its connections as the Kafka and Iggy transports do. */
class ReportingTransport extends InMemoryTransport {
  health(): TransportHealth {
    return { name: this.name, ready: true, details: { rebuilds: 1, reconnects: 2 } };
  }
}

class FakeOutbox implements HostedComponent {
  readonly kind = 'outbox';
  readonly name = 'orders-outbox';
  async start() {}
  async stop() {}
  health() {
    return { kind: this.kind, name: this.name, ready: true, details: { backlog: 3, oldestPendingAgeMs: 1500 } };
  }
}

async function runHost(transport: InMemoryTransport) {
  const host = createMessaging({ transport, shutdownBudgetMs: 2_000 });
  host.host(new FakeOutbox());
  host.requester(LookUpCopies);
  const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0, key: (m) => m.bookId });
  let handled = 0;
  host.subscribe(BookIntegrationEvents, { groupId: 'g', handle: () => void handled++ });
  await host.start();
  await publisher.publishMany([borrowed('C-1'), borrowed('C-2')]);
  await waitFor(() => handled === 2, 'both handled');
  await host.stop();
  return host;
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g;

describe('the Prometheus exposition', () => {
  it('writes exactly the families of the catalogue, in its order, with its types, help texts and label names', async () => {
    const host = await runHost(new ReportingTransport({ defaultPartitions: 1, idleWaitMs: 5 }));
    const text = await prometheusText(host);
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.slice('# TYPE '.length))).toEqual(
      catalogue.map(([, m]) => `${m.prometheus} ${m.type}`),
    );
    expect(lines.filter((l) => l.startsWith('# HELP ')).map((l) => l.slice('# HELP '.length))).toEqual(
      catalogue.map(([, m]) => `${m.prometheus} ${m.help}`),
    );
    const byName = new Map(catalogue.map(([, m]) => [m.prometheus, m]));
    let samples = 0;
    for (const line of lines.filter((l) => !l.startsWith('#'))) {
      const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '';
      const metric = byName.get(name) ?? byName.get(name.replace(/_(bucket|sum|count)$/, ''));
      expect(metric, `${line} belongs to a family of the catalogue`).toBeDefined();
      const labels = [...line.matchAll(LABEL)].map((m) => m[1]);
      const want = name.endsWith('_bucket') && metric?.type === 'histogram' ? [...metric.labels, 'le'] : metric?.labels;
      expect(labels, line).toEqual(want);
      samples++;
    }
    expect(samples).toBeGreaterThan(catalogue.length);
  });

  it('leaves out the transport families when the transport reports no connections', async () => {
    const host = await runHost(new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }));
    const families = (await prometheusText(host)).split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(families.map((l) => l.split(' ')[2])).toEqual(catalogue.filter(([, m]) => !m.whenReported).map(([, m]) => m.prometheus));
  });

  it('names every family once, in the Prometheus naming scheme', () => {
    const names = catalogue.map(([, m]) => m.prometheus);
    expect(new Set(names).size).toBe(names.length);
    for (const [, m] of catalogue) {
      expect(m.prometheus).toMatch(/^keiyaku_[a-z_]+$/);
      if (m.type === 'counter') expect(m.prometheus).toMatch(/_total$/);
    }
  });
});

/** Records every instrument created and captures observable callbacks. */
class CapturingMeterProvider implements MeterProvider {
  readonly created: { kind: string; name: string; options: MetricOptions | undefined }[] = [];
  readonly observables = new Map<string, ObservableCallback[]>();
  getMeter(): Meter {
    const noop = createNoopMeter();
    const observable = (kind: string) => (name: string, options?: MetricOptions) => {
      this.created.push({ kind, name, options });
      return {
        addCallback: (callback: ObservableCallback) => void this.observables.set(name, [...(this.observables.get(name) ?? []), callback]),
        removeCallback: () => {},
      };
    };
    return {
      ...noop,
      createHistogram: (name: string, options?: MetricOptions) => {
        this.created.push({ kind: 'histogram', name, options });
        return noop.createHistogram(name, options);
      },
      createObservableCounter: observable('counter'),
      createObservableGauge: observable('gauge'),
      createObservableUpDownCounter: observable('up-down-counter'),
    } as Meter;
  }
  async collect(name: string): Promise<Attributes[]> {
    const seen: Attributes[] = [];
    for (const callback of this.observables.get(name) ?? [])
      await callback({ observe: (_value, attributes) => void seen.push(attributes ?? {}) });
    return seen;
  }
}

describe('OpenTelemetry metrics', () => {
  it('are exactly the otel entries of the catalogue, with their units, descriptions and attributes', async () => {
    const provider = new CapturingMeterProvider();
    metrics.setGlobalMeterProvider(provider);
    await runHost(new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }));
    const instrumented = catalogue.flatMap(([, m]) => (m.otel ? [{ metric: m, otel: m.otel }] : []));
    const created = [...new Map(provider.created.map((c) => [c.name, c])).values()];
    expect(created.map((c) => c.name).sort()).toEqual(instrumented.map((i) => i.otel.name).sort());
    for (const { metric, otel } of instrumented) {
      const instrument = created.find((c) => c.name === otel.name);
      expect(instrument?.kind, otel.name).toBe(metric.type);
      expect(instrument?.options, otel.name).toEqual({
        ...('description' in otel ? { description: otel.description } : {}),
        unit: metric.unit,
      });
      if ('recorded' in otel) continue;
      for (const attributes of await provider.collect(otel.name)) expect(Object.keys(attributes), otel.name).toEqual(otel.attributes);
    }
    expect(await provider.collect('messaging.client.consumed.messages')).toHaveLength(1);
    expect(await provider.collect('keiyaku.component.backlog')).toHaveLength(1);
    expect((await provider.collect('keiyaku.requester.replies')).map((a) => a['keiyaku.reply.outcome'])).toEqual([
      'settled',
      'late',
      'unknown',
    ]);
    expect(await provider.collect('keiyaku.requester.timeouts')).toHaveLength(1);
  });
});
