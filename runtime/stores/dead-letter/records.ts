/**
 * What the durable dead-letter stores share: the columns a parked message is written to (text
 * escaped when a database could not hold it exactly), the checked reading of a stored row back
 * into a {@link ParkedMessage} or a {@link ParkedSummary}, and the error for a row that cannot be
 * read. `@keiyaku/sqlite` and `@keiyaku/postgres` use it through `@keiyaku/runtime/adapter`.
 *
 * Escaping: a parked message may carry any text — a NUL from a hostile header, a lone surrogate
 * decoded from broken bytes — that PostgreSQL `text`/`jsonb` refuses and SQLite's UTF-8 replaces.
 * When any text of a message (a column or a header name or value) holds a NUL or a lone
 * surrogate, the row is written with `escaped` set and *every* text of it escaped as the body of a
 * JSON string (`JSON.stringify(text)` without its quotes: `\u0000`, `\ud800`, `\\`, `\"`, control
 * characters). Rows without such text are stored as they are, so SQL on them reads plain text.
 * The payload is bytes (BLOB / BYTEA) and is never escaped.
 */
import { KeiyakuError } from '../../core/errors.js';
import type { DeadLetterFilter, DeadLetterPage, ParkedMessage, ParkedSummary, ParkRequest } from './types.js';

/** A stored record that cannot be read back (a column of the wrong type, headers that are not a JSON object of strings). */
export class DeadLetterRecordError extends KeiyakuError {
  override readonly name = 'DeadLetterRecordError';
  constructor(id: unknown, detail: string, cause?: unknown) {
    // An id of a damaged row may be anything, even an object String() cannot convert.
    const shown = typeof id === 'object' && id !== null ? '(an object)' : JSON.stringify(String(id)).slice(0, 80);
    super('dead_letter_record_invalid', `dead-letter record ${shown} cannot be read: ${detail}`, {
      retriable: false,
      cause,
    });
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `text` holds a NUL or a lone surrogate: text a database column cannot keep exactly. */
export function needsEscaping(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text);
}

/** `text` as the body of a JSON string: only ASCII escapes for what a database cannot hold. */
export function escapeText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The text {@link escapeText} escaped; undefined when `stored` is not such an escape. */
export function unescapeText(stored: string): string | undefined {
  try {
    const text: unknown = JSON.parse(`"${stored}"`);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The text columns of a parked message as a store writes them. */
export interface DeadLetterColumns {
  /** Every text below (and every header name and value) is escaped with {@link escapeText}. */
  readonly escaped: boolean;
  readonly channel: string;
  readonly address: string;
  readonly topic: string | null;
  readonly groupId: string;
  readonly type: string;
  /** The headers as the text of a JSON object. */
  readonly headers: string;
  readonly key: string | null;
  readonly offset: string | null;
  readonly errorName: string;
  readonly errorMessage: string;
  readonly errorStack: string | null;
}

function texts(request: ParkRequest): string[] {
  const all = [request.channel, request.address, request.groupId, request.type, request.error.name, request.error.message];
  for (const optional of [request.topic, request.key, request.offset, request.error.stack]) if (optional !== undefined) all.push(optional);
  for (const [name, value] of Object.entries(request.headers)) all.push(name, value);
  return all;
}

function headersObject(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const headers: Record<string, string> = {};
  // defineProperty: a header named `__proto__` is a header, not the prototype.
  for (const [name, value] of entries)
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  return headers;
}

/** The columns a store writes for `request`: as they are, or all escaped when any text needs it. */
export function deadLetterColumns(request: ParkRequest): DeadLetterColumns {
  const escaped = texts(request).some(needsEscaping);
  const t = escaped ? escapeText : (text: string) => text;
  const optional = (text: string | undefined) => (text === undefined ? null : t(text));
  const entries = Object.entries(request.headers).map(([name, value]) => [t(name), t(value)] as const);
  return {
    escaped,
    channel: t(request.channel),
    address: t(request.address),
    topic: optional(request.topic),
    groupId: t(request.groupId),
    type: t(request.type),
    headers: JSON.stringify(headersObject(entries)),
    key: optional(request.key),
    offset: optional(request.offset),
    errorName: t(request.error.name),
    errorMessage: t(request.error.message),
    errorStack: optional(request.error.stack),
  };
}

/**
 * Filter values for a query that matches plain rows on the text and escaped rows on its escape:
 * `channelFiltered` says whether to filter at all; `channel` is null when the text could not be in
 * a plain row (it needs escaping, and the database could not even take it as a parameter).
 */
export interface DeadLetterFilterColumns {
  readonly channelFiltered: boolean;
  readonly channel: string | null;
  readonly channelEscaped: string | null;
  readonly groupIdFiltered: boolean;
  readonly groupId: string | null;
  readonly groupIdEscaped: string | null;
}

export function deadLetterFilterColumns(filter: DeadLetterFilter = {}): DeadLetterFilterColumns {
  const plain = (text: string | undefined) => (text === undefined || needsEscaping(text) ? null : text);
  const escaped = (text: string | undefined) => (text === undefined ? null : escapeText(text));
  return {
    channelFiltered: filter.channel !== undefined,
    channel: plain(filter.channel),
    channelEscaped: escaped(filter.channel),
    groupIdFiltered: filter.groupId !== undefined,
    groupId: plain(filter.groupId),
    groupIdEscaped: escaped(filter.groupId),
  };
}

/** The number of summaries a page asks for (default 100); a limit that is not a whole number ≥ 0 is a RangeError. */
export function pageLimit(page: DeadLetterPage = {}): number {
  const limit = page.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new RangeError(`dead-letter page limit must be a whole number ≥ 0, got ${String(limit)}`);
  return limit;
}

/** A claim lease must be a finite number of milliseconds ≥ 0; anything else is a RangeError. */
export function checkLease(leaseMs: number): number {
  if (!Number.isFinite(leaseMs) || leaseMs < 0)
    throw new RangeError(`dead-letter claim lease must be a number of milliseconds ≥ 0, got ${String(leaseMs)}`);
  return leaseMs;
}

/** The record `park` returns: frozen, with copies of the request's values. */
export function parkedFromRequest(id: string, request: ParkRequest, parkedAt: Date): ParkedMessage {
  return Object.freeze({
    id,
    channel: request.channel,
    address: request.address,
    ...(request.topic === undefined ? {} : { topic: request.topic }),
    groupId: request.groupId,
    type: request.type,
    payload: new Uint8Array(request.payload),
    headers: headersObject(Object.entries(request.headers)),
    ...(request.key === undefined ? {} : { key: request.key }),
    ...(request.partition === undefined ? {} : { partition: request.partition }),
    ...(request.offset === undefined ? {} : { offset: request.offset }),
    error: {
      name: request.error.name,
      message: request.error.message,
      ...(request.error.stack === undefined ? {} : { stack: request.error.stack }),
    },
    attempts: request.attempts,
    firstFailureAt: new Date(request.firstFailureAt.getTime()),
    lastFailureAt: new Date(request.lastFailureAt.getTime()),
    parkedAt: new Date(parkedAt.getTime()),
  });
}

/** What a list shows of a parked message (no payload, headers or stack). */
export function summaryOf(parked: ParkedMessage): ParkedSummary {
  const { payload, headers: _headers, error, ...rest } = parked;
  return Object.freeze({ ...rest, error: { name: error.name, message: error.message }, payloadBytes: payload.byteLength });
}

/** How a database hands back the columns whose representation differs between stores. */
export interface DeadLetterRowFormat {
  /** Times as milliseconds since the epoch (SQLite) or as Date values (pg's `timestamptz`). */
  readonly times: 'epoch-ms' | 'date';
  /** Headers as JSON text (SQLite) or as the parsed value (pg's `jsonb`). */
  readonly headers: 'json-text' | 'json-value';
  /** The name of the payload's column type in messages (`blob`, `bytea`). */
  readonly bytes: string;
}

type Row = Record<string, unknown>;

function describe(value: unknown): string {
  return value === null ? 'null' : value instanceof Date ? 'an invalid date' : typeof value;
}

class RowReader {
  readonly id: string;
  readonly #row: Row;
  readonly #format: DeadLetterRowFormat;
  readonly #escaped: boolean;

  constructor(input: unknown, format: DeadLetterRowFormat) {
    if (typeof input !== 'object' || input === null) throw new DeadLetterRecordError(undefined, 'the row is not an object');
    this.#row = input as Row;
    this.#format = format;
    const id = this.#row['id'];
    if (typeof id !== 'string') throw new DeadLetterRecordError(id, `column id is ${describe(id)}, expected text`);
    this.id = id;
    // Rows written before the column existed have none (undefined when a caller builds the row).
    const escaped = this.#row['escaped'];
    if (escaped === undefined || escaped === null || escaped === false || escaped === 0) this.#escaped = false;
    else if (escaped === true || escaped === 1) this.#escaped = true;
    else throw this.#wrong('escaped', 'a boolean');
  }

  #wrong(name: string, expected: string): DeadLetterRecordError {
    return new DeadLetterRecordError(this.id, `column ${name} is ${describe(this.#row[name])}, expected ${expected}`);
  }

  #unescape(name: string, stored: string): string {
    if (!this.#escaped) return stored;
    const text = unescapeText(stored);
    if (text === undefined) throw new DeadLetterRecordError(this.id, `column ${name} is not escaped text (the row is marked escaped)`);
    return text;
  }

  text(name: string): string {
    const value = this.#row[name];
    if (typeof value !== 'string') throw this.#wrong(name, 'text');
    return this.#unescape(name, value);
  }

  /** Undefined for null, and for a column the row does not have when `absentOk` (older rows). */
  optionalText(name: string, absentOk = false): string | undefined {
    const value = this.#row[name];
    if (value === null || (absentOk && value === undefined)) return undefined;
    if (typeof value !== 'string') throw this.#wrong(name, 'text or null');
    return this.#unescape(name, value);
  }

  integer(name: string): number {
    const value = this.#row[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw this.#wrong(name, 'integer');
    return value;
  }

  optionalInteger(name: string): number | undefined {
    const value = this.#row[name];
    if (value === null) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw this.#wrong(name, 'integer or null');
    return value;
  }

  time(name: string): Date {
    const value = this.#row[name];
    if (this.#format.times === 'date') {
      if (value instanceof Date && !Number.isNaN(value.getTime())) return new Date(value.getTime());
    } else if (typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= 8.64e15) return new Date(value);
    throw this.#wrong(name, 'a time');
  }

  bytes(name: string): Uint8Array {
    const value = this.#row[name];
    if (!(value instanceof Uint8Array)) throw this.#wrong(name, this.#format.bytes);
    return new Uint8Array(value);
  }

  headers(name: string): Record<string, string> {
    let parsed: unknown = this.#row[name];
    if (this.#format.headers === 'json-text') {
      if (typeof parsed !== 'string') throw this.#wrong(name, 'text');
      try {
        parsed = JSON.parse(parsed);
      } catch (cause) {
        throw new DeadLetterRecordError(this.id, `column ${name} is not JSON`, cause);
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new DeadLetterRecordError(this.id, `column ${name} is not a JSON object`);
    const entries: [string, string][] = [];
    for (const [stored, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw new DeadLetterRecordError(this.id, `header ${JSON.stringify(stored)} is not a string`);
      entries.push([
        this.#unescape(`headers (name ${JSON.stringify(stored)})`, stored),
        this.#unescape(`headers (${JSON.stringify(stored)})`, value),
      ]);
    }
    return headersObject(entries);
  }
}

type Shared = Omit<ParkedSummary, 'payloadBytes' | 'error'>;

function sharedFields(r: RowReader): Shared {
  const topic = r.optionalText('topic', true);
  const key = r.optionalText('record_key');
  const partition = r.optionalInteger('partition');
  const offset = r.optionalText('record_offset');
  return {
    id: r.id,
    channel: r.text('channel'),
    address: r.text('address'),
    ...(topic === undefined ? {} : { topic }),
    groupId: r.text('group_id'),
    type: r.text('type'),
    ...(key === undefined ? {} : { key }),
    ...(partition === undefined ? {} : { partition }),
    ...(offset === undefined ? {} : { offset }),
    attempts: r.integer('attempts'),
    firstFailureAt: r.time('first_failure_at'),
    lastFailureAt: r.time('last_failure_at'),
    parkedAt: r.time('parked_at'),
  };
}

/**
 * Reads one stored row (columns named as in the migrations) back into a parked message; a row that
 * is not what `park` wrote (edited or damaged store) is a {@link DeadLetterRecordError}, never a
 * crash or a half-read record.
 */
export function parkedFromRow(input: unknown, format: DeadLetterRowFormat): ParkedMessage {
  const r = new RowReader(input, format);
  const shared = sharedFields(r);
  const headers = r.headers('headers');
  const stack = r.optionalText('error_stack');
  const { key, partition, offset, attempts, firstFailureAt, lastFailureAt, parkedAt, ...head } = shared;
  return Object.freeze({
    ...head,
    payload: r.bytes('payload'),
    headers,
    ...(key === undefined ? {} : { key }),
    ...(partition === undefined ? {} : { partition }),
    ...(offset === undefined ? {} : { offset }),
    error: { name: r.text('error_name'), message: r.text('error_message'), ...(stack === undefined ? {} : { stack }) },
    attempts,
    firstFailureAt,
    lastFailureAt,
    parkedAt,
  });
}

/** Reads a summary row: the shared columns, `error_name`, `error_message` and `payload_bytes` (no payload, headers or stack). */
export function summaryFromRow(input: unknown, format: DeadLetterRowFormat): ParkedSummary {
  const r = new RowReader(input, format);
  return Object.freeze({
    ...sharedFields(r),
    error: { name: r.text('error_name'), message: r.text('error_message') },
    payloadBytes: r.integer('payload_bytes'),
  });
}
