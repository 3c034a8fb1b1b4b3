/**
 * W3C trace context of a message, as the CloudEvents distributed-tracing attributes carry it:
 * the header names, the OpenTelemetry messaging attribute names keiyaku reports, and
 * `traceparent` parsing and formatting. Needs no OpenTelemetry package.
 */
import { CE_HEADERS } from './envelope.js';
import { otelApi } from './otel-api.js';

/** A span's identity as `traceparent`/`tracestate` carry it (OpenTelemetry's `SpanContext` fits). */
export interface TraceContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
  readonly traceState?: { serialize(): string };
}

/** The tracer and meter name keiyaku reports under. */
export const INSTRUMENTATION_NAME = 'keiyaku';

/** CloudEvents distributed-tracing attributes in binary mode (Kafka protocol binding `ce_` prefix). */
export const TRACE_HEADERS = Object.freeze({ traceparent: CE_HEADERS.traceparent, tracestate: CE_HEADERS.tracestate });

/** Plain W3C headers, read when a record carries no CloudEvents trace attributes (other producers). */
export const W3C_TRACEPARENT = 'traceparent';
export const W3C_TRACESTATE = 'tracestate';

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

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The W3C `traceparent` of `spanContext` (version 00). */
export function formatTraceparent(spanContext: TraceContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a W3C `traceparent` (and `tracestate`) names; undefined when it is malformed. */
export function parseTraceparent(traceparent: string, tracestate?: string): TraceContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  // All-zero ids are invalid (W3C trace context).
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  const state = tracestate === undefined || tracestate === '' ? undefined : traceStateOf(tracestate);
  return {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & 0x01,
    isRemote: true,
    ...(state === undefined ? {} : { traceState: state }),
  };
}

/** OpenTelemetry's TraceState when the API is installed (what an SDK reads), else the text as it came. */
function traceStateOf(text: string): { serialize(): string } {
  return otelApi()?.createTraceState(text) ?? { serialize: () => text };
}
