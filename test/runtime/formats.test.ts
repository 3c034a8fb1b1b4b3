// The runtime's own `format` checks (runtime/core/formats.ts) against ajv-formats' "full" ones:
// the same verdict on hand-picked valid, invalid and edge strings per format, on generated
// strings, and on mutations of valid ones. The cases where keiyaku differs on purpose are listed
// in DIFFERENCES with the reason.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { validatorRuntime } from '@keiyaku/runtime/codegen-v1';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../runtime/core/formats.js';
import { repoRoot } from '../helpers.js';

const require = createRequire(import.meta.url);
type AjvFormat = RegExp | ((value: unknown) => boolean) | boolean | { type?: string; validate: RegExp | ((value: unknown) => boolean) };
const { fullFormats } = require('ajv-formats/dist/formats') as { fullFormats: Record<string, AjvFormat> };

const RUNS = Number(process.env['FORMAT_RUNS'] ?? 1500);

function ajvCheck(name: string): (value: unknown) => boolean {
  const def = fullFormats[name];
  if (def === undefined || typeof def === 'boolean') return () => true;
  const validate = def instanceof RegExp || typeof def === 'function' ? def : def.validate;
  return validate instanceof RegExp ? (value) => validate.test(String(value)) : validate;
}

const lineEnd = /[\n\r\u2028\u2029]/;

/**
 * Where keiyaku answers otherwise than ajv-formats, on purpose. `byte`: ajv-formats' expression
 * carries the multi-line flag, so a string passes when any one of its lines is base64 (an empty
 * line is); keiyaku requires the whole string to be base64 (RFC 4648), so a string with a line
 * break is never `byte`.
 */
const DIFFERENCES: readonly { format: string; value: string; keiyaku: boolean; ajv: boolean; reason: string }[] = [
  {
    format: 'byte',
    value: '!!!\n',
    keiyaku: false,
    ajv: true,
    reason: 'ajv-formats reads each line on its own (the empty last line passes)',
  },
  { format: 'byte', value: 'not base64\nQUJD', keiyaku: false, ajv: true, reason: 'one base64 line among others' },
  { format: 'byte', value: 'QUJD\r\n', keiyaku: false, ajv: true, reason: 'a line break is not base64' },
  { format: 'byte', value: '\u2028', keiyaku: false, ajv: true, reason: 'a line separator makes two empty lines' },
];

/** The difference rule DIFFERENCES illustrates, applied to generated strings. */
function differs(format: string, value: string): boolean {
  return format === 'byte' && lineEnd.test(value);
}

const CORPUS: Readonly<Record<string, readonly string[]>> = {
  date: [
    '2026-11-02',
    '2024-02-29',
    '2023-02-29',
    '1900-02-29',
    '2000-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-04-31',
    '2026-1-01',
    '26-01-01',
    '2026-01-01 ',
    '2026-01-01\n',
    '２０２６-01-01',
    '2026/01/01',
    '',
  ],
  time: [
    '10:15:00Z',
    '10:15:00z',
    '10:15:00.123Z',
    '10:15:00+02:00',
    '10:15:00+0200',
    '10:15:00+02',
    '10:15:00+02:',
    '10:15:00',
    '24:00:00Z',
    '23:59:60Z',
    '23:59:60.5Z',
    '22:59:60-01:00',
    '00:59:60+01:00',
    '23:59:61Z',
    '12:00:60Z',
    '10:60:00Z',
    '10:15:00+24:00',
    '10:15:00+02:60',
    '10:15:00.Z',
    '10:15Z',
    '1:15:00Z',
    '10:15:00+02:00:00',
    '12:00:59.99999999999999999Z',
    '24:59:60+01:00',
    '10:15:00.123456789012345Z',
  ],
  'date-time': [
    '2026-11-02T10:15:00Z',
    '2026-11-02t10:15:00z',
    '2026-11-02 10:15:00Z',
    '2026-11-02\t10:15:00Z',
    '2026-11-02\u300010:15:00Z',
    '2026-11-02T10:15:00.123+02:00',
    '2026-11-02T10:15:00',
    '2026-11-02T10:15:00+0200',
    '2026-11-02TT10:15:00Z',
    '2026-11-02T10:15:00ZT',
    '2016-12-31T23:59:60Z',
    '2026-02-30T10:15:00Z',
    '2026-11-02T25:15:00Z',
    '2026-11-02',
    'T10:15:00Z',
    '2026-11-02T10:15:00.Z',
    '2026-11-02x10:15:00Z',
  ],
  'iso-time': ['10:15:00', '10:15:00Z', '10:15:00.5', '10:15:00+02', '10:15', '23:59:60', '23:59:61', '10:15:00+25:00'],
  'iso-date-time': [
    '2026-11-02T10:15:00',
    '2026-11-02 10:15:00',
    '2026-11-02T10:15:00Z',
    '2026-11-02T10:15',
    '2026-11-02T23:59:60',
    '2026-11-02',
  ],
  duration: [
    'P1Y',
    'P1Y2M3D',
    'P1DT2H',
    'PT1H30M',
    'PT20S',
    'P3W',
    'P',
    'PT',
    'P1DT',
    'P1W2D',
    'P2D1Y',
    'PT1S2M',
    'P1.5Y',
    'p1Y',
    'P1Y1Y',
    'P10000000D',
    'PT1',
    'P1',
    'P1YT',
    'PW',
    'P1M1M',
  ],
  uri: [
    'https://example.com/a/b?c=d#e',
    'urn:isbn:0451450523',
    'mailto:a@b.c',
    'a:b',
    'a:',
    'a:/',
    'a://',
    'a:///x',
    'http://[::1]:8080/',
    'http://[v1.x]/',
    'http://[vz.x]/',
    'http://[::1/',
    'a:/[::1]/x',
    'http://user:pw@host:80/p',
    'http://ho st/',
    'http://host/%zz',
    'http://host/%2F',
    '1a:b',
    '//host/path',
    '/path',
    'relative',
    'http://host:8a/',
    'http://a@b@c/',
    'x:"',
    'x:y#f#g',
    'x:y?q?r#f/?',
    'HTTP://EXAMPLE.COM',
    'http://[1:2:3:4:5:6:7:8]/',
    'http://[1:2:3:4:5:6:7::]/',
    'http://[::ffff:001.2.3.4]/',
    'http://[::ffff:1.2.3.256]/',
    'http://1.2.3.4/',
    'a:b c',
    'ﬀ:x',
    'a:é',
  ],
  'uri-reference': [
    '',
    '#',
    '#f',
    '?q',
    '/a/b',
    'a/b',
    '//host',
    '//host:80/p',
    'http://x/y',
    '1:b',
    './x',
    '../x',
    '"',
    'a"b',
    '//a"b/c"',
    '//u"@h/',
    '#"',
    'a b',
    '%zz',
    '[::1]',
    '//[::1]/',
    'x:y:z',
    'a#b#c',
    '\\x',
    'http://[v1.a"]/',
  ],
  'uri-template': [
    'http://example.com/{id}',
    '{+path}/here',
    '{#frag}',
    '{var:30}',
    '{var*}',
    '{a,b,c}',
    '{}',
    '{a',
    'a}',
    '{a:0}',
    '{a:10000}',
    '{a:9999}',
    '{a.b}',
    '{%41}',
    '{%4}',
    'a b',
    "a'b",
    'a"b',
    '%41',
    '%4',
    'é{x}',
    '\u007f',
    '{a,}',
    '{,a}',
    '{=a}',
    '{$a}',
  ],
  url: [
    'http://example.com',
    'https://example.com/path?q=1#f',
    'ftp://files.example.org:21/x',
    'http://localhost',
    'http://10.0.0.1',
    'http://127.0.0.1/',
    'http://192.168.1.1',
    'http://172.16.0.1',
    'http://172.32.0.1',
    'http://169.254.1.1',
    'http://8.8.8.8',
    'http://0.1.1.1',
    'http://1.1.1.0',
    'http://1.1.1.255',
    'http://224.1.1.1',
    'http://1.01.1.1',
    'http://1.001.1.1',
    'http://1.1.1.01',
    'http://user:pass@example.com',
    'http://a/b@example.com',
    'http://a b@example.com',
    'http://例え.テスト',
    'http://xn--n3h.com',
    'http://a.b-c.de',
    'http://a-.de',
    'http://-a.de',
    'http://a--b.de',
    'http://a.d',
    'http://a.d1',
    'http://example.com:8',
    'http://example.com:123456',
    'http://example.com/ a',
    'HTTPS://EXAMPLE.COM',
    'httpſ://example.com',
    'mailto:a@b.c',
    'http://',
    'http://.com',
    'http://a..com',
    'http://a.com.',
    'http://😀.com',
    'http://a.😀',
    'http://\ud800.com',
    'http://10.0.0.1000',
    'http://1.2.3.4.5',
    'http://1.2.3.4.com',
  ],
  email: [
    'a@example.com',
    'a.b@example.com',
    'a..b@example.com',
    '.a@example.com',
    'a.@example.com',
    "!#$%&'*+/=?^_`{|}~-@example.com",
    'a@b',
    'a@-b.com',
    'a@b-.com',
    'a@b..com',
    'a@b.c',
    'a@@b.com',
    '@b.com',
    'a b@c.com',
    'A@EXAMPLE.COM',
    'a@b.c-d.e',
    'a@1.2.3.4',
    'a@[1.2.3.4]',
    '"a"@b.com',
    'é@b.com',
    `a@${'x'.repeat(70)}.com`,
  ],
  hostname: [
    'example.com',
    'example.com.',
    'a',
    'a.',
    '.',
    '',
    '-a.com',
    'a-.com',
    'a--b.com',
    'a_b.com',
    `${'a'.repeat(63)}.com`,
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(126)}a`,
    `${'a.'.repeat(126)}ab`,
    `${'a.'.repeat(127)}`,
    `${'a.'.repeat(126)}a.`,
    'A.COM',
    'a..b',
    '1.2.3.4',
    'é.com',
    'a.com\n',
  ],
  ipv4: [
    '0.0.0.0',
    '255.255.255.255',
    '256.0.0.0',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.-4',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1..3.4',
    '1.2.3.4\n',
    '١.2.3.4',
  ],
  ipv6: [
    '::',
    '::1',
    '1::',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7::',
    '::2:3:4:5:6:7:8',
    '1:2:3:4:5:6::8',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    ':1::2',
    '1::2:',
    '::ffff:1.2.3.4',
    '::ffff:01.2.3.4',
    '1:2:3:4:5:6:1.2.3.4',
    '1:2:3:4:5:6:7:1.2.3.4',
    '1::1.2.3.4',
    '1.2.3.4',
    'fe80::1%eth0',
    'FFFF::',
    '12345::',
    'g::',
    ':::',
    '1:::2',
    '::1.2.3',
    '::1.2.3.4:5',
    '1:2:3:4:5::1.2.3.4',
    '1:2:3:4:5:6::1.2.3.4',
  ],
  regex: ['a+', '(', '[', '\\', 'a\\Z', '\\Z', '\\\\Z', 'a\\\\Z', '(?<n>x)\\k<n>', '(?<n>x)\\k<m>', 'x{2,1}', '\\p{L}', '', 'a)'],
  uuid: [
    '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    '6F1C2B8E-3A4D-4E5F-9A0B-1C2D3E4F5A6B',
    'urn:uuid:6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    'URN:UUID:6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    'urn:uuid:6f1c2b8e3a4d4e5f9a0b1c2d3e4f5a6b',
    '6f1c2b8e3a4d4e5f9a0b1c2d3e4f5a6b',
    '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6',
    '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6g',
    // Beyond ASCII, and a code whose low seven bits read as a hex digit ('a' + 0x100).
    '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6\u0161',
    '6f1c2b8e-3a4d-4e5f-9a0b-１c2d3e4f5a6b',
    '6f1c2b8e_3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    '{6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b}',
    'xrn:uuid:6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  ],
  'json-pointer': ['', '/', '/a', '/a/b', '/a~0b', '/a~1b', '/a~2b', '/a~', 'a', '//', '/ \n', '/\ud800'],
  'json-pointer-uri-fragment': [
    '#',
    '#/',
    '#/a',
    '#/a%20b',
    '#/a%2',
    '#/a~0',
    '#/a~2',
    '#a',
    '',
    '#/a b',
    '#/é',
    '#/a/b',
    "#/!$&'()*+,;:=@",
  ],
  'relative-json-pointer': ['0', '1', '10', '01', '0#', '0/a', '1/a~1', '0/a~', '#', '', '-1', '0##', '0/'],
  byte: [
    '',
    'QQ==',
    'QUI=',
    'QUJD',
    'QUJDRA==',
    'Q===',
    'QQ=',
    'QQ',
    'Q',
    '====',
    'QU=I',
    'QUJD====',
    '=QUJ',
    'QUJ-',
    'QUJ_',
    'QU JD',
    'QUJDQQ==',
  ],
  password: ['', 'anything'],
  binary: ['', '\u0000'],
};

const NUMBERS = [
  0,
  1,
  -1,
  1.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  1e300,
  -0,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

const STRING_FORMATS = Object.keys(CORPUS);

const check = (format: string): ((value: unknown) => boolean) => validatorRuntime.format(format);

function agree(format: string, value: string): void {
  const keiyaku = check(format)(value);
  if (differs(format, value)) {
    expect({ format, value, keiyaku }).toEqual({ format, value, keiyaku: false });
    return;
  }
  expect({ format, value, keiyaku }).toEqual({ format, value, keiyaku: ajvCheck(format)(value) });
}

/** Characters the formats give meaning to, and a few that none admits. */
const ALPHABET = [
  ...'0123456789abcdefxzvAFTZtPYMWDHS',
  ...':/.-+_~%@#?[]{}*,;=!$&\'()"<>\\^`| ',
  '\n',
  '\r',
  '\t',
  '\u00a0',
  '\u3000',
  '\u2028',
  'é',
  'ſ',
  '\u212a',
  '\u007f',
  '\ud800',
  '😀',
  '１',
];
const symbol = fc.constantFrom(...ALPHABET);
const shortText = fc.array(symbol, { maxLength: 40 }).map((chars) => chars.join(''));

/** A valid string of `format` from the corpus, changed in one to three places. */
function mutated(format: string): fc.Arbitrary<string> {
  const valid = CORPUS[format]!.filter((value) => ajvCheck(format)(value) && check(format)(value));
  const edit = fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'repeat'), symbol);
  return fc.tuple(fc.constantFrom(...valid), fc.array(edit, { minLength: 1, maxLength: 3 })).map(([seed, edits]) => {
    let text = seed;
    for (const [at, kind, char] of edits) {
      const i = text.length === 0 ? 0 : at % (text.length + 1);
      if (kind === 'insert') text = text.slice(0, i) + char + text.slice(i);
      else if (kind === 'delete') text = text.slice(0, i) + text.slice(i + 1);
      else if (kind === 'replace') text = text.slice(0, i) + char + text.slice(i + 1);
      else text = text.slice(0, i) + text.slice(i, i + 3) + text.slice(i);
    }
    return text;
  });
}

/** Pieces of two to four strings of the corpus of `format` (valid or not) joined: near misses of its structure. */
function spliced(format: string): fc.Arbitrary<string> {
  const piece = fc.tuple(fc.constantFrom(...CORPUS[format]!), fc.nat(), fc.nat()).map(([text, a, b]) => {
    const from = a % (text.length + 1);
    return text.slice(from, from + ((b % (text.length + 1 - from)) + 1));
  });
  return fc.array(fc.oneof(piece, symbol), { minLength: 2, maxLength: 4 }).map((pieces) => pieces.join(''));
}

const concat = (parts: fc.Arbitrary<string>[]): fc.Arbitrary<string> => fc.tuple(...parts).map((p) => p.join(''));
const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', '001', '010', '099', '255', '256'));
const dotted = fc.array(octet, { minLength: 3, maxLength: 5 }).map((octets) => octets.join('.'));
const hexGroup = fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{1,5}$/), fc.constantFrom('0', 'ffff', ''));
/** Addresses near the IPv6 text form: hex groups, `::` anywhere, dotted quads at the end. */
const ipv6ish = concat([
  fc.array(hexGroup, { maxLength: 9 }).map((groups) => groups.join(':')),
  fc.constantFrom('', ':', '::'),
  fc.array(hexGroup, { maxLength: 8 }).map((groups) => groups.join(':')),
  fc.oneof(
    fc.constant(''),
    dotted.map((quad) => `:${quad}`),
    dotted,
  ),
]);
const label = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9-]{1,8}$/), fc.constantFrom('xn--n3h', 'é', '例え', 'ſ', '😀', '\ud800', 'a_b', ''));
const host = fc.oneof(
  dotted,
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
  ipv6ish.map((a) => `[${a}]`),
);
/** URLs and URIs near the shapes `url`, `uri` and `uri-reference` read. */
const urlish = concat([
  fc.constantFrom('http://', 'https://', 'ftp://', 'HTTP://', 'httpſ://', 'a:', 'a:/', 'a://', '//', '/', '', 'urn:x:', 'mailto:'),
  fc.oneof(fc.constant(''), fc.constantFrom('user@', 'u:p@', '@', 'a b@', 'x/y@', '%41@')),
  host,
  fc.oneof(
    fc.constant(''),
    fc.integer({ min: 0, max: 999_999 }).map((port) => `:${port}`),
    fc.constantFrom(':', ':8a'),
  ),
  fc.oneof(fc.constant(''), fc.constantFrom('/', '/a/b', '/a b', '/%zz', '/[x]', '//x', '/a@b.com', '/"')),
  fc.oneof(fc.constant(''), fc.constantFrom('?q=1', '?', '?a?b', '?"', '?%2')),
  fc.oneof(fc.constant(''), fc.constantFrom('#f', '#', '#a#b', '#/x?y')),
]);
/** Generators shaped like a format, for the formats whose structure random text rarely reaches. */
const SHAPED: Readonly<Record<string, fc.Arbitrary<string>>> = {
  ipv6: ipv6ish,
  ipv4: dotted,
  url: urlish,
  uri: urlish,
  'uri-reference': urlish,
  hostname: fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.')),
  email: concat([
    fc.array(fc.stringMatching(/^[a-z0-9!#$%&'*+/=?^_`{|}~-]{0,4}$/), { minLength: 1, maxLength: 3 }).map((p) => p.join('.')),
    fc.constantFrom('@', '@@', ''),
    fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
  ]),
};

describe('format checks of @keiyaku/runtime', () => {
  it('knows exactly the formats of ajv-formats (full), with the same JSON types', () => {
    expect(Object.keys(FORMATS).sort()).toEqual(Object.keys(fullFormats).sort());
    for (const [name, def] of Object.entries(FORMATS)) {
      const ajv = fullFormats[name]!;
      const ajvType = typeof ajv === 'object' && !(ajv instanceof RegExp) && ajv.type === 'number' ? 'number' : 'string';
      expect({ name, type: def.type }).toEqual({ name, type: ajvType });
      expect({ name, annotationOnly: def.check === undefined }).toEqual({ name, annotationOnly: typeof ajv === 'boolean' });
    }
    expect(STRING_FORMATS.sort()).toEqual(
      Object.keys(FORMATS)
        .filter((name) => FORMATS[name]!.type === 'string')
        .sort(),
    );
  });

  it('the runtime loads neither ajv nor ajv-formats, but for the deprecated ajvRuntime of old generated code', () => {
    const sources = (readdirSync(join(repoRoot, 'runtime'), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !file.includes('node_modules') && !file.startsWith('dist'))
      .map((file) => join(repoRoot, 'runtime', file));
    expect(sources.length).toBeGreaterThan(20);
    const loads: string[] = [];
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      const deprecatedFrom = text.indexOf('export const ajvRuntime');
      for (const match of text.matchAll(/(?:require\(|from |import\()\s*['"](ajv[^'"]*)['"]/gi))
        if (deprecatedFrom < 0 || match.index < deprecatedFrom) loads.push(`${relative(repoRoot, file)}: ${match[1]}`);
    }
    expect(loads).toEqual([]);
  });

  it('accepts every value for a format it does not know, as ajv-formats leaves it unchecked', () => {
    expect(check('no-such-format')('anything')).toBe(true);
    expect(check('no-such-format')(42)).toBe(true);
    expect(check('toString')('x')).toBe(true);
  });

  for (const format of STRING_FORMATS)
    it(`${format}: the hand-picked strings get ajv-formats' verdicts`, () => {
      const verdicts = CORPUS[format]!.map((value) => check(format)(value));
      // the corpus holds both verdicts for every checked format
      if (FORMATS[format]!.check !== undefined) expect(new Set(verdicts).size).toBe(2);
      for (const value of CORPUS[format]!) agree(format, value);
    });

  for (const name of ['int32', 'int64', 'float', 'double'])
    it(`${name}: numbers get ajv-formats' verdicts`, () => {
      for (const value of NUMBERS) expect({ name, value, ok: check(name)(value) }).toEqual({ name, value, ok: ajvCheck(name)(value) });
      fc.assert(
        fc.property(fc.oneof(fc.double(), fc.integer({ min: -(2 ** 40), max: 2 ** 40 })), (value) => {
          expect(check(name)(value)).toBe(ajvCheck(name)(value));
        }),
        { numRuns: RUNS },
      );
    });

  it('differs from ajv-formats only where DIFFERENCES says, and as it says', () => {
    for (const { format, value, keiyaku, ajv } of DIFFERENCES) {
      expect(differs(format, value)).toBe(true);
      expect({ format, value, verdicts: [check(format)(value), ajvCheck(format)(value)] }).toEqual({
        format,
        value,
        verdicts: [keiyaku, ajv],
      });
    }
  });

  it('the shaped generators reach both verdicts', () => {
    for (const [format, shaped] of Object.entries(SHAPED)) {
      const verdicts = new Set(fc.sample(shaped, { numRuns: 2000, seed: 1 }).map((value) => ajvCheck(format)(value)));
      expect({ format, verdicts: [...verdicts].sort() }).toEqual({ format, verdicts: [false, true] });
    }
  });

  for (const format of STRING_FORMATS.filter((name) => FORMATS[name]!.check !== undefined))
    it(`${format}: generated strings and mutations of valid ones get ajv-formats' verdicts`, () => {
      fc.assert(
        fc.property(
          fc.oneof(shortText, mutated(format), spliced(format), SHAPED[format] ?? shortText, fc.string({ unit: 'binary', maxLength: 30 })),
          (value) => agree(format, value),
        ),
        { numRuns: RUNS },
      );
    });
});
