/**
 * Generated code written line by line at a known depth: the emitters say where a block opens
 * and closes, so no later pass has to find the indentation again from the brackets.
 */
export class CodeWriter {
  readonly #lines: string[] = [];
  readonly #indents: string[] = [''];
  readonly #unit: string;
  #depth = 0;

  /** `unit`: one level of indentation (two spaces, or a tab for validators). */
  constructor(unit = '  ') {
    this.#unit = unit;
  }

  /** One line at the current depth. */
  line(text: string): this {
    this.#lines.push(`${this.#indent()}${text}`);
    return this;
  }

  /** An empty line. */
  blank(): this {
    this.#lines.push('');
    return this;
  }

  /** `open` at the current depth, what `body` writes one level deeper, then `close`. */
  block(open: string, body: () => void, close: string): this {
    this.line(open);
    this.indent(body);
    return this.line(close);
  }

  /** What `body` writes, one level deeper. */
  indent(body: () => void): this {
    this.#depth++;
    try {
      body();
    } finally {
      this.#depth--;
    }
    return this;
  }

  /** The lines written, each ended by a newline. */
  text(): string {
    return this.#lines.length === 0 ? '' : `${this.#lines.join('\n')}\n`;
  }

  #indent(): string {
    const indents = this.#indents;
    while (indents.length <= this.#depth) indents.push(`${indents[indents.length - 1]}${this.#unit}`);
    return indents[this.#depth]!;
  }
}
