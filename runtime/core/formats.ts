/**
 * The JSON Schema `format` checks of generated validators, with no dependency: every format of
 * the "full" set that ajv-formats defines (the formats keiyaku's generator accepts), read from
 * their specifications (RFC 3339 dates and times, RFC 3986 URIs, RFC 6570 URI templates,
 * RFC 5321/5322 addresses, RFC 1123 host names, RFC 4291 IPv6, RFC 6901 JSON pointers,
 * RFC 4648 base64) with the readings ajv-formats gives them, so a contract validates alike
 * whether ajv or keiyaku checks it. Where the two differ on purpose, docs/formats.md says so.
 *
 * The checks read their strings character by character (ASCII classes from one table); none
 * builds a regular expression, but `regex`, whose value is one. Each family of formats has its module
 * under formats/ (formats/chars.ts: the character table they share); this one is their table.
 */
import { date, dateTime, duration, timeAt } from './formats/dates.js';
import { email, hostname, url } from './formats/hosts.js';
import { ipv4, ipv6 } from './formats/ip.js';
import { byte, regex, uuid } from './formats/misc.js';
import { jsonPointer, jsonPointerUriFragment, relativeJsonPointer } from './formats/pointers.js';
import { uri, uriReference, uriTemplate } from './formats/uri.js';

/** A format check: true when `value` is in the format. */
export type FormatCheck = (value: unknown) => boolean;

/** A format: the JSON type it applies to and its check (`check` absent: annotation only). */
export interface FormatDefinition {
  readonly type: 'string' | 'number';
  readonly check?: FormatCheck;
}

const int32 = (value: unknown): boolean =>
  Number.isInteger(value) && (value as number) <= 2_147_483_647 && (value as number) >= -2_147_483_648;
const int64 = (value: unknown): boolean => Number.isInteger(value);
const anyNumber = (): boolean => true;

/** A check on strings: other values are read as their string form. */
const onString =
  (check: (s: string) => boolean): FormatCheck =>
  (value) =>
    check(typeof value === 'string' ? value : String(value));

/** The formats keiyaku checks (ajv-formats' "full" set, same names). */
export const FORMATS: Readonly<Record<string, FormatDefinition>> = Object.freeze({
  date: { type: 'string', check: onString(date) },
  time: { type: 'string', check: onString((s) => timeAt(s, 0, true)) },
  'date-time': { type: 'string', check: onString((s) => dateTime(s, true)) },
  'iso-time': { type: 'string', check: onString((s) => timeAt(s, 0, false)) },
  'iso-date-time': { type: 'string', check: onString((s) => dateTime(s, false)) },
  duration: { type: 'string', check: onString(duration) },
  uri: { type: 'string', check: onString(uri) },
  'uri-reference': { type: 'string', check: onString(uriReference) },
  'uri-template': { type: 'string', check: onString(uriTemplate) },
  url: { type: 'string', check: onString(url) },
  email: { type: 'string', check: onString(email) },
  hostname: { type: 'string', check: onString(hostname) },
  ipv4: { type: 'string', check: onString(ipv4) },
  ipv6: { type: 'string', check: onString(ipv6) },
  regex: { type: 'string', check: onString(regex) },
  uuid: { type: 'string', check: onString(uuid) },
  'json-pointer': { type: 'string', check: onString(jsonPointer) },
  'json-pointer-uri-fragment': { type: 'string', check: onString(jsonPointerUriFragment) },
  'relative-json-pointer': { type: 'string', check: onString(relativeJsonPointer) },
  byte: { type: 'string', check: onString(byte) },
  int32: { type: 'number', check: int32 },
  int64: { type: 'number', check: int64 },
  float: { type: 'number', check: anyNumber },
  double: { type: 'number', check: anyNumber },
  password: { type: 'string' },
  binary: { type: 'string' },
} satisfies Record<string, FormatDefinition>);

const ACCEPT: FormatCheck = () => true;

/** The check of format `name`; formats keiyaku does not know, and annotation-only ones, accept every value. */
export function formatCheckOf(name: string): FormatCheck {
  return (Object.hasOwn(FORMATS, name) ? FORMATS[name]!.check : undefined) ?? ACCEPT;
}
