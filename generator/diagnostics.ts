/**
 * Diagnostics: findings about a contract as data. The CLI renders them; the library never prints.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface SourceLocation {
  /** Path of the file, relative to the working directory when possible. */
  readonly file: string;
  /** 1-based line, 0 when unknown. */
  readonly line: number;
  /** 1-based column, 0 when unknown. */
  readonly column: number;
  /** JSON pointer of the offending node inside `file`. */
  readonly pointer: string;
}

export interface Diagnostic {
  readonly severity: Severity;
  /** Stable snake/kebab-case code (`invalid-ref`, `unsupported_keyword`, …). */
  readonly code: string;
  /** What is wrong. */
  readonly message: string;
  /** How to fix it. */
  readonly hint?: string;
  readonly location?: SourceLocation;
}

/** `file:line:col` (or `file` alone when the position is unknown). */
export function formatLocation(location: SourceLocation | undefined): string {
  if (location === undefined) return '<contract>';
  if (location.line === 0) return location.file;
  return `${location.file}:${location.line}:${location.column}`;
}

/** One diagnostic as text: `file:line:col error code: message (at pointer)\n  fix: hint`. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = formatLocation(diagnostic.location);
  const pointer = diagnostic.location?.pointer ? ` (at #${diagnostic.location.pointer})` : '';
  const head = `${where} ${diagnostic.severity} ${diagnostic.code}: ${diagnostic.message}${pointer}`;
  return diagnostic.hint ? `${head}\n  fix: ${diagnostic.hint}` : head;
}

export function hasErrors(diagnostics: readonly Diagnostic[], strict = false): boolean {
  return diagnostics.some((d) => d.severity === 'error' || (strict && d.severity === 'warning'));
}

/** Edit distance (insertions, deletions, substitutions) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate `word` was most likely meant to be (a typo of at most 2 edits, fewer for short words), if any. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.min(2, Math.floor(word.length / 3));
  return best !== undefined && bestDistance > 0 && bestDistance <= limit ? best : undefined;
}
