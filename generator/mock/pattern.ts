/**
 * Strings that match a JSON Schema `pattern` (an ECMA-262 regular expression with the `u` flag,
 * unanchored): the expression is read into a small tree — literals, classes, `.`, groups,
 * alternatives, quantifiers, anchors — and a string is built by walking it with the seeded random
 * source. What a walk cannot build (lookarounds, back-references, word boundaries, Unicode
 * property escapes) is refused by name, so the caller can say where. Every built string is
 * tested against the expression itself before it is used.
 *
 * @see https://tc39.es/ecma262/#sec-patterns
 * @see https://json-schema.org/draft/2020-12/json-schema-validation#name-pattern
 */
import type { Random } from './random.js';

/** Code point ranges, both ends included. */
type Ranges = readonly (readonly [number, number])[];

type Node =
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly options: readonly Node[] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number | undefined }
  | { readonly kind: 'chars'; readonly ranges: Ranges };

/** A pattern the walk cannot build a string for; `reason` names the construct. */
export class PatternUnsupported extends Error {
  override readonly name = 'PatternUnsupported';
}

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
];
/** What `.` and negated classes are built from first: printable ASCII. */
const PRINTABLE: Ranges = [[0x20, 0x7e]];
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

function complement(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function intersect(a: Ranges, b: Ranges): Ranges {
  const out: [number, number][] = [];
  for (const [alo, ahi] of a)
    for (const [blo, bhi] of b) {
      const lo = Math.max(alo, blo);
      const hi = Math.min(ahi, bhi);
      if (lo <= hi) out.push([lo, hi]);
    }
  return out;
}

/** Reads a pattern into a tree; throws {@link PatternUnsupported} for what cannot be built. */
class Reader {
  readonly #chars: string[];
  #at = 0;

  constructor(pattern: string) {
    this.#chars = Array.from(pattern);
  }

  read(): Node {
    const node = this.#alternatives();
    if (this.#at < this.#chars.length) throw new PatternUnsupported(`an unmatched ")" at ${this.#at}`);
    return node;
  }

  #peek(): string | undefined {
    return this.#chars[this.#at];
  }

  #alternatives(): Node {
    const options = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#at++;
      options.push(this.#sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  #sequence(): Node {
    const items: Node[] = [];
    for (let c = this.#peek(); c !== undefined && c !== '|' && c !== ')'; c = this.#peek()) {
      const atom = this.#atom();
      if (atom !== undefined) items.push(this.#quantified(atom));
    }
    return { kind: 'seq', items };
  }

  #atom(): Node | undefined {
    const c = this.#chars[this.#at++]!;
    if (c === '^' || c === '$') return undefined; // anchors: the built string is the whole match
    if (c === '.') return { kind: 'chars', ranges: complement(LINE_TERMINATORS) };
    if (c === '[') return { kind: 'chars', ranges: this.#class() };
    if (c === '\\') return { kind: 'chars', ranges: this.#escape(false) };
    if (c === '(') return this.#group();
    return { kind: 'chars', ranges: [[c.codePointAt(0)!, c.codePointAt(0)!]] };
  }

  #group(): Node {
    if (this.#peek() === '?') {
      const next = this.#chars[this.#at + 1];
      const after = this.#chars[this.#at + 2];
      if (next === ':') this.#at += 2;
      else if (next === '<' && after !== '=' && after !== '!') {
        const close = this.#chars.indexOf('>', this.#at);
        this.#at = close + 1;
      } else throw new PatternUnsupported('a lookahead or lookbehind assertion');
    }
    const node = this.#alternatives();
    if (this.#chars[this.#at++] !== ')') throw new PatternUnsupported('an unclosed group');
    return node;
  }

  #quantified(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.#peek();
      let min: number;
      let max: number | undefined;
      if (c === '*') [min, max] = [0, undefined];
      else if (c === '+') [min, max] = [1, undefined];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const match = /^\{(\d+)(,(\d*))?\}/.exec(this.#chars.slice(this.#at, this.#at + 24).join(''));
        if (match === null) return node;
        min = Number(match[1]);
        max = match[2] === undefined ? min : match[3] === '' ? undefined : Number(match[3]);
        this.#at += match[0].length - 1;
      } else return node;
      this.#at++;
      if (this.#peek() === '?') this.#at++; // lazy: the same strings
      node = { kind: 'repeat', node, min, max };
    }
  }

  /** After `[`: the class's ranges, negated classes complemented. */
  #class(): Ranges {
    const negated = this.#peek() === '^';
    if (negated) this.#at++;
    const ranges: (readonly [number, number])[] = [];
    for (;;) {
      const c = this.#chars[this.#at++];
      if (c === undefined) throw new PatternUnsupported('an unclosed character class');
      if (c === ']') break; // ECMAScript: `[]` matches nothing, `[^]` anything
      const low = c === '\\' ? this.#escape(true) : [[c.codePointAt(0)!, c.codePointAt(0)!] as const];
      if (this.#peek() === '-' && this.#chars[this.#at + 1] !== ']' && this.#chars[this.#at + 1] !== undefined && low.length === 1) {
        this.#at++;
        const d = this.#chars[this.#at++]!;
        const high = d === '\\' ? this.#escape(true) : [[d.codePointAt(0)!, d.codePointAt(0)!] as const];
        if (high.length === 1 && low[0]![0] === low[0]![1] && high[0]![0] === high[0]![1]) {
          ranges.push([low[0]![0], high[0]![0]]);
          continue;
        }
        ranges.push(...low, [0x2d, 0x2d], ...high);
        continue;
      }
      ranges.push(...low);
    }
    return negated ? complement(ranges) : ranges;
  }

  /** After `\`: the ranges the escape stands for. */
  #escape(inClass: boolean): Ranges {
    const c = this.#chars[this.#at++];
    if (c === undefined) throw new PatternUnsupported('a trailing backslash');
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 't':
        return [[9, 9]];
      case 'n':
        return [[10, 10]];
      case 'r':
        return [[13, 13]];
      case 'f':
        return [[12, 12]];
      case 'v':
        return [[11, 11]];
      case '0':
        return [[0, 0]];
      case 'b':
        if (inClass) return [[8, 8]];
        throw new PatternUnsupported('a word boundary (\\b)');
      case 'B':
        throw new PatternUnsupported('a word boundary (\\B)');
      case 'p':
      case 'P':
        throw new PatternUnsupported(`a Unicode property escape (\\${c}{…})`);
      case 'k':
        throw new PatternUnsupported('a named back-reference (\\k<…>)');
      case 'c':
        throw new PatternUnsupported('a control escape (\\c)');
      case 'x': {
        const hex = this.#chars.slice(this.#at, this.#at + 2).join('');
        this.#at += 2;
        const cp = Number.parseInt(hex, 16);
        return [[cp, cp]];
      }
      case 'u': {
        if (this.#peek() === '{') {
          const close = this.#chars.indexOf('}', this.#at);
          const cp = Number.parseInt(this.#chars.slice(this.#at + 1, close).join(''), 16);
          this.#at = close + 1;
          return [[cp, cp]];
        }
        const cp = Number.parseInt(this.#chars.slice(this.#at, this.#at + 4).join(''), 16);
        this.#at += 4;
        return [[cp, cp]];
      }
      default:
        if (/[1-9]/.test(c)) throw new PatternUnsupported(`a back-reference (\\${c})`);
        return [[c.codePointAt(0)!, c.codePointAt(0)!]];
    }
  }
}

/** One code point of `ranges`: printable ASCII when the ranges have any, else any but surrogates. */
function pickChar(ranges: Ranges, random: Random): string {
  let choices = intersect(ranges, PRINTABLE);
  if (choices.length === 0) choices = intersect(ranges, complement([[0xd800, 0xdfff]]));
  if (choices.length === 0) throw new PatternUnsupported('a character class that matches nothing');
  const total = choices.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
  let index = random.int(0, total - 1);
  for (const [lo, hi] of choices) {
    if (index <= hi - lo) return String.fromCodePoint(lo + index);
    index -= hi - lo + 1;
  }
  return String.fromCodePoint(choices[0]![0]);
}

function build(node: Node, random: Random, spread: number, out: string[]): void {
  switch (node.kind) {
    case 'chars':
      out.push(pickChar(node.ranges, random));
      return;
    case 'seq':
      for (const item of node.items) build(item, random, spread, out);
      return;
    case 'alt':
      build(random.pick(node.options), random, spread, out);
      return;
    case 'repeat': {
      const max = node.max ?? node.min + spread;
      const times = random.int(node.min, Math.min(max, node.min + spread));
      for (let i = 0; i < times; i++) build(node.node, random, spread, out);
      return;
    }
  }
}

/** Reads `pattern` once; {@link PatternUnsupported} when a string for it cannot be built. */
export function readPattern(pattern: string): (random: Random, spread: number) => string {
  const tree = new Reader(pattern).read();
  return (random, spread) => {
    const out: string[] = [];
    build(tree, random, spread, out);
    return out.join('');
  };
}
