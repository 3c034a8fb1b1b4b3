// W3C trace context across a publish → handle hop on the in-memory transport, recorded by the
// OpenTelemetry SDK's in-memory exporter; and nothing recorded, nothing written, without an SDK.

import { createMessaging, formatTraceparent, parseTraceparent, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { assertTraceCrossesHops, registerSdk, type Traced } from './trace-hop.js';

let traced: Traced | undefined;
afterEach(async () => {
  await traced?.shutdown();
  traced = undefined;
});

describe('tracing', () => {
  it('links request → send → process → handler span → send → process on the memory transport', async () => {
    traced = registerSdk();
    await assertTraceCrossesHops(new InMemoryTransport({ defaultPartitions: 2, idleWaitMs: 5 }), traced, 'memory');
  });

  it('marks a failing attempt as an error span and the retry as a new process span of the same parent', async () => {
    traced = registerSdk();
    const host = createMessaging({ logger: silentLogger, transport: new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 }) });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    let calls = 0;
    host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'g',
        handle() {
          if (++calls === 1) throw new Error('first attempt fails');
        },
      },
      {
        retry: { initialMs: 1, maxMs: 1, jitter: 0 },
      },
    );
    await host.start();
    await publisher.publish(borrowed('C-1'));
    await waitFor(() => traced!.exporter.getFinishedSpans().filter((s) => s.name.startsWith('process')).length === 2, 'two process spans');
    await host.stop();
    const spans = traced.exporter.getFinishedSpans();
    const send = spans.find((s) => s.name.startsWith('send'))!;
    const [first, second] = spans.filter((s) => s.name.startsWith('process'));
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(first!.status.message).toBe('first attempt fails');
    expect(first!.events.map((e) => e.name)).toContain('exception');
    expect(second!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(second!.attributes['keiyaku.handler.attempt']).toBe(2);
    for (const span of [first!, second!]) expect(span.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
  });

  it('gives every message of a publishMany its own send span, whose context it carries', async () => {
    traced = registerSdk();
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    await publisher.publishMany([borrowed('C-1'), borrowed('C-2'), [borrowed('C-3'), { correlationId: 'order-7' }]]);
    await host.stop();
    const sends = traced.exporter.getFinishedSpans().filter((s) => s.name.startsWith('send'));
    expect(sends).toHaveLength(3);
    const carried = transport.published(BookIntegrationEvents).map((p) => parseTraceparent(p.record.headers['ce_traceparent']!)?.spanId);
    expect(carried).toEqual(sends.map((s) => s.spanContext().spanId));
  });

  it('writes no trace headers and records nothing without an SDK, but carries a context given explicitly', async () => {
    expect(trace.getTracer('x').startSpan('probe').isRecording()).toBe(false);
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    await publisher.publish(borrowed('C-1'));
    const carried = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await publisher.publish(borrowed('C-2'), { traceparent: carried, tracestate: 'vendor=1' });
    await host.stop();
    const [plain, explicit] = transport.published(BookIntegrationEvents).map((p) => p.record.headers);
    expect(plain!['ce_traceparent']).toBeUndefined();
    expect(explicit!['ce_traceparent']).toBe(carried);
    expect(explicit!['ce_tracestate']).toBe('vendor=1');
  });

  it('parses and formats W3C traceparent, refusing malformed ones', () => {
    const parsed = parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'a=1,b=2');
    expect(parsed).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    expect(parsed!.traceState!.serialize()).toBe('a=1,b=2');
    expect((parsed!.traceState as unknown as { get(key: string): string | undefined }).get('b')).toBe('2');
    expect(formatTraceparent(parsed!)).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    for (const bad of [
      '',
      'garbage',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01', // all-zero trace id
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', // all-zero span id
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', // forbidden version
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra', // version 00 has no more fields
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', // upper case
    ])
      expect(parseTraceparent(bad), bad).toBeUndefined();
    // A later version may append fields.
    expect(parseTraceparent('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-future')).toBeDefined();
  });
});
