/**
 * Tracing: the trace a message carries continues around its handler, one `process` span per
 * attempt. Two steps: `traceStep` reads the trace context once per record, `spanStep` opens the
 * span of each attempt (inside the retry policy). The belt composes them only while an
 * OpenTelemetry SDK is registered; without one they are not in the chain at all.
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { AnyContractMessage } from '../core/contract.js';
import { SPAN_KIND } from '../core/otel-api.js';
import { ATTR, extractTraceContext, failSpan, withSpan } from '../core/tracing.js';
import type { IncomingRecord } from '../core/transport.js';
import type { Belt, BeltStep } from './belt.js';
import { isPromise } from './compose.js';

/** Reads the trace context of the record (W3C or CloudEvents headers) for the spans of its attempts. */
export function traceStep<M extends AnyContractMessage>(): BeltStep<M> {
  return (record, delivery, next) => {
    delivery.parent = extractTraceContext(record.headers);
    return next(record, delivery);
  };
}

/** Opens the span of one attempt around the rest of the chain; a failure marks it and goes on. */
export function spanStep<M extends AnyContractMessage>(belt: Belt<M>, tracer: Tracer): BeltStep<M> {
  return (record, delivery, next) => {
    const { opened, parent } = delivery;
    const span = tracer.startSpan(`process ${belt.address}`, { kind: SPAN_KIND.CONSUMER }, parent);
    if (span.isRecording()) span.setAttributes(spanAttributes(belt, record, opened.id, opened.type, delivery.attempt));
    let result: boolean | Promise<boolean>;
    try {
      result = withSpan(parent, span, () => next(record, delivery));
    } catch (error) {
      failSpan(span, error);
      span.end();
      throw error;
    }
    if (!isPromise(result)) {
      span.end();
      return result;
    }
    return result.then(
      (done) => {
        span.end();
        return done;
      },
      (error: unknown) => {
        failSpan(span, error);
        span.end();
        throw error;
      },
    );
  };
}

function spanAttributes<M extends AnyContractMessage>(
  belt: Belt<M>,
  record: IncomingRecord,
  messageId: string,
  type: string,
  attempt: number,
): Attributes {
  const system = belt.transport.name;
  return {
    [ATTR.system]: system,
    [ATTR.destination]: belt.address,
    [ATTR.operationType]: 'process',
    [ATTR.operationName]: 'process',
    [ATTR.consumerGroup]: belt.groupId,
    [ATTR.partition]: String(record.partition),
    [ATTR.messageId]: messageId,
    [ATTR.eventId]: messageId,
    [ATTR.eventType]: type,
    [ATTR.channel]: belt.channel.id,
    [ATTR.attempt]: attempt,
    ...(system === 'kafka'
      ? { [ATTR.kafkaOffset]: Number(record.offset), ...(record.key === undefined ? {} : { [ATTR.kafkaKey]: record.key }) }
      : { [ATTR.offset]: record.offset }),
  };
}
