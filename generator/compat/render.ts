/** Renderers of `keiyaku check` results: text, JSON, GitHub annotations and JUnit XML. */
import { type ChannelPlan, type CheckResult, locationText } from './contract-diff.js';
import { type Finding, onlyAcknowledgment } from './findings.js';

export const FORMATS = ['text', 'json', 'github', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export interface RenderContext {
  readonly against: string;
  /** The run's mode, or `per channel` when each channel is checked in the direction its operations imply. */
  readonly mode: string;
  readonly policy: string;
  /** The mode of each channel and why. */
  readonly plan?: readonly ChannelPlan[];
  /** Things to know that are not findings (the first version of a contract). */
  readonly notices?: readonly string[];
  /** `--quiet`: findings and the summary line only (no notices, no `directions:` lines). */
  readonly quiet?: boolean;
}

type Shown = CheckResult['findings'][number];

function label(f: Shown): string {
  if (f.acknowledged) return 'ACKNOWLEDGED';
  return f.severity === 'breaking' ? 'BREAKING' : f.severity === 'warning' ? 'WARNING' : f.severity;
}

export function summaryLine(result: CheckResult, ctx: RenderContext): string {
  const warnings = result.warnings > 0 ? `, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}` : '';
  return `keiyaku check: ${result.breaking} breaking, ${result.acknowledged} acknowledged, ${result.compatible} compatible, ${result.info} info${warnings} against ${ctx.against} (mode ${ctx.mode}, policy ${ctx.policy})`;
}

/**
 * The messages a shared-schema finding shows up in, each once, with the places in it:
 * `orders/OrderPlaced (/payload/total/amount, /payload/shipping/amount)`.
 */
function messagesOf(f: Shown, withPointers: boolean): string[] {
  const places = new Map<string, string[]>();
  for (const u of f.usages ?? []) {
    const key = `${u.channel}/${u.message}`;
    places.set(key, [...(places.get(key) ?? []), u.pointer]);
  }
  return [...places].map(([message, pointers]) => (withPointers ? `${message} ${pointers.join(', ')}` : message));
}

/** `used by 2 messages: …`: distinct messages, each listed once with its places. */
function usedBy(f: Shown): string {
  const messages = messagesOf(f, true);
  return `used by ${messages.length} message${messages.length === 1 ? '' : 's'}: ${messages.join('; ')}`;
}

/** The sentence that closes a breaking finding's fix: how to acknowledge it, with the id to copy. */
export function acknowledgeText(f: Pick<Finding, 'id' | 'hint'>): string {
  const how = `{ id: '${f.id}', reason: …, version: … }`;
  return onlyAcknowledgment(f.hint) ? `acknowledge it: ${how}` : `or acknowledge it: ${how}`;
}

/** `where` of a finding: the channel and message, or the schema its usages share. */
function groupOf(f: Shown): string {
  if (f.usages !== undefined && f.usages.length > 0) return `shared schema ${f.id.split('/')[1]}`;
  return f.channel === undefined ? '(contract)' : f.message === undefined ? f.channel : `${f.channel} / ${f.message}`;
}

export function renderText(result: CheckResult, ctx: RenderContext, verbose = false): string {
  const lines: string[] = [];
  if (!ctx.quiet) for (const notice of ctx.notices ?? []) lines.push(`notice: ${notice}`);
  if (!ctx.quiet && ctx.plan !== undefined && ctx.plan.length > 0) {
    lines.push('directions:');
    for (const p of ctx.plan) lines.push(`  ${p.channel}: ${p.mode} — ${p.reason}`);
  }
  const groups = new Map<string, Shown[]>();
  for (const f of result.findings) {
    if (!verbose && f.severity === 'info') continue;
    const key = groupOf(f);
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  for (const [group, findings] of groups) {
    lines.push(group);
    for (const f of findings) {
      lines.push(`  ${label(f)} ${f.code} (${f.direction}): ${f.detail}`);
      const where = locationText(f.location);
      if (f.pointer !== '' || where) lines.push(`    at ${f.pointer || '/'}${where ? ` — ${where}` : ''}`);
      if (f.usages !== undefined && f.usages.length > 0) lines.push(`    ${usedBy(f)}`);
      if (f.acknowledged) lines.push(`    acknowledged for ${f.acknowledged.version}: ${f.acknowledged.reason}`);
      else if (f.severity === 'breaking' && f.hint) lines.push(`    fix: ${f.hint}; ${acknowledgeText(f)}`);
      else if (f.severity === 'breaking') lines.push(`    fix: ${acknowledgeText(f).replace(/^or /, '')}`);
      else if (f.severity === 'warning' && f.hint) lines.push(`    fix: ${f.hint}`);
    }
  }
  lines.push(summaryLine(result, ctx));
  return `${lines.join('\n')}\n`;
}

export function renderJson(result: CheckResult, ctx: RenderContext): string {
  const summary = {
    breaking: result.breaking,
    acknowledged: result.acknowledged,
    compatible: result.compatible,
    info: result.info,
    warnings: result.warnings,
  };
  const { quiet: _quiet, ...shown } = ctx;
  return `${JSON.stringify({ ...shown, ok: result.breaking === 0, summary, findings: result.findings }, null, 2)}\n`;
}

function escapeGithub(value: string, property = false): string {
  let out = value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

export function renderGithub(result: CheckResult, ctx: RenderContext): string {
  const lines = result.findings
    .filter((f) => f.severity !== 'info')
    .map((f: Shown) => {
      const level = f.acknowledged ? 'notice' : f.severity === 'breaking' ? 'error' : f.severity === 'compatible' ? 'notice' : 'warning';
      const props = [
        f.location ? `file=${escapeGithub(f.location.file, true)}` : '',
        f.location && f.location.line > 0 ? `line=${f.location.line}` : '',
        `title=${escapeGithub(`keiyaku ${f.code}`, true)}`,
      ]
        .filter(Boolean)
        .join(',');
      const where = f.usages?.length
        ? `${groupOf(f)} (${messagesOf(f, false).join(', ')})`
        : `${f.channel ?? ''}${f.message ? `/${f.message}` : ''}`;
      const fix = f.hint && f.severity !== 'compatible' ? ` — ${f.hint}` : '';
      // The id a user writes to acknowledge the break (or that acknowledged it), to copy from the annotation.
      const id =
        f.acknowledged !== undefined
          ? ` (acknowledged as ${f.id} for ${f.acknowledged.version}: ${f.acknowledged.reason})`
          : f.severity === 'breaking'
            ? `${fix ? ';' : ' —'} ${acknowledgeText(f)}`
            : '';
      return `::${level} ${props}::${escapeGithub(`${where} ${f.detail}${fix}${id}`.trim())}`;
    });
  if (!ctx.quiet) for (const notice of ctx.notices ?? []) lines.unshift(`::notice title=keiyaku check::${escapeGithub(notice)}`);
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
