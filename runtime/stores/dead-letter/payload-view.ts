/**
 * How a parked payload is shown to an operator (the operations page, `keiyaku dead-letters show`):
 * decoded by its channel's codec when the channel is known and the payload is Avro or Protobuf
 * (the codec's JSON view); as JSON or text when it is textual; otherwise as its bytes (hex or
 * base64), labelled as such. Bytes of a binary format are never shown as text, even when they
 * happen to be valid UTF-8: that is mojibake, not the message.
 */
import { Buffer } from 'node:buffer';
import type { AnyChannel } from '../../core/contract.js';
import type { ParkedMessage } from './types.js';

/**
 * `decoded`: the codec's JSON view of an Avro or Protobuf payload (`format` says which); `json`,
 * `text`: a textual payload; `hex`, `base64`: the bytes of a payload shown as neither.
 */
export type PayloadViewKind = 'decoded' | 'json' | 'text' | 'hex' | 'base64';

export interface PayloadView {
  readonly kind: PayloadViewKind;
  /** The format the payload was decoded from (`avro`, `protobuf`), for `decoded`. */
  readonly format?: string;
  /** Why a binary payload is shown as bytes: its channel is not known here, or its bytes do not decode. */
  readonly note?: string;
  readonly text: string;
}

export interface PayloadViewOptions {
  /** The channel of the parked message, when known: a binary payload is decoded by its codec. */
  readonly channel?: AnyChannel | undefined;
  /** How bytes are shown when nothing else fits (default `hex`). */
  readonly bytes?: 'hex' | 'base64';
  /** Most bytes shown as hex or base64 (default 4096; more are cut with `…`). */
  readonly maxBytes?: number;
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The payload as text, or undefined when it is not valid UTF-8. */
export function payloadText(parked: Pick<ParkedMessage, 'payload'>): string | undefined {
  try {
    return fatalUtf8.decode(parked.payload);
  } catch {
    return undefined;
  }
}

/** Whether a payload of `contentType` is text (JSON, XML, `text/…`); undefined when the record named none. */
function textual(contentType: string | undefined): boolean | undefined {
  if (contentType === undefined || contentType === '') return undefined;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type === 'application/x-www-form-urlencoded'
  );
}

function bytesView(payload: Uint8Array, how: 'hex' | 'base64', max: number, note: string | undefined): PayloadView {
  const bytes = payload.subarray(0, max);
  const cut = payload.length > bytes.length ? ' …' : '';
  const text =
    how === 'hex'
      ? [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ')
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return { kind: how, text: `${text}${cut}`, ...(note === undefined ? {} : { note }) };
}

/**
 * How `parked`'s payload is shown: see the module comment. `type` and `headers` (its
 * `content-type`) are read when given; a record without them is judged by its bytes alone.
 */
export function payloadView(
  parked: Pick<ParkedMessage, 'payload'> & Partial<Pick<ParkedMessage, 'type' | 'headers'>>,
  options: PayloadViewOptions = {},
): PayloadView {
  const how = options.bytes ?? 'hex';
  const max = options.maxBytes ?? 4096;
  const descriptor = parked.type ? options.channel?.message(parked.type) : undefined;
  const codec = descriptor?.codec;
  if (codec !== undefined) {
    const decoded = descriptor!.decode(parked.payload);
    if (decoded.ok) return { kind: 'decoded', format: codec.format, text: JSON.stringify(codec.toJson(decoded.value), null, 2) };
    return bytesView(parked.payload, how, max, `${codec.format} bytes that do not decode: ${decoded.error.message}`);
  }
  const isText = textual(parked.headers?.['content-type']);
  if (isText === false)
    return bytesView(
      parked.payload,
      how,
      max,
      `${parked.headers?.['content-type']} bytes${options.channel === undefined ? '; their channel is not known here, so they are not decoded' : ''}`,
    );
  const text = payloadText(parked);
  if (text === undefined) return bytesView(parked.payload, how, max, 'not UTF-8');
  try {
    return { kind: 'json', text: JSON.stringify(JSON.parse(text), null, 2) };
  } catch {
    return { kind: 'text', text };
  }
}
