/**
 * Positions of the values of a JSON text, for locating diagnostics in contracts written as JSON.
 * A YAML parser reads JSON too, but builds a full syntax tree at a cost of about a second per
 * megabyte; this index reads an object's or array's members only when a location asks for
 * them, skipping over everything else. The text must be valid JSON (`JSON.parse` said so).
 */

export interface JsonNode {
  /** Offset of the value's first character (the quote of a string, the bracket of a collection). */
  readonly start: number;
  /** Offsets of the members of an object, first occurrence of each key. */
  readonly members?: Map<string, number>;
  /** Offsets of the items of an array. */
  readonly items?: number[];
  /** The `$ref` of an object, when it is a string. */
  readonly ref?: string;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(c: number): boolean {
  return c === SPACE || c === NEWLINE || c === RETURN || c === TAB;
}

/**
 * One pass over a valid JSON text: how many keys it writes (a `:` outside strings each) and where
 * each object or array ends, so that reading a member list skips a nested value in one step
 * instead of scanning it again at every level above it.
 */
export interface JsonScan {
  readonly keys: number;
  /** Offsets of the `{` and `[` of the text, in order. */
  readonly opens: Int32Array;
  /** Offset past the matching `}` or `]` of each of {@link opens}. */
  readonly ends: Int32Array;
}

/** Past the string whose opening quote is at `i`. */
function skipString(text: string, i: number): number {
  let quote = text.indexOf('"', i + 1);
  while (quote !== -1) {
    // Escaped when an odd number of backslashes stands before it.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

export function scanJson(text: string): JsonScan {
  let keys = 0;
  let opens = new Int32Array(256);
  let ends = new Int32Array(256);
  let count = 0;
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = skipString(text, i) - 1;
    else if (c === 0x3a) keys++;
    else if (c === 0x7b || c === 0x5b) {
      if (count === opens.length) {
        const grownOpens = new Int32Array(count * 2);
        grownOpens.set(opens);
        opens = grownOpens;
        const grownEnds = new Int32Array(count * 2);
        grownEnds.set(ends);
        ends = grownEnds;
      }
      opens[count] = i;
      open.push(count++);
    } else if (c === 0x7d || c === 0x5d) {
      const at = open.pop();
      if (at !== undefined) ends[at] = i + 1;
    }
  }
  return { keys, opens: opens.subarray(0, count), ends: ends.subarray(0, count) };
}

export class JsonIndex {
  readonly #text: string;
  readonly #nodes = new Map<number, JsonNode>();
  readonly #scan: JsonScan;
  readonly root: number;

  constructor(text: string, scan: JsonScan = scanJson(text)) {
    this.#text = text;
    this.#scan = scan;
    this.root = this.#skipWhitespace(0);
  }

  /** Past the object or array whose bracket is at `i`. */
  #end(i: number): number {
    const { opens, ends } = this.#scan;
    let low = 0;
    let high = opens.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const at = opens[mid]!;
      if (at === i) return ends[mid]!;
      if (at < i) low = mid + 1;
      else high = mid - 1;
    }
    return this.#text.length;
  }

  /** The value starting at `start`, its members read on first use. */
  node(start: number): JsonNode {
    let node = this.#nodes.get(start);
    if (node === undefined) {
      node = this.#read(start);
      this.#nodes.set(start, node);
    }
    return node;
  }

  #skipWhitespace(i: number): number {
    const text = this.#text;
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    return i;
  }

  #skipString(i: number): number {
    return skipString(this.#text, i);
  }

  /** Past the value starting at `i`. */
  #skipValue(i: number): number {
    const text = this.#text;
    const first = text.charCodeAt(i);
    if (first === QUOTE) return this.#skipString(i);
    if (first === 0x7b || first === 0x5b) return this.#end(i);
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isWhitespace(c)) break;
      i++;
    }
    return i;
  }

  #read(start: number): JsonNode {
    const text = this.#text;
    const first = text.charCodeAt(start);
    if (first === 0x7b) {
      const members = new Map<string, number>();
      let ref: string | undefined;
      let i = this.#skipWhitespace(start + 1);
      while (i < text.length && text.charCodeAt(i) === QUOTE) {
        const keyEnd = this.#skipString(i);
        const raw = text.slice(i + 1, keyEnd - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
        i = this.#skipWhitespace(keyEnd) + 1; // past ':'
        const valueStart = this.#skipWhitespace(i);
        i = this.#skipValue(valueStart);
        if (!members.has(key)) members.set(key, valueStart);
        if (key === '$ref' && ref === undefined && text.charCodeAt(valueStart) === QUOTE)
          ref = JSON.parse(text.slice(valueStart, i)) as string;
        i = this.#skipWhitespace(i);
        if (text.charCodeAt(i) === 0x2c) i = this.#skipWhitespace(i + 1);
      }
      return ref === undefined ? { start, members } : { start, members, ref };
    }
    if (first === 0x5b) {
      const items: number[] = [];
      let i = this.#skipWhitespace(start + 1);
      while (i < text.length && text.charCodeAt(i) !== 0x5d) {
        items.push(i);
        i = this.#skipWhitespace(this.#skipValue(i));
        if (text.charCodeAt(i) === 0x2c) i = this.#skipWhitespace(i + 1);
      }
      return { start, items };
    }
    return { start };
  }
}

/** Keys of a parsed JSON value (a tree: JSON.parse shares nothing) and the `$ref` strings in it. */
export function keysParsed(value: unknown, refs: string[]): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (Array.isArray(value)) {
    let count = 0;
    for (const item of value) count += keysParsed(item, refs);
    return count;
  }
  let count = 0;
  for (const key in value) {
    count++;
    const child = (value as Record<string, unknown>)[key];
    if (key === '$ref' && typeof child === 'string') refs.push(child);
    else count += keysParsed(child, refs);
  }
  return count;
}

/** Line and column (both from 1) of offsets in a text. */
export class LineIndex {
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.#starts.push(i + 1);
  }

  linePos(offset: number): { line: number; col: number } {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: offset - this.#starts[low]! + 1 };
  }
}
