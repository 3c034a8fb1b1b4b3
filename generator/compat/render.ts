/** Renderers of `keiyaku check` results: text, JSON, GitHub annotations and JUnit XML. */
import { type CheckResult, locationText } from './contract-diff.js';
import type { Finding } from './findings.js';

export const FORMATS = ['text', 'json', 'github', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export interface RenderContext {
  readonly against: string;
  readonly mode: string;
  readonly policy: string;
}

type Shown = CheckResult['findings'][number];

function label(f: Shown): string {
  if (f.acknowledged) return 'ACKNOWLEDGED';
  return f.severity === 'breaking' ? 'BREAKING' : f.severity === 'compatible' ? 'compatible' : 'info';
}

export function summaryLine(result: CheckResult, ctx: RenderContext): string {
  return `keiyaku check: ${result.breaking} breaking, ${result.acknowledged} acknowledged, ${result.compatible} compatible, ${result.info} info against ${ctx.against} (mode ${ctx.mode}, policy ${ctx.policy})`;
}

export function renderText(result: CheckResult, ctx: RenderContext, verbose = false): string {
  const groups = new Map<string, Shown[]>();
  for (const f of result.findings) {
    if (!verbose && f.severity === 'info') continue;
    const key = f.channel === undefined ? '(contract)' : f.message === undefined ? f.channel : `${f.channel} / ${f.message}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines: string[] = [];
  for (const [group, findings] of groups) {
    lines.push(group);
    for (const f of findings) {
      lines.push(`  ${label(f)} ${f.code} (${f.direction}): ${f.detail}`);
      const where = locationText(f.location);
      lines.push(`    at ${f.pointer || '/'}${where ? ` — ${where}` : ''}`);
      if (f.acknowledged) lines.push(`    acknowledged for ${f.acknowledged.version}: ${f.acknowledged.reason}`);
      else if (f.severity === 'breaking' && f.hint)
        lines.push(`    fix: ${f.hint}; or acknowledge it: { id: '${f.id}', reason: …, version: … }`);
    }
  }
  lines.push(summaryLine(result, ctx));
  return `${lines.join('\n')}\n`;
}

export function renderJson(result: CheckResult, ctx: RenderContext): string {
  return `${JSON.stringify({ ...ctx, ok: result.breaking === 0, summary: { breaking: result.breaking, acknowledged: result.acknowledged, compatible: result.compatible, info: result.info }, findings: result.findings }, null, 2)}\n`;
}

function escapeGithub(value: string, property = false): string {
  let out = value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

export function renderGithub(result: CheckResult, ctx: RenderContext): string {
  const lines = result.findings
    .filter((f) => f.severity !== 'info' || f.code === 'acknowledgment_unused')
    .map((f: Shown) => {
      const level = f.acknowledged ? 'notice' : f.severity === 'breaking' ? 'error' : f.severity === 'compatible' ? 'notice' : 'warning';
      const props = [
        f.location ? `file=${escapeGithub(f.location.file, true)}` : '',
        f.location && f.location.line > 0 ? `line=${f.location.line}` : '',
        `title=${escapeGithub(`keiyaku ${f.code}`, true)}`,
      ]
        .filter(Boolean)
        .join(',');
      return `::${level} ${props}::${escapeGithub(`${f.channel ?? ''}${f.message ? `/${f.message}` : ''} ${f.detail}${f.hint && f.severity === 'breaking' ? ` — ${f.hint}` : ''}`.trim())}`;
    });
  lines.push(summaryLine(result, ctx));
  return `${lines.join('\n')}\n`;
}

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderJunit(result: CheckResult, ctx: RenderContext): string {
  const cases = result.findings.map((f: Finding & Shown) => {
    const name = xml(`${f.id} (${f.direction})`);
    const body =
      f.severity === 'breaking' && !f.acknowledged
        ? `<failure message="${xml(f.detail)}" type="${xml(f.code)}">${xml(`${f.hint}\n${locationText(f.location)}`)}</failure>`
        : '';
    return `    <testcase classname="${xml(f.channel ?? 'contract')}" name="${name}">${body}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="${xml(`keiyaku check against ${ctx.against}`)}" tests="${result.findings.length}" failures="${result.breaking}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}

export function render(format: Format, result: CheckResult, ctx: RenderContext, verbose = false): string {
  switch (format) {
    case 'json':
      return renderJson(result, ctx);
    case 'github':
      return renderGithub(result, ctx);
    case 'junit':
      return renderJunit(result, ctx);
    default:
      return renderText(result, ctx, verbose);
  }
}
