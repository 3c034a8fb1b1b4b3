// Fetched @platformatic/kafka records as transport records (no broker needed): header names a
// producer repeats are remembered by position, and what comes out never depends on that memory.

import { describe, expect, it } from 'vitest';
import { type PlatformaticRecordIn, recordFromPlatformatic } from '../../runtime/kafka/platformatic/record.js';

const record = (headers: [string | Buffer | null, string | Buffer | null][], value = '{}'): PlatformaticRecordIn => ({
  key: null,
  value: Buffer.from(value),
  headers: headers.map(([k, v]) => [typeof k === 'string' ? Buffer.from(k) : k, typeof v === 'string' ? Buffer.from(v) : v] as const),
});

describe('recordFromPlatformatic', () => {
  it('decodes each record’s header names, whatever the previous records carried at the same positions', () => {
    const first = recordFromPlatformatic(
      record([
        ['ce_id', '1'],
        ['ce_type', 'a'],
      ]),
      'orders',
      0,
      '0',
      1,
    );
    const second = recordFromPlatformatic(
      record([
        ['ce_id', '2'],
        ['ce_typf', 'b'],
      ]),
      'orders',
      0,
      '1',
      2,
    );
    const third = recordFromPlatformatic(
      record([
        ['ce_type', '3'],
        ['ce_id', 'c'],
        ['extra', 'x'],
      ]),
      'orders',
      0,
      '2',
      3,
    );
    expect(first.headers).toEqual({ ce_id: '1', ce_type: 'a' });
    expect(second.headers).toEqual({ ce_id: '2', ce_typf: 'b' });
    expect(third.headers).toEqual({ ce_type: '3', ce_id: 'c', extra: 'x' });
  });

  it('does not keep a view on the fetched bytes: a reused buffer decodes as its new bytes', () => {
    const shared = Buffer.from('ce_aaa');
    expect(recordFromPlatformatic(record([[shared, '1']]), 'orders', 0, '0', 1).headers).toEqual({ ce_aaa: '1' });
    shared.write('ce_bbb');
    expect(recordFromPlatformatic(record([[shared, '2']]), 'orders', 0, '1', 2).headers).toEqual({ ce_bbb: '2' });
  });

  it('keeps the rules of names: invalid UTF-8, null names, repeats joined, __proto__ as a plain property', () => {
    const invalid = Buffer.from([0x63, 0xff, 0x65]);
    for (let i = 0; i < 2; i++) {
      const out = recordFromPlatformatic(
        record([
          [invalid, 'x'],
          [null, 'n'],
          ['dup', 'a'],
          ['dup', 'b'],
          ['__proto__', 'p'],
        ]),
        'orders',
        0,
        String(i),
        1,
      );
      expect(Object.keys(out.headers)).toEqual([invalid.toString('utf8'), '', 'dup', '__proto__']);
      expect(out.headers['dup']).toBe('a,b');
      expect(Object.getPrototypeOf(out.headers)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(out.headers, '__proto__')?.value).toBe('p');
    }
  });

  it('decodes names past the remembered positions and long names as they are', () => {
    const many = Array.from({ length: 40 }, (_, i): [string, string] => [`h${i}-${'n'.repeat(i * 3)}`, String(i)]);
    for (let round = 0; round < 2; round++) {
      const out = recordFromPlatformatic(record(many), 'orders', 0, String(round), 1);
      expect(Object.entries(out.headers)).toEqual(many);
    }
  });
});
