/**
 * The transport conformance suite: the behaviour every keiyaku transport must have, run
 * through the public runtime (publisher, subscription, dead-lettering). Memory, Kafka and
 * Iggy all run it; a transport lists the cases it skips, each with its reason.
 *
 * It needs a test runner with `describe`, `it` (and `it.skip`), `afterEach` and a jest-style
 * `expect` (vitest, jest, bun:test). Pass them; or leave them out under vitest, which is then
 * loaded when the suite is registered (vitest is an optional peer dependency: importing
 * `@keiyaku/runtime/testing` never loads it).
 *
 * ```ts
 * import { afterEach, describe, expect, it } from 'vitest';
 * runTransportConformance({ name: 'memory', create: async () => ({ transport: new InMemoryTransport() }) }, { describe, it, afterEach, expect });
 * // or, under vitest only:
 * await runTransportConformance({ name: 'memory', create: async () => ({ transport: new InMemoryTransport() }) });
 * ```
 */
import {
  type ContractMessage,
  ContractValidationError,
  defineChannel,
  defineMessage,
  type MessageContext,
  type MessageHandler,
  type StandaloneValidator,
} from '../core/contract.js';
import { CE_HEADERS } from '../core/envelope.js';
import { KeiyakuError } from '../core/errors.js';
import type { Transport } from '../core/transport.js';
import type { Messaging } from '../host/messaging.js';
import { caseHarness, until } from './cases.js';

export const CONFORMANCE_CASES = [
  'delivers every message with its context',
  'keeps per-key order across partitions',
  'fans out to every group',
  'splits partitions between members of one group',
  'blocks on a failing handler and retries without skipping',
  'parks a poison message under a dead-letter policy and moves on',
  'treats undecodable bytes as a failure, never a crash',
  'skips types the subscription does not want, advancing the offset',
  'resumes from committed offsets after a restart',
  'redelivers what a stopped member did not acknowledge',
  'stops within the shutdown budget, abandoning a stuck handler',
  'validates contract headers on publish and on receipt',
] as const;
export type ConformanceCase = (typeof CONFORMANCE_CASES)[number];

export interface ConformanceTarget {
  readonly name: string;
  /** A fresh transport (or one shared; addresses are unique per case). */
  create(): Promise<{ readonly transport: Transport; readonly cleanup?: () => Promise<void> }>;
  /** Cases this transport does not run, each with the reason. */
  readonly skip?: Partial<Record<ConformanceCase, string>>;
  /** Partitions of the addresses the suite provisions (default 3). */
  readonly partitions?: number;
  /** How long a case may wait for messages (default 15 s). */
  readonly timeoutMs?: number;
}

/** The suite's own tiny contract: a `Ping { seq, key, poison? }` and a `Pong { seq }`. */
interface PingPayload {
  readonly seq: number;
  readonly key: string;
  readonly poison?: boolean;
}
interface PongPayload {
  readonly seq: number;
}
const validatePing: StandaloneValidator = (data) => {
  const d = data as Partial<PingPayload> | null;
  const ok = typeof d === 'object' && d !== null && typeof d.seq === 'number' && typeof d.key === 'string';
  validatePing.errors = ok ? null : [{ instancePath: '', keyword: 'type', message: 'must be a Ping' }];
  return ok;
};
const validatePong: StandaloneValidator = (data) => {
  const ok = typeof data === 'object' && data !== null && typeof (data as Partial<PongPayload>).seq === 'number';
  validatePong.errors = ok ? null : [{ instancePath: '', keyword: 'type', message: 'must be a Pong' }];
  return ok;
};
type Ping = ContractMessage<'Ping', PingPayload>;
type Pong = ContractMessage<'Pong', PongPayload>;
const Ping = defineMessage<'Ping', PingPayload>({
  type: 'Ping',
  id: 'Ping',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validatePing,
});
const Pong = defineMessage<'Pong', PongPayload>({
  type: 'Pong',
  id: 'Pong',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validatePong,
});

/** `Tagged { seq }` with contract headers: `tenant` (a string `t-…`, required) and `priority` (an integer 0–9, JSON text on the wire). */
interface TaggedHeaders {
  readonly tenant: string;
  readonly priority?: number;
}
const validateTaggedHeaders: StandaloneValidator = (data) => {
  const d = data as Record<string, unknown> | null;
  const errors: { instancePath: string; keyword: string; message: string }[] = [];
  if (typeof d !== 'object' || d === null) errors.push({ instancePath: '', keyword: 'type', message: 'must be object' });
  else {
    if (typeof d['tenant'] !== 'string' || !d['tenant'].startsWith('t-'))
      errors.push({ instancePath: '/tenant', keyword: 'pattern', message: 'must match pattern "^t-"' });
    const priority = d['priority'];
    if (priority !== undefined && !(Number.isInteger(priority) && (priority as number) >= 0 && (priority as number) <= 9))
      errors.push({ instancePath: '/priority', keyword: 'maximum', message: 'must be an integer from 0 to 9' });
  }
  validateTaggedHeaders.errors = errors.length === 0 ? null : errors;
  return errors.length === 0;
};
type Tagged = ContractMessage<'Tagged', PongPayload, TaggedHeaders>;
const Tagged = defineMessage<'Tagged', PongPayload, Tagged>({
  type: 'Tagged',
  id: 'Tagged',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validatePong,
  headers: { names: ['tenant', 'priority'], json: ['priority'], validate: validateTaggedHeaders },
});

function channelFor(address: string) {
  return defineChannel<Ping | Pong>({
    id: 'conformance',
    address,
    addressTemplate: address,
    parameters: [],
    messages: [Ping, Pong],
    bindings: {},
  });
}

interface Seen {
  readonly seq: number;
  readonly key: string;
  readonly type: string;
  readonly context: MessageContext;
}

function recorder(
  groupId: string,
  options: { fail?: (seen: Seen, attempt: number) => boolean; accepts?: readonly ('Ping' | 'Pong')[] } = {},
) {
  const seen: Seen[] = [];
  const attempts: Seen[] = [];
  const handler: MessageHandler<Ping | Pong> = {
    groupId,
    ...(options.accepts ? { accepts: options.accepts } : {}),
    handle(message, context) {
      const entry: Seen = { seq: message.seq, key: Ping.is(message) ? message.key : '', type: context.type, context };
      attempts.push(entry);
      if (Ping.is(message) && message.poison) throw new Error(`poison ${message.seq}`);
      if (options.fail?.(entry, context.attempt)) throw new Error(`failing ${message.seq} on attempt ${context.attempt}`);
      seen.push(entry);
    },
  };
  return { handler, seen, attempts };
}

/** The matcher functions the suites use: any jest-style `expect` has them. */
export interface ConformanceMatcherFunctions {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toContain(expected: unknown): void;
  toHaveLength(expected: number): void;
  toBeGreaterThan(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  toBeLessThan(expected: number): void;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  toBeDefined(): void;
  toBeUndefined(): void;
  toMatch(expected: RegExp | string): void;
  toThrow(expected?: string | RegExp | Error | (new (...args: never[]) => unknown)): void;
}

/** The same matchers on a promise's rejection (`await expect(promise).rejects.toThrow()`). */
export type ConformanceAsyncMatchers = {
  [K in keyof ConformanceMatcherFunctions]: (...args: Parameters<ConformanceMatcherFunctions[K]>) => Promise<void>;
};

/** The matchers the suites use: any jest-style `expect` has them. */
export interface ConformanceMatchers extends ConformanceMatcherFunctions {
  readonly not: ConformanceMatcherFunctions;
  readonly rejects: ConformanceAsyncMatchers;
}

/** The parts of a test runner the suite registers its cases with. */
export interface ConformanceRunner {
  describe(name: string, body: () => void): void;
  it: {
    (name: string, body: () => Promise<void>, timeoutMs?: number): void;
    skip(name: string, body: () => void): void;
  };
  afterEach(body: () => Promise<void>): void;
  expect(actual: unknown): ConformanceMatchers;
}

/**
 * Registers the suite for `target` with `runner`; without one, with vitest (loaded now: await the
 * result at the top of the test file).
 */
export function runTransportConformance(target: ConformanceTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runTransportConformance', runner, (r) => registerConformance(target, r));
}

/**
 * @internal Calls `register` with `runner`, or without one with vitest (loaded now: the caller's
 * test file awaits the result at its top). vitest is an optional peer: importing a suite never loads it.
 */
export function withRunner(
  suite: string,
  runner: ConformanceRunner | undefined,
  register: (runner: ConformanceRunner) => void,
): Promise<void> {
  if (runner !== undefined) {
    register(runner);
    return Promise.resolve();
  }
  return import('vitest').then(
    (vitest) => register(vitest as unknown as ConformanceRunner),
    (cause: unknown) => {
      throw new KeiyakuError(
        'test_runner_missing',
        `${suite} needs a test runner: pass { describe, it, afterEach, expect } of yours, or install vitest`,
        { cause },
      );
    },
  );
}

/**
 * @internal The runner functions of a suite module, bound to the runner its last registration
 * was given (cases run later, with the runner they were registered with).
 */
export function runnerFacade(): {
  use(runner: ConformanceRunner): void;
  describe: ConformanceRunner['describe'];
  it: ConformanceRunner['it'];
  afterEach: ConformanceRunner['afterEach'];
  expect: ConformanceRunner['expect'];
} {
  let current: ConformanceRunner | undefined;
  const get = (): ConformanceRunner => {
    if (current === undefined) throw new KeiyakuError('test_runner_missing', 'a conformance suite was used before it was registered');
    return current;
  };
  const it = Object.assign((name: string, body: () => Promise<void>, timeoutMs?: number) => get().it(name, body, timeoutMs), {
    skip: (name: string, body: () => void) => get().it.skip(name, body),
  });
  return {
    use: (runner) => {
      current = runner;
    },
    describe: (name, body) => get().describe(name, body),
    it,
    afterEach: (body) => get().afterEach(body),
    expect: (actual) => get().expect(actual),
  };
}

function registerConformance(target: ConformanceTarget, { describe, it, afterEach, expect }: ConformanceRunner): void {
  const timeout = target.timeoutMs ?? 15_000;
  const partitions = target.partitions ?? 3;

  describe(`transport conformance: ${target.name}`, () => {
    const cases = caseHarness(target, { it, afterEach }, 'keiyaku-conformance', target.skip);

    async function setup(extra: { shutdownBudgetMs?: number } = {}) {
      const { transport, address, deadLetters, messaging } = await cases.setup(extra);
      const channel = channelFor(address);
      const tagged = defineChannel<Ping | Tagged>({
        id: 'conformance.tagged',
        address,
        addressTemplate: address,
        parameters: [],
        messages: [Ping, Tagged],
        bindings: {},
      });
      /** A publisher whose partition key is the Ping's `key`. */
      const keyed = (host: Messaging) => host.publisher(channel, { key: (m) => (Ping.is(m) ? m.key : undefined) });
      return { transport, address, channel, tagged, deadLetters, messaging, keyed };
    }

    const fast = { retry: { initialMs: 5, maxMs: 20, jitter: 0 } } as const;

    const test = (name: ConformanceCase, body: () => Promise<void>): void => cases.test(name, body);

    test('delivers every message with its context', async () => {
      const { channel, messaging, address } = await setup();
      const host = messaging();
      const { handler, seen } = recorder('conformance.delivery');
      host.subscribe(channel, handler, fast);
      await host.start();
      const publisher = host.publisher(channel);
      await publisher.publish(Ping.create({ seq: 1, key: 'a' }), { key: 'a', correlationId: 'corr-1', causationId: 'cause-1', id: 'id-1' });
      await publisher.publish(Pong.create({ seq: 2 }), { key: 'b' });
      await until(() => seen.length === 2, timeout, 'both messages are handled');
      const first = seen.find((s) => s.seq === 1)!;
      expect(first.context).toMatchObject({
        channel: 'conformance',
        address,
        messageId: 'id-1',
        type: 'Ping',
        key: 'a',
        correlationId: 'corr-1',
        causationId: 'cause-1',
        attempt: 1,
      });
      expect(first.context.headers[CE_HEADERS.specversion]).toBe('1.0');
      expect(typeof first.context.offset).toBe('string');
      expect(first.context.time).toBeInstanceOf(Date);
      expect(seen.find((s) => s.seq === 2)?.type).toBe('Pong');
    });

    test('keeps per-key order across partitions', async () => {
      const { channel, messaging, keyed } = await setup();
      const host = messaging();
      const { handler, seen } = recorder('conformance.order');
      host.subscribe(channel, handler, { ...fast, batchSize: 7 });
      await host.start();
      const publisher = keyed(host);
      const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
      await publisher.publishMany(Array.from({ length: 100 }, (_, i) => Ping.create({ seq: i, key: keys[i % keys.length]! })));
      await until(() => seen.length === 100, timeout, 'all 100 messages are handled');
      for (const key of keys) {
        const order = seen.filter((s) => s.key === key).map((s) => s.seq);
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(new Set(seen.filter((s) => s.key === key).map((s) => s.context.partition)).size).toBe(1);
      }
    });

    test('fans out to every group', async () => {
      const { channel, messaging } = await setup();
      const host = messaging();
      const a = recorder('conformance.fan-out-a');
      const b = recorder('conformance.fan-out-b');
      host.subscribe(channel, a.handler, fast);
      host.subscribe(channel, b.handler, fast);
      await host.start();
      await host.publisher(channel).publishMany(Array.from({ length: 20 }, (_, i) => Ping.create({ seq: i, key: `k${i}` })));
      await until(() => a.seen.length === 20 && b.seen.length === 20, timeout, 'both groups saw all 20');
      expect(new Set(a.seen.map((s) => s.seq)).size).toBe(20);
      expect(new Set(b.seen.map((s) => s.seq)).size).toBe(20);
    });

    test('splits partitions between members of one group', async () => {
      const { channel, messaging } = await setup();
      const one = messaging();
      const two = messaging();
      const a = recorder('conformance.competing');
      const b = recorder('conformance.competing');
      one.subscribe(channel, a.handler, fast);
      two.subscribe(channel, b.handler, fast);
      await one.start();
      await two.start();
      await until(
        () => {
          const [sa, sb] = [one.health().subscriptions[0]!, two.health().subscriptions[0]!];
          return sa.positions.length > 0 && sb.positions.length > 0 && sa.positions.length + sb.positions.length === partitions;
        },
        timeout,
        'both members own partitions',
      );
      await one.publisher(channel).publishMany(Array.from({ length: 60 }, (_, i) => Ping.create({ seq: i, key: `key-${i}` })));
      await until(() => new Set([...a.seen, ...b.seen].map((s) => s.seq)).size === 60, timeout, 'the group saw all 60');
      expect(a.seen.length).toBeGreaterThan(0);
      expect(b.seen.length).toBeGreaterThan(0);
      const partitionsOfA = new Set(a.seen.map((s) => s.context.partition));
      for (const s of b.seen) expect(partitionsOfA.has(s.context.partition)).toBe(false);
    });

    test('blocks on a failing handler and retries without skipping', async () => {
      const { channel, messaging, keyed } = await setup();
      const host = messaging();
      const { handler, seen, attempts } = recorder('conformance.blocking', { fail: (s, attempt) => s.seq === 2 && attempt < 4 });
      const subscription = host.subscribe(channel, handler, fast);
      await host.start();
      await keyed(host).publishMany([1, 2, 3].map((seq) => Ping.create({ seq, key: 'same' })));
      await until(() => seen.length === 3, timeout, 'all three are handled');
      expect(seen.map((s) => s.seq)).toEqual([1, 2, 3]);
      expect(attempts.filter((s) => s.seq === 2).map((s) => s.context.attempt)).toEqual([1, 2, 3, 4]);
      expect(subscription.health().stalls).toEqual([]);
      expect(subscription.health().parked).toBe(0);
    });

    test('parks a poison message under a dead-letter policy and moves on', async () => {
      const { channel, messaging, deadLetters, address, keyed } = await setup();
      const host = messaging();
      const { handler, seen } = recorder('conformance.dead-letter');
      const subscription = host.subscribe(channel, handler, { ...fast, deadLetter: { maxRetries: 2, backoffSchedule: [5, 10] } });
      await host.start();
      await keyed(host).publishMany([
        Ping.create({ seq: 1, key: 'p' }),
        Ping.create({ seq: 2, key: 'p', poison: true }),
        Ping.create({ seq: 3, key: 'p' }),
      ]);
      await until(() => seen.length === 2, timeout, 'the messages around the poison one are handled');
      expect(seen.map((s) => s.seq)).toEqual([1, 3]);
      const parked = await deadLetters.list({ groupId: 'conformance.dead-letter' });
      expect(parked).toHaveLength(1);
      const [entry] = parked;
      expect(entry).toMatchObject({
        channel: 'conformance',
        address,
        groupId: 'conformance.dead-letter',
        type: 'Ping',
        key: 'p',
        attempts: 3,
      });
      expect(entry!.error).toMatchObject({ name: 'Error', message: 'poison 2' });
      expect(entry!.error.stack).toContain('poison 2');
      expect(JSON.parse(new TextDecoder().decode(entry!.payload))).toEqual({ seq: 2, key: 'p', poison: true });
      expect(entry!.headers[CE_HEADERS.type]).toBe('Ping');
      expect(entry!.lastFailureAt.getTime()).toBeGreaterThanOrEqual(entry!.firstFailureAt.getTime());
      expect(subscription.health().parked).toBe(1);
    });

    test('treats undecodable bytes as a failure, never a crash', async () => {
      const { channel, messaging, deadLetters, transport, address } = await setup();
      const host = messaging();
      const { handler, seen } = recorder('conformance.undecodable');
      host.subscribe(channel, handler, { ...fast, deadLetter: { maxRetries: 1, backoffSchedule: [5] } });
      await host.start();
      const producer = transport.producer();
      const headers = { [CE_HEADERS.type]: 'Ping', [CE_HEADERS.id]: 'broken-1', [CE_HEADERS.specversion]: '1.0' };
      await producer.send([
        { address, key: 'x', value: new Uint8Array([0xff, 0xfe, 0x00]), headers },
        {
          address,
          key: 'x',
          value: new TextEncoder().encode('{"seq":"not a number"}'),
          headers: { ...headers, [CE_HEADERS.id]: 'broken-2' },
        },
      ]);
      await producer.close();
      await host.publisher(channel).publish(Ping.create({ seq: 9, key: 'x' }), { key: 'x' });
      await until(() => seen.length === 1, timeout, 'the valid message after the broken ones is handled');
      const parked = await deadLetters.list({ groupId: 'conformance.undecodable' });
      expect(parked.map((p) => p.error.name)).toEqual(['ContractDecodeError', 'ContractDecodeError']);
      expect([...parked[0]!.payload]).toEqual([0xff, 0xfe, 0x00]);
      expect(parked[1]!.error.message).toContain('must be a Ping');
    });

    test('skips types the subscription does not want, advancing the offset', async () => {
      const { channel, messaging } = await setup();
      const host = messaging();
      const pongs = recorder('conformance.routing', { accepts: ['Pong'] });
      const subscription = host.subscribe(channel, pongs.handler, fast);
      await host.start();
      await host
        .publisher(channel)
        .publishMany([Ping.create({ seq: 1, key: 'r' }), Pong.create({ seq: 2 }), Ping.create({ seq: 3, key: 'r' })]);
      await until(() => pongs.seen.length === 1 && subscription.health().skipped === 2, timeout, 'one Pong handled and two Pings skipped');
      await host.stop();
      const again = messaging();
      const later = recorder('conformance.routing', { accepts: ['Pong'] });
      const resumed = again.subscribe(channel, later.handler, fast);
      await again.start();
      await again.publisher(channel).publish(Pong.create({ seq: 4 }));
      await until(() => later.seen.length === 1, timeout, 'the new Pong is handled');
      expect(later.seen.map((s) => s.seq)).toEqual([4]);
      expect(resumed.health().skipped).toBe(0);
    });

    test('resumes from committed offsets after a restart', async () => {
      const { channel, messaging } = await setup();
      const first = messaging();
      const before = recorder('conformance.resume');
      first.subscribe(channel, before.handler, { ...fast, batchSize: 1000 });
      await first.start();
      const publisher = first.publisher(channel);
      await publisher.publishMany(Array.from({ length: 10 }, (_, i) => Ping.create({ seq: i, key: `r${i}` })));
      await until(() => before.seen.length === 10, timeout, 'the first ten are handled');
      await first.stop();
      const second = messaging();
      const after = recorder('conformance.resume');
      second.subscribe(channel, after.handler, fast);
      await second.start();
      await second.publisher(channel).publishMany(Array.from({ length: 5 }, (_, i) => Ping.create({ seq: 100 + i, key: `r${i}` })));
      await until(() => after.seen.length === 5, timeout, 'the five new ones are handled');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(after.seen.map((s) => s.seq).sort((a, b) => a - b)).toEqual([100, 101, 102, 103, 104]);
    });

    test('redelivers what a stopped member did not acknowledge', async () => {
      const { channel, messaging, keyed } = await setup();
      const first = messaging();
      const stuck = recorder('conformance.redelivery', { fail: (s) => s.seq === 1 });
      first.subscribe(channel, stuck.handler, fast);
      await first.start();
      await keyed(first).publishMany([Ping.create({ seq: 0, key: 'same' }), Ping.create({ seq: 1, key: 'same' })]);
      await until(() => stuck.attempts.filter((s) => s.seq === 1).length >= 2, timeout, 'seq 1 has failed twice');
      await first.stop();
      const second = messaging();
      const healthy = recorder('conformance.redelivery');
      second.subscribe(channel, healthy.handler, fast);
      await second.start();
      await until(() => healthy.seen.some((s) => s.seq === 1), timeout, 'seq 1 is redelivered to the next member');
      expect(healthy.seen.map((s) => s.seq)).not.toContain(0);
    });

    test('stops within the shutdown budget, abandoning a stuck handler', async () => {
      const { channel, messaging } = await setup({ shutdownBudgetMs: 300 });
      const host = messaging();
      let aborted = false;
      let started = false;
      host.subscribe(channel, {
        groupId: 'conformance.shutdown',
        handle: (_message, context) =>
          new Promise<void>((resolve) => {
            started = true;
            context.signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            });
          }),
      });
      await host.start();
      await host.publisher(channel).publish(Ping.create({ seq: 1, key: 's' }));
      await until(() => started, timeout, 'the handler is running');
      const begun = Date.now();
      await host.stop();
      const elapsed = Date.now() - begun;
      expect(aborted).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(5_000);
      expect(host.health().subscriptions[0]?.state).toBe('stopped');
    });

    test('validates contract headers on publish and on receipt', async () => {
      const { tagged, messaging, deadLetters, transport, address } = await setup();
      const host = messaging();
      const received: { seq: number; context: MessageContext }[] = [];
      const subscription = host.subscribe(
        tagged,
        {
          groupId: 'conformance.headers',
          handle(message, context) {
            received.push({ seq: message.seq, context });
          },
        },
        { ...fast, deadLetter: { maxRetries: 1, backoffSchedule: [5] } },
      );
      await host.start();
      const publisher = host.publisher(tagged);
      // Publish validates the typed headers before anything is sent.
      const refused = await publisher.publish(Tagged.create({ seq: 1 }), { key: 'h', headers: { tenant: 'acme', priority: 3 } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ContractValidationError);
      expect((refused as ContractValidationError).path).toBe('headers.tenant');
      expect((refused as ContractValidationError).message).toContain('headers.tenant');
      // Records whose headers break the contract, written below the publisher: a bad string, JSON that is not JSON, a missing required header.
      const producer = transport.producer();
      const base = { [CE_HEADERS.type]: 'Tagged', [CE_HEADERS.specversion]: '1.0' };
      const value = new TextEncoder().encode('{"seq":2}');
      await producer.send([
        { address, key: 'h', value, headers: { ...base, [CE_HEADERS.id]: 'bad-tenant', tenant: 'acme' } },
        { address, key: 'h', value, headers: { ...base, [CE_HEADERS.id]: 'bad-priority', tenant: 't-1', priority: 'high' } },
        { address, key: 'h', value, headers: { ...base, [CE_HEADERS.id]: 'no-tenant' } },
      ]);
      await producer.close();
      await publisher.publish(Tagged.create({ seq: 3 }), { key: 'h', headers: { tenant: 't-7', priority: 4 } });
      await until(
        () => received.length === 1 && subscription.health().parked === 3,
        timeout,
        'the valid message is handled and three parked',
      );
      expect(received.map((r) => r.seq)).toEqual([3]);
      expect(received[0]!.context.headers['tenant']).toBe('t-7');
      expect(received[0]!.context.headers['priority']).toBe('4');
      const parked = await deadLetters.list({ groupId: 'conformance.headers' });
      expect(parked.map((p) => p.error.name)).toEqual(['ContractDecodeError', 'ContractDecodeError', 'ContractDecodeError']);
      const named = (message: string) => ['tenant', 'priority'].find((header) => message.includes(`header "${header}"`)) ?? message;
      expect(parked.map((p) => named(p.error.message))).toEqual(['tenant', 'priority', 'tenant']);
    });
  });
}
