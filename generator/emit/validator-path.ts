/**
 * Where a generated validator reports an error: a JSON pointer into the value, built at run time
 * from literal pieces and the loop variables of the code around the check (generator/emit/validator-function.ts).
 */

/**
 * A JSON pointer built at run time, only when an error is reported: the code of its pieces up to
 * the last expression (string literals and JS expressions), then its literal tail. A child shares
 * its parent's pieces, and the code is joined once, when a keyword first asks for it.
 */
export class Path {
  #code: string | undefined;

  constructor(
    readonly parts: readonly string[],
    readonly literal: string,
  ) {}

  /** The JS expression that builds the pointer (`"/a/"+i` or `"/a"`). */
  get code(): string {
    if (this.#code === undefined) {
      const parts = this.literal !== '' || this.parts.length === 0 ? [...this.parts, JSON.stringify(this.literal)] : [...this.parts];
      if (parts.length > 1 && !parts[0]!.startsWith('"')) parts.unshift('""');
      this.#code = parts.join('+');
    }
    return this.#code;
  }
}

/** The pointer of the value a validator function is called on. */
export const ROOT_PATH = new Path([], '');

export function pathCode(path: Path): string {
  return path.code;
}

export function child(path: Path, key: string): Path {
  const token = key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
  return new Path(path.parts, `${path.literal}/${token}`);
}

export function childExpr(path: Path, expr: string, escaped: boolean): Path {
  return new Path([...path.parts, JSON.stringify(`${path.literal}/`), escaped ? `$esc(${expr})` : expr], '');
}
