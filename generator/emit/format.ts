import type { Options } from 'prettier';
import { KeiyakuError } from '../errors.js';

const PRINT_WIDTH = 120;
const OPTIONS: Options = { printWidth: PRINT_WIDTH, singleQuote: false, trailingComma: 'all', endOfLine: 'lf' };

/**
 * Generated source in its final layout, the layout prettier gives it (printWidth 120, double
 * quotes, trailing commas) without loading prettier: the emitters write the code laid out, one
 * construct per line, indented as they write it; this breaks the lines longer than the print
 * width as prettier breaks them and prints JSON as prettier does. A file with a line whose
 * breaking is prettier's craft goes through prettier (loaded then). A test holds that prettier
 * leaves every file emitted for the fixtures unchanged.
 */
export async function finishSource(path: string, content: string): Promise<string> {
  if (path.endsWith('.json')) return printJson(JSON.parse(content));
  const { text: laid, long } = breakLongLines(content);
  if (!(long || laid.includes('\\"') || laid.includes('| (') || laid.includes('& ('))) return laid;
  for (let start = 0; start < laid.length; ) {
    const end = laid.indexOf('\n', start);
    const stop = end === -1 ? laid.length : end;
    if (needsPrettier(laid.slice(start, stop))) return formatSource(path, laid);
    start = stop + 1;
  }
  return laid;
}

/**
 * A line whose layout this module does not reproduce: code longer than the print width, a string
 * with escaped double quotes (prettier may switch it to single quotes), a parenthesised member of
 * a union or intersection (prettier may drop the parentheses).
 */
function needsPrettier(line: string): boolean {
  if (!(line.length > PRINT_WIDTH || line.includes('\\"') || line.includes('| (') || line.includes('& ('))) return false;
  return !COMMENT_LINE.test(line);
}

/** A line of a comment: `//`, `/*` or a JSDoc line's `*` first. */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

/**
 * `source` (laid out by its emitter) with each code line over the print width broken as prettier
 * breaks it ({@link breakAll}), and whether a code line over the width is left (a comment line is
 * not one: {@link needsPrettier} leaves it to this layout). A declaration broken
 * after its `=` indents its body a level more, down to its closing line (the first line after it
 * at its own indentation). Only the lines that change are cut out of the text.
 */
function breakLongLines(source: string): { text: string; long: boolean } {
  let out = '';
  /** `source` is copied into `out` up to here. */
  let from = 0;
  let long = false;
  /** The body of a declaration broken after its `=`, while in it. */
  let body: { indent: string; splitClose: boolean } | undefined;
  for (let start = 0; start < source.length; ) {
    let end = source.indexOf('\n', start);
    if (end === -1) end = source.length;
    if (body === undefined && end - start <= PRINT_WIDTH) {
      start = end + 1;
      continue;
    }
    const line = source.slice(start, end);
    let replacement: string[];
    if (body !== undefined) {
      const closing = line.length > body.indent.length && line.startsWith(body.indent) && line[body.indent.length] !== ' ';
      if (closing && body.splitClose && line === `${body.indent}});`) replacement = [`${body.indent}  },`, `${body.indent});`];
      else replacement = line === '' ? [''] : (breakCode(`  ${line}`)?.lines ?? [`  ${line}`]);
      if (closing) body = undefined;
    } else {
      const broken = breakCode(line);
      if (broken === undefined) {
        // A comment over the width stays as it is (prettier leaves comments alone).
        if (!COMMENT_LINE.test(line)) long = true;
        start = end + 1;
        continue;
      }
      replacement = broken.lines;
      if (broken.indentBody) body = { indent: /^ */.exec(line)![0], splitClose: broken.splitClose === true };
    }
    if (replacement.some((l) => l.length > PRINT_WIDTH)) long = true;
    out += `${source.slice(from, start)}${replacement.join('\n')}`;
    from = end;
    start = end + 1;
  }
  return { text: from === 0 ? source : out + source.slice(from), long };
}

/** {@link breakAll} of a code line over the print width; undefined for a comment or a line that fits. */
function breakCode(line: string): ReturnType<typeof breakAll> {
  if (line.length <= PRINT_WIDTH) return undefined;
  const indent = /^ */.exec(line)![0];
  const code = line.slice(indent.length);
  if (code.startsWith('//') || code.startsWith('/*') || code.startsWith('*')) return undefined;
  return breakAll(indent, code);
}

/**
 * Prettier's break of the constructs generated code has, for a line over the print width:
 * the lines that replace it (indented), and whether the body that follows gains a level.
 * Undefined for any other line (the file then goes through prettier).
 */
function breakLine(indent: string, line: string): { lines: string[]; indentBody?: boolean; splitClose?: boolean } | undefined {
  const inner = `${indent}  `;
  let m = /^(import (?:type )?)\{ (.+) \}( from "[^"]*";)$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}{`, ...splitTop(m[2]!).map((n) => `${inner}${n},`), `${indent}}${m[3]}`] };
  m = /^(export const [\w$]+: .+ = [\w$]+\()\{$/.exec(line);
  if (m && indent.length + m[1]!.length <= PRINT_WIDTH)
    return { lines: [`${indent}${m[1]}`, `${inner}{`], indentBody: true, splitClose: true };
  m = /^(export const [\w$]+: .+) = ([\w$]+\(\{)$/.exec(line);
  if (m && indent.length + m[1]!.length + 2 <= PRINT_WIDTH) return { lines: [`${indent}${m[1]} =`, `${inner}${m[2]}`], indentBody: true };
  m = /^(export const [\w$]+ = [\w$]+)<(.+)>\(\{$/.exec(line);
  if (m)
    return {
      lines: [`${indent}${m[1]}<`, ...splitTop(m[2]!).map((a, i, all) => `${inner}${a}${i < all.length - 1 ? ',' : ''}`), `${indent}>({`],
    };
  m = /^([\w$]+: \(.*\): [\w$]+ =>) (.+,)$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}`, `${inner}${m[2]}`] };
  m = /^(export function [\w$]+(?:<[\w$]+>)?)\((.+)\)(: .+ \{)$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}(`, ...splitTop(m[2]!).map((p) => `${inner}${p},`), `${indent})${m[3]}`] };
  m = /^([\w$]+: )\{ (.+) \},$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}{`, ...splitTop(m[2]!).map((p) => `${inner}${p},`), `${indent}},`] };
  m = /^(readonly [^:]+\??:) (.+);$/.exec(line);
  if (m && splitTop(m[2]!, '|').length > 1 && inner.length + m[2]!.length + 1 <= PRINT_WIDTH)
    return { lines: [`${indent}${m[1]}`, `${inner}${m[2]};`] };
  m = /^(export const [\w$]+ = )\[([\w$, ]+)\]( as const)?;$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}[`, ...splitTop(m[2]!).map((n) => `${inner}${n},`), `${indent}]${m[3] ?? ''};`] };
  m = /^(export const [\w$]+ = [\w$]+<[\w$]+>\([\w$]+), \{ (.+) \}\);$/.exec(line);
  if (m) return { lines: [`${indent}${m[1]}, {`, ...splitTop(m[2]!).map((p) => `${inner}${p},`), `${indent}});`] };
  return undefined;
}

/** {@link breakLine}, then the same for each resulting line still over the width (outer groups break first, as prettier's do). */
function breakAll(indent: string, line: string): { lines: string[]; indentBody?: boolean; splitClose?: boolean } | undefined {
  const broken = breakLine(indent, line);
  if (broken === undefined || broken.indentBody) return broken;
  const lines = broken.lines.flatMap((l) => {
    if (l.length <= PRINT_WIDTH) return [l];
    const own = /^ */.exec(l)![0];
    return breakAll(own, l.slice(own.length))?.lines ?? [l];
  });
  return { lines };
}

/** Splits at the commas (or `separator`) outside brackets and strings (`=>` is no bracket). */
function splitTop(text: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if ('([{<'.includes(ch)) depth++;
    else if (')]}'.includes(ch) || (ch === '>' && text[i - 1] !== '=')) depth--;
    else if (ch === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** JSON as prettier prints it: objects one member per line, arrays of plain values on one line when they fit. */
export function printJson(value: unknown): string {
  let out = '';
  /** Appends `node`, which starts `lead` characters into its line, its inner lines at `indent`. */
  const print = (node: unknown, indent: string, lead: number): void => {
    if (Array.isArray(node)) {
      if (node.length === 0) {
        out += '[]';
        return;
      }
      if (node.every((v) => v === null || typeof v !== 'object')) {
        let flat = '[';
        for (let i = 0; i < node.length; i++) flat += i === 0 ? JSON.stringify(node[i]) : `, ${JSON.stringify(node[i])}`;
        flat += ']';
        if (lead + flat.length + 1 <= PRINT_WIDTH) {
          out += flat;
          return;
        }
      }
      const inner = `${indent}  `;
      out += '[\n';
      for (let i = 0; i < node.length; i++) {
        if (i > 0) out += ',\n';
        out += inner;
        print(node[i], inner, inner.length);
      }
      out += `\n${indent}]`;
      return;
    }
    if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node);
      if (keys.length === 0) {
        out += '{}';
        return;
      }
      const inner = `${indent}  `;
      out += '{\n';
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) out += ',\n';
        const key = `${inner}${JSON.stringify(keys[i])}: `;
        out += key;
        print((node as Record<string, unknown>)[keys[i]!], inner, key.length);
      }
      out += `\n${indent}}`;
      return;
    }
    out += JSON.stringify(node);
  };
  print(value, '', 0);
  return `${out}\n`;
}

/**
 * Formatted text of the previous generate run, by unformatted text: in watch mode, and for
 * `check` after `generate`, only the files whose text changed go through prettier again.
 */
let previous = new Map<string, string>();
/** Files of this process that went through prettier (lines this module does not lay out), for tests and benchmarks. */
let prettierFiles = 0;
export function prettierFileCount(): number {
  return prettierFiles;
}
let current = new Map<string, string>();
/** Starts a generate run: results of the run before the last are dropped (the cache holds at most two runs). */
export function startFormatRun(): void {
  previous = current;
  current = new Map();
}

/** Formats generated source; a syntax error here is a generator bug, reported with the file. */
export async function formatSource(path: string, content: string): Promise<string> {
  const parser = path.endsWith('.json') ? 'json' : 'typescript';
  const key = `${parser}\0${content}`;
  const known = current.get(key) ?? previous.get(key);
  if (known !== undefined) {
    current.set(key, known);
    return known;
  }
  try {
    prettierFiles++;
    const prettier = await import('prettier');
    const formatted = await prettier.format(content, { ...OPTIONS, parser });
    current.set(key, formatted);
    return formatted;
  } catch (cause) {
    throw new KeiyakuError(
      'generator_bug',
      `keiyaku produced ${path} that does not parse; please report it: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
