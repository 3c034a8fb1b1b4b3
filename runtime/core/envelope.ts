/**
 * The wire envelope: a JSON payload with CloudEvents 1.0 binary-mode headers (the Kafka
 * protocol binding's `ce_` prefix), key = aggregate id.
 *
 * @see https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/kafka-protocol-binding.md
 */
import type { AnyChannel, AnyContractMessage, DecodeResult } from './contract.js';
import { ContractDecodeError } from './contract.js';
import { messageId } from './ids.js';
import { binaryRecord, isStructured } from './structured.js';
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

export interface EnvelopeOptions<H = Readonly<Record<string, string>>> {
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
  /**
   * Headers. Where the contract declares a headers schema for the message, these are its
   * typed headers, validated before anything is sent; otherwise free string headers.
   * CloudEvents headers win over these.
   */
  readonly headers?: H;
}

let lastNow = Number.NaN;
let lastIso = '';
/** `now` as ISO 8601; a burst of messages in one millisecond formats it once. */
function isoTime(now: number): string {
  if (now !== lastNow) {
    lastIso = new Date(now).toISOString();
    lastNow = now;
  }
  return lastIso;
}

/** Builds the record for `message` on `address`; throws a ContractValidationError when its contract headers do not validate. */
export function encodeEnvelope<M extends AnyContractMessage>(
  channel: AnyChannel<M>,
  message: M,
  address: string,
  source: string,
  options: EnvelopeOptions<unknown>,
  now: number,
): OutgoingRecord {
  return envelopeRecord(channel, message, address, source, options, options.key, now);
}

/** @internal {@link encodeEnvelope} with the partition key given apart (the publisher's hot path). */
export function envelopeRecord<M extends AnyContractMessage>(
  channel: AnyChannel<M>,
  message: M,
  address: string,
  source: string,
  options: EnvelopeOptions<unknown>,
  key: string | undefined,
  now: number,
): OutgoingRecord {
  const type = channel.typeOf(message);
  const descriptor = channel.message(type);
  const codec = descriptor?.headers;
  const id = options.id ?? messageId();
  const time = options.time === undefined ? isoTime(now) : options.time.toISOString();
  const contentType = descriptor?.contentType ?? 'application/json';
  let headers: Record<string, string>;
  // Contract headers are validated (and a message that lacks a required one refused) even when none are given.
  const given = codec !== undefined ? codec.encode(options.headers) : (options.headers as Readonly<Record<string, string>> | undefined);
  if (options.headers === undefined) {
    // The usual case: the CloudEvents headers alone, built as one literal (one allocation, no
    // property added one by one; the names are CE_HEADERS', spelled out: computed keys would be
    // added one by one again).
    headers = { ce_specversion: '1.0', ce_id: id, ce_type: type, ce_source: source, ce_time: time, 'content-type': contentType };
  } else {
    headers = codec !== undefined ? (given as Record<string, string>) : { ...(given as Readonly<Record<string, string>>) };
    headers[CE_HEADERS.specversion] = '1.0';
    headers[CE_HEADERS.id] = id;
    headers[CE_HEADERS.type] = type;
    headers[CE_HEADERS.source] = source;
    headers[CE_HEADERS.time] = time;
    headers[CE_HEADERS.contentType] = contentType;
  }
  if (options.correlationId !== undefined) headers[CE_HEADERS.correlationId] = options.correlationId;
  if (options.causationId !== undefined) headers[CE_HEADERS.causationId] = options.causationId;
  if (options.traceparent !== undefined) {
    headers[CE_HEADERS.traceparent] = options.traceparent;
    if (options.tracestate !== undefined) headers[CE_HEADERS.tracestate] = options.tracestate;
  }
  // A channel whose bytes depend on the address (a Schema Registry subject named after the topic) encodes for it.
  const value =
    channel.encodeFor !== undefined
      ? channel.encodeFor(message, address)
      : descriptor === undefined
        ? channel.encode(message)
        : descriptor.encode(message);
  return key === undefined ? { address, value, headers } : { address, key, value, headers };
}

export interface OpenedEnvelope<M> {
  readonly type: string;
  readonly id: string;
  readonly time: Date;
  readonly correlationId?: string;
  readonly causationId?: string;
  /** The message, or why it could not be decoded: its contract headers or its payload do not satisfy the contract. */
  readonly decoded: DecodeResult<M>;
  /** The contract headers of the message, validated, when its type declares a headers schema and they decoded. */
  readonly headers?: Readonly<Record<string, unknown>>;
}

let lastRawTime = '';
let lastParsedTime = Number.NaN;
/** `Date.parse`, once per distinct `ce_time` in a row (a burst shares its millisecond). */
function parseTime(raw: string): number {
  if (raw !== lastRawTime) {
    lastParsedTime = Date.parse(raw);
    lastRawTime = raw;
  }
  return lastParsedTime;
}

/**
 * The message type of `record`, without decoding it: its `ce_type` header; else, on a channel that
 * carries one message type only, that type — a producer that writes no CloudEvents headers (the
 * Confluent serdes of Java, Go or Python writing a registry-framed payload) still reaches the
 * channel's handler. Undefined when neither tells (a structured CloudEvent is read by its own rules).
 */
export function recordType(record: Pick<IncomingRecord, 'headers'>, channel?: Pick<AnyChannel, 'messageTypes'>): string | undefined {
  const type = record.headers[CE_HEADERS.type];
  if (type !== undefined || channel === undefined || channel.messageTypes.length !== 1 || isStructured(record.headers)) return type;
  return channel.messageTypes[0];
}

/**
 * Reads the CloudEvents attributes of `record` (binary mode, or structured: see
 * core/structured.ts), validates its contract headers (when its type
 * declares a headers schema) and decodes its payload. Never throws.
 */
export function openEnvelope<M extends AnyContractMessage>(channel: AnyChannel<M>, incoming: IncomingRecord): OpenedEnvelope<M> {
  const record = binaryRecord(incoming);
  const type = record === incoming ? recordType(record, channel) : record.headers[CE_HEADERS.type];
  return openRecord(channel, record, type);
}

/**
 * @internal {@link openEnvelope} of a record already in binary-mode shape (or structured and not
 * convertible), whose type the caller read with {@link recordType}: the belt's route step reads
 * it, and its records were converted when the lanes took them.
 */
export function openRecord<M extends AnyContractMessage>(
  channel: AnyChannel<M>,
  record: IncomingRecord,
  type: string | undefined,
): OpenedEnvelope<M> {
  const h = record.headers;
  const id = h[CE_HEADERS.id] ?? `${record.address}/${record.partition}/${record.offset}`;
  const rawTime = h[CE_HEADERS.time];
  const parsedTime = rawTime === undefined ? Number.NaN : parseTime(rawTime);
  const time = new Date(Number.isNaN(parsedTime) ? record.timestamp : parsedTime);
  const correlationId = h[CE_HEADERS.correlationId];
  const causationId = h[CE_HEADERS.causationId];
  let decoded: DecodeResult<M>;
  let headers: Readonly<Record<string, unknown>> | undefined;
  if (type === undefined) {
    const error = new ContractDecodeError(
      'unknown_type',
      '',
      !isStructured(h)
        ? `record ${record.partition}/${record.offset} on ${record.address} has no ${CE_HEADERS.type} header`
        : `record ${record.partition}/${record.offset} on ${record.address} is a structured CloudEvent (content-type ${record.headers[CE_HEADERS.contentType]}) whose value is not a JSON event format object`,
    );
    decoded = { ok: false, error };
  } else {
    const codec = channel.message(type)?.headers;
    const checked = codec?.decode(h);
    if (checked !== undefined && !checked.ok) decoded = checked;
    else {
      headers = checked?.value;
      decoded = channel.decode(record.value, type);
    }
  }
  // The usual records (validated contract headers or none, no correlation) get one literal
  // each: a property added afterwards changes the object's shape and may allocate a backing store.
  const opened: { -readonly [K in keyof OpenedEnvelope<M>]: OpenedEnvelope<M>[K] } =
    headers === undefined ? { type: type ?? '', id, time, decoded } : { type: type ?? '', id, time, decoded, headers };
  if (correlationId !== undefined) opened.correlationId = correlationId;
  if (causationId !== undefined) opened.causationId = causationId;
  return opened;
}
