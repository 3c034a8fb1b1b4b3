/**
 * Values of the JSON Schema formats generated validators check (ajv-formats' full set): one small
 * builder per format, varied by the seeded random source, each giving a value the format's check
 * accepts (docs/formats.md describes the checks).
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-validation#name-defined-formats
 */
import type { Random } from './random.js';

const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'kilo', 'lima', 'nova', 'orbit', 'pixel', 'river', 'sierra', 'tango'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function date(r: Random): string {
  return `${r.int(2020, 2030)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
}

function time(r: Random): string {
  return `${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}`;
}

function hex(r: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += r.int(0, 15).toString(16);
  return out;
}

function uuid(r: Random): string {
  return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-${r.pick(['8', '9', 'a', 'b'])}${hex(r, 3)}-${hex(r, 12)}`;
}

const word = (r: Random): string => r.pick(WORDS);

/** The builders of string formats, by name. */
const STRING_FORMATS: Readonly<Record<string, (r: Random) => string>> = {
  date,
  time: (r) => `${time(r)}Z`,
  'date-time': (r) => `${date(r)}T${time(r)}Z`,
  'iso-time': time,
  'iso-date-time': (r) => `${date(r)}T${time(r)}`,
  duration: (r) => `P${r.int(1, 30)}DT${r.int(1, 23)}H`,
  uri: (r) => `https://example.org/${word(r)}/${r.int(1, 999)}`,
  'uri-reference': (r) => `/${word(r)}/${r.int(1, 999)}`,
  'uri-template': (r) => `https://example.org/${word(r)}/{id}`,
  url: (r) => `https://example.org/${word(r)}`,
  email: (r) => `${word(r)}.${r.int(1, 999)}@example.org`,
  hostname: (r) => `${word(r)}${r.int(1, 99)}.example.org`,
  ipv4: (r) => `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`,
  ipv6: (r) => `2001:db8::${hex(r, 4).replace(/^0+(?=.)/, '')}`,
  regex: (r) => `^${word(r)}[0-9]+$`,
  uuid,
  'json-pointer': (r) => `/${word(r)}/${r.int(0, 9)}`,
  'json-pointer-uri-fragment': (r) => `#/${word(r)}`,
  'relative-json-pointer': (r) => `${r.int(0, 3)}/${word(r)}`,
  byte: (r) => btoa(`${word(r)}-${r.int(0, 999)}`),
  password: (r) => `${word(r)}-${hex(r, 8)}`,
  binary: (r) => `${word(r)}-${r.int(0, 999)}`,
};

/** Bounds of the number formats (ajv-formats: int32 and int64 are integers; float and double any number). */
export const NUMBER_FORMATS: Readonly<Record<string, { readonly integer: boolean; readonly min: number; readonly max: number }>> = {
  int32: { integer: true, min: -2_147_483_648, max: 2_147_483_647 },
  int64: { integer: true, min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
  float: { integer: false, min: -3.4e38, max: 3.4e38 },
  double: { integer: false, min: -Number.MAX_VALUE, max: Number.MAX_VALUE },
};

/** A value of string format `format`; undefined for a format that has no builder (kept as documentation only). */
export function formatValue(format: string, random: Random): string | undefined {
  return Object.hasOwn(STRING_FORMATS, format) ? STRING_FORMATS[format]!(random) : undefined;
}
