// The hand-written Prometheus exposition, and the OpenTelemetry instruments the host registers
// through @opentelemetry/api, read by a capturing MeterProvider (the API's interfaces only).

import { createMessaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { Exposition, escapeHtml, escapeLabelValue, html } from '@keiyaku/runtime/ops';
import { type Attributes, createNoopMeter, type Meter, type MeterProvider, metrics, type ObservableCallback } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';

afterEach(() => {
  metrics.disable();
});

describe('the Prometheus exposition', () => {
  it('writes HELP and TYPE once per family, escapes label values and help, and renders cumulative histograms', () => {
    const out = new Exposition()
      .counter('x_total', 'Counts\\things\nhere', { channel: 'a"b\\c\nd', partition: 0 }, 3)
      .counter('x_total', '', { channel: 'e', partition: 1 }, 4)
      .gauge('y', 'A gauge', undefined, Number.POSITIVE_INFINITY)
      .histogram('z_seconds', 'Durations', { group: 'g' }, { bounds: [0.1, 1], counts: [2, 3, 1], sum: 4.5, count: 6 });
    expect(out.render()).toBe(
      [
        '# HELP x_total Counts\\\\things\\nhere',
        '# TYPE x_total counter',
        'x_total{channel="a\\"b\\\\c\\nd",partition="0"} 3',
        'x_total{channel="e",partition="1"} 4',
        '# HELP y A gauge',
        '# TYPE y gauge',
        'y +Inf',
        '# HELP z_seconds Durations',
        '# TYPE z_seconds histogram',
        'z_seconds_bucket{group="g",le="0.1"} 2',
        'z_seconds_bucket{group="g",le="1"} 5',
        'z_seconds_bucket{group="g",le="+Inf"} 6',
        'z_seconds_sum{group="g"} 4.5',
        'z_seconds_count{group="g"} 6',
        '',
      ].join('\n'),
    );
    expect(escapeLabelValue('plain')).toBe('plain');
  });

  it('refuses invalid names and a family declared with two types', () => {
    expect(() => new Exposition().gauge('bad-name', '', undefined, 1)).toThrow(/invalid Prometheus metric name "bad-name"/);
    expect(() => new Exposition().gauge('ok', '', { 'bad-label': 'x' }, 1)).toThrow(/invalid Prometheus label name "bad-label"/);
    expect(() => new Exposition().gauge('ok', '', undefined, 1).counter('ok', '', undefined, 1)).toThrow(
      /declared as gauge and as counter/,
    );
  });
});

describe('HTML escaping', () => {
  it('escapes every interpolation for text and attribute context, and nests safe fragments once', () => {
    const hostile = `<script>x</script>"'\`&`;
    expect(escapeHtml(hostile)).toBe('&lt;script&gt;x&lt;/script&gt;&quot;&#39;&#96;&amp;');
    const inner = html`<b>${hostile}</b>`;
    expect(html`<p title="${hostile}">${inner}${[hostile, undefined, null, false]}</p>`.value).toBe(
      `<p title="${escapeHtml(hostile)}"><b>${escapeHtml(hostile)}</b>${escapeHtml(hostile)}</p>`,
    );
  });
});

/** Captures observable callbacks and histogram records; everything else is the API's no-op. */
class CapturingMeterProvider implements MeterProvider {
  readonly observables = new Map<string, ObservableCallback[]>();
  readonly records: { name: string; value: number; attributes: Attributes | undefined }[] = [];
  getMeter(): Meter {
    const noop = createNoopMeter();
    const observable = (name: string) => ({
      addCallback: (callback: ObservableCallback) => void this.observables.set(name, [...(this.observables.get(name) ?? []), callback]),
      removeCallback: () => {},
    });
    return {
      ...noop,
      createHistogram: (name: string) => ({
        record: (value: number, attributes?: Attributes) => void this.records.push({ name, value, attributes }),
      }),
      createObservableCounter: observable,
      createObservableGauge: observable,
      createObservableUpDownCounter: observable,
    } as Meter;
  }
  async collect(name: string): Promise<{ value: number; attributes: Attributes | undefined }[]> {
    const seen: { value: number; attributes: Attributes | undefined }[] = [];
    for (const callback of this.observables.get(name) ?? [])
      await callback({ observe: (value, attributes) => void seen.push({ value, attributes }) });
    return seen;
  }
}

describe('OpenTelemetry metrics through the API', () => {
  it('registers observable counters, lag and the handler-duration histogram with the messaging attributes', async () => {
    const provider = new CapturingMeterProvider();
    metrics.setGlobalMeterProvider(provider);
    const host = createMessaging({ transport: new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }) });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0, key: (m) => m.bookId });
    let handled = 0;
    host.subscribe(BookIntegrationEvents, { groupId: 'g', handle: () => void handled++ });
    await host.start();
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2')]);
    await waitFor(() => handled === 2, 'both handled');
    await host.stop();
    const attributes = {
      'messaging.system': 'memory',
      'messaging.destination.name': publisher.address,
      'messaging.consumer.group.name': 'g',
      'messaging.destination.partition.id': String(host.subscriptions[0]!.metrics().partitions[0]!.partition),
    };
    expect(await provider.collect('messaging.client.consumed.messages')).toEqual([{ value: 2, attributes }]);
    expect(await provider.collect('keiyaku.messages.handled')).toEqual([{ value: 2, attributes }]);
    expect(await provider.collect('messaging.client.sent.messages')).toEqual([
      { value: 2, attributes: { 'messaging.system': 'memory', 'messaging.destination.name': publisher.address } },
    ]);
    const durations = provider.records.filter((r) => r.name === 'messaging.process.duration');
    expect(durations).toHaveLength(2);
    expect(durations[0]!.attributes).toEqual(attributes);
    expect(durations.every((d) => d.value >= 0 && d.value < 5)).toBe(true);
  });
});
