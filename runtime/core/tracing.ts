/**
 * W3C trace context across a message hop, through `@opentelemetry/api` only (an optional peer:
 * without it installed, tracing is off and nothing here is called on the hot path).
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
import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { otelApi } from './otel-api.js';
import {
  formatTraceparent,
  INSTRUMENTATION_NAME,
  parseTraceparent,
  TRACE_HEADERS,
  W3C_TRACEPARENT,
  W3C_TRACESTATE,
} from './trace-context.js';

export { ATTR, formatTraceparent, INSTRUMENTATION_NAME, parseTraceparent, TRACE_HEADERS } from './trace-context.js';

/** keiyaku's tracer; undefined without `@opentelemetry/api`. */
export function tracer(): Tracer | undefined {
  return otelApi()?.trace.getTracer(INSTRUMENTATION_NAME);
}

/** The API's no-op provider, which a proxy hands out while no SDK registered one. */
let noopProvider: unknown;

/**
 * Whether an OpenTelemetry SDK registered a tracer provider. Without one (or without the API)
 * no span records and no context is ever active, so the hot path skips tracing altogether (one
 * check per message).
 */
export function tracingEnabled(): boolean {
  const api = otelApi();
  if (api === undefined) return false;
  noopProvider ??= new api.ProxyTracerProvider().getDelegate();
  const provider = api.trace.getTracerProvider();
  return !(provider instanceof api.ProxyTracerProvider) || provider.getDelegate() !== noopProvider;
}

/** Writes the trace context of `span` into `headers` when it has a valid one. */
export function injectTraceContext(headers: Record<string, string>, spanContext: SpanContext): void {
  if (otelApi()?.isSpanContextValid(spanContext) !== true) return;
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
  const api = otelApi();
  return spanContext === undefined || api === undefined
    ? undefined
    : api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext as SpanContext);
}

/** Records `error` on `span` and marks it failed. */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: 2 /* SpanStatusCode.ERROR */, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `fn` with `span` active in `parent` (or the active context). */
export function withSpan<T>(parent: Context | undefined, span: Span, fn: () => T): T {
  const api = otelApi();
  if (api === undefined) return fn();
  return api.context.with(api.trace.setSpan(parent ?? api.context.active(), span), fn);
}

export type { Attributes };
