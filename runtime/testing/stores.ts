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
import type { DeadLetterStore, ParkedMessage, ParkRequest } from '../stores/dead-letter/store.js';
import type { CheckpointStore } from '../stores/event-store/store.js';
import { ConcurrencyError, type EventStore } from '../stores/event-store/store.js';
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
/** What a dead-letter store may leave out (optional methods of {@link DeadLetterStore}). */
export type DeadLetterFeature = 'summaries' | 'claims';
export interface DeadLetterStoreTarget extends Target<DeadLetterStore> {
  /** Optional features this store does not have, each with the reason; every other one is required. */
  readonly without?: Partial<Record<DeadLetterFeature, string>>;
}

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

/** Text a database column may not hold as it is: NUL, `\u0000` as JSON escape text, lone surrogates, control and bidi characters. */
export const HOSTILE_TEXT =
  'nul\u0000 escape\\u0000 "quoted" back\\slash high\ud800 low\udc00 \udfff\ud800 pair😀 fffd\ufffd ctl\u0001\u001f\u007f bidi\u202e';

/** Bytes that are not UTF-8 or JSON: every byte value, broken sequences, a NUL escape in JSON text. */
export function hostilePayload(): Uint8Array {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const broken = [0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80, 0xfe, 0xff, 0x00];
  const json = new TextEncoder().encode('{"a":"\\u0000","b":"\\ud800"}');
  return Uint8Array.from([...json, ...all, ...broken]);
}

/** A park request with hostile text in every text field and header (names too), and hostile bytes. */
export function hostileParkRequest(channel: string, n: number, overrides: Partial<ParkRequest> = {}): ParkRequest {
  const headers: Record<string, string> = {
    ce_type: `T\u0000${HOSTILE_TEXT}`,
    ce_id: `id-${n}\ud800`,
    [`name\u0000\udc00${n}`]: 'value',
    // What a transport makes of header bytes that are not UTF-8: replacement characters (UTF-8
    // decoding), Latin-1 characters, or lone surrogates (WTF-16 decoders).
    replaced: '\ufffd\ufffd(',
    latin1: '\u00e9\u00ff\u0000',
    wtf16: '\udce9\udcff',
    empty: '',
  };
  Object.defineProperty(headers, '__proto__', { value: `proto\u0000${n}`, enumerable: true, writable: true, configurable: true });
  return sampleParkRequest(channel, n, {
    address: `${channel}.address\u0000\ud800`,
    topic: `topic\u0000\udfff.${n}`,
    groupId: `group\u0000\ud800`,
    type: `Type\u0000${HOSTILE_TEXT}`,
    payload: hostilePayload(),
    headers,
    key: `key\u0000\udbff${n}`,
    offset: `${n}\u0000`,
    error: {
      name: `Error\u0000\ud800`,
      message: `Unexpected token \u0000 in JSON: ${HOSTILE_TEXT}`,
      stack: `Error: ${HOSTILE_TEXT}\n    at decode (\ud800)`,
    },
    ...overrides,
  });
}

/** Equal payload bytes, compared without a per-element matcher walk (payloads may be megabytes). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.byteLength === b.byteLength &&
    Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0
  );
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function runDeadLetterStoreConformance(target: DeadLetterStoreTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runDeadLetterStoreConformance', runner, (r) => {
    use(r);
    describe(`dead-letter store conformance: ${target.name}`, () => {
      const { open, reopen, durable } = harness(target);
      const at = (n: number): Date => new Date(Date.UTC(2026, 10, 30, 10, 0, n));
      const methods: Record<DeadLetterFeature, readonly (keyof DeadLetterStore)[]> = {
        summaries: ['summaries'],
        claims: ['claim', 'release'],
      };
      /** A case of an optional feature: skipped with the target's reason, else the store must have it. */
      const optional = (feature: DeadLetterFeature, name: string, body: (store: DeadLetterStore) => Promise<void>): void => {
        const reason = target.without?.[feature];
        if (reason !== undefined) {
          it.skip(`${name} (skipped on ${target.name}: ${reason})`, () => {});
          return;
        }
        it(name, async () => {
          const store = await open();
          const missing = methods[feature].filter((m) => typeof store[m] !== 'function');
          if (missing.length > 0)
            throw new Error(
              `${target.name} has no ${missing.join('/')}(): implement ${feature}, or list it in the target's \`without\` with the reason`,
            );
          await body(store);
        });
      };

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
        expect('key' in read || 'partition' in read || 'offset' in read || 'topic' in read || 'stack' in read.error).toBe(false);
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

      it('parks any bytes and any text and reads back exactly what it parked', async () => {
        const store = await open();
        const channel = unique('hostile');
        const request = hostileParkRequest(channel, 1);
        const parked = await store.park(request, at(1));
        expect(parked).toEqual({ ...request, id: parked.id, parkedAt: at(1) });
        const read = (await store.get(parked.id))!;
        expect(read).toEqual(parked);
        expect(sameBytes(read.payload, request.payload)).toBe(true);
        expect(Object.keys(read.headers).sort()).toEqual(Object.keys(request.headers).sort());
        expect(Object.getPrototypeOf(read.headers)).toBe(Object.prototype);
        for (const [name, value] of Object.entries(request.headers))
          expect(Object.getOwnPropertyDescriptor(read.headers, name)?.value).toBe(value);
        expect(read.error.message).toBe(request.error.message);
        expect((await store.list({ channel })).map((p) => ({ ...p }))).toEqual([{ ...parked }]);
        // One hostile row does not change how its neighbours are stored or read.
        const plain = await store.park(sampleParkRequest(channel, 2), at(2));
        expect(await store.get(plain.id)).toEqual(plain);
        expect(await store.count({ channel })).toBe(2);
      });

      it('filters on hostile channel and group names exactly, never on their escaped spelling', async () => {
        const store = await open();
        const base = unique('names');
        const channel = `${base}\u0000\ud800"\\`;
        const lookalike = JSON.stringify(channel).slice(1, -1); // plain text that spells the escape
        const hostile = await store.park(sampleParkRequest(channel, 1, { groupId: 'g\u0000' }), at(1));
        const plain = await store.park(sampleParkRequest(lookalike, 2, { groupId: 'g\\u0000' }), at(2));
        expect((await store.list({ channel })).map((p) => p.id)).toEqual([hostile.id]);
        expect((await store.list({ channel: lookalike })).map((p) => p.id)).toEqual([plain.id]);
        expect((await store.list({ channel, groupId: 'g\u0000' })).map((p) => p.id)).toEqual([hostile.id]);
        expect(await store.count({ channel, groupId: 'g\\u0000' })).toBe(0);
        expect(await store.count({ channel: lookalike, groupId: 'g\\u0000' })).toBe(1);
        expect(await store.count({ channel: base })).toBe(0);
        // A database that replaced the lone surrogate would find this row under `${base}\ud800`.
        await store.park(sampleParkRequest(`${base}\ufffd`, 3), at(3));
        expect(await store.count({ channel: `${base}\ud800` })).toBe(0);
        expect(await store.count({ channel: `${base}\ufffd` })).toBe(1);
      });

      it('parks huge payloads and texts', async () => {
        const store = await open();
        const channel = unique('huge');
        const payload = new Uint8Array(4 * 1024 * 1024);
        for (let i = 0; i < payload.length; i++) payload[i] = (i * 31 + (i >> 9)) & 0xff;
        const message = `${'m'.repeat(512 * 1024)}\u0000${'é'.repeat(256 * 1024)}\ud800`;
        const stack = `${'s'.repeat(2 * 1024 * 1024)}\udc00`;
        const header = `${'h'.repeat(256 * 1024)}\u0000`;
        const request = sampleParkRequest(channel, 1, { payload, error: { name: 'Error', message, stack }, headers: { big: header } });
        const parked = await store.park(request, at(1));
        const read = (await store.get(parked.id))!;
        expect(sameBytes(read.payload, payload)).toBe(true);
        expect(read.error.message === message).toBe(true);
        expect(read.error.stack === stack).toBe(true);
        expect(read.headers['big'] === header).toBe(true);
        const { payload: _p, error: _e, headers: _h, ...rest } = read;
        const { payload: _rp, error: _re, headers: _rh, ...expected } = { ...request, id: parked.id, parkedAt: at(1) };
        expect(rest).toEqual(expected);
      }, 120_000);

      it('keeps the broker topic beside the contract address', async () => {
        const store = await open();
        const channel = unique('topic');
        const parked = await store.park(
          sampleParkRequest(channel, 1, { address: 'courier.location-pings', topic: 'fleet.courier-location-pings.v1' }),
          at(1),
        );
        expect(parked).toMatchObject({ address: 'courier.location-pings', topic: 'fleet.courier-location-pings.v1' });
        expect(await store.get(parked.id)).toEqual(parked);
        expect((await store.list({ channel }))[0]).toMatchObject({ topic: 'fleet.courier-location-pings.v1' });
        const none = await store.park(sampleParkRequest(channel, 2), at(2));
        expect('topic' in (await store.get(none.id))!).toBe(false);
      });

      optional('summaries', 'summarises oldest first, bounded by the limit, without payloads, headers or stacks', async (store) => {
        const summaries = store.summaries!.bind(store);
        const channel = unique('summaries');
        const parked: ParkedMessage[] = [];
        for (const n of [1, 2, 3, 4, 5])
          parked.push(await store.park(sampleParkRequest(channel, n, n === 1 ? { topic: 'broker.topic' } : {}), at(n)));
        parked.push(await store.park(hostileParkRequest(channel, 6), at(6)));
        const summary = (p: ParkedMessage) => {
          const { payload, headers: _h, error, ...rest } = p;
          return { ...rest, error: { name: error.name, message: error.message }, payloadBytes: payload.byteLength };
        };
        const all = await summaries({ channel });
        expect(all.map((s) => ({ ...s }))).toEqual(parked.map(summary));
        for (const s of all) expect('payload' in s || 'headers' in s || 'stack' in s.error).toBe(false);
        expect((await summaries({ channel, limit: 3 })).map((s) => s.id)).toEqual(parked.slice(0, 3).map((p) => p.id));
        expect((await summaries({ channel, groupId: 'group.even', limit: 2 })).map((s) => s.id)).toEqual([parked[1]!.id, parked[3]!.id]);
        expect(await summaries({ channel, limit: 0 })).toEqual([]);
        expect((await summaries({ channel: unique('none') })).length).toBe(0);
        await expect(Promise.resolve().then(() => summaries({ channel, limit: -1 }))).rejects.toThrow(RangeError);
        await expect(Promise.resolve().then(() => summaries({ channel, limit: 1.5 }))).rejects.toThrow(RangeError);
        const many = unique('many');
        for (let n = 0; n < 101; n++) await store.park(sampleParkRequest(many, n), at(n % 60));
        expect(await summaries({ channel: many })).toHaveLength(100);
      });

      optional('claims', 'claims a record for one caller until it releases or removes it', async (store) => {
        const claim = store.claim!.bind(store);
        const release = store.release!.bind(store);
        const channel = unique('claim');
        const a = await store.park(hostileParkRequest(channel, 1), at(1));
        const b = await store.park(sampleParkRequest(channel, 2), at(2));
        expect(await claim(a.id, 60_000)).toEqual(a);
        expect(await claim(a.id, 60_000)).toBeUndefined();
        expect(await claim(b.id, 60_000)).toEqual(b); // a claim is per record
        // A claimed record is still parked, listed and counted.
        expect(await store.get(a.id)).toEqual(a);
        expect(await store.count({ channel })).toBe(2);
        await release(a.id);
        expect(await claim(a.id, 60_000)).toEqual(a);
        // remove takes the record and its claim.
        expect(await store.remove(a.id)).toBe(true);
        expect(await claim(a.id, 0)).toBeUndefined();
        await release(a.id);
        expect(await claim(unique('unknown'), 60_000)).toBeUndefined();
        await expect(Promise.resolve().then(() => claim(b.id, -1))).rejects.toThrow(RangeError);
        await expect(Promise.resolve().then(() => claim(b.id, Number.NaN))).rejects.toThrow(RangeError);
      });

      optional('claims', 'gives a record to exactly one of 10 concurrent claimers', async (store) => {
        // Durable stores: half the claimers on a second store over the same data (another process).
        const other = target.reopen === undefined ? store : await reopen(store);
        const channel = unique('race');
        for (const n of [1, 2, 3]) {
          const parked = await store.park(n === 2 ? hostileParkRequest(channel, n) : sampleParkRequest(channel, n), at(n));
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => Promise.resolve().then(() => (i % 2 === 0 ? store : other).claim!(parked.id, 60_000))),
          );
          const won = results.filter((r) => r !== undefined);
          expect(won).toHaveLength(1);
          expect(won[0]).toEqual(parked);
        }
      });

      optional('claims', 'lets a claim older than its lease be taken again', async (store) => {
        const claim = store.claim!.bind(store);
        const parked = await store.park(sampleParkRequest(unique('lease'), 1), at(1));
        expect(await claim(parked.id, 60_000)).toEqual(parked);
        expect(await claim(parked.id, 60_000)).toBeUndefined();
        await sleep(60);
        expect(await claim(parked.id, 60_000)).toBeUndefined(); // 60 ms old: held under a 60 s lease
        expect(await claim(parked.id, 20)).toEqual(parked); // stale under a 20 ms lease: the redriver died
        expect(await claim(parked.id, 60_000)).toBeUndefined(); // and the new claim holds
      });

      durable('keeps parked messages across a restart', async () => {
        const store = await open();
        const channel = unique('durable');
        const parked = await store.park(sampleParkRequest(channel, 1), at(1));
        const again = await reopen(store);
        expect(await again.get(parked.id)).toEqual(parked);
        expect(await again.count({ channel })).toBe(1);
      });

      if (target.without?.claims === undefined)
        durable('keeps a claim across a restart, so another process cannot take it', async () => {
          const store = await open();
          const parked = await store.park(hostileParkRequest(unique('durable-claim'), 1), at(1));
          expect(await store.claim!(parked.id, 60_000)).toEqual(parked);
          const again = await reopen(store);
          expect(await again.claim!(parked.id, 60_000)).toBeUndefined();
          expect(await again.get(parked.id)).toEqual(parked);
          await again.release!(parked.id);
          expect(await store.claim!(parked.id, 60_000)).toEqual(parked);
        });
    });
  });
}
