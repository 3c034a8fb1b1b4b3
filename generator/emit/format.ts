import * as prettier from 'prettier';
import { KeiyakuError } from '../errors.js';

const OPTIONS: prettier.Options = { printWidth: 120, singleQuote: false, trailingComma: 'all', endOfLine: 'lf' };

/**
 * Formatted text of the previous generate run, by unformatted text: in watch mode, and for
 * `check` after `generate`, only the files whose text changed go through prettier again.
 */
let previous = new Map<string, string>();
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

/**
 * Indents machine-written JavaScript that has one statement per line (ajv's standalone
 * output): only leading whitespace changes, so the code's meaning cannot. Prettier
 * takes seconds on the megabytes of validator code of a large contract; this takes
 * milliseconds and is just as deterministic.
 */
export function indentStatements(code: string, unit = '  '): string {
  let depth = 0;
  const lines: string[] = [];
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      if (lines.length > 0 && lines[lines.length - 1] !== '') lines.push('');
      continue;
    }
    const { opens, closes, leadingCloses } = braces(line);
    depth = Math.max(0, depth - leadingCloses);
    lines.push(`${unit.repeat(depth)}${line}`);
    depth = Math.max(0, depth + opens - (closes - leadingCloses));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Counts braces outside string and regex literals. */
function braces(line: string): { opens: number; closes: number; leadingCloses: number } {
  let opens = 0;
  let closes = 0;
  let leadingCloses = 0;
  let leading = true;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      quote = ch;
      leading = false;
    } else if (ch === '/' && /[(,=:[!&|?{};]\s*$|^\s*$/.test(line.slice(0, i)) && line[i + 1] !== '/' && line[i + 1] !== '*') {
      quote = '/';
      leading = false;
    } else if (ch === '{' || ch === '(' || ch === '[') {
      opens++;
      leading = false;
    } else if (ch === '}' || ch === ')' || ch === ']') {
      closes++;
      if (leading) leadingCloses++;
    } else if (ch !== ' ') leading = false;
  }
  return { opens, closes, leadingCloses };
}
