/**
 * Server-side HTML with escaping by construction: every value interpolated into an `html`
 * template is escaped for text and attribute context, unless it is itself the result of
 * `html` (a {@link SafeHtml}). Message payloads, headers and error texts can only reach the
 * page as text.
 */

export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes `& < > " ' \`` so the text is safe in element content and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Part = SafeHtml | string | number | boolean | undefined | null | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(part);
}

/** A template whose interpolations are escaped (arrays are joined; `undefined`, `null`, `false` render nothing). */
export function html(strings: TemplateStringsArray, ...values: readonly Part[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}
