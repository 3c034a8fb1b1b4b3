/**
 * Conformance suites for the durable stores: the behaviour every event store, checkpoint store
 * and dead-letter store must have. Memory, SQLite and PostgreSQL run them; so can your own store.
 * Each case uses its own stream ids, checkpoint names and channels, so a target may hand out one
 * shared store (with data from earlier cases) or a fresh one per case.
 *
 * ```ts
 * runEventStoreConformance({ name: 'sqlite', create: async () => ({ store: new SqliteEventStore(db) }) });
 * ```
 */
import { randomUUID } from 'node:crypto';
import { isKeiyakuError } from '../core/errors.js';
import type { DeadLetterStore, ParkRequest } from '../dead-letter/store.js';
import { ConcurrencyError, type EventStore } from '../event-store/store.js';
import type { CheckpointStore } from '../producer.js';
import { type ConformanceRunner, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

/** The event the event-store suite appends. */
export interface ConformanceEvent {
  readonly type: 'Happened' | 'Changed';
  readonly n: number;
  readonly text?: string;
}

interface Target<S> {
  readonly name: string;
  /** A store (fresh or shared) and how to release it after the case. */
  create(): Promise<{ readonly store: S; readonly cleanup?: () => Promise<void> }>;
  /**
   * A second store on the same data, as a restarted process would open it (durable stores).
   * Without it the durability cases are skipped with `notDurable` as the reason.
   */
  readonly reopen?: (store: S) => Promise<{ readonly store: S; readonly cleanup?: () => Promise<void> }>;
  /** Why the durability cases do not apply (default: "the store keeps nothing across a restart"). */
  readonly notDurable?: string;
}

export type EventStoreTarget = Target<EventStore<ConformanceEvent>>;
export type CheckpointStoreTarget = Target<CheckpointStore>;
export type DeadLetterStoreTarget = Target<DeadLetterStore>;

const unique = (what: string): string => `${what}-${randomUUID().slice(0, 8)}`;

function harness<S>(target: Target<S>) {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async (): Promise<S> => {
    const { store, cleanup } = await target.create();
    if (cleanup) cleanups.push(cleanup);
    return store;
  };
  const reopen = async (store: S): Promise<S> => {
    const opened = await target.reopen!(store);
    if (opened.cleanup) cleanups.push(opened.cleanup);
    return opened.store;
  };
  const durable = (name: string, body: () => Promise<void>): void => {
    if (target.reopen === undefined)
      it.skip(`${name} (skipped on ${target.name}: ${target.notDurable ?? 'the store keeps nothing across a restart'})`, () => {});
    else it(name, body);
  };
  return { open, reopen, durable };
}

export function runEventStoreConformance(target: EventStoreTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runEventStoreConformance', runner, (r) => {
    use(r);
    describe(`event store conformance: ${target.name}`, () => {
      const { open, reopen, durable } = harness(target);
      const happened = (n: number, text?: string): ConformanceEvent => ({ type: 'Happened', n, ...(text === undefined ? {} : { text }) });

      it('appends to a stream and reads it back in order with versions 1..n', async () => {
        const store = await open();
        const stream = unique('order');
        const stored = await store.append(stream, [happened(1), happened(2, 'ü "quoted" \n'), { type: 'Changed', n: 3 }]);
        expect(stored.map((e) => [e.version, e.aggregateId, e.event])).toEqual([
          [1, stream, happened(1)],
          [2, stream, happened(2, 'ü "quoted" \n')],
          [3, stream, { type: 'Changed', n: 3 }],
        ]);
        const read = await store.readStream(stream);
        expect(read.map((e) => ({ ...e }))).toEqual(stored.map((e) => ({ ...e })));
        expect((await store.readStream(stream, { fromVersion: 3 })).map((e) => e.event.n)).toEqual([3]);
        expect(await store.streamVersion(stream)).toBe(3);
        expect(await store.streamVersion(unique('never-written'))).toBe(0);
        expect(await store.readStream(unique('never-written'))).toEqual([]);
      });

      it('assigns consecutive global positions across streams', async () => {
        const store = await open();
        const before = await store.lastPosition();
        const a = unique('a');
        const b = unique('b');
        const first = await store.append(a, [happened(1), happened(2)]);
        const second = await store.append(b, [happened(3)]);
        const third = await store.append(a, [happened(4)]);
        const positions = [...first, ...second, ...third].map((e) => e.position);
        expect(positions).toEqual([before + 1, before + 2, before + 3, before + 4]);
        expect(await store.lastPosition()).toBe(before + 4);
        const all = await store.readAll(before);
        expect(all.map((e) => [e.aggregateId, e.version, e.event.n])).toEqual([
          [a, 1, 1],
          [a, 2, 2],
          [b, 1, 3],
          [a, 3, 4],
        ]);
        expect((await store.readAll(before + 1, { limit: 2 })).map((e) => e.position)).toEqual([before + 2, before + 3]);
      });

      it('rejects a stale expected version with ConcurrencyError and appends nothing', async () => {
        const store = await open();
        const stream = unique('conflict');
        await store.append(stream, [happened(1), happened(2)], { expectedVersion: 'no-stream' });
        const head = await store.lastPosition();
        let thrown: unknown;
        try {
          await store.append(stream, [happened(3)], { expectedVersion: 1 });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ConcurrencyError);
        expect(isKeiyakuError(thrown)).toBe(true);
        expect(thrown).toMatchObject({ code: 'wrong_expected_version', streamId: stream, expected: 1, actual: 2 });
        await expect(Promise.resolve().then(() => store.append(stream, [happened(3)], { expectedVersion: 'no-stream' }))).rejects.toThrow(
          ConcurrencyError,
        );
        expect(await store.streamVersion(stream)).toBe(2);
        expect(await store.lastPosition()).toBe(head);
        const ok = await store.append(stream, [happened(3)], { expectedVersion: 2 });
        expect(ok.map((e) => e.version)).toEqual([3]);
        await store.append(stream, [happened(4)], { expectedVersion: 'any' });
        expect(await store.streamVersion(stream)).toBe(4);
      });

      it('lets exactly one of two writers with the same expected version win', async () => {
        const store = await open();
        const stream = unique('race');
        await store.append(stream, [happened(0)]);
        const results = await Promise.allSettled(
          [1, 2, 3, 4].map((n) =>
            Promise.resolve().then(() => store.append(stream, [happened(n), happened(n * 10)], { expectedVersion: 1 })),
          ),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const lost of results.filter((r) => r.status === 'rejected')) expect(lost.reason).toBeInstanceOf(ConcurrencyError);
        expect((await store.readStream(stream)).map((e) => e.version)).toEqual([1, 2, 3]);
      });

      it('keeps correlation id, causation id, metadata and a timestamp with each event', async () => {
        const store = await open();
        const stream = unique('envelope');
        const [stored] = await store.append(stream, [happened(1)], {
          correlationId: 'corr-1',
          causationId: 'cause-1',
          metadata: { tenant: 't-1', 'user-agent': 'kiosk' },
        });
        const [read] = await store.readStream(stream);
        for (const e of [stored!, read!]) {
          expect(e).toMatchObject({ correlationId: 'corr-1', causationId: 'cause-1', metadata: { tenant: 't-1', 'user-agent': 'kiosk' } });
          expect(e.timestamp).toBeInstanceOf(Date);
          expect(typeof e.eventId).toBe('string');
          expect(e.eventId.length).toBeGreaterThan(0);
        }
        expect(read!.eventId).toBe(stored!.eventId);
        const [bare] = await store.append(stream, [happened(2)]);
        expect(bare!.correlationId).toBeUndefined();
        expect(bare!.metadata).toEqual({});
      });

      it('appends nothing for an empty list', async () => {
        const store = await open();
        const stream = unique('empty');
        const head = await store.lastPosition();
        expect(await store.append(stream, [])).toEqual([]);
        expect(await store.lastPosition()).toBe(head);
        expect(await store.streamVersion(stream)).toBe(0);
      });

      it('subscribes: catches up from a position, then follows new appends', async () => {
        const store = await open();
        const stream = unique('follow');
        const before = await store.lastPosition();
        await store.append(stream, [happened(1), happened(2)]);
        const stop = new AbortController();
        const seen: number[] = [];
        const reading = (async () => {
          for await (const e of store.subscribe(before + 1, stop.signal)) {
            if (e.aggregateId !== stream) continue;
            seen.push(e.event.n);
            if (seen.length === 2) stop.abort();
          }
        })();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await store.append(stream, [happened(3)]);
        const timer = setTimeout(() => stop.abort(), 10_000);
        await reading;
        clearTimeout(timer);
        expect(seen).toEqual([2, 3]);
      });

      durable('keeps events, versions and positions across a restart', async () => {
        const store = await open();
        const stream = unique('durable');
        const stored = await store.append(stream, [happened(1), happened(2)], { correlationId: 'c' });
        const again = await reopen(store);
        expect((await again.readStream(stream)).map((e) => ({ ...e }))).toEqual(stored.map((e) => ({ ...e })));
        expect(await again.lastPosition()).toBeGreaterThanOrEqual(stored[1]!.position);
        await expect(Promise.resolve().then(() => again.append(stream, [happened(3)], { expectedVersion: 1 }))).rejects.toThrow(
          ConcurrencyError,
        );
        const [next] = await again.append(stream, [happened(3)], { expectedVersion: 2 });
        expect(next!.position).toBeGreaterThan(stored[1]!.position);
      });
    });
  });
}

export function runCheckpointStoreConformance(target: CheckpointStoreTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runCheckpointStoreConformance', runner, (r) => {
    use(r);
    describe(`checkpoint store conformance: ${target.name}`, () => {
      const { open, reopen, durable } = harness(target);

      it('has no checkpoint for a name never saved', async () => {
        const store = await open();
        expect(await store.load(unique('never'))).toBeUndefined();
      });

      it('saves, overwrites and loads positions per name', async () => {
        const store = await open();
        const a = unique('a');
        const b = unique('b');
        await store.save(a, 0);
        expect(await store.load(a)).toBe(0);
        await store.save(a, 41);
        await store.save(a, 42);
        await store.save(b, 7);
        expect(await store.load(a)).toBe(42);
        expect(await store.load(b)).toBe(7);
        const big = 2 ** 40 + 3;
        await store.save(b, big);
        expect(await store.load(b)).toBe(big);
      });

      durable('keeps checkpoints across a restart', async () => {
        const store = await open();
        const name = unique('durable');
        await store.save(name, 1234);
        const again = await reopen(store);
        expect(await again.load(name)).toBe(1234);
      });
    });
  });
}

/** A parked-message request with every field set (binary payload, 64-bit offset). */
export function sampleParkRequest(channel: string, n: number, overrides: Partial<ParkRequest> = {}): ParkRequest {
  return {
    channel,
    address: `${channel}.address`,
    groupId: n % 2 === 0 ? 'group.even' : 'group.odd',
    type: 'Ping',
    payload: n === 3 ? new Uint8Array([0xff, 0x00, 0xfe]) : new TextEncoder().encode(JSON.stringify({ seq: n })),
    headers: { ce_type: 'Ping', ce_id: `id-${n}` },
    key: `key-${n}`,
    partition: n,
    offset: String(10_000_000_000_000_000n + BigInt(n)),
    error: { name: 'Error', message: `failure ${n}`, stack: `Error: failure ${n}\n    at handler` },
    attempts: n + 1,
    firstFailureAt: new Date(Date.UTC(2026, 10, 30, 8, 0, n)),
    lastFailureAt: new Date(Date.UTC(2026, 10, 30, 9, 0, n)),
    ...overrides,
  };
}

export function runDeadLetterStoreConformance(target: DeadLetterStoreTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runDeadLetterStoreConformance', runner, (r) => {
    use(r);
    describe(`dead-letter store conformance: ${target.name}`, () => {
      const { open, reopen, durable } = harness(target);
      const at = (n: number): Date => new Date(Date.UTC(2026, 10, 30, 10, 0, n));

      it('parks with every field and gives back what get reads', async () => {
        const store = await open();
        const channel = unique('fields');
        const parked = await store.park(sampleParkRequest(channel, 1), at(1));
        expect(parked).toEqual({ ...sampleParkRequest(channel, 1), id: parked.id, parkedAt: at(1) });
        expect(typeof parked.id).toBe('string');
        expect(await store.get(parked.id)).toEqual(parked);
        const binary = await store.park(sampleParkRequest(channel, 3), at(3));
        expect([...(await store.get(binary.id))!.payload]).toEqual([0xff, 0x00, 0xfe]);
        expect((await store.get(binary.id))!.offset).toBe('10000000000000003');
      });

      it('leaves optional fields out when the request has none', async () => {
        const store = await open();
        const channel = unique('optional');
        const {
          key: _k,
          partition: _p,
          offset: _o,
          ...bare
        } = sampleParkRequest(channel, 2, {
          error: { name: 'TypeError', message: 'no stack' },
        });
        const parked = await store.park(bare, at(2));
        const read = (await store.get(parked.id))!;
        expect(read).toEqual({ ...bare, id: parked.id, parkedAt: at(2) });
        expect('key' in read || 'partition' in read || 'offset' in read || 'stack' in read.error).toBe(false);
      });

      it('lists oldest first and filters by channel and group', async () => {
        const store = await open();
        const channel = unique('list');
        const other = unique('other');
        const ids: string[] = [];
        for (const n of [1, 2, 3, 4]) ids.push((await store.park(sampleParkRequest(channel, n), at(n))).id);
        await store.park(sampleParkRequest(other, 5), at(5));
        expect((await store.list({ channel })).map((p) => p.id)).toEqual(ids);
        expect((await store.list({ channel, groupId: 'group.even' })).map((p) => p.id)).toEqual([ids[1], ids[3]]);
        expect(await store.count({ channel })).toBe(4);
        expect(await store.count({ channel, groupId: 'group.odd' })).toBe(2);
        expect(await store.count({ channel: other })).toBe(1);
        const everything = await store.list();
        expect(everything.length).toBeGreaterThanOrEqual(5);
        expect(await store.count()).toBe(everything.length);
      });

      it('removes a record once and says whether it did', async () => {
        const store = await open();
        const channel = unique('remove');
        const a = await store.park(sampleParkRequest(channel, 1), at(1));
        const b = await store.park(sampleParkRequest(channel, 2), at(2));
        expect(await store.remove(a.id)).toBe(true);
        expect(await store.remove(a.id)).toBe(false);
        expect(await store.remove(unique('unknown'))).toBe(false);
        expect(await store.get(a.id)).toBeUndefined();
        expect((await store.list({ channel })).map((p) => p.id)).toEqual([b.id]);
      });

      durable('keeps parked messages across a restart', async () => {
        const store = await open();
        const channel = unique('durable');
        const parked = await store.park(sampleParkRequest(channel, 1), at(1));
        const again = await reopen(store);
        expect(await again.get(parked.id)).toEqual(parked);
        expect(await again.count({ channel })).toBe(1);
      });
    });
  });
}
