// The dead-letter row helpers the SQLite and PostgreSQL stores share: the escaping round-trips any
// JavaScript string into text a database keeps, and the row reader turns any row (random types in
// every column, in both stores' formats) into a parked message or a DeadLetterRecordError.
import {
  DeadLetterRecordError,
  type DeadLetterRowFormat,
  deadLetterColumns,
  escapeText,
  isKeiyakuError,
  needsEscaping,
  parkedFromRow,
  summaryFromRow,
  unescapeText,
} from '@keiyaku/runtime/adapter';
import { hostileParkRequest, sampleParkRequest } from '@keiyaku/runtime/testing';
import { describe, expect, it } from 'vitest';

/** A deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A string of random UTF-16 code units, weighted towards NULs, surrogates, quotes and backslashes. */
function randomText(next: () => number): string {
  const special = [0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x22, 0x5c, 0x0a, 0x1f, 0x7f, 0xfffd, 0x75];
  const units: number[] = [];
  const length = Math.floor(next() * 24);
  for (let i = 0; i < length; i++) units.push(next() < 0.5 ? special[Math.floor(next() * special.length)]! : Math.floor(next() * 0x10000));
  return String.fromCharCode(...units);
}

describe('escapeText / unescapeText', () => {
  it('round-trip any string, and the escape holds no NUL and no lone surrogate', () => {
    const next = random(23);
    for (let i = 0; i < 5_000; i++) {
      const text = randomText(next);
      const escaped = escapeText(text);
      expect(needsEscaping(escaped)).toBe(false);
      expect(unescapeText(escaped)).toBe(text);
    }
  });

  it('says which text needs escaping', () => {
    expect(['a\u0000', '\ud800', 'x\udc00y', '\udfff\ud800'].map(needsEscaping)).toEqual([true, true, true, true]);
    expect(['', 'plain', '😀', '\ufffd', '\\u0000', '"'].map(needsEscaping)).toEqual([false, false, false, false, false, false]);
  });

  it('refuses what is not an escape', () => {
    expect(['\\q', '"', '\\u12', 'a\\'].map(unescapeText)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('escapes a whole row when any text of it needs it, and nothing otherwise', () => {
    const plain = deadLetterColumns(sampleParkRequest('c "q" \\', 1));
    expect(plain).toMatchObject({ escaped: false, channel: 'c "q" \\', type: 'Ping' });
    const byHeaderName = deadLetterColumns(sampleParkRequest('c "q"', 1, { headers: { 'n\u0000': 'v' } }));
    expect(byHeaderName).toMatchObject({ escaped: true, channel: 'c \\"q\\"', headers: '{"n\\\\u0000":"v"}' });
    expect(deadLetterColumns(hostileParkRequest('c', 1)).escaped).toBe(true);
  });
});

describe('the dead-letter row reader', () => {
  const formats: Record<string, DeadLetterRowFormat> = {
    sqlite: { times: 'epoch-ms', headers: 'json-text', bytes: 'blob' },
    postgres: { times: 'date', headers: 'json-value', bytes: 'bytea' },
  };
  const values = (next: () => number): unknown[] => [
    null,
    undefined,
    0,
    1,
    -1,
    1.5,
    1e300,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    false,
    '',
    randomText(next),
    '{}',
    '{"a":"b"}',
    '[1]',
    '{"a":1}',
    '{not json',
    Buffer.from([1, 2, 3]),
    new Uint8Array([0xff]),
    new Date(0),
    new Date(Number.NaN),
    {},
    { a: 'b' },
    { a: 1 },
    [],
    { __proto__: null },
  ];
  const base = (format: DeadLetterRowFormat): Record<string, unknown> => ({
    id: 'r-1',
    channel: 'c',
    address: 'a',
    topic: null,
    group_id: 'g',
    type: 'T',
    payload: Buffer.from('{}'),
    headers: format.headers === 'json-text' ? '{"ce_type":"T"}' : { ce_type: 'T' },
    record_key: null,
    partition: null,
    record_offset: null,
    error_name: 'Error',
    error_message: 'm',
    error_stack: null,
    attempts: 1,
    first_failure_at: format.times === 'date' ? new Date(0) : 0,
    last_failure_at: format.times === 'date' ? new Date(0) : 0,
    parked_at: format.times === 'date' ? new Date(0) : 0,
    escaped: false,
    payload_bytes: 2,
  });

  for (const [name, format] of Object.entries(formats)) {
    it(`${name}: reads a well-formed row, and any damaged column is a DeadLetterRecordError, never another throw`, () => {
      expect(parkedFromRow(base(format), format)).toMatchObject({
        id: 'r-1',
        headers: { ce_type: 'T' },
        payload: new Uint8Array([0x7b, 0x7d]),
      });
      expect(summaryFromRow(base(format), format)).toMatchObject({ id: 'r-1', payloadBytes: 2 });
      const next = random(name.length);
      const columns = Object.keys(base(format));
      let damaged = 0;
      for (let i = 0; i < 3_000; i++) {
        const row = base(format);
        // One to three columns replaced by values of any type; sometimes the row is marked escaped.
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
          const choices = values(next);
          row[columns[Math.floor(next() * columns.length)]!] = choices[Math.floor(next() * choices.length)];
        }
        if (next() < 0.2) row['escaped'] = true;
        for (const read of [parkedFromRow, summaryFromRow]) {
          try {
            read(row, format);
          } catch (error) {
            if (!(error instanceof DeadLetterRecordError)) throw error;
            expect(isKeiyakuError(error)).toBe(true);
            damaged++;
          }
        }
      }
      expect(damaged).toBeGreaterThan(1_000);
    });
  }

  it.each([
    [null, /the row is not an object/],
    [{ id: 7 }, /column id is number, expected text/],
    [{ id: { __proto__: null } }, /dead-letter record \(an object\) cannot be read: column id is object, expected text/],
  ])('a row that is not a row: %j', (row, message) => {
    expect(() => parkedFromRow(row, formats['sqlite']!)).toThrow(message);
  });
});
