// The layout validators had when generator/emit/validators.ts indented its own output from the
// brackets: kept here as an independent check that the code writer lays validators out the same.

/** How a line's brackets move the indentation (see {@link braces}). */
interface BracketCounts {
  readonly opens: number;
  readonly closes: number;
  readonly leadingCloses: number;
}

/**
 * Indentation from bracket depth, line by line: a line's leading closing brackets take it out a
 * level each, and what its brackets leave open sets the depth of the lines after it.
 */
class BracketIndenter {
  #depth = 0;
  readonly #levels = [''];
  readonly #unit: string;

  constructor(unit: string) {
    this.#unit = unit;
  }

  /** `line` (trimmed) indented; `counts` as {@link braces} gives them, when the caller has them already. */
  line(line: string, counts: BracketCounts = braces(line)): string {
    this.#depth = Math.max(0, this.#depth - counts.leadingCloses);
    while (this.#levels.length <= this.#depth) this.#levels.push(`${this.#levels[this.#levels.length - 1]}${this.#unit}`);
    const indented = `${this.#levels[this.#depth]}${line}`;
    this.#depth = Math.max(0, this.#depth + counts.opens - (counts.closes - counts.leadingCloses));
    return indented;
  }
}

/**
 * Indents machine-written JavaScript that has one statement per line (ajv's standalone
 * output): only leading whitespace changes, so the code's meaning cannot. Prettier
 * takes seconds on the megabytes of validator code of a large contract; this takes
 * milliseconds and is just as deterministic. (generator/emit/validators.ts lays its code out
 * as it writes it, through generator/emit/writer.ts.)
 */
export function indentStatements(code: string, unit = '  '): string {
  const indenter = new BracketIndenter(unit);
  const lines: string[] = [];
  let blank = false;
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      blank = lines.length > 0;
      continue;
    }
    if (blank) lines.push('');
    blank = false;
    lines.push(indenter.line(line));
  }
  return `${lines.join('\n')}\n`;
}

/** Counts braces outside string and regex literals: how {@link indentStatements} sees a line. */
function braces(line: string): BracketCounts {
  let opens = 0;
  let closes = 0;
  let leadingCloses = 0;
  let leading = true;
  /** The char code of the open literal's delimiter (a quote, a backtick or the slash of a regex), or 0. */
  let quote = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (quote !== 0) {
      if (c === 0x5c)
        i++; // backslash
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 0x22 || c === 0x27 || c === 0x60) {
      quote = c;
      leading = false;
    } else if (
      c === 0x2f &&
      line.charCodeAt(i + 1) !== 0x2f &&
      line.charCodeAt(i + 1) !== 0x2a &&
      /[(,=:[!&|?{};]\s*$|^\s*$/.test(line.slice(0, i))
    ) {
      quote = 0x2f;
      leading = false;
    } else if (c === 0x7b || c === 0x28 || c === 0x5b) {
      opens++;
      leading = false;
    } else if (c === 0x7d || c === 0x29 || c === 0x5d) {
      closes++;
      if (leading) leadingCloses++;
    } else if (c !== 0x20) leading = false;
  }
  return { opens, closes, leadingCloses };
}
