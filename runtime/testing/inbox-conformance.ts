/**
 * The inbox conformance suite: what every {@link InboxStore} (memory, SQLite, PostgreSQL, or your
 * own) must do. The target builds a fresh store on the clock it is given, and a pair to prove
 * the handler's own writes share the inbox transaction: `write(tx, value)` writes a value with the
 * transaction handle, `read()` lists the values committed.
 *
 * ```ts
 * await runInboxConformance({
 *   name: 'sqlite',
 *   create: async ({ clock }) => {
 *     const db = new Database(':memory:');
 *     db.exec('create table effects (value text)');
 *     const store = new SqliteInboxStore(db, { clock });
 *     store.migrate();
 *     return {
 *       store,
 *       write: (tx, value) => void tx.prepare('insert into effects values (?)').run(value),
 *       read: async () => db.prepare('select value from effects').pluck().all() as string[],
 *     };
 *   },
 * });
 * ```
 */
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../core/clock.js';
import type { InboxOutcome, InboxStore } from '../inbox/inbox.js';
import { type ConformanceRunner, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

export const INBOX_CONFORMANCE_CASES = [
  'records a message once per group: processed, then duplicate without calling the work',
  'groups are independent',
  'work that throws leaves no row and the error propagates; the message is processed on the next try',
  'passes the transaction handle to the work',
  "the handler's write rolls back with the inbox row",
  'purges only rows recorded before the cutoff, at most the limit, oldest first',
  'count and has',
  'concurrent processing of one id runs the work once',
  'two stores racing for one message (a rebalance): the second waits for the first transaction, then skips it',
] as const;
export type InboxConformanceCase = (typeof INBOX_CONFORMANCE_CASES)[number];

export interface InboxHarness<Tx = unknown> {
  /** A fresh, migrated inbox with no rows, on the clock the suite gave. */
  readonly store: InboxStore<Tx>;
  /** The handler's own write: stores `value` with the transaction handle `tx`. */
  write(tx: Tx, value: string): unknown;
  /** The values `write` committed, in any order. */
  read(): Promise<readonly string[]>;
  cleanup?(): Promise<void>;
}

export interface InboxConformanceTarget<Tx = unknown> {
  readonly name: string;
  create(context: { readonly clock: ManualClock }): Promise<InboxHarness<Tx>>;
  readonly skip?: Partial<Record<InboxConformanceCase, string>>;
  readonly timeoutMs?: number;
  /**
   * A second store on the database of `harness`, through a connection of its own: two consumers of
   * one group racing for a message during a rebalance. Without it the racing case is skipped, saying so.
   */
  rival?(harness: InboxHarness<Tx>): Promise<{ readonly store: InboxStore<Tx>; close(): Promise<void> }>;
}

const START = Date.UTC(2026, 0, 1);

async function settled<T>(value: T | Promise<T>): Promise<T> {
  return value;
}

/**
 * Registers the suite for `target` with `runner`; without one, with vitest (loaded now: await the
 * result at the top of the test file).
 */
export function runInboxConformance<Tx>(target: InboxConformanceTarget<Tx>, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runInboxConformance', runner, (r) => {
    use(r);
    const timeout = target.timeoutMs ?? 10_000;
    describe(`inbox conformance: ${target.name}`, () => {
      const cleanups: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      const test = (name: InboxConformanceCase, body: () => Promise<void>, needs?: string): void => {
        const reason = target.skip?.[name] ?? needs;
        if (reason !== undefined) it.skip(`${name} (skipped: ${reason})`, body);
        else it(name, body, timeout);
      };

      async function setup() {
        const clock = new ManualClock(START);
        const harness = await target.create({ clock });
        if (harness.cleanup !== undefined) cleanups.push(() => harness.cleanup!());
        // Ids and groups of their own, so a store on a shared database sees no other case's rows.
        const prefix = randomUUID().slice(0, 8);
        return { clock, harness, store: harness.store, group: (name: string) => `${prefix}.${name}` };
      }

      test('records a message once per group: processed, then duplicate without calling the work', async () => {
        const { store, group } = await setup();
        let calls = 0;
        const work = (): void => {
          calls++;
        };
        expect(await settled(store.process(group('g'), 'm-1', work))).toBe('processed');
        expect(await settled(store.process(group('g'), 'm-1', work))).toBe('duplicate');
        expect(await settled(store.process(group('g'), 'm-1', async () => work()))).toBe('duplicate');
        expect(calls).toBe(1);
        expect(await store.has(group('g'), 'm-1')).toBe(true);
        expect(await store.count()).toBe(1);
      });

      test('groups are independent', async () => {
        const { store, group } = await setup();
        const seen: string[] = [];
        expect(await settled(store.process(group('a'), 'm-1', () => void seen.push('a')))).toBe('processed');
        expect(await settled(store.process(group('b'), 'm-1', () => void seen.push('b')))).toBe('processed');
        expect(await settled(store.process(group('a'), 'm-2', () => void seen.push('a2')))).toBe('processed');
        expect(seen).toEqual(['a', 'b', 'a2']);
        expect(await store.has(group('b'), 'm-2')).toBe(false);
        expect(await store.count()).toBe(3);
      });

      test('work that throws leaves no row and the error propagates; the message is processed on the next try', async () => {
        const { store, group } = await setup();
        const failure = new Error('handler failed');
        let thrown: unknown;
        try {
          await settled(
            store.process(group('g'), 'sync', () => {
              throw failure;
            }),
          );
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBe(failure);
        await expect(
          settled(
            store.process(group('g'), 'async', async () => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              throw failure;
            }),
          ),
        ).rejects.toBe(failure);
        expect(await store.has(group('g'), 'sync')).toBe(false);
        expect(await store.has(group('g'), 'async')).toBe(false);
        expect(await store.count()).toBe(0);
        expect(await settled(store.process(group('g'), 'sync', () => undefined))).toBe('processed');
        expect(await settled(store.process(group('g'), 'async', async () => undefined))).toBe('processed');
        expect(await store.count()).toBe(2);
      });

      test('passes the transaction handle to the work', async () => {
        const { harness, store, group } = await setup();
        let handle: unknown;
        expect(
          await settled(
            store.process(group('g'), 'm-1', (tx) => {
              handle = tx;
              return harness.write(tx, 'sync-effect');
            }),
          ),
        ).toBe('processed');
        expect(handle).toBeDefined();
        expect(
          await settled(
            store.process(group('g'), 'm-2', async (tx) => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              await harness.write(tx, 'async-effect');
            }),
          ),
        ).toBe('processed');
        expect([...(await harness.read())].sort()).toEqual(['async-effect', 'sync-effect']);
      });

      test("the handler's write rolls back with the inbox row", async () => {
        const { harness, store, group } = await setup();
        await expect(
          settled(
            store.process(group('g'), 'm-1', async (tx) => {
              await harness.write(tx, 'attempt-1');
              throw new Error('after the write');
            }),
          ),
        ).rejects.toThrow('after the write');
        let thrown = false;
        try {
          await settled(
            store.process(group('g'), 'm-2', (tx) => {
              const written = harness.write(tx, 'sync-attempt-1');
              if (written instanceof Promise) return written.then(() => Promise.reject(new Error('after the write')));
              throw new Error('after the write');
            }),
          );
        } catch {
          thrown = true;
        }
        expect(thrown).toBe(true);
        expect(await harness.read()).toEqual([]);
        expect(await store.has(group('g'), 'm-1')).toBe(false);
        expect(await settled(store.process(group('g'), 'm-1', (tx) => harness.write(tx, 'attempt-2')))).toBe('processed');
        expect(await harness.read()).toEqual(['attempt-2']);
      });

      test('purges only rows recorded before the cutoff, at most the limit, oldest first', async () => {
        const { clock, store, group } = await setup();
        for (const id of ['a', 'b', 'c', 'd']) {
          await settled(store.process(group('g'), id, () => undefined));
          await clock.advance(1_000);
        }
        // Recorded at START, +1 s, +2 s, +3 s; the cutoff is after c.
        const before = START + 2_500;
        expect(await store.purge(before, 2)).toBe(2);
        expect(await store.has(group('g'), 'a')).toBe(false);
        expect(await store.has(group('g'), 'b')).toBe(false);
        expect(await store.has(group('g'), 'c')).toBe(true);
        expect(await store.purge(before, 10)).toBe(1);
        expect(await store.purge(before, 10)).toBe(0);
        expect(await store.has(group('g'), 'd')).toBe(true);
        expect(await store.count()).toBe(1);
        // A purged id is processed again: it is past the retention.
        expect(await settled(store.process(group('g'), 'a', () => undefined))).toBe('processed');
      });

      test('count and has', async () => {
        const { store, group } = await setup();
        expect(await store.count()).toBe(0);
        expect(await store.has(group('g'), 'm-1')).toBe(false);
        for (let i = 0; i < 5; i++) await settled(store.process(group('g'), `m-${i}`, () => undefined));
        await settled(store.process(group('h'), 'm-1', () => undefined));
        expect(await store.count()).toBe(6);
        expect(await store.has(group('g'), 'm-4')).toBe(true);
        expect(await store.has(group('h'), 'm-1')).toBe(true);
        expect(await store.has(group('h'), 'm-2')).toBe(false);
        expect(await store.has(group('G'), 'm-1')).toBe(false);
      });

      test('concurrent processing of one id runs the work once', async () => {
        const { harness, store, group } = await setup();
        let calls = 0;
        const work = async (tx: Tx): Promise<void> => {
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          await harness.write(tx, `effect-${calls}`);
        };
        const outcomes: InboxOutcome[] = await Promise.all([
          settled(store.process(group('g'), 'm-1', work)),
          settled(store.process(group('g'), 'm-1', work)),
          settled(store.process(group('g'), 'm-1', work)),
        ]);
        expect([...outcomes].sort()).toEqual(['duplicate', 'duplicate', 'processed']);
        expect(calls).toBe(1);
        expect(await harness.read()).toEqual(['effect-1']);
        expect(await store.count()).toBe(1);
      });

      test(
        'two stores racing for one message (a rebalance): the second waits for the first transaction, then skips it',
        async () => {
          const { harness, store: first, group } = await setup();
          const rival = await target.rival!(harness);
          cleanups.push(() => rival.close());
          const second = rival.store;
          const gate = (): { wait: Promise<void>; open: () => void; fail: () => void } => {
            let open!: () => void;
            let fail!: () => void;
            const wait = new Promise<void>((resolve, reject) => {
              open = resolve;
              fail = () => reject(new Error('first handler failed'));
            });
            return { wait, open, fail };
          };
          const held = gate();
          const entered = gate();
          const one = settled(
            first.process(group('race'), 'm-1', async (tx) => {
              await harness.write(tx, 'first');
              entered.open();
              await held.wait;
            }),
          );
          await entered.wait;
          let secondCalled = false;
          const two = settled(
            second.process(group('race'), 'm-1', async (tx) => {
              secondCalled = true;
              await harness.write(tx, 'second');
            }),
          );
          // The second store's insert waits on the first transaction's row.
          const early = await Promise.race([
            two.then(() => 'settled'),
            new Promise((resolve) => setTimeout(() => resolve('waiting'), 200)),
          ]);
          expect(early).toBe('waiting');
          held.open();
          expect(await one).toBe('processed');
          expect(await two).toBe('duplicate');
          expect(secondCalled).toBe(false);
          expect(await harness.read()).toEqual(['first']);

          // When the first rolls back, the waiting one records the message and runs its handler.
          const failing = gate();
          const enteredAgain = gate();
          const three = settled(
            first.process(group('race'), 'm-2', async () => {
              enteredAgain.open();
              await failing.wait;
            }),
          );
          await enteredAgain.wait;
          const four = settled(second.process(group('race'), 'm-2', (tx) => harness.write(tx, 'fourth')));
          await new Promise((resolve) => setTimeout(resolve, 100));
          failing.fail();
          await expect(three).rejects.toThrow('first handler failed');
          expect(await four).toBe('processed');
          expect([...(await harness.read())].sort()).toEqual(['first', 'fourth']);
        },
        target.rival === undefined ? 'the target gives no second store on the same database (rival)' : undefined,
      );
    });
  });
}
