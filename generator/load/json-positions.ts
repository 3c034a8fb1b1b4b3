/**
 * Positions of the values of a JSON text, for locating diagnostics in contracts written as JSON.
 * A YAML parser reads JSON too, but builds a full syntax tree at a cost of about a second per
 * megabyte; this scanner records only where each value starts, its children and its `$ref`,
 * in a few milliseconds per megabyte. The text must already be valid JSON (`JSON.parse` said so).
 */

export interface JsonNode {
  /** Offset of the value's first character (the quote of a string, the bracket of a collection). */
  readonly start: number;
  /** Members of an object, first occurrence of each key. */
  readonly members?: Map<string, JsonNode>;
  readonly items?: JsonNode[];
  /** The `$ref` of an object, when it is a string. */
  readonly ref?: string;
}

export interface JsonPositions {
  readonly root: JsonNode;
  /** Some object of the text repeats a key (JSON.parse keeps the last, YAML readers reject it). */
  readonly duplicateKeys: boolean;
}

const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);

/** Scans valid JSON `text`; undefined when it is not (the caller reads it as YAML then). */
export function scanJson(text: string): JsonPositions | undefined {
  let i = 0;
  let duplicateKeys = false;
  const skipWhitespace = (): void => {
    while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i++;
  };
  /** Past the closing quote of the string starting at i; returns its raw content's end. */
  const skipString = (): boolean => {
    // i at the opening quote
    i++;
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 0x22) {
        i++;
        return escaped;
      }
      i++;
    }
    throw new SyntaxError('unterminated string');
  };
  const stringAt = (start: number): string => {
    const escaped = skipString();
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const value = (): JsonNode => {
    skipWhitespace();
    const start = i;
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      const members = new Map<string, JsonNode>();
      let ref: string | undefined;
      skipWhitespace();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return { start, members };
      }
      while (true) {
        skipWhitespace();
        if (text.charCodeAt(i) !== 0x22) throw new SyntaxError(`expected a key at ${i}`);
        const key = stringAt(i);
        skipWhitespace();
        if (text.charCodeAt(i) !== 0x3a) throw new SyntaxError(`expected ':' at ${i}`);
        i++;
        skipWhitespace();
        const valueStart = i;
        const child = value();
        if (members.has(key)) duplicateKeys = true;
        else members.set(key, child);
        if (key === '$ref' && ref === undefined && text.charCodeAt(valueStart) === 0x22)
          ref = JSON.parse(text.slice(valueStart, i)) as string;
        skipWhitespace();
        const next = text.charCodeAt(i++);
        if (next === 0x7d) return ref === undefined ? { start, members } : { start, members, ref };
        if (next !== 0x2c) throw new SyntaxError(`expected ',' or '}' at ${i - 1}`);
      }
    }
    if (c === 0x5b) {
      i++;
      const items: JsonNode[] = [];
      skipWhitespace();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return { start, items };
      }
      while (true) {
        items.push(value());
        skipWhitespace();
        const next = text.charCodeAt(i++);
        if (next === 0x5d) return { start, items };
        if (next !== 0x2c) throw new SyntaxError(`expected ',' or ']' at ${i - 1}`);
      }
    }
    if (c === 0x22) {
      skipString();
      return { start };
    }
    // number, true, false, null
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 0x2c || d === 0x7d || d === 0x5d || WHITESPACE.has(d)) break;
      i++;
    }
    if (i === start) throw new SyntaxError(`unexpected character at ${i}`);
    return { start };
  };
  try {
    const root = value();
    skipWhitespace();
    if (i !== text.length) return undefined;
    return { root, duplicateKeys };
  } catch {
    return undefined;
  }
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
