/**
 * The operations page: server-rendered HTML, no script, no build step. The overview
 * refreshes itself (meta refresh); a dead letter's own page does not, so a token being
 * typed is not lost. Every value from the host or a message goes through `html`.
 */

import type { SubscriptionHealth, SubscriptionMetrics } from '../belt/subscription.js';
import type { ConfigChoice } from '../config/choice.js';
import type { AnyChannel } from '../core/contract.js';
import type { HostedComponentHealth } from '../core/hosted.js';
import { backlogOf } from '../core/metrics.js';
import type { MessagingConfiguration } from '../host/health.js';
import type { MessagingHealth } from '../host/messaging.js';
import type { PublisherStats } from '../publish/publisher.js';
import type { ParkedMessage, ParkedSummary, PayloadView } from '../stores/dead-letter/store.js';
import { payloadView } from '../stores/dead-letter/store.js';
import { html, SafeHtml } from './html.js';
import type { Readiness } from './state.js';

export interface PageContext {
  /** Prefix of every link and form action ('' or '/ops'). */
  readonly base: string;
  readonly title: string;
  readonly now: number;
  /** Redrive and remove are possible (a token is configured). */
  readonly actionsEnabled: boolean;
  readonly notice?: { readonly kind: 'ok' | 'error'; readonly text: string };
}

const STYLE = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--muted:#5d6675;--line:#e2e5ea;--ok:#137333;--okbg:#e6f4ea;--bad:#b3261e;--badbg:#fce8e6;--warn:#8a5300;--warnbg:#fef3d6;--idle:#5d6675;--idlebg:#eef0f3}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--ink)}
header{display:flex;align-items:center;gap:16px;padding:14px 24px;background:var(--card);border-bottom:1px solid var(--line)}
header h1{font-size:18px;margin:0;font-weight:600}header .meta{margin-left:auto;color:var(--muted);font-size:12px}
main{padding:18px 24px;display:grid;gap:18px;max-width:1400px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px}
section h2{font-size:15px;margin:0 0 10px;font-weight:600}section h2 small{color:var(--muted);font-weight:400}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-top:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;border-top:0}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.ok{background:var(--okbg);color:var(--ok)}.bad{background:var(--badbg);color:var(--bad)}.warn{background:var(--warnbg);color:var(--warn)}.idle{background:var(--idlebg);color:var(--idle)}
.reasons{margin:8px 0 0;padding-left:18px;color:var(--bad)}.muted{color:var(--muted)}.stall{color:var(--bad);font-size:13px}
.lanes{border-collapse:collapse;width:auto}.lanes td,.lanes th{padding:1px 8px 1px 0;border:0;font-size:12px}
pre{background:#0f1420;color:#e8ecf3;padding:10px 12px;border-radius:6px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word;font-size:12.5px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}a{color:#0b57d0;text-decoration:none}a:hover{text-decoration:underline}
form.inline{display:inline-flex;gap:6px;align-items:center;margin:0 12px 0 0}input,select,button{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:5px;background:#fff}
button{cursor:pointer;background:#0b57d0;color:#fff;border-color:#0b57d0}button.danger{background:var(--bad);border-color:var(--bad)}button:disabled{background:#c9ced6;border-color:#c9ced6;cursor:not-allowed}
.notice{padding:10px 14px;border-radius:6px}.actions{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
.kv th{width:220px}
`;

function page(ctx: PageContext, title: string, body: SafeHtml, refreshSeconds?: number): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refreshSeconds ? html`<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<title>${title} · ${ctx.title}</title><style>${new SafeHtml(STYLE)}</style></head>
<body><header><h1><a href="${ctx.base}/">${ctx.title}</a></h1><span class="muted">${title}</span>
<span class="meta">${new Date(ctx.now).toISOString()}${refreshSeconds ? html` · refreshes every ${refreshSeconds} s` : ''}</span></header>
<main>${ctx.notice ? html`<div class="notice ${ctx.notice.kind === 'ok' ? 'ok' : 'bad'}" role="status" data-notice="${ctx.notice.kind}">${ctx.notice.text}</div>` : ''}${body}</main></body></html>`}`;
}

/** "12 s", "3 min", "2 h 5 min", "4 d". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d`;
}

/** ` · topic <code>…</code>` when the broker's name of an address differs from the address itself. */
function topicBeside(address: string, topic: string | undefined): SafeHtml | '' {
  return topic === undefined || topic === address ? '' : html` · topic <code data-topic>${topic}</code>`;
}

function stateBadge(state: string): SafeHtml {
  const cls = state === 'running' ? 'ok' : state === 'stalled' || state === 'failed' ? 'bad' : state === 'idle' ? 'idle' : 'warn';
  return html`<span class="badge ${cls}" data-state="${state}">${state}</span>`;
}

function subscriptionRow(ctx: PageContext, s: SubscriptionHealth, m: SubscriptionMetrics | undefined): SafeHtml {
  const totals = { handled: 0, failed: 0, retried: 0, parked: 0, skipped: 0, consumed: 0 };
  for (const p of m?.partitions ?? []) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += p[k];
  const lanes = s.positions.length
    ? html`<table class="lanes"><tr><th>partition</th><th class="num">lag</th><th class="num">committed</th><th class="num">high</th></tr>${s.positions.map(
        (p) =>
          html`<tr><td>${p.partition}</td><td class="num" data-lag="${p.partition}">${p.lag ?? '–'}</td><td class="num">${p.committed ?? '–'}</td><td class="num">${p.highWatermark ?? '–'}</td></tr>`,
      )}</table>`
    : html`<span class="muted">no partitions assigned</span>`;
  const stalls = s.stalls.map(
    (st) =>
      html`<div class="stall" data-stall="${st.partition}">stalled at partition ${st.partition}, offset ${st.offset} (${st.type || 'no type'}), since ${st.since.toISOString()} (${duration(ctx.now - st.since.getTime())}), ${st.attempts} attempt(s): <code>${st.reason}</code></div>`,
  );
  const tiers = (s.retryTiers ?? []).map(
    (t) =>
      html`<div class="muted" data-retry-tier="${t.tier}">retry tier ${t.tier} (${t.delayMs} ms): <code>${t.topic}</code> · ${t.state} · depth ${t.depth ?? '–'} · waiting ${t.waiting}${t.oldestWaitingAgeMs === undefined ? '' : html`, oldest ${duration(t.oldestWaitingAgeMs)}`} · moved on ${t.movedOn} · parked ${t.parked}</div>${t.stalls.map((st) => html`<div class="stall">retry tier ${t.tier} stalled at partition ${st.partition}, offset ${st.offset}: <code>${st.reason}</code></div>`)}`,
  );
  return html`<tr data-subscription="${s.groupId}" data-channel="${s.channel}">
<td><strong>${s.groupId}</strong><div class="muted">${s.channel} · <code>${s.address}</code>${topicBeside(s.address, s.topic)}</div>${tiers}${stalls}${s.lastError && s.state === 'failed' ? html`<div class="stall">${s.lastError}</div>` : ''}</td>
<td>${stateBadge(s.state)}</td>
<td class="num">${totals.handled}</td><td class="num">${totals.failed}</td><td class="num">${totals.retried}</td><td class="num">${s.parked}</td><td class="num">${s.skipped}</td>
<td>${lanes}</td></tr>`;
}

function componentRow(c: HostedComponentHealth): SafeHtml {
  const { backlog, oldestPendingAgeMs } = backlogOf(c);
  return html`<tr data-component="${c.kind}:${c.name}"><td>${c.kind}</td><td><strong>${c.name}</strong></td><td>${stateBadge(c.ready ? 'running' : 'not ready')}${c.reason ? html` <span class="stall">${c.reason}</span>` : ''}</td>
<td class="num">${backlog ?? '–'}</td><td class="num">${oldestPendingAgeMs === undefined ? '–' : duration(oldestPendingAgeMs)}</td>
<td><code>${c.details ? JSON.stringify(c.details) : ''}</code></td></tr>`;
}

/** Which transport and dead-letter store run, and where each was chosen (default, file, object, environment, code). */
function configurationLine(configuration: MessagingConfiguration): SafeHtml {
  const part = (label: string, choice: ConfigChoice) =>
    html`${label} <strong>${choice.kind}</strong> <small data-source="${choice.source}">from ${choice.source}${choice.from === undefined ? '' : html` <code>${choice.from}</code>`}</small>`;
  return html`<div class="configuration">${part('transport', configuration.transport)} · ${part('dead letters', configuration.deadLetters)}</div>`;
}

export interface OverviewModel {
  readonly health: MessagingHealth;
  readonly readiness: Readiness;
  readonly metrics: readonly SubscriptionMetrics[];
  readonly publishers: readonly PublisherStats[];
  /** The oldest parked messages matching the filter, as summaries (no payloads), at most the page's limit. */
  readonly deadLetters: readonly ParkedSummary[];
  /** How many parked messages match the filter (the list may be cut). */
  readonly deadLetterCount: number;
  readonly filter: { readonly channel?: string; readonly groupId?: string };
  /** Channel/group pairs offered by the filter. */
  readonly groups: readonly { readonly channel: string; readonly groupId: string }[];
  readonly refreshSeconds: number;
}

export function renderOverview(ctx: PageContext, model: OverviewModel): string {
  const { health, readiness } = model;
  const transport = health.transport;
  const status = html`<section aria-label="status"><h2>Status</h2>
<div><span class="badge ${readiness.ready ? 'ok' : 'bad'}" data-ready="${readiness.ready}">${readiness.ready ? 'ready' : 'not ready'}</span>
${transport ? html` · transport <strong>${transport.name}</strong> ${stateBadge(transport.ready ? 'running' : 'cut off')}${transport.details?.['rebuilds'] !== undefined ? html` · rebuilds ${String(transport.details['rebuilds'])}` : ''}${transport.details?.['reconnects'] !== undefined ? html` · reconnects ${String(transport.details['reconnects'])}` : ''}` : ''}
· <a href="${ctx.base}/readyz">/readyz</a> · <a href="${ctx.base}/metrics">/metrics</a></div>
${health.configuration ? configurationLine(health.configuration) : ''}
${readiness.reasons.length ? html`<ul class="reasons">${readiness.reasons.map((r) => html`<li>${r}</li>`)}</ul>` : ''}</section>`;

  const byKey = new Map(model.metrics.map((m) => [`${m.channel}\u0000${m.address}\u0000${m.groupId}`, m]));
  const subscriptions = html`<section aria-label="subscriptions"><h2>Subscriptions <small>${health.subscriptions.length}</small></h2>
${
  health.subscriptions.length
    ? html`<table><tr><th>group · channel</th><th>state</th><th class="num">handled</th><th class="num">failed</th><th class="num">retried</th><th class="num">parked</th><th class="num">skipped</th><th>lag per partition</th></tr>
${health.subscriptions.map((s) => subscriptionRow(ctx, s, byKey.get(`${s.channel}\u0000${s.address}\u0000${s.groupId}`)))}</table>`
    : html`<p class="muted">No subscriptions.</p>`
}</section>`;

  const publishers = html`<section aria-label="publishers"><h2>Publishers <small>${model.publishers.length}</small></h2>
${
  model.publishers.length
    ? html`<table><tr><th>channel</th><th>address</th><th class="num">sent</th><th class="num">failed</th><th class="num">queued</th><th class="num">queued bytes</th><th class="num">batches in flight</th></tr>
${model.publishers.map(
  (p) =>
    html`<tr data-publisher="${p.channel}"><td>${p.channel}</td><td><code>${p.address}</code></td><td class="num">${p.sent}</td><td class="num">${p.failed}</td><td class="num">${p.queued}</td><td class="num">${p.queuedBytes}</td><td class="num">${p.inFlightBatches}</td></tr>`,
)}</table>`
    : html`<p class="muted">No publishers.</p>`
}</section>`;

  const components = health.components.length
    ? html`<section aria-label="components"><h2>Outbox and producers <small>${health.components.length}</small></h2>
<table><tr><th>kind</th><th>name</th><th>state</th><th class="num">backlog</th><th class="num">oldest pending</th><th>details</th></tr>${health.components.map(componentRow)}</table></section>`
    : '';

  const filterValue = model.filter.channel === undefined ? '' : `${model.filter.channel}|${model.filter.groupId ?? ''}`;
  const deadLetters = html`<section aria-label="dead letters"><h2>Dead letters <small data-dead-letter-count="${model.deadLetterCount}">${model.deadLetterCount}</small></h2>
<form method="get" action="${ctx.base}/" class="inline"><label>channel · group <select name="group">
<option value="">all</option>${model.groups.map((g) => {
    const value = `${g.channel}|${g.groupId}`;
    return html`<option value="${value}"${value === filterValue ? html` selected` : ''}>${g.channel} · ${g.groupId}</option>`;
  })}</select></label><button type="submit">Show</button></form>
${
  model.deadLetters.length
    ? html`<table><tr><th>parked</th><th>channel · group</th><th>type</th><th class="num">attempts</th><th>error</th><th></th></tr>
${model.deadLetters.map(
  (d) =>
    html`<tr data-dead-letter="${d.id}"><td>${d.parkedAt.toISOString()}<div class="muted">${duration(ctx.now - d.parkedAt.getTime())} ago</div></td><td>${d.channel}<div class="muted">${d.groupId}</div><div class="muted"><code>${d.address}</code>${topicBeside(d.address, d.topic)}</div></td><td>${d.type || html`<span class="muted">none</span>`}</td><td class="num">${d.attempts}</td>
<td><code>${d.error.name}: ${truncate(d.error.message, 160)}</code></td><td><a href="${ctx.base}/dead-letters/${encodeURIComponent(d.id)}">open</a></td></tr>`,
)}</table>${model.deadLetters.length < model.deadLetterCount ? html`<p class="muted">Showing the oldest ${model.deadLetters.length}.</p>` : ''}`
    : html`<p class="muted">Nothing parked.</p>`
}</section>`;

  return page(ctx, 'Overview', html`${status}${subscriptions}${publishers}${components}${deadLetters}`, model.refreshSeconds);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The page of one parked message. `channel` is its channel when this host knows it: an Avro or
 * Protobuf payload is then shown decoded by the channel's codec (else as hex, labelled).
 */
export function renderDeadLetter(ctx: PageContext, parked: ParkedMessage, csrf: (action: string) => string, channel?: AnyChannel): string {
  const payload = payloadView(parked, { channel });
  const disabled = !ctx.actionsEnabled;
  const action = (name: 'redrive' | 'remove', label: string, danger: boolean) =>
    html`<form method="post" action="${ctx.base}/dead-letters/${encodeURIComponent(parked.id)}/${name}" class="inline" data-action="${name}">
<input type="hidden" name="csrf" value="${csrf(`${name}:${parked.id}`)}">
<input type="password" name="token" placeholder="operator token" autocomplete="current-password" aria-label="operator token for ${name}"${disabled ? html` disabled` : ''}>
<button type="submit"${danger ? html` class="danger"` : ''}${disabled ? html` disabled` : ''}>${label}</button></form>`;
  const body = html`<section aria-label="dead letter"><h2>Dead letter <small><code>${parked.id}</code></small></h2>
<table class="kv">
<tr><th>channel</th><td>${parked.channel} · <code>${parked.address}</code></td></tr>
<tr><th>topic</th><td>${parked.topic === undefined ? html`<span class="muted">not recorded</span>` : html`<code data-topic>${parked.topic}</code>`}</td></tr>
<tr><th>group</th><td>${parked.groupId}</td></tr>
<tr><th>type</th><td>${parked.type || html`<span class="muted">none</span>`}</td></tr>
<tr><th>partition · offset</th><td>${parked.partition ?? '–'} · ${parked.offset ?? '–'}</td></tr>
<tr><th>key</th><td><code>${parked.key ?? '–'}</code></td></tr>
<tr><th>attempts</th><td>${parked.attempts}</td></tr>
<tr><th>first · last failure</th><td>${parked.firstFailureAt.toISOString()} · ${parked.lastFailureAt.toISOString()}</td></tr>
<tr><th>parked</th><td>${parked.parkedAt.toISOString()} (${duration(ctx.now - parked.parkedAt.getTime())} ago)</td></tr>
</table></section>
<section aria-label="error"><h2>Error</h2><pre data-error>${parked.error.name}: ${parked.error.message}${parked.error.stack ? `\n\n${parked.error.stack}` : ''}</pre></section>
<section aria-label="headers"><h2>Headers <small>${Object.keys(parked.headers).length}</small></h2>
<table class="kv">${Object.entries(parked.headers).map(([name, value]) => html`<tr><th><code>${name}</code></th><td><code data-header="${name}">${value}</code></td></tr>`)}</table></section>
<section aria-label="payload"><h2>Payload <small data-payload-kind="${payload.kind}">${payloadLabel(payload)}, ${parked.payload.length} bytes</small></h2>${payload.note === undefined ? '' : html`<p class="muted" data-payload-note>${payload.note}</p>`}<pre data-payload>${payload.text}</pre></section>
<section aria-label="actions"><h2>Actions</h2>
<p class="muted">Redrive republishes the message to its channel (decoded again by the channel's codec; every group of the channel receives it) and removes it from the store. Remove deletes it.</p>
<div class="actions">${action('redrive', 'Redrive', false)}${action('remove', 'Remove', true)}</div>
${disabled ? html`<p class="muted" data-actions-disabled>Redrive and remove are disabled: the operations server was started without a token.</p>` : ''}</section>`;
  return page(ctx, `Dead letter ${parked.type || parked.id}`, body);
}

/** `avro, decoded`, `json`, `hex` … */
function payloadLabel(view: PayloadView): string {
  return view.kind === 'decoded' ? `${view.format ?? 'binary'}, decoded` : view.kind;
}

export function renderMessage(ctx: PageContext, title: string, text: string): string {
  return page(
    ctx,
    title,
    html`<section><h2>${title}</h2><p data-message>${text}</p><p><a href="${ctx.base}/">Back to the overview</a></p></section>`,
  );
}
