/**
 * The wire envelope: a JSON payload with CloudEvents 1.0 binary-mode headers (the Kafka
 * protocol binding's `ce_` prefix), key = aggregate id.
 *
 * @see https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/kafka-protocol-binding.md
 */
import { randomUUID } from 'node:crypto';
import type { AnyChannel, AnyContractMessage, DecodeResult } from '../codegen-v1.js';
import { ContractDecodeError } from '../codegen-v1.js';
import type { IncomingRecord, OutgoingRecord } from './transport.js';

export const CE_HEADERS = Object.freeze({
  specversion: 'ce_specversion',
  id: 'ce_id',
  type: 'ce_type',
  source: 'ce_source',
  time: 'ce_time',
  contentType: 'content-type',
  correlationId: 'ce_correlationid',
  causationId: 'ce_causationid',
  /** CloudEvents distributed-tracing extension: the W3C trace context of the message's `send` span. */
  traceparent: 'ce_traceparent',
  tracestate: 'ce_tracestate',
});

export interface EnvelopeOptions {
  /** Message id (`ce_id`); a random UUID by default. */
  readonly id?: string;
  /** Partition key; by default the publisher's `key` function or none. */
  readonly key?: string;
  /** When the event happened (`ce_time`); now by default. */
  readonly time?: Date;
  readonly correlationId?: string;
  readonly causationId?: string;
  /**
   * W3C trace context (`ce_traceparent`/`ce_tracestate`). The publisher sets it from its
   * `send` span; give it only to carry a context captured elsewhere (an outbox row).
   */
  readonly traceparent?: string;
  readonly tracestate?: string;
  /** Extra headers; CloudEvents headers win over these. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Builds the record for `message` on `address`. */
export function encodeEnvelope<M extends AnyContractMessage>(
  channel: AnyChannel<M>,
  message: M,
  address: string,
  source: string,
  options: EnvelopeOptions,
  now: number,
): OutgoingRecord {
  const type = channel.typeOf(message);
  const descriptor = channel.message(type);
  const headers: Record<string, string> = {
    ...options.headers,
    [CE_HEADERS.specversion]: '1.0',
    [CE_HEADERS.id]: options.id ?? randomUUID(),
    [CE_HEADERS.type]: type,
    [CE_HEADERS.source]: source,
    [CE_HEADERS.time]: (options.time ?? new Date(now)).toISOString(),
    [CE_HEADERS.contentType]: descriptor?.contentType ?? 'application/json',
  };
  if (options.correlationId !== undefined) headers[CE_HEADERS.correlationId] = options.correlationId;
  if (options.causationId !== undefined) headers[CE_HEADERS.causationId] = options.causationId;
  if (options.traceparent !== undefined) {
    headers[CE_HEADERS.traceparent] = options.traceparent;
    if (options.tracestate !== undefined) headers[CE_HEADERS.tracestate] = options.tracestate;
  }
  return { address, value: channel.encode(message), headers, ...(options.key === undefined ? {} : { key: options.key }) };
}

export interface OpenedEnvelope<M> {
  readonly type: string;
  readonly id: string;
  readonly time: Date;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly decoded: DecodeResult<M>;
}

/** The message type `record` names in its `ce_type` header, without decoding it; undefined when it has none. */
export function recordType(record: Pick<IncomingRecord, 'headers'>): string | undefined {
  return record.headers[CE_HEADERS.type];
}

/** Reads the CloudEvents headers of `record` and decodes its payload. Never throws. */
export function openEnvelope<M extends AnyContractMessage>(channel: AnyChannel<M>, record: IncomingRecord): OpenedEnvelope<M> {
  const h = record.headers;
  const type = recordType(record);
  const id = h[CE_HEADERS.id] ?? `${record.address}/${record.partition}/${record.offset}`;
  const rawTime = h[CE_HEADERS.time];
  const parsedTime = rawTime === undefined ? Number.NaN : Date.parse(rawTime);
  const time = new Date(Number.isNaN(parsedTime) ? record.timestamp : parsedTime);
  const extra = {
    ...(h[CE_HEADERS.correlationId] === undefined ? {} : { correlationId: h[CE_HEADERS.correlationId] }),
    ...(h[CE_HEADERS.causationId] === undefined ? {} : { causationId: h[CE_HEADERS.causationId] }),
  };
  if (type === undefined) {
    const error = new ContractDecodeError(
      'unknown_type',
      '',
      `record ${record.partition}/${record.offset} on ${record.address} has no ${CE_HEADERS.type} header`,
    );
    return { type: '', id, time, ...extra, decoded: { ok: false, error } };
  }
  return { type, id, time, ...extra, decoded: channel.decode(record.value, type) };
}
