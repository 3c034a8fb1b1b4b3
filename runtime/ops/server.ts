/**
 * The operations server of a `Messaging` host: `/healthz`, `/readyz`, `/metrics` and the
 * operations page with its dead-letter views and actions.
 *
 * ```ts
 * const ops = await serveOperations(messaging, { port: 4380, token: process.env.OPS_TOKEN });
 * // or inside an existing server:
 * const ops = createOperations(messaging, { basePath: '/ops' });
 * app.use('/ops', ops.handle);                              // Express, node:http
 * fastify.all('/ops/*', (req, reply) => ops.handle(req.raw, reply.raw));
 * hono.all('/ops/*', (c) => ops.fetch(c.req.raw));          // Hono and other fetch-style servers
 * ```
 *
 * Security: it binds 127.0.0.1 unless told otherwise. Redrive and remove change state, so
 * they need the configured token (refused, and shown disabled, without one); they are POSTs
 * that also carry a per-server CSRF token and are refused when the browser says the request
 * came from another site. The page runs no script (its Content-Security-Policy forbids any)
 * and escapes every value it shows.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isKeiyakuError, KeiyakuError } from '../core/errors.js';
import type { Messaging } from '../host/messaging.js';
import type { DeadLetterFilter, DeadLetterStore, ParkedSummary } from '../stores/dead-letter/store.js';
import { type PageContext, renderDeadLetter, renderMessage, renderOverview } from './dashboard.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
import { prometheusText, type ReadinessLimits, readiness } from './state.js';

export interface OperationsOptions extends ReadinessLimits {
  /**
   * The operator token that redrive and remove require (form field `token`, or
   * `Authorization: Bearer <token>`). Without one they are refused and the page shows them disabled.
   */
  readonly token?: string;
  /** Path prefix the operations routes live under in a shared server (`/ops`); default none. */
  readonly basePath?: string;
  /** Seconds between refreshes of the overview page (default 5; 0 turns it off). */
  readonly refreshSeconds?: number;
  /** Title of the page (default `keiyaku operations`). */
  readonly title?: string;
  /** Most dead letters the overview lists (default 200). */
  readonly deadLetterLimit?: number;
  /** Time source (default Date.now). */
  readonly now?: () => number;
}

export interface ServeOperationsOptions extends OperationsOptions {
  /** Port to listen on (default 4380; 0 picks a free one). */
  readonly port?: number;
  /** Interface to bind (default 127.0.0.1: reachable from this machine only). */
  readonly host?: string;
}

/** A request in the shape both adapters reduce to. */
interface OpsRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly header: (name: string) => string | undefined;
  readonly body: () => Promise<string>;
}

interface OpsResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const MAX_BODY = 16 * 1024;

const HTML_HEADERS = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

const JSON_HEADERS = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function sameSecret(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

export class Operations {
  readonly messaging: Messaging;
  readonly options: OperationsOptions;
  readonly #base: string;
  readonly #csrfSecret = randomBytes(32);
  readonly #startedAt: number;

  constructor(messaging: Messaging, options: OperationsOptions = {}) {
    if (options.token !== undefined && options.token.length < 16)
      throw new KeiyakuError(
        'weak_operations_token',
        'the operations token must be at least 16 characters (use a random value, e.g. 32 hex characters)',
      );
    this.messaging = messaging;
    this.options = options;
    this.#base = (options.basePath ?? '').replace(/\/+$/, '');
    if (this.#base !== '' && !this.#base.startsWith('/'))
      throw new KeiyakuError('invalid_base_path', `basePath must start with "/" (got ${JSON.stringify(options.basePath)})`);
    this.#startedAt = this.#now();
  }

  #now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** A `node:http` / Express / Connect handler. With `next`, paths it does not serve go on to it. */
  readonly handle = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    const request: OpsRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      header: (name) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: () => readBody(req),
    };
    this.#respond(request).then(
      (response) => {
        if (response === undefined) {
          if (next) next();
          else send(res, { status: 404, headers: { ...JSON_HEADERS }, body: JSON.stringify({ error: 'not found' }) });
          return;
        }
        send(res, response);
      },
      (error: unknown) => {
        if (next) next(error);
        else send(res, { status: 500, headers: { ...JSON_HEADERS }, body: JSON.stringify({ error: String(error) }) });
      },
    );
  };

  /** A fetch-style handler (Hono, Bun, Deno, workers): a `Response`, 404 for paths it does not serve. */
  fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const response = await this.#respond({
      method: request.method,
      url: url.pathname + url.search,
      header: (name) => request.headers.get(name) ?? undefined,
      body: () => readFetchBody(request),
    });
    if (response === undefined) return new Response(JSON.stringify({ error: 'not found' }), { status: 404, headers: { ...JSON_HEADERS } });
    return new Response(response.status === 204 ? null : response.body, { status: response.status, headers: response.headers });
  };

  /** The per-server CSRF token of one action on one dead letter. */
  csrfToken(action: string): string {
    return createHmac('sha256', this.#csrfSecret).update(action).digest('base64url');
  }

  #context(notice?: PageContext['notice']): PageContext {
    return {
      base: this.#base,
      title: this.options.title ?? 'keiyaku operations',
      now: this.#now(),
      actionsEnabled: this.options.token !== undefined,
      ...(notice ? { notice } : {}),
    };
  }

  #badRequest(text: string): OpsResponse {
    return htmlResponse(400, renderMessage(this.#context(), 'Bad request', text));
  }

  async #respond(request: OpsRequest): Promise<OpsResponse | undefined> {
    let url: URL;
    try {
      url = new URL(request.url, 'http://ops.invalid');
    } catch {
      return this.#badRequest('The request URL cannot be read.');
    }
    let path = url.pathname;
    if (this.#base !== '' && (path === this.#base || path.startsWith(`${this.#base}/`))) path = path.slice(this.#base.length) || '/';
    const method = request.method.toUpperCase();
    const read = method === 'GET' || method === 'HEAD';

    if (path === '/healthz' && read)
      return json(200, { status: 'live', uptimeSeconds: Math.round((this.#now() - this.#startedAt) / 1000) });
    if (path === '/readyz' && read) {
      const health = this.messaging.health();
      const result = readiness(health, this.options);
      return json(result.ready ? 200 : 503, {
        status: result.ready ? 'ready' : 'not ready',
        reasons: result.reasons,
        subscriptions: health.subscriptions.map((s) => ({
          channel: s.channel,
          group: s.groupId,
          state: s.state,
          stalls: s.stalls.map((st) => ({ ...st, since: st.since.toISOString() })),
        })),
        ...(health.transport ? { transport: health.transport } : {}),
        components: health.components,
        ...(health.configuration ? { configuration: health.configuration } : {}),
      });
    }
    if (path === '/metrics' && read)
      return {
        status: 200,
        headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
        body: await prometheusText(this.messaging, this.options),
      };
    if ((path === '/' || path === '') && read) return this.#overview(url);
    const detail = /^\/dead-letters\/([^/]+)$/.exec(path);
    if (detail && read) {
      const id = decodeSegment(detail[1]!);
      return id === undefined ? this.#badRequest('The dead-letter id in the URL is not valid percent-encoding.') : this.#deadLetter(id);
    }
    const action = /^\/dead-letters\/([^/]+)\/(redrive|remove)$/.exec(path);
    const actionId = action ? decodeSegment(action[1]!) : undefined;
    if (action && actionId === undefined) return this.#badRequest('The dead-letter id in the URL is not valid percent-encoding.');
    if (action) {
      if (method !== 'POST')
        return {
          ...htmlResponse(405, renderMessage(this.#context(), 'Method not allowed', 'Redrive and remove are POST requests.')),
          headers: { ...HTML_HEADERS, allow: 'POST' },
        };
      return this.#act(request, actionId!, action[2] as 'redrive' | 'remove');
    }
    return undefined;
  }

  async #overview(url: URL): Promise<OpsResponse> {
    const health = this.messaging.health();
    const store = this.messaging.deadLetters;
    const selected = url.searchParams.get('group') ?? '';
    const bar = selected.indexOf('|');
    const filter = bar > 0 ? { channel: selected.slice(0, bar), groupId: selected.slice(bar + 1) } : {};
    const limit = this.options.deadLetterLimit ?? 200;
    // Summaries, bounded in the store's own query: the overview never reads payloads.
    const [shown, count] = await Promise.all([summaries(store, { ...filter, limit }), store.count(filter)]);
    const groups = new Map<string, { channel: string; groupId: string }>();
    for (const s of health.subscriptions) groups.set(`${s.channel}|${s.groupId}`, { channel: s.channel, groupId: s.groupId });
    for (const d of bar > 0 ? [...shown, ...(await summaries(store, { limit }))] : shown)
      groups.set(`${d.channel}|${d.groupId}`, { channel: d.channel, groupId: d.groupId });
    const done = url.searchParams.get('done');
    const id = url.searchParams.get('id') ?? '';
    const notice =
      done === 'redriven'
        ? { kind: 'ok' as const, text: `Redrove dead letter ${id}: republished to its channel and removed from the store.` }
        : done === 'removed'
          ? { kind: 'ok' as const, text: `Removed dead letter ${id}.` }
          : undefined;
    return htmlResponse(
      200,
      renderOverview(this.#context(notice), {
        health,
        readiness: readiness(health, this.options),
        metrics: this.messaging.subscriptions.map((s) => s.metrics()),
        publishers: this.messaging.publishers.map((p) => p.stats()),
        deadLetters: shown,
        deadLetterCount: Math.max(count, shown.length),
        filter,
        groups: [...groups.values()],
        refreshSeconds: this.options.refreshSeconds ?? 5,
      }),
    );
  }

  async #deadLetter(id: string): Promise<OpsResponse> {
    const parked = await this.messaging.deadLetters.get(id);
    if (parked === undefined) return htmlResponse(404, renderMessage(this.#context(), 'Not found', `No parked message with id ${id}.`));
    return htmlResponse(
      200,
      renderDeadLetter(
        this.#context(),
        parked,
        (action) => this.csrfToken(action),
        // The channel as this host knows it (a subscription or a publisher of it), so its codec decodes an Avro or Protobuf payload.
        this.messaging.subscriptions.find((s) => s.channel.id === parked.channel)?.channel ??
          this.messaging.publishers.find((p) => p.channel.id === parked.channel)?.channel,
      ),
    );
  }

  async #act(request: OpsRequest, id: string, action: 'redrive' | 'remove'): Promise<OpsResponse> {
    const refuse = (status: number, text: string): OpsResponse => htmlResponse(status, renderMessage(this.#context(), 'Refused', text));
    if (this.options.token === undefined)
      return refuse(403, 'Redrive and remove are disabled: the operations server was started without a token.');
    // Cross-site requests: browsers say where a request comes from.
    const site = request.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return refuse(403, 'Refused: the request came from another site.');
    const origin = request.header('origin');
    const host = request.header('host');
    if (origin !== undefined && origin !== 'null' && host !== undefined) {
      let originHost: string | undefined;
      try {
        originHost = new URL(origin).host;
      } catch {
        originHost = undefined;
      }
      if (originHost !== host) return refuse(403, 'Refused: the request came from another origin.');
    } else if (origin === 'null') return refuse(403, 'Refused: the request came from an opaque origin.');
    const bearer = /^Bearer\s+(.+)$/i.exec(request.header('authorization') ?? '')?.[1];
    if (bearer !== undefined) {
      // An API client: a header no cross-site form can set stands in for the CSRF token.
      if (!sameSecret(bearer, this.options.token)) return refuse(403, 'Refused: the operator token is not valid.');
    } else {
      const type = (request.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') return refuse(415, 'Refused: send the form (application/x-www-form-urlencoded).');
      let form: URLSearchParams;
      try {
        form = new URLSearchParams(await request.body());
      } catch (error) {
        return refuse(413, isKeiyakuError(error) ? error.message : 'Refused: unreadable request body.');
      }
      if (!sameSecret(form.get('csrf') ?? undefined, this.csrfToken(`${action}:${id}`)))
        return refuse(403, 'Refused: the form is not from this page (CSRF token missing or wrong). Reload the page and try again.');
      const token = form.get('token') ?? '';
      if (token === '') return refuse(403, 'Refused: enter the operator token.');
      if (!sameSecret(token, this.options.token)) return refuse(403, 'Refused: the operator token is not valid.');
    }
    const store = this.messaging.deadLetters;
    if ((await store.get(id)) === undefined)
      return htmlResponse(
        404,
        renderMessage(this.#context(), 'Not found', `No parked message with id ${id}; it may have been redriven or removed already.`),
      );
    if (action === 'remove') {
      await store.remove(id);
    } else {
      // One redrive (dead-letter/redrive.ts): claimed, so that of concurrent requests only one sends.
      try {
        await this.messaging.redrive(id);
      } catch (error) {
        const code = isKeiyakuError(error) ? error.code : '';
        const status =
          code === 'dead_letter_not_found'
            ? 404
            : code === 'redrive_in_progress' || code === 'redrive_target_missing' || code === 'redrive_target_mismatch'
              ? 409
              : code === 'redrive_invalid' || code === 'redrive_unknown_channel'
                ? 422
                : 500;
        return htmlResponse(
          status,
          renderMessage(
            this.#context(),
            'Redrive failed',
            `The message stays parked. ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      }
    }
    const done = action === 'remove' ? 'removed' : 'redriven';
    return {
      status: 303,
      headers: { location: `${this.#base}/?done=${done}&id=${encodeURIComponent(id)}`, 'cache-control': 'no-store' },
      body: '',
    };
  }
}

/** A path segment percent-decoded; undefined when its percent-encoding is malformed (`%`, `%zz`, a split UTF-8 sequence). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** At most `page.limit` summaries, oldest first: the store's `summaries`, or its `list` for a store without it. */
async function summaries(store: DeadLetterStore, page: DeadLetterFilter & { readonly limit: number }): Promise<readonly ParkedSummary[]> {
  if (store.summaries) return store.summaries(page);
  const all = await store.list({
    ...(page.channel === undefined ? {} : { channel: page.channel }),
    ...(page.groupId === undefined ? {} : { groupId: page.groupId }),
  });
  return all.slice(0, page.limit).map(({ payload, headers, error, ...rest }) => ({
    ...rest,
    error: { name: error.name, message: error.message },
    payloadBytes: payload.length,
  }));
}

function json(status: number, value: unknown): OpsResponse {
  return { status, headers: { ...JSON_HEADERS }, body: `${JSON.stringify(value, null, 2)}\n` };
}

function htmlResponse(status: number, body: string): OpsResponse {
  return { status, headers: { ...HTML_HEADERS }, body };
}

function send(res: ServerResponse, response: OpsResponse): void {
  // A body refused as too large may still be arriving: answer, then close rather than read on.
  res.writeHead(response.status, response.status === 413 ? { ...response.headers, connection: 'close' } : response.headers);
  res.end(res.req?.method === 'HEAD' ? undefined : response.body);
}

/**
 * The request body as text, refused past {@link MAX_BODY}. The rest of a body that is too large
 * is read and dropped rather than cut off (destroying the request would reset the connection
 * before the 413 answer reaches the client); its response closes the connection.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_BODY) {
        refused = true;
        chunks.length = 0;
        reject(new KeiyakuError('body_too_large', 'Refused: request body too large.'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The body of a fetch-style request as text, refused past {@link MAX_BODY} without reading the rest. */
async function readFetchBody(request: Request): Promise<string> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY) {
      await reader.cancel().catch(() => undefined);
      throw new KeiyakuError('body_too_large', 'Refused: request body too large.');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Operations routes for an existing server: mount `handle` (node:http, Express, Fastify's raw request) or `fetch` (Hono). */
export function createOperations(messaging: Messaging, options: OperationsOptions = {}): Operations {
  return new Operations(messaging, options);
}

export interface OperationsServer extends AsyncDisposable {
  readonly operations: Operations;
  readonly server: Server;
  /** `http://127.0.0.1:4380` (no trailing slash, base path included). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the operations server on its own port (127.0.0.1:4380 by default). Rejects when the port is taken. */
export async function serveOperations(messaging: Messaging, options: ServeOperationsOptions = {}): Promise<OperationsServer> {
  const operations = createOperations(messaging, options);
  const server = createServer((req, res) => operations.handle(req, res));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new KeiyakuError(
          'operations_listen_failed',
          `the operations server cannot listen on ${host}:${options.port ?? 4380}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? 4380, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    operations,
    server,
    url: `http://${shown}:${port}${(options.basePath ?? '').replace(/\/+$/, '')}`,
    port,
    close,
    [Symbol.asyncDispose]: close,
  };
}
