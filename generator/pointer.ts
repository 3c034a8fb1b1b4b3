/** JSON pointers (RFC 6901): pure helpers, kept apart from the YAML-reading locator so importing them loads no parser. */

/** One JSON pointer reference token, escaped (`~` → `~0`, `/` → `~1`; RFC 6901). */
export function escapeToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The inverse of {@link escapeToken}. */
export function unescapeToken(token: string): string {
  if (!token.includes('~')) return token;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function pointerFromTokens(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapeToken(String(t))}`).join('');
}

export function tokensFromPointer(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  return pointer
    .replace(/^#/, '')
    .slice(1)
    .split('/')
    .map((t) => unescapeToken(t.includes('%') ? decodeURIComponent(t) : t));
}
