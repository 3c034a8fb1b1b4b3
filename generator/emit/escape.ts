/**
 * Escaping of untrusted contract text (names, descriptions, enum values, defaults,
 * examples) into the three places it can land in generated code: string literals,
 * comments and identifiers (see `generator/model/identifiers.ts`).
 */

/** What a comment or a string literal must not hold as is. */
const LINE_SEPARATORS = /[\u2028\u2029]/;
const COMMENT_BREAKERS = /[\r\n\u2028\u2029]|\*\/|\/\*/;

/** A TypeScript string literal for `value`, safe for any input (quotes, backslashes, newlines, U+2028). */
export function stringLiteral(value: string): string {
  const json = JSON.stringify(value);
  return LINE_SEPARATORS.test(json) ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;
}

/** A literal type or value for a JSON primitive. */
export function jsonLiteral(value: string | number | boolean | null): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') return Number.isFinite(value) ? (value < 0 ? `-${-value}` : String(value)) : 'number';
  return String(value);
}

/** Text that can sit inside a `/** … *\/` comment: no terminator, no stray line breaks. */
export function commentText(value: string): string {
  // One line without a comment terminator (most text): only its ends are trimmed.
  if (!COMMENT_BREAKERS.test(value)) return value.trim();
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(/\*\//g, '*\\/')
    .replace(/\/\*/g, '/\\*')
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .trim();
}

/** A JSDoc block from lines (each may span several lines); empty string when there is nothing to say. */
export function jsDoc(lines: readonly (string | undefined)[], indent = ''): string {
  const body: string[] = [];
  for (const line of lines) {
    if (line === undefined || line.trim() === '') continue;
    const text = commentText(line);
    if (text.includes('\n')) body.push(...text.split('\n'));
    else body.push(text);
  }
  if (body.length === 0) return '';
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** A property key as written in a type or object literal: bare when it is a plain identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : stringLiteral(name);
}

/** A JSON value as an inline TypeScript literal in prettier's layout: `{ kafka: { topic: "t" } }`, `[1, 2]`, `{}`. */
export function inlineLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineLiteral).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${inlineLiteral(v)}`).join(', ')} }`;
  }
  if (typeof value === 'string') return stringLiteral(value);
  return JSON.stringify(value) ?? 'undefined';
}
