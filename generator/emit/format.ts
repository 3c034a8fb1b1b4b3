import type { Options } from 'prettier';
import { KeiyakuError } from '../errors.js';

const PRINT_WIDTH = 120;
const OPTIONS: Options = { printWidth: PRINT_WIDTH, singleQuote: false, trailingComma: 'all', endOfLine: 'lf' };

/**
 * Generated source in its final layout, the layout prettier gives it (printWidth 120, double
 * quotes, trailing commas) without loading prettier: the emitters write one construct per line
 * and this sets the indentation from the brackets, drops blank lines where prettier drops them
 * and prints JSON as prettier does. A file with a code line longer than the print width, whose
 * breaking is prettier's craft, goes through prettier (loaded then). A test holds that prettier
 * leaves every file emitted for the fixtures unchanged.
 */
export async function finishSource(path: string, content: string): Promise<string> {
  if (path.endsWith('.json')) return printJson(JSON.parse(content));
  const laid = layOut(content);
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
  return !/^\s*(\/\/|\/\*|\*)/.test(line);
}

/** Indentation of `depth` levels of two spaces, built once per depth. */
const indents: string[] = [''];
function indentOf(depth: number): string {
  while (indents.length <= depth) indents.push(`${indents[indents.length - 1]}  `);
  return indents[depth]!;
}

/**
 * Indentation from bracket depth, one level per line however many brackets it opens or closes
 * (`({` hugs), continuations of block comments aligned on their `*`; one blank line at most,
 * none after an opening or before a closing bracket, none at the end.
 */
function layOut(source: string): string {
  let depth = 0;
  /** Extra indentation of the body of a declaration broken after its `=`, until its closing line. */
  let extra = 0;
  let extraUntil = -1;
  /** The broken declaration's call keeps `name(` on its line: its closing `});` becomes `},` and `);`. */
  let splitClose = false;
  const lines: string[] = [];
  for (let from = 0; from <= source.length; ) {
    let to = source.indexOf('\n', from);
    if (to === -1) to = source.length;
    const line = source.slice(from, to).trim();
    from = to + 1;
    if (line === '') {
      const last = lines.at(-1);
      if (last !== undefined && last !== '') {
        const end = last.charCodeAt(last.length - 1);
        if (end !== 0x7b && end !== 0x28 && end !== 0x5b) lines.push(''); // none after `{`, `(` or `[`
      }
      continue;
    }
    if (line.startsWith('*')) {
      lines.push(`${indentOf(depth + extra)} ${line}`);
      continue;
    }
    const code = line.startsWith('//') ? '' : line.startsWith('/*') ? line.slice(line.indexOf('*/') + 2 || line.length) : line;
    const { opens, closes, leadingCloses } = braces(code);
    if (leadingCloses > 0) {
      depth = Math.max(0, depth - 1);
      if (lines.at(-1) === '') lines.pop();
    }
    if (leadingCloses > 0 && splitClose && depth === extraUntil && line === '});') {
      lines.push(`${indentOf(depth + 1)}},`, `${indentOf(depth)});`);
      extra--;
      extraUntil = -1;
      splitClose = false;
      continue;
    }
    const indent = indentOf(depth + extra);
    const broken = code === line && indent.length + line.length > PRINT_WIDTH ? breakAll(indent, line) : undefined;
    if (broken === undefined) lines.push(`${indent}${line}`);
    else {
      lines.push(...broken.lines);
      if (broken.indentBody && extraUntil === -1) {
        extra++;
        extraUntil = depth;
        splitClose = broken.splitClose === true;
      }
    }
    const net = opens - (closes - leadingCloses);
    if (net > 0) depth++;
    else if (net < 0) depth = Math.max(0, depth - 1);
    if (leadingCloses > 0 && depth === extraUntil && net <= 0) {
      extra--;
      extraUntil = -1;
    }
  }
  while (lines.at(-1) === '') lines.pop();
  return `${lines.join('\n')}\n`;
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
  const print = (node: unknown, indent: string, lead: number): string => {
    if (Array.isArray(node)) {
      if (node.length === 0) return '[]';
      if (node.every((v) => v === null || typeof v !== 'object')) {
        const flat = `[${node.map((v) => JSON.stringify(v)).join(', ')}]`;
        if (lead + flat.length + 1 <= PRINT_WIDTH) return flat;
      }
      const inner = `${indent}  `;
      return `[\n${node.map((v) => `${inner}${print(v, inner, inner.length)}`).join(',\n')}\n${indent}]`;
    }
    if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      if (entries.length === 0) return '{}';
      const inner = `${indent}  `;
      return `{\n${entries
        .map(([k, v]) => {
          const key = `${inner}${JSON.stringify(k)}: `;
          return `${key}${print(v, inner, key.length)}`;
        })
        .join(',\n')}\n${indent}}`;
    }
    return JSON.stringify(node);
  };
  return `${print(value, '', 0)}\n`;
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

/** Counts brackets outside string and regex literals: how {@link layOut} sees a line. */
function braces(line: string): { opens: number; closes: number; leadingCloses: number } {
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
