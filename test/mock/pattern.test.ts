// The pattern reader of mock values, table-driven: each supported pattern gives strings that match
// it (200 seeds each), each unsupported one is refused naming the construct.
import { describe, expect, it } from 'vitest';
import { PatternUnsupported, readPattern } from '../../generator/mock/pattern.js';
import { Random } from '../../generator/mock/random.js';

const SUPPORTED = [
  '^[0-9]{4}$',
  '^[0-9]+\\.[0-9]{2}$',
  '^(?:[A-Z]{2}|X)-\\d{3,5}(\\.[a-f0-9]+)?$',
  '^[🎉]+$',
  '^[\\u{1F600}-\\u{1F60F}]{2}$',
  '^\\w+\\s\\S\\.[^a-z0-9]$',
  'abc',
  '^a|b$',
  '^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$',
  '^[-a-z_]{1,3}[\\]\\\\]?$',
  '^\\x41\\u0042[^\\d\\s]*?$',
  '^.{2,}$',
  '^[^]x$',
  '^[a-c]{0}z$',
];

const UNSUPPORTED: [string, string][] = [
  ['^(?=a)\\w+$', 'a lookahead or lookbehind assertion'],
  ['^(?<!a)b$', 'a lookahead or lookbehind assertion'],
  ['^(a)\\1$', 'a back-reference (\\1)'],
  ['^\\bword$', 'a word boundary (\\b)'],
  ['^\\p{L}+$', 'a Unicode property escape (\\p{…})'],
  ['^(?<a>x)\\k<a>$', 'a named back-reference (\\k<…>)'],
];

describe('mock strings for a pattern', () => {
  it.each(SUPPORTED)('%s: every built string matches', (pattern) => {
    const build = readPattern(pattern);
    const test = new RegExp(pattern, 'u');
    const misses: string[] = [];
    const random = new Random(pattern);
    for (let i = 0; i < 200; i++) {
      const s = build(random, 3);
      if (!test.test(s)) misses.push(s);
    }
    expect(misses).toEqual([]);
  });

  it.each(UNSUPPORTED)('%s: refused as %s', (pattern, construct) => {
    expect(() => readPattern(pattern)).toThrow(PatternUnsupported);
    expect(() => readPattern(pattern)).toThrow(construct);
  });

  it('refuses a class that matches nothing when it builds', () => {
    expect(() => readPattern('^a[]$')(new Random(1), 3)).toThrow('a character class that matches nothing');
  });

  it('gives the same strings for the same seed', () => {
    const build = readPattern('^[A-Z]{2}-\\d{3,8}$');
    const run = (seed: number) => {
      const random = new Random(seed);
      return Array.from({ length: 20 }, () => build(random, 3));
    };
    expect(run(9)).toEqual(run(9));
    expect(run(9)).not.toEqual(run(10));
  });
});
