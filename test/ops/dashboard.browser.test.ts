// The operations page in a real browser: Debian's chromium driven by playwright-core, against
// a host running the demo's handlers on the in-memory transport. With KEIYAKU_SCREENSHOT=<file>
// it also writes the screenshot docs/operations.md shows (docs/operations.png).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, type Publisher, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { type OperationsServer, serveOperations } from '@keiyaku/runtime/ops';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookAvailability, type InventoryStore } from '../../examples/inventory/book-availability.js';
import { LateFeeNotices } from '../../examples/notifications/late-fees.js';
import { BookBorrowed, BookIntegrationEvents, type BookIntegrationEventsMessage, BookReturned } from '../../generated/index.js';
import { HOSTILE_BYTES, ReadingMessage, readingChannel, sample } from '../binary/binary-contract.js';
import { repoRoot, waitFor } from '../helpers.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const reason = existsSync(CHROMIUM) ? '' : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;
const TOKEN = 'browser-test-token-4f9c2a7e1b';
const BOOK = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
/**
 * How long a condition on the page may take to hold. Only a bound against a hang: every check waits
 * for its condition, since the overview reloads itself every second and, on a loaded machine, one
 * round trip to the browser can take longer than a second.
 */
const WAIT_MS = 60_000;
const HOSTILE = `<script>window.__pwned = 1; alert(1)</script>"><img src=x onerror="window.__pwned = 2">`;

class Shelf implements InventoryStore {
  readonly counts = new Map<string, number>();
  available = true;
  async adjust(bookId: string, delta: number): Promise<number> {
    if (!this.available) throw new Error('inventory database unavailable');
    const next = (this.counts.get(bookId) ?? 3) + delta;
    this.counts.set(bookId, next);
    return next;
  }
}

const returned = (copyId: string, currency?: string, amount = 150) =>
  BookReturned.create({
    bookId: BOOK,
    copyId,
    memberId: 'M-1002',
    returnedAt: '2026-11-28T12:00:00Z',
    condition: 'good',
    ...(currency === undefined ? {} : { lateFee: { amount, currency } }),
  });
const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: BOOK,
    copyId,
    borrower: { memberId: 'M-1001', displayName: 'Ada' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

if (reason && !process.env['CI']) process.stdout.write(`\nBrowser tests of the operations page skipped: ${reason}\n`);
if (reason && process.env['CI'])
  describe('the operations page in Chromium', () => {
    it('needs Chromium under CI', () => {
      throw new Error(`${reason}; under CI the browser tests must run`);
    });
  });

// Each case waits on several conditions of up to WAIT_MS each: its own bound is a multiple of that.
(reason ? describe.skip : describe)(
  `the operations page in Chromium${reason ? ` (skipped: ${reason})` : ''}`,
  { timeout: 4 * WAIT_MS },
  () => {
    let host: Messaging;
    let publisher: Publisher<BookIntegrationEventsMessage>;
    let server: OperationsServer;
    let readOnly: OperationsServer;
    let browser: BrowserContext;
    let page: Page;
    let profile: string;
    const shelf = new Shelf();
    const notices = new LateFeeNotices();
    const dialogs: string[] = [];

    beforeAll(async () => {
      host = createMessaging({
        logger: silentLogger,
        transport: new InMemoryTransport({ defaultPartitions: 2, idleWaitMs: 5 }),
        deadLetters: new InMemoryDeadLetterStore(),
        source: 'library',
      });
      host.subscribe(BookIntegrationEvents, new BookAvailability(shelf), { retry: { initialMs: 100, maxMs: 300, jitter: 0 } });
      host.subscribe(BookIntegrationEvents, notices, { deadLetter: { maxRetries: 1, backoffSchedule: [20] } });
      // A handler that never fails, with retry tiers: the page lists its retry addresses.
      host.subscribe(BookIntegrationEvents, { groupId: 'search.book-index', handle() {} }, { retryLater: { tiers: [200, 5_000] } });
      publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId, lingerMs: 0 });
      await host.start();
      server = await serveOperations(host, { port: 0, token: TOKEN, refreshSeconds: 1, title: 'keiyaku demo' });
      readOnly = await serveOperations(host, { port: 0, refreshSeconds: 1 });
      profile = mkdtempSync(join(tmpdir(), 'keiyaku-chromium-'));
      // A fresh profile, and nothing of Chromium's own in the background (first-run work, component
      // updates, sync, QUIC probes): it competes for the CPU with the test on a loaded machine.
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        timeout: WAIT_MS,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1280, height: 900 },
      });
      page = browser.pages()[0] ?? (await browser.newPage());
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await publisher.publishMany([borrowed('C-1'), borrowed('C-2')]);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await readOnly?.close();
      await host?.stop();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    /** Text of a locator once the (self-refreshing) page shows it; undefined while it navigates. */
    const text = async (selector: string): Promise<string | undefined> => {
      try {
        return (await page.locator(selector).first().textContent({ timeout: 2_000 })) ?? undefined;
      } catch {
        return undefined;
      }
    };
    /** Waits until the text of `selector` satisfies `ok` (the page may be reloading itself meanwhile); returns it. */
    const shows = async (selector: string, ok: string | RegExp | ((text: string) => boolean), what: string): Promise<string> => {
      const test = typeof ok === 'string' ? (t: string) => t === ok : ok instanceof RegExp ? (t: string) => ok.test(t) : ok;
      let last: string | undefined;
      await waitFor(
        async () => {
          last = await text(selector);
          return last !== undefined && test(last);
        },
        () => `${what} (${selector} last showed ${JSON.stringify(last)})`,
        WAIT_MS,
      );
      return last!;
    };
    /** What a hostile script would have set, read again when the self-refreshing page navigated meanwhile. */
    const pwned = async (): Promise<number | undefined> => {
      for (;;) {
        try {
          return await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned);
        } catch (error) {
          if (!/context was destroyed|navigat/i.test(String(error))) throw error;
        }
      }
    };
    /** Waits until `selector` matches `n` elements of the page. */
    const counts = (selector: string, n: number, what: string): Promise<void> =>
      waitFor(async () => (await page.locator(selector).count()) === n, what, WAIT_MS);

    it("lists the demo's subscriptions, their state and lag, and the publisher", async () => {
      await waitFor(() => host.subscriptions[0]!.health().processed === 2, 'inventory handled both borrowings', WAIT_MS);
      await page.goto(`${server.url}/`);
      expect(await page.title()).toBe('Overview · keiyaku demo');
      for (const group of ['inventory.book-availability', 'notifications.late-fees']) {
        await counts(`tr[data-subscription="${group}"]`, 1, `one row for ${group}`);
        await shows(`tr[data-subscription="${group}"] [data-state]`, 'running', `${group} shows running`);
      }
      await shows(
        'tr[data-subscription="search.book-index"] [data-retry-tier="2"]',
        /^retry tier 2 \(5000 ms\): \S+\.retry\.search\.book-index\.5s · running · depth 0 · waiting 0/,
        'the retry tiers of search.book-index are listed',
      );
      await shows('tr[data-publisher="bookIntegrationEvents"] td:nth-child(3)', '2', 'the publisher shows 2 sent');
      await shows('[data-ready]', 'ready', 'the page says ready');
      await waitFor(
        async () => (await page.locator('tr[data-subscription="inventory.book-availability"] [data-lag]').count()) > 0,
        'the lag of inventory is shown',
        WAIT_MS,
      );
    });

    it('shows a stalled belt with its reason, since when and attempts, then turning ready again by itself', async () => {
      shelf.available = false;
      await publisher.publish(returned('C-1'));
      await shows('tr[data-subscription="inventory.book-availability"] [data-state]', 'stalled', 'the page shows the stall');
      await shows(
        'tr[data-subscription="inventory.book-availability"] [data-stall]',
        /stalled at partition \d, offset \d+ \(BookReturned\), since \d{4}-\d\d-\d\dT.+ attempt\(s\): Error: inventory database unavailable/,
        'the stall shows where, since when, how often and why',
      );
      await shows('[data-ready]', 'not ready', 'the page says not ready');
      await shows(
        '.reasons li',
        (t) => t.includes('subscription inventory.book-availability on bookIntegrationEvents is stalled'),
        'the page names the reason',
      );
      if (process.env['KEIYAKU_SCREENSHOT']) {
        // The picture of docs/operations.md: a stall and a parked message side by side.
        await publisher.publish(returned('C-2', 'XXX', 3));
        await waitFor(async () => (await host.deadLetters.count()) === 1, 'a message is parked for the screenshot', WAIT_MS);
        await page.goto(`${server.url}/`);
        await page.screenshot({ path: join(repoRoot, process.env['KEIYAKU_SCREENSHOT']), fullPage: true });
        await host.deadLetters.remove((await host.deadLetters.list())[0]!.id);
      }
      shelf.available = true;
      // No reload by the test: the page refreshes itself.
      await shows('tr[data-subscription="inventory.book-availability"] [data-state]', 'running', 'the page shows the belt moving');
      await shows('[data-ready]', 'ready', 'the page shows ready again');
    });

    it('shows a parked message: its headers, payload and error', async () => {
      await publisher.publish(returned('C-2', 'XXX', 3), { correlationId: 'req-5' });
      await waitFor(async () => (await host.deadLetters.count()) === 1, 'the poison message is parked', WAIT_MS);
      const [parked] = await host.deadLetters.list();
      await page.goto(`${server.url}/`);
      await counts(`tr[data-dead-letter="${parked!.id}"]`, 1, 'the overview lists it');
      await shows(`tr[data-dead-letter="${parked!.id}"]`, (t) => t.includes('no exchange rate for XXX'), 'the overview shows its error');
      await page.locator(`tr[data-dead-letter="${parked!.id}"] a`).click();
      await page.waitForURL(`**/dead-letters/${parked!.id}`);
      await shows('[data-header="ce_type"]', 'BookReturned', 'the dead letter page shows it');
      await shows('[data-header="ce_correlationid"]', 'req-5', 'the dead letter page shows it');
      expect(JSON.parse(await shows('[data-payload]', (t) => t.startsWith('{'), 'the payload is shown'))).toMatchObject({
        copyId: 'C-2',
        lateFee: { amount: 3, currency: 'XXX' },
      });
      await shows('[data-error]', /^Error: no exchange rate for XXX/, 'the dead letter page shows it');
    });

    it('refuses redrive without the token and on a server without one (buttons disabled), redrives with it', async () => {
      const [parked] = await host.deadLetters.list();
      // A server without a token shows the actions disabled.
      await page.goto(`${readOnly.url}/dead-letters/${parked!.id}`);
      expect(await page.locator('form[data-action="redrive"] button').isDisabled()).toBe(true);
      expect(await page.locator('form[data-action="remove"] button').isDisabled()).toBe(true);
      expect(await page.locator('[data-actions-disabled]').count()).toBe(1);
      // Without the token: refused, still parked.
      await page.goto(`${server.url}/dead-letters/${parked!.id}`);
      await page.locator('form[data-action="redrive"] button').click();
      await page.waitForLoadState();
      await shows('[data-message]', 'Refused: enter the operator token.', 'the dead letter page shows it');
      await page.goto(`${server.url}/dead-letters/${parked!.id}`);
      await page.locator('form[data-action="redrive"] input[name="token"]').fill('not-the-token-at-all');
      await page.locator('form[data-action="redrive"] button').click();
      await page.waitForLoadState();
      await shows('[data-message]', 'Refused: the operator token is not valid.', 'the dead letter page shows it');
      expect(await host.deadLetters.get(parked!.id)).toBeDefined();
      // With the token: republished to the channel and removed from the store.
      const consumedBefore = host.subscriptions[1]!.metrics().partitions.reduce((n, p) => n + p.consumed, 0);
      await page.goto(`${server.url}/dead-letters/${parked!.id}`);
      await page.locator('form[data-action="redrive"] input[name="token"]').fill(TOKEN);
      await page.locator('form[data-action="redrive"] button').click();
      await page.waitForURL(`**/?done=redriven&id=${parked!.id}`);
      await shows(
        '[data-notice="ok"]',
        `Redrove dead letter ${parked!.id}: republished to its channel and removed from the store.`,
        'the overview confirms the redrive',
      );
      expect(await host.deadLetters.get(parked!.id)).toBeUndefined();
      // The notifications belt received it again (and, its cause not fixed, parks it again under a new id).
      await waitFor(
        () => host.subscriptions[1]!.metrics().partitions.reduce((n, p) => n + p.consumed, 0) === consumedBefore + 1,
        'the redriven message was consumed',
        WAIT_MS,
      );
      await waitFor(async () => (await host.deadLetters.count()) === 1, 'parked again', WAIT_MS);
      const [again] = await host.deadLetters.list();
      expect(again!.id).not.toBe(parked!.id);
      expect(again!.headers['keiyaku-redriven-from']).toBe(parked!.id);
      // Removing it with the token.
      await page.goto(`${server.url}/dead-letters/${again!.id}`);
      await page.locator('form[data-action="remove"] input[name="token"]').fill(TOKEN);
      await page.locator('form[data-action="remove"] button').click();
      await page.waitForURL(`**/?done=removed&id=${again!.id}`);
      expect(await host.deadLetters.count()).toBe(0);
    });

    it('renders a hostile payload and headers as text and runs nothing', async () => {
      await publisher.publish(returned(HOSTILE, 'XXX', 1), { headers: { 'x-note': HOSTILE } });
      await waitFor(async () => (await host.deadLetters.count()) === 1, 'the hostile message is parked', WAIT_MS);
      const [parked] = await host.deadLetters.list();
      for (const path of ['/', `/dead-letters/${parked!.id}`]) {
        await page.goto(`${server.url}${path}`);
        // The hostile text is on the page (the overview lists the parked message) before anything is counted.
        await counts(path === '/' ? `tr[data-dead-letter="${parked!.id}"]` : '[data-payload]', 1, `${path} shows the parked message`);
        expect(await page.locator('img').count()).toBe(0);
        expect(await page.locator('script').count()).toBe(0);
        expect(await pwned()).toBeUndefined();
      }
      await shows('[data-payload]', (t) => JSON.parse(t).copyId === HOSTILE, 'the payload shows the hostile text as text');
      await shows('[data-header="x-note"]', HOSTILE, 'the header shows the hostile text as text');
      expect(dialogs).toEqual([]);
    });

    it("shows a parked Avro or Protobuf payload decoded by its channel's codec, and one of an unknown channel as labelled hex", async () => {
      const channel = readingChannel('ops.readings');
      host.subscribe(
        channel,
        {
          groupId: 'ops.readers',
          handle: () => {
            throw new Error('the archive refused it');
          },
        },
        { deadLetter: { maxRetries: 0 } },
      );
      await host.publisher(channel, { lingerMs: 0 }).publishMany([sample(4), sample(5)]);
      const parkedOf = async (type: string) => (await host.deadLetters.list({ channel: channel.id })).find((p) => p.type === type);
      await waitFor(async () => (await host.deadLetters.count({ channel: channel.id })) === 2, 'both binary messages are parked', WAIT_MS);
      for (const [type, format, blob] of [
        ['Reading', 'avro', { $bytes: Buffer.from([...HOSTILE_BYTES, 4]).toString('base64') }],
        ['Scan', 'protobuf', Buffer.from([...HOSTILE_BYTES, 5]).toString('base64')],
      ] as const) {
        const parked = (await parkedOf(type))!;
        await page.goto(`${server.url}/dead-letters/${parked.id}`);
        await shows('[data-payload-kind]', (t) => t.startsWith(`${format}, decoded,`), `the ${format} payload is shown decoded`);
        const shown = JSON.parse(await shows('[data-payload]', (t) => t.startsWith('{'), `the ${format} payload is shown as JSON`));
        expect(shown).toMatchObject({ sensor: `s-${parked.type === 'Reading' ? 1 : 2}`, blob });
      }
      // A parked Avro message of a channel this host does not know: its bytes as hex, labelled, never as text.
      const bytes = ReadingMessage.encode(ReadingMessage.create({ sensor: 's', seq: 1, blob: new TextEncoder().encode('abc') }));
      const elsewhere = await host.deadLetters.park(
        {
          channel: 'elsewhere',
          address: 'elsewhere.readings',
          groupId: 'other.readers',
          type: 'Reading',
          payload: bytes,
          headers: { ce_type: 'Reading', ce_id: 'r-9', 'content-type': 'application/avro' },
          error: { name: 'Error', message: 'refused' },
          attempts: 1,
          firstFailureAt: new Date(),
          lastFailureAt: new Date(),
        },
        new Date(),
      );
      await page.goto(`${server.url}/dead-letters/${elsewhere.id}`);
      await shows('[data-payload-kind]', (t) => t.startsWith('hex,'), 'the unknown binary payload is labelled hex');
      await shows('[data-payload]', '02 73 02 06 61 62 63', 'the bytes are shown as hex');
      await shows(
        '[data-payload-note]',
        /^application\/avro bytes; their channel is not known here/,
        'the page says why it is not decoded',
      );
      expect(dialogs).toEqual([]);
    });
  },
);
