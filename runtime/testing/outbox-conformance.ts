/**
 * The outbox conformance suite: what every outbox store (SQLite, PostgreSQL, or your own
 * {@link OutboxDispatchStore}) must do with the dispatcher, written through the store's own
 * transactional writer. SQLite and PostgreSQL both run it.
 *
 * ```ts
 * runOutboxConformance({
 *   name: 'sqlite',
 *   exclusive: true,
 *   create: async ({ channel }) => {
 *     const db = new Database(file); const outbox = new SqliteOutbox(db); outbox.migrate();
 *     const writer = outbox.channel(channel);
 *     return {
 *       store: outbox,
 *       write: async (items, { rollback } = {}) => { … db.transaction(() => writer.writeMany(db, items))() … },
 *       another: async () => new SqliteOutbox(file),
 *     };
 *   },
 * });
 * ```
 */
import { randomUUID } from 'node:crypto';
import {
  type ContractMessage,
  ContractValidationError,
  defineChannel,
  defineMessage,
  type MessageHandler,
  type StandaloneValidator,
} from '../core/contract.js';
import { CE_HEADERS } from '../core/envelope.js';
import { TransportError } from '../core/errors.js';
import type { OutgoingRecord, Transport, TransportProducer } from '../core/transport.js';
import { createMessaging } from '../host/messaging.js';
import { InMemoryTransport } from '../memory/transport.js';
import { OutboxDispatcher, type OutboxDispatcherOptions } from '../outbox/dispatcher.js';
import { type OutboxDispatchStore, OutboxLockedError, type OutboxWriteOptions } from '../outbox/outbox.js';
import { until } from './cases.js';
import { type ConformanceRunner, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

export const OUTBOX_CONFORMANCE_CASES = [
  'publishes committed rows with the envelope the publisher writes',
  'fails the write with the codec error for an invalid message',
  'a rolled-back transaction publishes nothing',
  'keeps per-key order across batches',
  'a refused row holds its key with backoff, other keys flow, then it goes dead after maxAttempts',
  'a dead row can be listed, reset to pending and published',
  'rows accumulate while the transport is down and drain when it is back',
  'reports backlog and oldest pending age in health',
  'keeps published rows for the retention period, then prunes them',
  'a second dispatcher on one database',
] as const;
export type OutboxConformanceCase = (typeof OUTBOX_CONFORMANCE_CASES)[number];

/** The suite's contract: `OutboxPing { seq, key }`. */
export interface OutboxPingPayload {
  readonly seq: number;
  readonly key: string;
}
export type OutboxPing = ContractMessage<'OutboxPing', OutboxPingPayload>;
const validatePing: StandaloneValidator = (data) => {
  const d = data as Partial<OutboxPingPayload> | null;
  const ok = typeof d === 'object' && d !== null && Number.isInteger(d.seq) && typeof d.key === 'string';
  validatePing.errors = ok ? null : [{ instancePath: '/seq', keyword: 'type', message: 'must be integer' }];
  return ok;
};
export const OutboxPing = defineMessage<'OutboxPing', OutboxPingPayload>({
  type: 'OutboxPing',
  id: 'OutboxPing',
  contentType: 'application/json',
  schemaHash: 'outbox-conformance',
  validate: validatePing,
});
export function outboxConformanceChannel(address: string) {
  return defineChannel<OutboxPing>({
    id: 'outboxConformance',
    address,
    addressTemplate: address,
    parameters: [],
    messages: [OutboxPing],
    bindings: {},
  });
}
export type OutboxConformanceChannel = ReturnType<typeof outboxConformanceChannel>;

export interface OutboxHarness {
  /** A fresh, migrated outbox whose rows belong to this case only. */
  readonly store: OutboxDispatchStore;
  /** Writes `items` with the store's writer of the case's channel in one transaction of the engine; rolls it back after writing when `rollback`. */
  write(items: readonly (readonly [OutboxPing, OutboxWriteOptions])[], options?: { rollback?: boolean }): Promise<void>;
  /** Another store on the same database, as a second process would open it. */
  another(): Promise<OutboxDispatchStore>;
  cleanup?(): Promise<void>;
}

export interface OutboxConformanceTarget {
  readonly name: string;
  create(context: { readonly channel: OutboxConformanceChannel }): Promise<OutboxHarness>;
  /** True when only one dispatcher may run per database (SQLite); false when several share the work (PostgreSQL). */
  readonly exclusive: boolean;
  readonly skip?: Partial<Record<OutboxConformanceCase, string>>;
  readonly timeoutMs?: number;
}

/** Records every send; refuses all while `down`, and refuses records `refuse` picks. */
class RecordingTransport implements Transport {
  readonly name = 'recording';
  readonly capabilities = { orderedPartitions: true, durable: false, pausablePartitions: false };
  readonly sent: OutgoingRecord[] = [];
  down = false;
  refuse: (record: OutgoingRecord) => boolean = () => false;
  producer(): TransportProducer {
    return {
      send: async (records) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.down) throw new TransportError('recording', 'broker unreachable');
        const refused = records.find((r) => this.refuse(r));
        if (refused) throw new TransportError('recording', `record too large: ${refused.headers[CE_HEADERS.id]}`, { retriable: false });
        this.sent.push(...records);
      },
      close: async () => {},
    };
  }
  consumer(): never {
    throw new Error('the recording transport does not consume');
  }
  async close(): Promise<void> {}
}

function seqOf(record: OutgoingRecord): number {
  return (JSON.parse(new TextDecoder().decode(record.value)) as OutboxPingPayload).seq;
}

function ping(seq: number, key: string, options: OutboxWriteOptions = {}): readonly [OutboxPing, OutboxWriteOptions] {
  return [OutboxPing.create({ seq, key }), { key, ...options }];
}

export function runOutboxConformance(target: OutboxConformanceTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runOutboxConformance', runner, (r) => {
    use(r);
    const timeout = target.timeoutMs ?? 15_000;
    describe(`outbox conformance: ${target.name}`, () => {
      const cleanups: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      const test = (name: OutboxConformanceCase, body: () => Promise<void>): void => {
        const reason = target.skip?.[name];
        if (reason !== undefined) it.skip(`${name} (skipped: ${reason})`, body);
        else it(name, body, timeout + 10_000);
      };

      async function setup(options: OutboxDispatcherOptions = {}) {
        const channel = outboxConformanceChannel(`outbox-conformance-${randomUUID().slice(0, 8)}`);
        const harness = await target.create({ channel });
        const transport = new RecordingTransport();
        const dispatcher = new OutboxDispatcher(
          { store: harness.store, transport },
          { pollIntervalMs: 50, batchSize: 50, retry: { initialMs: 20, maxMs: 50, jitter: 0 }, healthIntervalMs: 0, ...options },
        );
        cleanups.push(async () => {
          await dispatcher.stop(AbortSignal.timeout(5_000));
          await harness.cleanup?.();
        });
        return { channel, harness, transport, dispatcher };
      }

      test('publishes committed rows with the envelope the publisher writes', async () => {
        const channel = outboxConformanceChannel(`outbox-conformance-${randomUUID().slice(0, 8)}`);
        const harness = await target.create({ channel });
        const transport = new InMemoryTransport();
        const messaging = createMessaging({ transport, source: 'conformance' });
        const seen: { seq: number; id: string; key?: string; correlationId?: string; causationId?: string; time: string }[] = [];
        const handler: MessageHandler<OutboxPing> = {
          groupId: 'outbox-conformance',
          handle(message, context) {
            seen.push({
              seq: message.seq,
              id: context.messageId,
              ...(context.key === undefined ? {} : { key: context.key }),
              ...(context.correlationId === undefined ? {} : { correlationId: context.correlationId }),
              ...(context.causationId === undefined ? {} : { causationId: context.causationId }),
              time: context.time.toISOString(),
            });
          },
        };
        messaging.subscribe(channel, handler);
        messaging.host(new OutboxDispatcher({ store: harness.store, transport }, { pollIntervalMs: 50 }));
        cleanups.push(async () => {
          await messaging.stop();
          await harness.cleanup?.();
        });
        await harness.write([
          ping(1, 'a', { id: 'm-1', correlationId: 'c-1', causationId: 'e-1', time: new Date('2026-01-02T03:04:05.000Z') }),
          ping(2, 'b', { id: 'm-2' }),
        ]);
        await messaging.start();
        await until(() => seen.length === 2, timeout, 'both rows are delivered');
        expect(seen.find((s) => s.seq === 1)).toEqual({
          seq: 1,
          id: 'm-1',
          key: 'a',
          correlationId: 'c-1',
          causationId: 'e-1',
          time: '2026-01-02T03:04:05.000Z',
        });
        expect(seen.find((s) => s.seq === 2)).toMatchObject({ id: 'm-2', key: 'b' });
        expect(seen.find((s) => s.seq === 1)).toBeDefined();
        const health = messaging.health().components.find((c) => c.kind === 'outbox');
        expect(health?.ready).toBe(true);
        await until(async () => (await harness.store.counts()).pending === 0, timeout, 'the rows are marked published');
        expect(await harness.store.counts()).toMatchObject({ pending: 0, dead: 0, published: 0 });
      });

      test('fails the write with the codec error for an invalid message', async () => {
        const { harness } = await setup();
        const forged = { seq: 'one', key: 'a', [Object.getOwnPropertySymbols(OutboxPing.create({ seq: 1, key: 'a' }))[0]!]: 'OutboxPing' };
        await expect(harness.write([ping(1, 'a'), [forged as unknown as OutboxPing, { key: 'a' }]])).rejects.toThrow(
          ContractValidationError,
        );
        expect((await harness.store.counts()).pending).toBe(0);
      });

      test('a rolled-back transaction publishes nothing', async () => {
        const { harness, transport, dispatcher } = await setup();
        await dispatcher.start();
        await expect(harness.write([ping(1, 'a'), ping(2, 'a')], { rollback: true })).rejects.toThrow(/rolled back/);
        await harness.write([ping(3, 'a')]);
        await until(() => transport.sent.length === 1, timeout, 'the committed row is published');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(transport.sent.map(seqOf)).toEqual([3]);
        expect(await harness.store.counts()).toMatchObject({ pending: 0, dead: 0 });
      });

      test('keeps per-key order across batches', async () => {
        const { harness, transport, dispatcher } = await setup({ batchSize: 7 });
        const keys = ['k0', 'k1', 'k2', 'k3', 'k4'];
        const items = Array.from({ length: 200 }, (_, i) => ping(i, keys[i % keys.length]!));
        await harness.write(items.slice(0, 100));
        await dispatcher.start();
        await harness.write(items.slice(100));
        await until(() => transport.sent.length >= 200, timeout, 'all 200 rows are published');
        for (const key of keys) {
          const seqs = transport.sent.filter((r) => r.key === key).map(seqOf);
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
          expect(new Set(seqs).size).toBe(40);
        }
      });

      test('a refused row holds its key with backoff, other keys flow, then it goes dead after maxAttempts', async () => {
        const { harness, transport, dispatcher } = await setup({ maxAttempts: 3, retry: { initialMs: 150, multiplier: 1, jitter: 0 } });
        transport.refuse = (r) => r.headers[CE_HEADERS.id] === 'poison';
        await harness.write([ping(1, 'p', { id: 'poison' }), ping(2, 'p'), ping(3, 'q'), ping(4, 'r')]);
        await dispatcher.start();
        await until(() => transport.sent.length === 2, timeout, 'the other keys are published');
        expect(transport.sent.map(seqOf).sort()).toEqual([3, 4]);
        // While the poison row waits for its retries, the row behind it on key p waits too.
        const waiting = await harness.store.list({ state: 'pending' });
        expect(waiting.map((r) => r.messageId)).toContain('poison');
        expect(transport.sent.some((r) => r.key === 'p')).toBe(false);
        await until(async () => (await harness.store.list({ state: 'dead' })).length === 1, timeout, 'the poison row is dead');
        const [dead] = await harness.store.list({ state: 'dead' });
        expect(dead).toMatchObject({ messageId: 'poison', attempts: 3, state: 'dead', key: 'p' });
        expect(dead!.lastError).toMatch(/record too large: poison/);
        await until(() => transport.sent.length === 3, timeout, 'the row behind the dead one is published');
        expect(transport.sent.map(seqOf)).toContain(2);
        await until(async () => (await dispatcher.refresh()).backlog === 0, timeout, 'the backlog is 0 in health');
        expect(dispatcher.status()).toMatchObject({ dead: 1, backlog: 0, failedAttempts: 3 });
        expect(dispatcher.health().details).toMatchObject({ dead: 1, backlog: 0 });
      });

      test('a dead row can be listed, reset to pending and published', async () => {
        const { harness, transport, dispatcher } = await setup({ maxAttempts: 1 });
        let refusing = true;
        transport.refuse = (r) => refusing && r.headers[CE_HEADERS.id] === 'x';
        await harness.write([ping(1, 'a', { id: 'x' })]);
        await dispatcher.start();
        await until(async () => (await harness.store.list()).length === 1, timeout, 'the row is dead');
        const [dead] = await harness.store.list({ channel: 'outboxConformance' });
        expect(await harness.store.get(dead!.id)).toMatchObject({ state: 'dead', attempts: 1 });
        expect(await harness.store.list({ channel: 'elsewhere' })).toEqual([]);
        refusing = false;
        expect(await harness.store.reset(dead!.id)).toBe(true);
        expect(await harness.store.reset(dead!.id)).toBe(false);
        await until(() => transport.sent.length === 1, timeout, 'the reset row is published');
        await until(async () => (await harness.store.get(dead!.id)) === undefined, timeout, 'the published row is deleted');
        expect(await harness.store.remove(dead!.id)).toBe(false);
        await expect(harness.store.get('not-an-id')).rejects.toMatchObject({ code: 'outbox_bad_id' });
      });

      test('rows accumulate while the transport is down and drain when it is back', async () => {
        const { harness, transport, dispatcher } = await setup({ maxAttempts: 1_000, retry: { initialMs: 20, maxMs: 100, jitter: 0 } });
        transport.down = true;
        await dispatcher.start();
        for (let i = 0; i < 10; i++) await harness.write([ping(i * 2, `k${i % 3}`), ping(i * 2 + 1, `k${i % 3}`)]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await dispatcher.refresh()).backlog).toBe(20);
        expect(transport.sent).toEqual([]);
        transport.down = false;
        await until(() => transport.sent.length === 20, timeout, 'the backlog drains');
        for (const key of ['k0', 'k1', 'k2']) {
          const seqs = transport.sent.filter((r) => r.key === key).map(seqOf);
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        }
        await until(async () => (await dispatcher.refresh()).backlog === 0, timeout, 'the backlog is 0 in health');
      });

      test('reports backlog and oldest pending age in health', async () => {
        const { harness, transport, dispatcher } = await setup({ maxAttempts: 1_000 });
        transport.down = true;
        await harness.write([ping(1, 'a'), ping(2, 'b'), ping(3, 'c')]);
        await dispatcher.start();
        await new Promise((resolve) => setTimeout(resolve, 120));
        await dispatcher.refresh();
        const details = dispatcher.health().details!;
        expect(details['backlog']).toBe(3);
        expect(details['oldestPendingAgeMs']).toBeGreaterThanOrEqual(100);
        expect(details['oldestPendingAgeMs']).toBeLessThan(60_000);
      });

      test('keeps published rows for the retention period, then prunes them', async () => {
        const { harness, transport, dispatcher } = await setup({ retentionMs: 60_000 });
        await harness.write([ping(1, 'a'), ping(2, 'a')]);
        await dispatcher.start();
        await until(() => transport.sent.length === 2, timeout, 'both are published');
        await until(async () => (await harness.store.counts()).published === 2, timeout, 'both are kept as published');
        const kept = await harness.store.list({ state: 'published' });
        expect(kept.map((r) => r.finishedAt !== undefined)).toEqual([true, true]);
        expect(await harness.store.prune(Date.now() - 60_000)).toBe(0);
        expect(await harness.store.prune(Date.now() + 1)).toBe(2);
        expect((await harness.store.counts()).published).toBe(0);
      });

      test('a second dispatcher on one database', async () => {
        const { harness, transport, dispatcher } = await setup({ batchSize: 10 });
        const otherStore = await harness.another();
        const other = new OutboxDispatcher(
          { store: otherStore, transport },
          { pollIntervalMs: 50, batchSize: 10, retry: { initialMs: 20, jitter: 0 } },
        );
        cleanups.push(() => other.stop(AbortSignal.timeout(5_000)));
        await dispatcher.start();
        if (target.exclusive) {
          await expect(other.start()).rejects.toBeInstanceOf(OutboxLockedError);
          expect(other.health()).toMatchObject({ ready: false, reason: 'not started' });
          await harness.write([ping(1, 'a')]);
          await until(() => transport.sent.length === 1, timeout, 'the first dispatcher publishes');
          return;
        }
        await other.start();
        const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
        for (let i = 0; i < 400; i += 20)
          await harness.write(Array.from({ length: 20 }, (_, j) => ping(i + j, keys[(i + j) % keys.length]!)));
        await until(() => new Set(transport.sent.map(seqOf)).size === 400, timeout, 'all 400 rows are published');
        // Normal case: no double dispatch, and each key's rows in order.
        expect(transport.sent.length).toBe(400);
        for (const key of keys) {
          const seqs = transport.sent.filter((r) => r.key === key).map(seqOf);
          expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
        }
      });
    });
  });
}
