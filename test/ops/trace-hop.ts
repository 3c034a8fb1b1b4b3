// A publish → handle → publish → handle chain under the OpenTelemetry SDK with an in-memory
// exporter, shared by the memory and the Kafka tracing tests. The spans it returns must form
// one trace: request → send → process → (handler's own span, send → process).

import { createMessaging, type Messaging, type Transport } from '@keiyaku/runtime';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { expect } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';

export interface Traced {
  readonly exporter: InMemorySpanExporter;
  readonly provider: NodeTracerProvider;
  shutdown(): Promise<void>;
}

/** Registers the SDK (tracer provider, AsyncLocalStorage context manager) with an in-memory exporter. */
export function registerSdk(): Traced {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    exporter,
    provider,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** Runs the chain on `transport` and asserts the parent/child links and the semantic-convention attributes. */
export async function assertTraceCrossesHops(transport: Transport, traced: Traced, system: string): Promise<void> {
  const host: Messaging = createMessaging({ transport, shutdownBudgetMs: 5_000 });
  const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
  const handled: { copyId: string; traceparent: string | undefined }[] = [];
  host.subscribe(BookIntegrationEvents, {
    groupId: 'inventory.book-availability',
    async handle(message, ctx) {
      handled.push({ copyId: message.copyId, traceparent: ctx.headers['ce_traceparent'] });
      if (message.copyId === 'C-1') {
        // The handler's own work and what it publishes belong to the same trace.
        await trace.getTracer('test').startActiveSpan('reserve copy', async (inner) => {
          await publisher.publish(borrowed('C-2'));
          inner.end();
        });
      }
    },
  });
  try {
    await host.start();
    await trace.getTracer('test').startActiveSpan('http request', async (root) => {
      await publisher.publish(borrowed('C-1'));
      root.end();
    });
    await waitFor(() => handled.length === 2, 'both messages were handled', 30_000);
    await waitFor(
      () => traced.exporter.getFinishedSpans().filter((s) => s.name.startsWith('process ')).length === 2,
      'both process spans ended',
      10_000,
    );
  } finally {
    await host.stop();
  }
  const spans = traced.exporter.getFinishedSpans();
  const byName = (name: string) => spans.filter((s) => s.name === name);
  const root = byName('http request')[0]!;
  const [send1, send2] = byName(`send ${publisher.address}`).sort(
    (a, b) => a.startTime[1] - b.startTime[1] + (a.startTime[0] - b.startTime[0]) * 1e9,
  );
  const processes = byName(`process ${publisher.address}`);
  const inner = byName('reserve copy')[0]!;
  expect(root, 'the request span').toBeDefined();
  expect(send1 && send2, 'two send spans').toBeTruthy();
  expect(processes).toHaveLength(2);
  // One trace across both hops.
  for (const span of [send1!, send2!, ...processes, inner]) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
  // request → send(C-1) → process(C-1) → reserve copy → send(C-2) → process(C-2)
  expect(parentOf(send1!)).toBe(root.spanContext().spanId);
  const process1 = processes.find((p) => parentOf(p) === send1!.spanContext().spanId);
  const process2 = processes.find((p) => parentOf(p) === send2!.spanContext().spanId);
  expect(process1, 'the first process span is a child of the first send span').toBeDefined();
  expect(process2, 'the second process span is a child of the second send span').toBeDefined();
  expect(parentOf(inner)).toBe(process1!.spanContext().spanId);
  expect(parentOf(send2!)).toBe(inner.spanContext().spanId);
  // The header carries the send span's context, as the CloudEvents distributed-tracing attribute.
  expect(handled[0]!.traceparent).toBe(`00-${send1!.spanContext().traceId}-${send1!.spanContext().spanId}-01`);
  // Kinds and the messaging semantic conventions.
  expect(send1!.kind).toBe(SpanKind.PRODUCER);
  expect(process1!.kind).toBe(SpanKind.CONSUMER);
  expect(send1!.attributes).toMatchObject({
    'messaging.system': system,
    'messaging.destination.name': publisher.address,
    'messaging.operation.type': 'send',
    'cloudevents.event_type': 'BookBorrowed',
  });
  expect(send1!.attributes['messaging.message.id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(process1!.attributes).toMatchObject({
    'messaging.system': system,
    'messaging.destination.name': publisher.address,
    'messaging.operation.type': 'process',
    'messaging.consumer.group.name': 'inventory.book-availability',
    'messaging.message.id': send1!.attributes['messaging.message.id'],
    'keiyaku.handler.attempt': 1,
  });
  expect(typeof process1!.attributes['messaging.destination.partition.id']).toBe('string');
  if (system === 'kafka') expect(typeof process1!.attributes['messaging.kafka.offset']).toBe('number');
  else expect(typeof process1!.attributes['keiyaku.message.offset']).toBe('string');
}
