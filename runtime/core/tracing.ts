/**
 * W3C trace context across a message hop, through `@opentelemetry/api` only.
 *
 * The publisher writes the trace context of its `send` span into the message as the
 * CloudEvents distributed-tracing attributes (`ce_traceparent`, `ce_tracestate` in binary
 * mode, the same headers on every transport); the belt reads them back and runs the handler
 * inside a `process` span whose parent is that context. Without a registered OpenTelemetry
 * SDK every span is the API's no-op span: nothing is recorded, and a context that arrived
 * with the message still flows on to what the handler publishes.
 *
 * Span names and attributes follow the OpenTelemetry messaging semantic conventions.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  isSpanContextValid,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { CE_HEADERS } from './envelope.js';

/** The tracer and meter name keiyaku reports under. */
export const INSTRUMENTATION_NAME = 'keiyaku';

/** CloudEvents distributed-tracing attributes in binary mode (Kafka protocol binding `ce_` prefix). */
export const TRACE_HEADERS = Object.freeze({ traceparent: CE_HEADERS.traceparent, tracestate: CE_HEADERS.tracestate });

/** Plain W3C headers, read when a record carries no CloudEvents trace attributes (other producers). */
const W3C_TRACEPARENT = 'traceparent';
const W3C_TRACESTATE = 'tracestate';

/** OpenTelemetry messaging semantic-convention attribute names. */
export const ATTR = Object.freeze({
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  consumerGroup: 'messaging.consumer.group.name',
  partition: 'messaging.destination.partition.id',
  messageId: 'messaging.message.id',
  kafkaOffset: 'messaging.kafka.offset',
  kafkaKey: 'messaging.kafka.message.key',
  batchCount: 'messaging.batch.message_count',
  eventId: 'cloudevents.event_id',
  eventType: 'cloudevents.event_type',
  eventSource: 'cloudevents.event_source',
  /** Transport offset on transports without their own semantic-convention attribute. */
  offset: 'keiyaku.message.offset',
  /** Handler attempt of this process span (1 = first delivery). */
  attempt: 'keiyaku.handler.attempt',
  channel: 'keiyaku.channel',
});

export function tracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_NAME);
}

/** The API's no-op provider, which a proxy hands out while no SDK registered one. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether an OpenTelemetry SDK registered a tracer provider. Without one no span records and
 * no context is ever active, so the hot path skips tracing altogether (one check per message).
 */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The W3C `traceparent` of `spanContext` (version 00). */
export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a W3C `traceparent` (and `tracestate`) names; undefined when it is malformed. */
export function parseTraceparent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext: SpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & 0x01,
    isRemote: true,
    ...(tracestate === undefined || tracestate === '' ? {} : { traceState: createTraceState(tracestate) }),
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** Writes the trace context of `span` into `headers` when it has a valid one. */
export function injectTraceContext(headers: Record<string, string>, spanContext: SpanContext): void {
  if (!isSpanContextValid(spanContext)) return;
  headers[TRACE_HEADERS.traceparent] = formatTraceparent(spanContext);
  const state = spanContext.traceState?.serialize();
  if (state) headers[TRACE_HEADERS.tracestate] = state;
}

/** The context a record's headers carry (CloudEvents attributes first, then plain W3C headers); undefined when none. */
export function extractTraceContext(headers: Readonly<Record<string, string>>): Context | undefined {
  const ce = headers[TRACE_HEADERS.traceparent];
  const traceparent = ce ?? headers[W3C_TRACEPARENT];
  if (traceparent === undefined) return undefined;
  return remoteContext(traceparent, ce === undefined ? headers[W3C_TRACESTATE] : headers[TRACE_HEADERS.tracestate]);
}

/** A context whose span is the remote one `traceparent` names; undefined when it is malformed. */
export function remoteContext(traceparent: string, tracestate?: string): Context | undefined {
  const spanContext = parseTraceparent(traceparent, tracestate);
  return spanContext === undefined ? undefined : trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** Records `error` on `span` and marks it failed. */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: 2 /* SpanStatusCode.ERROR */, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `fn` with `span` active in `parent` (or the active context). */
export function withSpan<T>(parent: Context | undefined, span: Span, fn: () => T): T {
  return context.with(trace.setSpan(parent ?? context.active(), span), fn);
}

export type { Attributes };
