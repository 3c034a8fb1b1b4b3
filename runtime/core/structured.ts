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
import { Buffer } from 'node:buffer';

/** How a transport writes the CloudEvents attributes of a record. */
export type ContentMode = 'binary' | 'structured';

/** The content type of a structured record. */
export const STRUCTURED_CONTENT_TYPE = 'application/cloudevents+json; charset=UTF-8';

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

/** Whether a payload of this content type is JSON (so it is the event's `data`, not `data_base64`). */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.toLowerCase();
  return type.startsWith('application/json') || type.startsWith('text/json') || /^[^;]*\+json\b/.test(type);
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
      envelope += `${envelope.length === 1 ? '' : ','}${jsonString(name.slice(CE_PREFIX.length))}:${jsonString(text)}`;
      continue;
    }
    if (name === '__proto__') Object.defineProperty(kept, name, { value: text, enumerable: true, writable: true, configurable: true });
    else kept[name] = text;
  }
  if (contentType !== undefined) envelope += `${envelope.length === 1 ? '' : ','}"datacontenttype":${jsonString(contentType)}`;
  kept[CONTENT_TYPE] = STRUCTURED_CONTENT_TYPE;
  const separator = envelope.length === 1 ? '' : ',';
  if (!isJson(contentType)) {
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

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/** The index after the string that starts at `at` (a quote), or -1 when it does not end. */
function stringEnd(bytes: Buffer, at: number): number {
  for (let i = at + 1; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i++;
    else if (c < 0x20) return -1;
  }
  return -1;
}

/** The string that starts at `at` (a quote) and ends before `end`, unescaped; undefined when it is not a JSON string. */
function stringAt(bytes: Buffer, at: number, end: number): string | undefined {
  let ascii = true;
  for (let i = at + 1; i < end - 1; i++) {
    const c = bytes[i]!;
    if (c === BACKSLASH) {
      try {
        return JSON.parse(bytes.toString('utf8', at, end)) as string;
      } catch {
        return undefined;
      }
    }
    if (c > 0x7f) ascii = false;
  }
  return bytes.toString(ascii ? 'latin1' : 'utf8', at + 1, end - 1);
}

/** The index after the JSON value that starts at `at`, or -1. Containers are matched by depth (their content is checked when it is parsed). */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = at; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (c === QUOTE) {
        const end = stringEnd(bytes, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = at;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
    i++;
  }
  return i > at ? i : -1;
}

/**
 * The binary-mode form of a structured record: the event's attributes become `ce_` headers
 * (`datacontenttype` the `content-type`), its `data` the value (a view of `value`, not a
 * copy; `data_base64` decoded). Headers that are not CloudEvents attributes are kept. Undefined
 * when `value` is not a JSON object of the JSON event format (the record is then left as it
 * came and fails to decode like any unreadable record).
 */
export function fromStructured(
  headers: Readonly<Record<string, string>>,
  value: Uint8Array,
): { readonly headers: Record<string, string>; readonly value: Uint8Array } | undefined {
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const out: Record<string, string> = {};
  for (const name in headers) {
    if (!Object.hasOwn(headers, name) || name === CONTENT_TYPE) continue;
    if (name === '__proto__')
      Object.defineProperty(out, name, { value: headers[name], enumerable: true, writable: true, configurable: true });
    else out[name] = headers[name]!;
  }
  let data: Uint8Array | undefined;
  let contentType: string | undefined;
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== 0x7b) return undefined;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === 0x7d) i++;
  else {
    while (true) {
      if (bytes[i] !== QUOTE) return undefined;
      const keyEnd = stringEnd(bytes, i);
      if (keyEnd < 0) return undefined;
      const name = stringAt(bytes, i, keyEnd);
      if (name === undefined) return undefined;
      i = skipSpace(bytes, keyEnd);
      if (bytes[i] !== 0x3a) return undefined;
      i = skipSpace(bytes, i + 1);
      const end = valueEnd(bytes, i);
      if (end < 0) return undefined;
      if (name === 'data') data = new Uint8Array(bytes.buffer, bytes.byteOffset + i, end - i);
      else {
        let text: string | undefined;
        if (bytes[i] === QUOTE) text = stringAt(bytes, i, end);
        else {
          // A number or a literal, as its JSON text (CloudEvents attributes are never objects or arrays).
          text = bytes.toString('latin1', i, end);
          if (!LITERAL.test(text)) return undefined;
          if (text === 'null') text = '';
        }
        if (text === undefined) return undefined;
        if (text !== '' || bytes[i] === QUOTE) {
          if (name === 'data_base64') data = Buffer.from(text, 'base64');
          else if (name === 'datacontenttype') contentType = text;
          else out[CE_PREFIX + name] = text;
        }
      }
      i = skipSpace(bytes, end);
      if (bytes[i] === 0x2c) {
        i = skipSpace(bytes, i + 1);
        continue;
      }
      if (bytes[i] !== 0x7d) return undefined;
      i++;
      break;
    }
  }
  if (skipSpace(bytes, i) !== bytes.length) return undefined;
  out[CONTENT_TYPE] = contentType ?? 'application/json';
  return { headers: out, value: data ?? new Uint8Array(0) };
}

/**
 * `record` in binary-mode shape: converted when it arrived as a structured CloudEvent,
 * itself otherwise (one header read per record).
 */
export function binaryRecord<R extends { readonly headers: Readonly<Record<string, string>>; readonly value: Uint8Array }>(record: R): R {
  if (!isStructured(record.headers)) return record;
  const converted = fromStructured(record.headers, record.value);
  return converted === undefined ? record : { ...record, headers: converted.headers, value: converted.value };
}
