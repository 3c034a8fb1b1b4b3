/**
 * Whether a generated file on disk says the same as freshly generated content, whatever
 * formatter a project ran over it. A team that formats `generated/` with its own prettier
 * (single quotes, no semicolons, tabs, another print width, no trailing commas, `x => …`)
 * still passes `keiyaku generate --check`; a changed token, string or comment does not.
 *
 * TypeScript/JavaScript files are compared as token streams (TypeScript's scanner): layout,
 * quote style, semicolons, trailing commas, quotes around property names that need none and
 * parentheses are not significant; whitespace inside comments
 * is not either. JSON files are compared as data.
 */
import { createRequire } from 'node:module';
import type { ts as TypeScript } from 'ts-morph';

// Loaded on the first file whose bytes differ: a plain `generate` never pays for the compiler.
let loaded: typeof TypeScript | undefined;
function typescript(): typeof TypeScript {
  loaded ??= (createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph')).ts;
  return loaded;
}

export function sameGeneratedContent(path: string, onDisk: string, generated: string): boolean {
  if (onDisk === generated) return true;
  if (path.endsWith('.json')) {
    try {
      return JSON.stringify(JSON.parse(onDisk)) === JSON.stringify(JSON.parse(generated));
    } catch {
      return false;
    }
  }
  if (!/\.[cm]?[jt]s$/.test(path)) return false;
  const a = significantTokens(onDisk);
  const b = significantTokens(generated);
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

function regexMayFollow(ts: typeof TypeScript): ReadonlySet<TypeScript.SyntaxKind> {
  return new Set<TypeScript.SyntaxKind>([
    ts.SyntaxKind.OpenParenToken,
    ts.SyntaxKind.CommaToken,
    ts.SyntaxKind.EqualsToken,
    ts.SyntaxKind.ColonToken,
    ts.SyntaxKind.OpenBracketToken,
    ts.SyntaxKind.ExclamationToken,
    ts.SyntaxKind.AmpersandAmpersandToken,
    ts.SyntaxKind.BarBarToken,
    ts.SyntaxKind.QuestionToken,
    ts.SyntaxKind.OpenBraceToken,
    ts.SyntaxKind.CloseBraceToken,
    ts.SyntaxKind.SemicolonToken,
    ts.SyntaxKind.ReturnKeyword,
    ts.SyntaxKind.EqualsGreaterThanToken,
  ]);
}

const CLOSERS = new Set(['}', ']', ')', '>']); // a comma before one of these is a trailing comma

/** The tokens of `code` in a formatting-free spelling. */
function significantTokens(code: string): string[] {
  const ts = typescript();
  const REGEX_MAY_FOLLOW = regexMayFollow(ts);
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, code);
  const raw: { kind: TypeScript.SyntaxKind; text: string }[] = [];
  let previous: TypeScript.SyntaxKind | undefined;
  const templates: number[] = []; // brace depth at each open `${`
  let braces = 0;
  while (true) {
    let kind = scanner.scan();
    if (kind === ts.SyntaxKind.EndOfFileToken) break;
    if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue;
    if (
      (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) &&
      (previous === undefined || REGEX_MAY_FOLLOW.has(previous))
    )
      kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.OpenBraceToken) braces++;
    if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop();
      } else braces--;
    }
    if (kind === ts.SyntaxKind.TemplateHead) templates.push(braces);
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      raw.push({
        kind,
        text: `comment:${scanner
          .getTokenText()
          .replace(/^\s*\*/gm, '')
          .replace(/\s+/g, '')}`,
      });
      continue;
    }
    previous = kind;
    if (kind === ts.SyntaxKind.StringLiteral || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral)
      raw.push({ kind, text: `string:${scanner.getTokenValue()}` });
    else if (kind === ts.SyntaxKind.NumericLiteral) raw.push({ kind, text: `number:${Number(scanner.getTokenValue())}` });
    else raw.push({ kind, text: scanner.getTokenText() });
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i]!;
    const next = raw[i + 1];
    if (token.kind === ts.SyntaxKind.SemicolonToken) continue;
    if (token.kind === ts.SyntaxKind.CommaToken && next !== undefined && CLOSERS.has(next.text)) continue;
    // `"name":` and `name:` are the same property when the name needs no quotes.
    const colonNext =
      next?.kind === ts.SyntaxKind.ColonToken ||
      (next?.kind === ts.SyntaxKind.QuestionToken && raw[i + 2]?.kind === ts.SyntaxKind.ColonToken);
    if (token.kind === ts.SyntaxKind.StringLiteral && colonNext) {
      const name = token.text.slice('string:'.length);
      if (/^[\p{ID_Start}_$][\p{ID_Continue}$\u200c\u200d]*$/u.test(name)) {
        out.push(name);
        continue;
      }
    }
    // A leading `|` or `&` of a union or intersection type, written when it breaks over lines.
    if ((token.text === '|' || token.text === '&') && ['=', ':', '<', ',', '(', '['].includes(raw[i - 1]?.text ?? '')) continue;
    // Parentheses are not compared: formatters add and drop redundant ones (`!(a.test(b))`,
    // `(x) =>`), and generated code never differs from a contract change by parentheses alone.
    if (token.kind === ts.SyntaxKind.OpenParenToken || token.kind === ts.SyntaxKind.CloseParenToken) continue;
    out.push(token.text);
  }
  return out;
}
