/**
 * Post-processing of the parser's diagnostics so each points at the right place and says one
 * root cause once, with a fix that fits:
 * - a YAML syntax error is the root cause: the first one of a file is kept, the errors that
 *   cascade from it (further syntax errors, schema errors of the half-parsed document) are dropped;
 *   its fix depends on the kind of error (indentation, an unclosed bracket, a duplicate key, a tab);
 * - a `$ref` whose pointer does not exist is located at the `$ref` itself, in the file that holds it
 *   (not at the contract's 1:1), and says which file and pointer are missing;
 * - a remote `$ref` that cannot be fetched says so, with the reason;
 * - an error of a schema branch (`must match "else" schema`) is dropped when the error it wraps,
 *   deeper in the same node, is reported; an OpenAPI-style discriminator object is named as such;
 * - absolute paths in messages become paths relative to the working directory.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import type { SourceLocator } from './source-locator.js';

function yamlHint(message: string): string {
  if (/indent/i.test(message))
    return 'indent this line with spaces to the same column as the other keys of its mapping (one level deeper than its parent key)';
  if (/tab/i.test(message)) return 'replace the tab with spaces: YAML indentation is spaces only';
  if (/flow (collection|sequence|mapping)|Unexpected end|missed/i.test(message))
    return 'close the [ or { opened above, or write the list as "- item" lines and the mapping as "key: value" lines';
  if (/unique|duplicate/i.test(message)) return 'remove or rename the duplicate key';
  if (/quote|string/i.test(message)) return 'close the quoted string, or quote the whole value';
  return 'fix the YAML/JSON syntax at this position';
}

/** Where `$ref: <ref>` is written among the contract's files (1-based line/column of the value), if found. */
function findRef(locator: SourceLocator, ref: string): { file: string; line: number; column: number } | undefined {
  const escaped = ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`["']?\\$ref["']?\\s*:\\s*["']?(${escaped})["']?\\s*[,}\\n]`, 'm');
  for (const file of locator.files()) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const match = pattern.exec(text);
    if (match === null) continue;
    const at = match.index + match[0].indexOf(match[1]!, match[0].indexOf(':'));
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    return { file, line, column };
  }
  return undefined;
}

/**
 * The quoted string that most likely causes a syntax error reported at `errorLine` of `file`: one
 * that opens at or before that line and is never closed, or runs on past a line that reads like a
 * YAML key (`key:` or `- `), so the quote swallowed the lines after it. A quoted scalar may span
 * lines in YAML, so only a string that swallowed structure is blamed.
 */
export function unclosedQuote(
  locator: SourceLocator,
  file: string,
  errorLine: number,
): { line: number; column: number; until: number; kind: 'double-quoted' | 'single-quoted' } | undefined {
  for (const scalar of locator.quotedScalars(file)) {
    if (scalar.line > errorLine) break;
    const lines = scalar.source.split('\n');
    const quote = scalar.source[0]!;
    const body = scalar.source.trimEnd();
    const closed = body.length > 1 && body.endsWith(quote) && (quote !== '"' || /(^|[^\\])(\\\\)*"$/.test(body.slice(1)));
    const swallowed = lines.slice(1).some((line) => /^\s*(?:- |[^\s"'#][^:"']*:(?:\s|$))/.test(line));
    if (closed && !swallowed) continue;
    return {
      line: scalar.line,
      column: scalar.column,
      until: closed ? scalar.line + lines.length - 1 : errorLine,
      kind: scalar.source.startsWith('"') ? 'double-quoted' : 'single-quoted',
    };
  }
  return undefined;
}

export function refineDiagnostics(diagnostics: readonly Diagnostic[], locator: SourceLocator, cwd: string): Diagnostic[] {
  const absolute = new RegExp(`${resolve(cwd).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\\\/]`, 'g');
  const relativePaths = (text: string): string => text.replace(absolute, '');

  // YAML syntax errors first: one root cause per file, nothing that cascades from it.
  const syntax = new Map<string, Diagnostic>();
  for (const d of diagnostics) {
    if (d.code !== 'parser' || d.severity !== 'error') continue;
    const file = d.location?.file ?? '';
    const first = syntax.get(file);
    const earlier =
      first === undefined ||
      (d.location?.line ?? 0) < (first.location?.line ?? 0) ||
      ((d.location?.line ?? 0) === (first.location?.line ?? 0) && (d.location?.column ?? 0) < (first.location?.column ?? 0));
    if (earlier) syntax.set(file, d);
  }
  if (syntax.size > 0) {
    return [...syntax.values()].map((d) => {
      const quote = d.location === undefined ? undefined : unclosedQuote(locator, resolve(cwd, d.location.file), d.location.line);
      if (quote !== undefined && d.location !== undefined) {
        return {
          ...d,
          message: `the ${quote.kind} string that opens here is not closed on its line: it runs on to line ${quote.until}${quote.until < d.location.line ? ',' : ''} where the YAML parser reports "${relativePaths(d.message)}"${quote.until < d.location.line ? ` at line ${d.location.line}` : ''}`,
          hint: `close the string with ${quote.kind === 'double-quoted' ? '"' : "'"} on this line (or write the value without quotes)`,
          location: { ...d.location, line: quote.line, column: quote.column },
        };
      }
      return { ...d, message: relativePaths(d.message), hint: yamlHint(d.message) };
    });
  }

  // A schema-branch error (`"payload" property must match "else" schema`) wraps the real one
  // found deeper in the same node: keep only the deeper one.
  const pointers = diagnostics.map((d) => d.location?.pointer).filter((p): p is string => p !== undefined);
  const kept = diagnostics.filter(
    (d) =>
      !(
        /must match "(else|then)" schema|must match (exactly one|a) schema in (oneOf|anyOf)/.test(d.message) &&
        d.location?.pointer !== undefined &&
        pointers.some((p) => p.startsWith(`${d.location!.pointer}/`))
      ),
  );

  const refined = kept.map((d): Diagnostic => {
    if (/"discriminator" property type must be string/.test(d.message)) {
      return {
        ...d,
        message:
          'an AsyncAPI Schema discriminator is the name of the property that tells the variants apart (a string), not an OpenAPI discriminator object',
        hint: 'write `discriminator: <propertyName>` (for example `discriminator: kind`)',
      };
    }
    if (d.code !== 'invalid-ref') return { ...d, message: relativePaths(d.message) };
    const fetch = /^FetchError: request to (\S+) failed, reason: (.*?)(?: \(at #[^)]*\))?$/.exec(d.message);
    if (fetch) {
      return {
        ...d,
        message: `the remote $ref ${fetch[1]} could not be fetched: ${fetch[2]}`,
        hint: 'check the URL and that this machine can reach it, or copy the schema into a local file and $ref that',
      };
    }
    const missing = /^'([^']*)' does not exist/.exec(d.message);
    if (missing) {
      const ref = missing[1]!;
      const where = findRef(locator, ref);
      const hashAt = ref.indexOf('#');
      const target = hashAt < 0 ? ref : ref.slice(0, hashAt);
      const pointer = hashAt < 0 ? '' : ref.slice(hashAt + 1);
      const inFile = where === undefined ? undefined : locator.displayPath(where.file);
      const message =
        target === ''
          ? `$ref "${ref}": the pointer ${pointer} does not exist in ${inFile ?? 'the file that contains it'}`
          : `$ref "${ref}": ${pointer === '' ? `the file ${target} does not exist` : `the file ${target} or its pointer ${pointer} does not exist`}`;
      return {
        ...d,
        message,
        hint:
          target === ''
            ? `a "#/…" pointer is resolved in the file that contains the $ref${inFile ? ` (${inFile})` : ''}: point it at an existing node there, or name the file (./other.json#/…)`
            : 'make the $ref point at an existing file (relative to the file that contains it) and pointer',
        ...(where === undefined
          ? {}
          : {
              location: {
                file: locator.displayPath(where.file),
                line: where.line,
                column: where.column,
                pointer: d.location?.pointer ?? '',
              },
            }),
      };
    }
    return { ...d, message: relativePaths(d.message) };
  });
  return once(refined);
}

/**
 * One diagnostic per problem in the source: the parser reports a node once per path it is reached
 * by (a schema under components, through each message and operation that `$ref`s it), and those
 * all land on the same file, line and column.
 */
function once(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    if (d.location === undefined || d.location.line <= 0) return true;
    const key = `${d.severity}\u0000${d.code}\u0000${d.message}\u0000${d.location.file}:${d.location.line}:${d.location.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
