// The operations server over real HTTP on 127.0.0.1: probes, Prometheus metrics, the
// dead-letter actions and their guards, mounting in an existing server and the fetch adapter.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMessaging,
  type DeadLetterFilter,
  type DeadLetterPage,
  type DeadLetterStore,
  type HostedComponent,
  InMemoryDeadLetterStore,
  type ParkRequest,
  silentLogger,
} from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { createOperations, type OperationsServer, serveOperations } from '@keiyaku/runtime/ops';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, BookReturned } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const returned = (copyId: string, currency = 'EUR') =>
  BookReturned.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    memberId: 'M-1001',
    returnedAt: '2026-11-20T10:15:00Z',
    condition: 'good',
    lateFee: { amount: 150, currency },
  });

/** A fake outbox the host hosts, with a backlog the test sets. */
class FakeOutbox implements HostedComponent {
  readonly kind = 'outbox';
  readonly name = 'orders-outbox';
  backlog = 0;
  oldestPendingAgeMs = 0;
  async start() {}
  async stop() {}
  health() {
    return {
      kind: this.kind,
      name: this.name,
      ready: true,
      details: { backlog: this.backlog, oldestPendingAgeMs: this.oldestPendingAgeMs },
    };
  }
}

async function rig(options: { token?: string } = {}) {
  const transport = new InMemoryTransport({ defaultPartitions: 2, idleWaitMs: 5 });
  const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore(), shutdownBudgetMs: 2_000 });
  const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
  const state = { inventoryDown: false, rates: new Set(['EUR']), inventory: [] as string[] };
  const inventory = host.subscribe(
    BookIntegrationEvents,
    {
      groupId: 'inventory.book-availability',
      handle(message) {
        if (state.inventoryDown) throw new Error('inventory database unavailable');
        state.inventory.push(message.copyId);
      },
    },
    { retry: { initialMs: 20, maxMs: 20, jitter: 0 } },
  );
  const notices = host.subscribe(
    BookIntegrationEvents,
    {
      groupId: 'notifications.late-fees',
      accepts: ['BookReturned'],
      handle(message) {
        if ('lateFee' in message && message.lateFee && !state.rates.has(message.lateFee.currency))
          throw new Error(`no exchange rate for ${message.lateFee.currency}`);
      },
    },
    { deadLetter: { maxRetries: 1, backoffSchedule: [5] } },
  );
  const outbox = host.host(new FakeOutbox());
  const server = await serveOperations(host, { port: 0, refreshSeconds: 1, ...(options.token ? { token: options.token } : {}) });
  cleanups.push(async () => {
    await server.close();
    await host.stop();
  });
  return { host, publisher, inventory, notices, outbox, server, state };
}

async function get(server: OperationsServer, path: string) {
  const response = await fetch(`${server.url}${path}`);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
    headers: response.headers,
  };
}

/** `name{labels} value` lines of an exposition, as a lookup. */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

async function form(server: OperationsServer, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

describe('the operations server', () => {
  it('answers /healthz always and /readyz 503 until start-up finished, 200 after, JSON both', async () => {
    const { host, server } = await rig();
    const live = await get(server, '/healthz');
    expect(live.status).toBe(200);
    expect(live.type).toContain('application/json');
    expect(JSON.parse(live.text)).toMatchObject({ status: 'live' });
    const before = await get(server, '/readyz');
    expect(before.status).toBe(503);
    expect(JSON.parse(before.text).reasons).toContain('start-up has not finished');
    await host.start();
    const after = await get(server, '/readyz');
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text)).toMatchObject({ status: 'ready', reasons: [] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('turns /readyz 503 with the stall, its partition, offset, attempts and reason, and 200 again when the belt moves', async () => {
    const { host, publisher, server, state } = await rig();
    await host.start();
    state.inventoryDown = true;
    await publisher.publish(borrowed('C-1'));
    await waitFor(async () => (await get(server, '/readyz')).status === 503, 'readyz reports the stall');
    const body = JSON.parse((await get(server, '/readyz')).text);
    expect(body.reasons[0]).toMatch(
      /^subscription inventory\.book-availability on bookIntegrationEvents is stalled at partition \d offset 0 \(BookBorrowed\) since .+ after \d+ attempt\(s\): Error: inventory database unavailable$/,
    );
    const metrics = samples((await get(server, '/metrics')).text);
    const stateLine = [...metrics.keys()].find(
      (k) =>
        k.startsWith('keiyaku_subscription_state{') && k.includes('group="inventory.book-availability"') && k.includes('state="stalled"'),
    );
    expect(metrics.get(stateLine!)).toBe(1);
    expect(metrics.get('keiyaku_ready')).toBe(0);
    state.inventoryDown = false;
    await waitFor(async () => (await get(server, '/readyz')).status === 200, 'readyz ready again');
    expect(state.inventory).toEqual(['C-1']);
  });

  it('turns /readyz 503 while a hosted outbox is past its backlog or age limit', async () => {
    const { host, outbox, server } = await rig();
    await host.start();
    outbox.backlog = 10_001;
    const body = JSON.parse((await get(server, '/readyz')).text);
    expect(body.reasons).toEqual(['outbox orders-outbox backlog 10001 is past the limit of 10000']);
    outbox.backlog = 3;
    outbox.oldestPendingAgeMs = 301_000;
    const aged = await get(server, '/readyz');
    expect(aged.status).toBe(503);
    expect(JSON.parse(aged.text).reasons).toEqual(['outbox orders-outbox oldest pending message is 301 s old, past the limit of 300 s']);
    outbox.oldestPendingAgeMs = 10;
    expect((await get(server, '/readyz')).status).toBe(200);
    const metrics = samples((await get(server, '/metrics')).text);
    expect(metrics.get('keiyaku_component_backlog{kind="outbox",name="orders-outbox"}')).toBe(3);
    expect(metrics.get('keiyaku_component_oldest_pending_age_seconds{kind="outbox",name="orders-outbox"}')).toBe(0.01);
  });

  it('exposes the belt counters, lag, offsets, durations, publisher figures and dead letters in the Prometheus text format', async () => {
    const { host, publisher, server, state } = await rig();
    await host.start();
    state.inventoryDown = true;
    await publisher.publishMany([borrowed('C-1'), returned('C-2', 'XXX')]);
    await waitFor(async () => (await host.deadLetters.count()) === 1, 'the XXX return is parked');
    await waitFor(() => (host.subscriptions[0]!.health().stalls[0]?.attempts ?? 0) >= 2, 'inventory retried');
    state.inventoryDown = false;
    await waitFor(() => host.subscriptions[0]!.health().processed === 2, 'inventory caught up');
    await waitFor(() => host.subscriptions.every((s) => s.health().positions.every((p) => p.lag === 0)), 'everything committed', 10_000);
    const response = await get(server, '/metrics');
    expect(response.status).toBe(200);
    expect(response.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.text;
    expect(text).toContain('# TYPE keiyaku_messages_consumed_total counter');
    expect(text).toContain('# TYPE keiyaku_handler_duration_seconds histogram');
    const m = samples(text);
    const sum = (prefix: string, group: string) =>
      [...m].filter(([k]) => k.startsWith(`${prefix}{`) && k.includes(`group="${group}"`)).reduce((n, [, v]) => n + v, 0);
    const inventory = 'inventory.book-availability';
    const notices = 'notifications.late-fees';
    expect(sum('keiyaku_messages_consumed_total', inventory)).toBe(2);
    expect(sum('keiyaku_messages_handled_total', inventory)).toBe(2);
    expect(sum('keiyaku_messages_failed_total', inventory)).toBeGreaterThanOrEqual(2);
    expect(sum('keiyaku_messages_retried_total', inventory)).toBe(sum('keiyaku_messages_failed_total', inventory));
    expect(sum('keiyaku_messages_skipped_total', notices)).toBe(1);
    expect(sum('keiyaku_messages_failed_total', notices)).toBe(2);
    expect(sum('keiyaku_messages_retried_total', notices)).toBe(1);
    expect(sum('keiyaku_messages_parked_total', notices)).toBe(1);
    expect(sum('keiyaku_consumer_lag', inventory)).toBe(0);
    expect(sum('keiyaku_partition_high_watermark', inventory)).toBe(2);
    expect(sum('keiyaku_consumer_committed_offset', inventory)).toBe(2);
    const count = sum('keiyaku_handler_duration_seconds_count', inventory);
    expect(count).toBe(sum('keiyaku_messages_handled_total', inventory) + sum('keiyaku_messages_failed_total', inventory));
    expect(
      m.get(
        `keiyaku_handler_duration_seconds_bucket{channel="bookIntegrationEvents",address="${publisher.address}",topic="${publisher.address}",group="${inventory}",le="+Inf"}`,
      ),
    ).toBe(count);
    expect(
      m.get(
        `keiyaku_published_messages_total{channel="bookIntegrationEvents",address="${publisher.address}",topic="${publisher.address}"}`,
      ),
    ).toBe(2);
    expect(
      m.get(
        `keiyaku_publish_failed_messages_total{channel="bookIntegrationEvents",address="${publisher.address}",topic="${publisher.address}"}`,
      ),
    ).toBe(0);
    expect(
      m.get(`keiyaku_published_bytes_total{channel="bookIntegrationEvents",address="${publisher.address}",topic="${publisher.address}"}`),
    ).toBeGreaterThan(200);
    expect(m.get(`keiyaku_dead_letters{channel="bookIntegrationEvents",group="${notices}"}`)).toBe(1);
    expect(m.get('keiyaku_ready')).toBe(1);
    // Every sample line is well-formed.
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#')))
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$/);
  });

  it('refuses redrive and remove without a configured token, and shows them disabled', async () => {
    const { host, publisher, server } = await rig();
    await host.start();
    await publisher.publish(returned('C-9', 'XXX'));
    await waitFor(async () => (await host.deadLetters.count()) === 1, 'parked');
    const [parked] = await host.deadLetters.list();
    const page = await get(server, `/dead-letters/${parked!.id}`);
    expect(page.text).toContain('data-actions-disabled');
    expect(page.text).toMatch(/<button type="submit" disabled>Redrive<\/button>/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const refused = await form(server, `/dead-letters/${parked!.id}/redrive`, { csrf, token: TOKEN });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('started without a token');
    expect(await host.deadLetters.count()).toBe(1);
  });

  it('redrives with the token and the page’s CSRF token; refuses a wrong token, a missing CSRF token, a cross-site or cross-origin request, a GET', async () => {
    const { host, publisher, server, state } = await rig({ token: TOKEN });
    await host.start();
    await publisher.publish(returned('C-9', 'XXX'));
    await waitFor(async () => (await host.deadLetters.count()) === 1, 'parked');
    const [parked] = await host.deadLetters.list();
    const path = `/dead-letters/${parked!.id}/redrive`;
    const page = await get(server, `/dead-letters/${parked!.id}`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const csrf = new RegExp(`action="/dead-letters/${parked!.id}/redrive"[^]*?name="csrf" value="([^"]+)"`).exec(page.text)![1]!;
    expect((await form(server, path, { csrf, token: 'wrong-token-0123456789' })).status).toBe(403);
    expect((await form(server, path, { csrf, token: '' })).status).toBe(403);
    expect((await form(server, path, { token: TOKEN })).text).toContain('CSRF token missing or wrong');
    expect((await form(server, `/dead-letters/${parked!.id}/remove`, { csrf, token: TOKEN })).status).toBe(403); // the redrive CSRF token does not remove
    expect((await form(server, path, { csrf, token: TOKEN }, { 'sec-fetch-site': 'cross-site' })).text).toContain('another site');
    expect((await form(server, path, { csrf, token: TOKEN }, { origin: 'http://evil.example' })).text).toContain('another origin');
    expect((await fetch(`${server.url}${path}`)).status).toBe(405);
    expect(await host.deadLetters.count()).toBe(1);
    // The cause is fixed; the redrive goes through.
    state.rates.add('XXX');
    const inventoryBefore = state.inventory.length;
    const done = await form(server, path, { csrf, token: TOKEN }, { 'sec-fetch-site': 'same-origin', origin: server.url });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/?done=redriven&id=${parked!.id}`);
    expect(await host.deadLetters.get(parked!.id)).toBeUndefined();
    // Republished to the channel with its original id: every group receives it again.
    await waitFor(() => state.inventory.length === inventoryBefore + 1, 'inventory received the redriven message');
    await waitFor(() => host.subscriptions[1]!.health().processed === 1, 'notifications handled it this time');
    expect(await host.deadLetters.count()).toBe(0);
    const notice = await get(server, `/?done=redriven&id=${parked!.id}`);
    expect(notice.text).toContain(`Redrove dead letter ${parked!.id}`);
  });

  it('removes with an API bearer token, and refuses to redrive a message that still does not decode', async () => {
    const { host, server } = await rig({ token: TOKEN });
    await host.start();
    const bad = await host.deadLetters.park(
      {
        channel: 'bookIntegrationEvents',
        address: host.subscriptions[0]!.address,
        groupId: 'notifications.late-fees',
        type: 'BookReturned',
        payload: new TextEncoder().encode('{"copyId": 42}'),
        headers: {},
        error: { name: 'Error', message: 'boom' },
        attempts: 2,
        firstFailureAt: new Date(),
        lastFailureAt: new Date(),
      },
      new Date(),
    );
    const redrive = await fetch(`${server.url}/dead-letters/${bad.id}/redrive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(redrive.status).toBe(422);
    expect(await redrive.text()).toContain('still does not decode');
    expect(await host.deadLetters.count()).toBe(1);
    const wrong = await fetch(`${server.url}/dead-letters/${bad.id}/remove`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(403);
    const removed = await fetch(`${server.url}/dead-letters/${bad.id}/remove`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(removed.status).toBe(303);
    expect(await host.deadLetters.count()).toBe(0);
  });

  it('escapes every value from a message on the page (payload, headers, error text)', async () => {
    const { host, publisher, server } = await rig({ token: TOKEN });
    await host.start();
    const hostile = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;
    await publisher.publish(returned(hostile, 'XXX'), { headers: { 'x-note': hostile } });
    await waitFor(async () => (await host.deadLetters.count()) === 1, 'parked');
    const [parked] = await host.deadLetters.list();
    for (const path of ['/', `/dead-letters/${parked!.id}`]) {
      const page = await get(server, path);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).not.toMatch(/onerror=alert\(2\)>/);
    }
    const detail = (await get(server, `/dead-letters/${parked!.id}`)).text;
    expect(detail).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });

  it('mounts in an existing node:http server under a base path (passing other paths on) and serves fetch-style servers', async () => {
    const host = createMessaging({ logger: silentLogger, transport: new InMemoryTransport({ idleWaitMs: 5 }) });
    cleanups.push(() => host.stop());
    await host.start();
    const ops = createOperations(host, { basePath: '/ops' });
    const app = createServer((req, res) =>
      ops.handle(req, res, () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('the application');
      }),
    );
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => app.close(() => resolve())));
    const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/ops/readyz`)).status).toBe(200);
    expect(await (await fetch(`${base}/orders`)).text()).toBe('the application');
    const page = await (await fetch(`${base}/ops/`)).text();
    expect(page).toContain('href="/ops/metrics"');
    const viaFetch = await ops.fetch(new Request('http://localhost/ops/metrics'));
    expect(viaFetch.status).toBe(200);
    expect(await viaFetch.text()).toContain('keiyaku_ready 1');
    expect((await ops.fetch(new Request('http://localhost/elsewhere'))).status).toBe(404);
  });

  it('refuses a short token and a port that is taken, naming it', async () => {
    const host = createMessaging({ logger: silentLogger, transport: new InMemoryTransport() });
    expect(() => createOperations(host, { token: 'short' })).toThrow(/at least 16 characters/);
    const first = await serveOperations(host, { port: 0 });
    cleanups.push(() => first.close());
    await expect(serveOperations(host, { port: first.port })).rejects.toThrow(`cannot listen on 127.0.0.1:${first.port}`);
  });
});

/** Memory with names of its own, as a namespaced Kafka topic would be. */
class NamespacedMemory extends InMemoryTransport {
  override destination(address: string): string {
    return `staging.${address}`;
  }
}

/** Records which reads the operations server makes of its store. */
class CountingStore extends InMemoryDeadLetterStore {
  readonly calls: string[] = [];
  #counting = false;
  override list(filter?: DeadLetterFilter) {
    if (!this.#counting) this.calls.push('list');
    return super.list(filter);
  }
  /** The memory store counts through its own `list`: that is not a read of the page. */
  override async count(filter?: DeadLetterFilter) {
    this.calls.push('count');
    this.#counting = true;
    try {
      return await super.count(filter);
    } finally {
      this.#counting = false;
    }
  }
  override get(id: string) {
    this.calls.push('get');
    return super.get(id);
  }
  override summaries(page?: DeadLetterPage) {
    this.calls.push(`summaries ${page?.channel ?? '*'}|${page?.groupId ?? '*'} limit ${page?.limit}`);
    return super.summaries(page);
  }
}

/** A store written before `summaries` existed: everything but it, delegated. */
function storeWithoutSummaries(inner: DeadLetterStore): DeadLetterStore & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    park: (request, at) => inner.park(request, at),
    list(filter) {
      calls.push('list');
      return inner.list(filter);
    },
    get(id) {
      calls.push('get');
      return inner.get(id);
    },
    remove: (id) => inner.remove(id),
    count: (filter) => inner.count(filter),
  };
}

const parkRequest = (groupId: string, offset: number): ParkRequest => ({
  channel: 'bookIntegrationEvents',
  address: 'library.book-integration-events',
  topic: 'prod.library.book-integration-events',
  groupId,
  type: 'BookReturned',
  payload: new TextEncoder().encode(JSON.stringify({ big: 'x'.repeat(1_000) })),
  headers: { ce_type: 'BookReturned' },
  partition: 0,
  offset: String(offset),
  error: { name: 'Error', message: `failure ${offset}` },
  attempts: 1,
  firstFailureAt: new Date(Date.UTC(2026, 10, 30)),
  lastFailureAt: new Date(Date.UTC(2026, 10, 30)),
});

async function serveStore(store: DeadLetterStore, options: { deadLetterLimit?: number } = {}) {
  const host = createMessaging({ logger: silentLogger, transport: new InMemoryTransport({ idleWaitMs: 5 }), deadLetters: store });
  const server = await serveOperations(host, { port: 0, token: TOKEN, ...options });
  cleanups.push(async () => {
    await server.close();
    await host.stop();
  });
  await host.start();
  return server;
}

describe('the operations server on bad requests and large stores', () => {
  it('answers 400, not 500, to malformed percent-encoding in a dead-letter URL (node:http and fetch)', async () => {
    const { host, server } = await rig({ token: TOKEN });
    await host.start();
    for (const path of ['/dead-letters/%', '/dead-letters/%zz', '/dead-letters/%E0%A4%A']) {
      const page = await get(server, path);
      expect(page.status, path).toBe(400);
      expect(page.text).toContain('not valid percent-encoding');
    }
    const action = await fetch(`${server.url}/dead-letters/%/remove`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(action.status).toBe(400);
    const ops = createOperations(host, { token: TOKEN });
    expect((await ops.fetch(new Request('http://localhost/dead-letters/%25%'))).status).toBe(400);
    expect((await ops.fetch(new Request('http://localhost/dead-letters/%E2%82%AC'))).status).toBe(404); // valid: "€", not parked
  });

  it('answers 413 to a form body over the limit, over a connection that is not reset', async () => {
    const { host, server } = await rig({ token: TOKEN });
    await host.start();
    for (const size of [20 * 1024, 4 * 1024 * 1024]) {
      const response = await fetch(`${server.url}/dead-letters/some-id/remove`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=x&token=${'t'.repeat(size)}`,
      });
      expect(response.status, `${size} bytes`).toBe(413);
      expect(await response.text()).toContain('request body too large');
    }
    const ops = createOperations(host, { token: TOKEN });
    const viaFetch = await ops.fetch(
      new Request('http://localhost/dead-letters/some-id/remove', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=x&token=${'t'.repeat(64 * 1024)}`,
      }),
    );
    expect(viaFetch.status).toBe(413);
    // The server still serves.
    expect((await get(server, '/healthz')).status).toBe(200);
  });

  it('lists dead letters on the overview from bounded summaries, never reading full records; the full record only on its own page', async () => {
    const store = new CountingStore();
    for (let i = 0; i < 5; i++)
      await store.park(parkRequest(i < 3 ? 'inventory.book-availability' : 'notifications.late-fees', i), new Date());
    const server = await serveStore(store, { deadLetterLimit: 2 });
    const overview = await get(server, '/');
    expect(overview.status).toBe(200);
    expect(store.calls).toEqual(['summaries *|* limit 2', 'count']);
    expect(overview.text.match(/data-dead-letter="/g)).toHaveLength(2);
    expect(overview.text).toContain('data-dead-letter-count="5"');
    expect(overview.text).toContain('Showing the oldest 2.');
    expect(overview.text).toContain('failure 0');
    expect(overview.text).not.toContain('failure 2');
    expect(overview.text).toContain('· topic <code data-topic>prod.library.book-integration-events</code>');
    store.calls.length = 0;
    const filtered = await get(server, `/?group=${encodeURIComponent('bookIntegrationEvents|notifications.late-fees')}`);
    expect(store.calls).toEqual(['summaries bookIntegrationEvents|notifications.late-fees limit 2', 'count', 'summaries *|* limit 2']);
    expect(filtered.text).toContain('failure 3');
    expect(filtered.text).toContain('failure 4');
    expect(filtered.text).toContain('data-dead-letter-count="2"');
    store.calls.length = 0;
    const [first] = await store.list();
    store.calls.length = 0;
    const detail = await get(server, `/dead-letters/${first!.id}`);
    expect(detail.status).toBe(200);
    expect(store.calls).toEqual(['get']);
    expect(detail.text).toContain('<code data-topic>prod.library.book-integration-events</code>');
  });

  it('falls back to list for a store without summaries, still cut to the limit', async () => {
    const inner = new InMemoryDeadLetterStore();
    for (let i = 0; i < 3; i++) await inner.park(parkRequest('inventory.book-availability', i), new Date());
    const store = storeWithoutSummaries(inner);
    const server = await serveStore(store, { deadLetterLimit: 2 });
    const overview = await get(server, '/');
    expect(store.calls).toEqual(['list']);
    expect(overview.text.match(/data-dead-letter="/g)).toHaveLength(2);
    expect(overview.text).toContain('data-dead-letter-count="3"');
  });

  it('shows the broker topic beside the contract address in metrics, on the overview and on a parked record', async () => {
    const transport = new NamespacedMemory({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'inventory.book-availability',
        handle() {
          throw new Error('always');
        },
      },
      { deadLetter: { maxRetries: 0 } },
    );
    const server = await serveOperations(host, { port: 0 });
    cleanups.push(async () => {
      await server.close();
      await host.stop();
    });
    await host.start();
    await publisher.publish(borrowed('C-1'));
    await waitFor(async () => (await host.deadLetters.count()) === 1, 'parked');
    const topic = 'staging.library.book-integration-events';
    const metrics = samples((await get(server, '/metrics')).text);
    const labels = `channel="bookIntegrationEvents",address="library.book-integration-events",topic="${topic}"`;
    const parkedSamples = [...metrics].filter(([k]) =>
      k.startsWith(`keiyaku_messages_parked_total{${labels},group="inventory.book-availability",`),
    );
    expect(parkedSamples.map(([, v]) => v)).toEqual([1]);
    expect(metrics.get(`keiyaku_published_messages_total{${labels}}`)).toBe(1);
    const overview = (await get(server, '/')).text;
    expect(overview.match(/· topic <code data-topic>staging\.library\.book-integration-events<\/code>/g)).toHaveLength(2); // the subscription and the dead letter
    const [parked] = await host.deadLetters.list();
    expect(parked!.topic).toBe(topic);
    expect((await get(server, `/dead-letters/${parked!.id}`)).text).toContain(`<code data-topic>${topic}</code>`);
  });
});
