/**
 * CloudEvents structured content mode (Kafka protocol binding §3.3, JSON event format): the
 * whole event — attributes and data — is the record's value, `content-type:
 * application/cloudevents+json`, and the record carries no `ce_` headers.
 *
 * Inside keiyaku every record keeps the binary-mode shape (`ce_` headers, the value is the
 * payload): a transport that writes structured records converts on the way out
 * ({@link toStructured}); every reader converts records that arrive structured back
 * ({@link fromStructured}), whatever mode it writes, so a consumer reads both modes. Headers
 * that are not CloudEvents attributes (the contract's headers) stay transport headers in both
 * modes.
 *
 * @see https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/kafka-protocol-binding.md#33-structured-content-mode
 * @see https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/formats/json-format.md
 */
import { Buffer, isUtf8 } from 'node:buffer';
import type { AnyChannel } from './contract.js';
import { KeiyakuError } from './errors.js';

/** How a transport writes the CloudEvents attributes of a record. */
export type ContentMode = 'binary' | 'structured';

/**
 * The content type of a structured record (the JSON event format is UTF-8 by definition, so no
 * charset parameter: every byte a record carries costs kafkajs a copy, and a record of more than
 * 512 bytes a second, larger buffer).
 */
export const STRUCTURED_CONTENT_TYPE = 'application/cloudevents+json';

/**
 * A channel whose messages are Avro or Protobuf bytes, configured for structured content mode: the
 * structured event of keiyaku is the JSON event format, whose `data` is JSON (a binary payload
 * would travel as `data_base64`, which no Avro or Protobuf consumer of the topic reads). Thrown
 * when the publisher or subscription is made, not at the first send.
 */
export class StructuredBinaryPayloadError extends KeiyakuError {
  override readonly name = 'StructuredBinaryPayloadError';
  readonly channel: string;
  /** The message type whose payload is binary. */
  readonly messageType: string;
  readonly format: string;

  constructor(channel: string, address: string, messageType: string, format: string) {
    super(
      'structured_binary_payload',
      `channel ${channel} (${address}) carries ${messageType}, a ${format} payload, but is written in CloudEvents structured content mode, ` +
        `whose JSON event holds JSON payloads only: set contentMode "binary" for it (KafkaTransportOptions.contentModes["${address}"] = "binary", ` +
        'or contentMode "binary" for the transport)',
    );
    this.channel = channel;
    this.messageType = messageType;
    this.format = format;
  }
}

/**
 * Throws {@link StructuredBinaryPayloadError} when `channel`, written in `mode` at `address`, is
 * structured and carries a message whose payload is not JSON (Avro, Protobuf).
 */
export function refuseStructuredBinary(channel: AnyChannel, address: string, mode: ContentMode): void {
  if (mode !== 'structured') return;
  for (const type of channel.messageTypes) {
    const format = channel.message(type)?.format ?? 'json';
    if (format !== 'json') throw new StructuredBinaryPayloadError(channel.id, address, type, format);
  }
}

const CE_PREFIX = 'ce_';
/** The binding's `content-type` header (`CE_HEADERS.contentType`). */
const CONTENT_TYPE = 'content-type';

const STRUCTURED = /^application\/cloudevents\+json/i;

/** Whether a record with these headers is a structured-mode CloudEvent. */
export function isStructured(headers: Readonly<Record<string, string>>): boolean {
  const type = headers[CONTENT_TYPE];
  // `application/json` and the like are told apart at their 13th character before any regular expression runs.
  return type !== undefined && (type.charCodeAt(12) | 0x20) === 0x63 && STRUCTURED.test(type);
}

/** A JSON string literal of `text`: as is between quotes when nothing needs escaping. */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** The last member written for each attribute header: most values repeat from record to record (type, source, a burst's time). */
const members = new Map<string, { text: string; member: string }>();

/** `"attribute":"value"` of header `name` (`ce_` + attribute). */
function member(name: string, text: string): string {
  const last = members.get(name);
  if (last !== undefined && last.text === text) return last.member;
  const written = `${jsonString(name.slice(CE_PREFIX.length))}:${jsonString(text)}`;
  if (last !== undefined) {
    last.text = text;
    last.member = written;
  } else if (members.size < 64) members.set(name, { text, member: written });
  return written;
}

/** The last content type {@link isJson} judged, and its verdict (a producer writes one or two). */
let lastContentType: string | undefined;
let lastIsJson = true;

/** Whether a payload of this content type is JSON (so it is the event's `data`, not `data_base64`). */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  if (contentType === lastContentType) return lastIsJson;
  const type = contentType.toLowerCase();
  lastIsJson = type.startsWith('application/json') || type.startsWith('text/json') || /^[^;]*\+json\b/.test(type);
  lastContentType = contentType;
  return lastIsJson;
}

/** First and last bytes a JSON text can have (after whitespace). */
const JSON_FIRST = new Set([0x7b, 0x5b, 0x22, 0x2d, 0x74, 0x66, 0x6e, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39]);
const JSON_LAST = new Set([0x7d, 0x5d, 0x22, 0x65, 0x6c, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39]);

/**
 * Whether `value` can be the event's `data` as it is: UTF-8 that starts and ends like JSON. What
 * keiyaku's codecs write always is; other bytes sent through a producer (a test's garbage, a
 * payload that is not JSON) travel as `data_base64`, so the event stays one a reader can read.
 */
function embeddable(value: Uint8Array): boolean {
  let first = 0;
  while (first < value.length && (value[first] === 0x20 || value[first] === 0x0a || value[first] === 0x0d || value[first] === 0x09))
    first++;
  let last = value.length - 1;
  while (last > first && (value[last] === 0x20 || value[last] === 0x0a || value[last] === 0x0d || value[last] === 0x09)) last--;
  return first <= last && JSON_FIRST.has(value[first]!) && JSON_LAST.has(value[last]!) && isUtf8(value);
}

/**
 * The structured form of a binary-mode record: its `ce_` headers and `content-type` become the
 * event's attributes, its value the event's `data` (`data_base64` when the content type is not
 * JSON), and the other headers stay headers beside `content-type: application/cloudevents+json`.
 */
export function toStructured(
  headers: Readonly<Record<string, string>>,
  value: Uint8Array,
): { readonly headers: Record<string, string>; readonly value: Buffer } {
  const kept: Record<string, string> = {};
  let envelope = '{';
  let contentType: string | undefined;
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const text = headers[name]!;
    if (name === CONTENT_TYPE) {
      contentType = text;
      continue;
    }
    if (name.startsWith(CE_PREFIX)) {
      envelope += `${envelope.length === 1 ? '' : ','}${member(name, text)}`;
      continue;
    }
    if (name === '__proto__') Object.defineProperty(kept, name, { value: text, enumerable: true, writable: true, configurable: true });
    else kept[name] = text;
  }
  // `application/json` is what an event without `datacontenttype` holds (JSON event format §3.1): not written.
  if (contentType !== undefined && contentType !== 'application/json')
    envelope += `${envelope.length === 1 ? '' : ','}"datacontenttype":${jsonString(contentType)}`;
  kept[CONTENT_TYPE] = STRUCTURED_CONTENT_TYPE;
  const separator = envelope.length === 1 ? '' : ',';
  if (!isJson(contentType) || !embeddable(value)) {
    envelope += `${separator}"data_base64":"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"}`;
    return { headers: kept, value: Buffer.from(envelope, 'utf8') };
  }
  if (value.byteLength === 0) return { headers: kept, value: Buffer.from(`${envelope}}`, 'utf8') };
  envelope += `${separator}"data":`;
  const head = Buffer.byteLength(envelope, 'utf8');
  const bytes = Buffer.allocUnsafe(head + value.byteLength + 1);
  bytes.write(envelope, 0, 'utf8');
  bytes.set(value, head);
  bytes[head + value.byteLength] = 0x7d; // }
  return { headers: kept, value: bytes };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Whether the text being read holds a backslash anywhere (decided once per record). */
let anyEscape = false;

/** The index after the string that starts at `at` (a quote), negated when it holds an escape; 0 when it does not end. */
function stringEnd(text: string, at: number): number {
  if (!anyEscape) return text.indexOf('"', at + 1) + 1;
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return -(i + 1);
    if (c === BACKSLASH) i++;
  }
  return 0;
}

/** The JSON string between `at` (its opening quote) and `end` (after its closing quote), unescaped; undefined when it is not one. */
function stringValue(text: string, at: number, end: number, escaped: boolean): string | undefined {
  if (!escaped) return text.slice(at + 1, end - 1);
  try {
    return JSON.parse(text.slice(at, end)) as string;
  } catch {
    return undefined;
  }
}

/** The index after the JSON value that starts at `at`, or 0. Containers are matched by depth (their content is checked when it is parsed). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return Math.abs(stringEnd(text, at));
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        const end = Math.abs(stringEnd(text, i));
        if (end === 0) return 0;
        i = end - 1;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return 0;
  }
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
    i++;
  }
  return i > at ? i : 0;
}

/** The header of an attribute: `ce_` + its name (the usual ones as literals, no string built per record). */
function headerName(attribute: string): string {
  switch (attribute) {
    case 'id':
      return 'ce_id';
    case 'type':
      return 'ce_type';
    case 'source':
      return 'ce_source';
    case 'specversion':
      return 'ce_specversion';
    case 'time':
      return 'ce_time';
    case 'subject':
      return 'ce_subject';
    case 'dataschema':
      return 'ce_dataschema';
    case 'correlationid':
      return 'ce_correlationid';
    case 'causationid':
      return 'ce_causationid';
    case 'traceparent':
      return 'ce_traceparent';
    case 'tracestate':
      return 'ce_tracestate';
    default:
      return CE_PREFIX + attribute;
  }
}

/**
 * The binary-mode form of a structured record: the event's attributes become `ce_` headers
 * (`datacontenttype` the `content-type`), its `data` the value (a view of `value`, not a
 * copy; `data_base64` decoded). Headers that are not CloudEvents attributes are kept. Undefined
 * when `value` is not UTF-8 JSON object of the JSON event format (the record is then left as it
 * came and fails to decode like any unreadable record).
 */
export function fromStructured(
  headers: Readonly<Record<string, string>>,
  value: Uint8Array,
): { readonly headers: Record<string, string>; readonly value: Uint8Array } | undefined {
  let text: string;
  try {
    text = fatalUtf8.decode(value);
  } catch {
    return undefined;
  }
  anyEscape = text.indexOf('\\') >= 0;
  const out: Record<string, string> = {};
  for (const name in headers) {
    if (!Object.hasOwn(headers, name) || name === CONTENT_TYPE) continue;
    if (name === '__proto__')
      Object.defineProperty(out, name, { value: headers[name], enumerable: true, writable: true, configurable: true });
    else out[name] = headers[name]!;
  }
  let dataStart = -1;
  let dataEnd = -1;
  let base64: string | undefined;
  let contentType: string | undefined;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) i++;
  else {
    while (true) {
      if (text.charCodeAt(i) !== QUOTE) return undefined;
      const keyEnd = stringEnd(text, i);
      if (keyEnd === 0) return undefined;
      const name = stringValue(text, i, Math.abs(keyEnd), keyEnd < 0);
      if (name === undefined) return undefined;
      i = skipSpace(text, Math.abs(keyEnd));
      if (text.charCodeAt(i) !== 0x3a) return undefined;
      i = skipSpace(text, i + 1);
      const end = valueEnd(text, i);
      if (end === 0) return undefined;
      if (name === 'data') {
        dataStart = i;
        dataEnd = end;
      } else {
        let attribute: string | undefined;
        if (text.charCodeAt(i) === QUOTE) {
          attribute = stringValue(text, i, end, stringEnd(text, i) < 0);
          if (attribute === undefined) return undefined;
        } else {
          // A number or a literal, as its JSON text (CloudEvents attributes are never objects or
          // arrays); null is an absent attribute.
          const literal = text.slice(i, end);
          if (!LITERAL.test(literal)) return undefined;
          if (literal !== 'null') {
            if (name === 'data_base64' || name === 'datacontenttype') return undefined;
            attribute = literal;
          }
        }
        if (attribute !== undefined) {
          if (name === 'data_base64') base64 = attribute;
          else if (name === 'datacontenttype') contentType = attribute;
          else out[headerName(name)] = attribute;
        }
      }
      i = skipSpace(text, end);
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i = skipSpace(text, i + 1);
        continue;
      }
      if (c !== 0x7d) return undefined;
      i++;
      break;
    }
  }
  if (skipSpace(text, i) !== text.length) return undefined;
  out[CONTENT_TYPE] = contentType ?? 'application/json';
  let data: Uint8Array;
  if (dataStart >= 0) {
    // Character offsets are byte offsets in ASCII text; otherwise count the bytes before each end.
    const ascii = text.length === value.byteLength;
    const from = ascii ? dataStart : Buffer.byteLength(text.slice(0, dataStart), 'utf8');
    const to = ascii ? dataEnd : from + Buffer.byteLength(text.slice(dataStart, dataEnd), 'utf8');
    data = value.subarray(from, to);
  } else if (base64 !== undefined) data = new Uint8Array(Buffer.from(base64, 'base64'));
  else data = new Uint8Array(0);
  return { headers: out, value: data };
}

/**
 * `record` in binary-mode shape: converted when it arrived as a structured CloudEvent,
 * itself otherwise (one header read per record).
 */
export function binaryRecord<R extends { readonly headers: Readonly<Record<string, string>>; readonly value: Uint8Array }>(record: R): R {
  if (!isStructured(record.headers)) return record;
  const converted = fromStructured(record.headers, record.value);
  if (converted === undefined) return record;
  // Assigned to a copy made by Object.assign, not spread into a literal with more properties
  // (that makes a slow dictionary-mode object).
  const copy = Object.assign({}, record) as { -readonly [K in keyof R]: R[K] };
  copy.headers = converted.headers;
  copy.value = converted.value;
  return copy;
}
