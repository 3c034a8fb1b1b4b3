/**
 * The batch handler conformance cases: what a batch subscription (`messaging.subscribeBatch`) does
 * on every transport. They take the transport suite's target and runner, and run beside it:
 *
 * ```ts
 * await runBatchConformance({ name: 'memory', create: async () => ({ transport: new InMemoryTransport() }) });
 * ```
 */
import {
  type BatchContext,
  type BatchHandler,
  type BatchItem,
  type ContractMessage,
  defineChannel,
  defineMessage,
  type StandaloneValidator,
} from '../core/contract.js';
import { CE_HEADERS } from '../core/envelope.js';
import type { Messaging } from '../host/messaging.js';
import { caseHarness, until } from './cases.js';
import { type ConformanceRunner, type ConformanceTarget, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

export const BATCH_CONFORMANCE_CASES = [
  'batches never exceed maxSize and keep per-partition order',
  'delivers a partial batch after maxWaitMs',
  'retries a failing batch as a whole, blocking by default',
  'under a dead-letter policy parks exactly the poison message and handles the others once',
  'parks an undecodable record alone and handles the batches around it',
  'resumes after the last acknowledged batch on restart',
  'stops within the shutdown budget while a batch is gathering',
] as const;
export type BatchConformanceCase = (typeof BATCH_CONFORMANCE_CASES)[number];

/** Batch cases a transport does not run, each with the reason. */
export type BatchConformanceSkips = Partial<Record<BatchConformanceCase, string>>;

/** The cases' own contract: `Item { seq, key, poison? }`. */
interface ItemPayload {
  readonly seq: number;
  readonly key: string;
  readonly poison?: boolean;
}
const validateItem: StandaloneValidator = (data) => {
  const d = data as Partial<ItemPayload> | null;
  const ok = typeof d === 'object' && d !== null && typeof d.seq === 'number' && typeof d.key === 'string';
  validateItem.errors = ok ? null : [{ instancePath: '', keyword: 'type', message: 'must be an Item' }];
  return ok;
};
type Item = ContractMessage<'Item', ItemPayload>;
const Item = defineMessage<'Item', ItemPayload>({
  type: 'Item',
  id: 'Item',
  contentType: 'application/json',
  schemaHash: 'batch-conformance',
  validate: validateItem,
});

/** One call of a batch handler as the cases see it. */
interface Call {
  readonly seqs: readonly number[];
  readonly attempt: number;
  readonly partition: number;
  /** The partitions and offsets of the batch's messages, as their contexts say. */
  readonly partitions: readonly (number | undefined)[];
  readonly offsets: readonly (string | undefined)[];
  readonly at: number;
}

/** A batch handler that records every call, throws on a batch holding a poison message (or when `fail` says so), and records what it handled. */
function recorder(groupId: string, fail?: (call: Call) => boolean) {
  const calls: Call[] = [];
  const handled: { seq: number; key: string; partition: number; offset: string }[] = [];
  const handler: BatchHandler<Item> = {
    groupId,
    handleBatch(batch: readonly BatchItem<Item>[], context: BatchContext) {
      const call: Call = {
        seqs: batch.map((i) => i.message.seq),
        attempt: context.attempt,
        partition: context.partition,
        partitions: batch.map((i) => i.context.partition),
        offsets: batch.map((i) => i.context.offset),
        at: Date.now(),
      };
      calls.push(call);
      const poison = batch.find((i) => i.message.poison === true);
      if (poison !== undefined) throw new Error(`poison ${poison.message.seq}`);
      if (fail?.(call)) throw new Error(`failing batch ${call.seqs.join(',')} on attempt ${call.attempt}`);
      for (const i of batch)
        handled.push({ seq: i.message.seq, key: i.message.key, partition: context.partition, offset: i.context.offset ?? '' });
    },
  };
  return { handler, calls, handled };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registers the batch cases for `target` with `runner`; without one, with vitest (loaded now:
 * await the result at the top of the test file). `skip` names cases this transport does not run.
 */
export function runBatchConformance(
  target: ConformanceTarget,
  runner?: ConformanceRunner,
  skip: BatchConformanceSkips = {},
): Promise<void> {
  return withRunner('runBatchConformance', runner, (r) => {
    use(r);
    registerBatchConformance(target, skip);
  });
}

// Long because: one registration holds every case of the suite, as the transport suite does.
function registerBatchConformance(target: ConformanceTarget, skip: BatchConformanceSkips): void {
  const timeout = target.timeoutMs ?? 15_000;

  describe(`batch handler conformance: ${target.name}`, () => {
    const cases = caseHarness(target, { it, afterEach }, 'keiyaku-batch', skip);

    async function setup() {
      const { transport, address, deadLetters, messaging } = await cases.setup();
      const channel = defineChannel<Item>({
        id: 'batch-conformance',
        address,
        addressTemplate: address,
        parameters: [],
        messages: [Item],
        bindings: {},
      });
      const publisher = (host: Messaging) => host.publisher(channel, { key: (m) => m.key });
      const items = (seqs: readonly number[], key: (seq: number) => string, poison?: number) =>
        seqs.map((seq) => Item.create({ seq, key: key(seq), ...(seq === poison ? { poison: true } : {}) }));
      return { transport, address, channel, deadLetters, messaging, publisher, items };
    }

    const fast = { retry: { initialMs: 5, maxMs: 20, jitter: 0 } } as const;

    const test = (name: BatchConformanceCase, body: () => Promise<void>): void => cases.test(name, body);

    test('batches never exceed maxSize and keep per-partition order', async () => {
      const { channel, messaging, publisher, items } = await setup();
      const host = messaging();
      const { handler, calls, handled } = recorder('batch.order');
      host.subscribeBatch(channel, handler, { ...fast, batchSize: 13, batch: { maxSize: 7, maxWaitMs: 50 } });
      await host.start();
      const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
      await publisher(host).publishMany(
        items(
          Array.from({ length: 100 }, (_, i) => i),
          (seq) => keys[seq % keys.length]!,
        ),
      );
      await until(() => handled.length === 100, timeout, 'all 100 messages are handled');
      expect(new Set(handled.map((h) => h.seq)).size).toBe(100);
      for (const call of calls) {
        expect(call.seqs.length).toBeGreaterThan(0);
        expect(call.seqs.length).toBeLessThan(8);
        for (const p of call.partitions) expect(p).toBe(call.partition);
      }
      expect(calls.some((c) => c.seqs.length > 1)).toBe(true);
      for (const key of keys) {
        const order = handled.filter((h) => h.key === key).map((h) => h.seq);
        expect(order).toEqual([...order].sort((a, b) => a - b));
      }
      const byPartition = new Map<number, bigint[]>();
      for (const h of handled) byPartition.set(h.partition, [...(byPartition.get(h.partition) ?? []), BigInt(h.offset)]);
      for (const offsets of byPartition.values()) expect(offsets).toEqual([...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    test('delivers a partial batch after maxWaitMs', async () => {
      const { channel, messaging, publisher, items } = await setup();
      const host = messaging();
      const { handler, calls, handled } = recorder('batch.partial');
      host.subscribeBatch(channel, handler, { ...fast, batch: { maxSize: 100, maxWaitMs: 300 } });
      await host.start();
      const sent = Date.now();
      await publisher(host).publishMany(items([1, 2, 3], () => 'same'));
      await until(() => handled.length === 3, timeout, 'the three messages are handled');
      expect(handled.map((h) => h.seq)).toEqual([1, 2, 3]);
      // No batch was full: each came when the wait after its first message was over, never before.
      for (const call of calls) expect(call.seqs.length).toBeLessThan(100);
      expect(calls[0]!.at - sent).toBeGreaterThanOrEqual(300);
    });

    test('retries a failing batch as a whole, blocking by default', async () => {
      const { channel, messaging, publisher, items, deadLetters } = await setup();
      const host = messaging();
      const { handler, calls, handled } = recorder('batch.blocking', (call) => call.attempt < 3);
      const subscription = host.subscribeBatch(channel, handler, { ...fast, batch: { maxSize: 4, maxWaitMs: 5_000 } });
      await host.start();
      await publisher(host).publishMany(items([1, 2, 3, 4], () => 'same'));
      await until(() => handled.length === 4, timeout, 'the batch is handled');
      expect(calls.map((c) => [c.seqs, c.attempt])).toEqual([
        [[1, 2, 3, 4], 1],
        [[1, 2, 3, 4], 2],
        [[1, 2, 3, 4], 3],
      ]);
      expect(handled.map((h) => h.seq)).toEqual([1, 2, 3, 4]);
      expect(subscription.health().stalls).toEqual([]);
      expect(subscription.health().processed).toBe(4);
      expect(await deadLetters.count()).toBe(0);
    });

    test('under a dead-letter policy parks exactly the poison message and handles the others once', async () => {
      const { channel, messaging, publisher, items, deadLetters, address } = await setup();
      const host = messaging();
      const { handler, calls, handled } = recorder('batch.poison');
      const subscription = host.subscribeBatch(channel, handler, {
        ...fast,
        deadLetter: { maxRetries: 2, backoffSchedule: [5, 10] },
        batch: { maxSize: 6, maxWaitMs: 5_000 },
      });
      await host.start();
      await publisher(host).publishMany(items([1, 2, 3, 4, 5, 6], () => 'p', 4));
      await until(() => handled.length === 5 && subscription.health().parked === 1, timeout, 'five handled and one parked');
      expect(handled.map((h) => h.seq)).toEqual([1, 2, 3, 5, 6]);
      // The batch is tried three times whole, then each message alone: the poison one three times, the others once.
      expect(calls.filter((c) => c.seqs.length === 6).map((c) => c.attempt)).toEqual([1, 2, 3]);
      expect(calls.filter((c) => c.seqs.length === 1).map((c) => [c.seqs[0], c.attempt])).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
        [4, 2],
        [4, 3],
        [5, 1],
        [6, 1],
      ]);
      const parked = await deadLetters.list({ groupId: 'batch.poison' });
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({ channel: 'batch-conformance', address, type: 'Item', key: 'p', attempts: 3 });
      expect(parked[0]!.error.message).toBe('poison 4');
      expect(JSON.parse(new TextDecoder().decode(parked[0]!.payload))).toEqual({ seq: 4, key: 'p', poison: true });
      expect(subscription.health().stalls).toEqual([]);
      expect(subscription.health().processed).toBe(5);
    });

    test('parks an undecodable record alone and handles the batches around it', async () => {
      const { channel, messaging, publisher, items, deadLetters, transport, address } = await setup();
      const host = messaging();
      const { handler, handled } = recorder('batch.undecodable');
      const subscription = host.subscribeBatch(channel, handler, {
        ...fast,
        deadLetter: { maxRetries: 1, backoffSchedule: [5] },
        batch: { maxSize: 10, maxWaitMs: 200 },
      });
      await host.start();
      await publisher(host).publishMany(items([1, 2], () => 'u'));
      const producer = transport.producer();
      const headers = { [CE_HEADERS.type]: 'Item', [CE_HEADERS.id]: 'broken-1', [CE_HEADERS.specversion]: '1.0' };
      await producer.send([{ address, key: 'u', value: new TextEncoder().encode('{"seq":"not a number"}'), headers }]);
      await producer.close();
      await publisher(host).publishMany(items([3, 4], () => 'u'));
      await until(() => handled.length === 4 && subscription.health().parked === 1, timeout, 'four handled and the broken record parked');
      expect(handled.map((h) => h.seq)).toEqual([1, 2, 3, 4]);
      const parked = await deadLetters.list({ groupId: 'batch.undecodable' });
      expect(parked.map((p) => [p.error.name, p.attempts])).toEqual([['ContractDecodeError', 1]]);
      expect(parked[0]!.error.message).toContain('must be an Item');
    });

    test('resumes after the last acknowledged batch on restart', async () => {
      const { channel, messaging, publisher, items } = await setup();
      const first = messaging();
      const stuck = recorder('batch.resume', (call) => call.seqs.some((seq) => seq >= 2));
      first.subscribeBatch(channel, stuck.handler, { ...fast, batchSize: 1000, batch: { maxSize: 2, maxWaitMs: 5_000 } });
      await first.start();
      await publisher(first).publishMany(items([0, 1, 2, 3], () => 'same'));
      await until(() => stuck.calls.filter((c) => c.seqs.includes(2)).length >= 2, timeout, 'the second batch has failed twice');
      expect(stuck.handled.map((h) => h.seq)).toEqual([0, 1]);
      await first.stop();
      const second = messaging();
      const healthy = recorder('batch.resume');
      second.subscribeBatch(channel, healthy.handler, { ...fast, batch: { maxSize: 2, maxWaitMs: 5_000 } });
      await second.start();
      await until(() => healthy.handled.length === 2, timeout, 'the unacknowledged batch comes to the next member');
      expect(healthy.handled.map((h) => h.seq)).toEqual([2, 3]);
      await publisher(second).publishMany(items([4, 5], () => 'same'));
      await until(() => healthy.handled.length === 4, timeout, 'the new batch is handled');
      await sleep(200);
      expect(healthy.handled.map((h) => h.seq)).toEqual([2, 3, 4, 5]);
    });

    test('stops within the shutdown budget while a batch is gathering', async () => {
      const { channel, messaging, publisher } = await setup();
      const host = messaging();
      const waiting = recorder('batch.stop');
      const subscription = host.subscribeBatch(channel, waiting.handler, { ...fast, batch: { maxSize: 10, maxWaitMs: 60_000 } });
      await host.start();
      await publisher(host).publish(Item.create({ seq: 1, key: 's' }));
      await until(() => subscription.metrics().partitions.some((p) => p.consumed > 0), timeout, 'the message is in a lane');
      const begun = Date.now();
      await host.stop();
      // Well inside the budget (5 s): stopping does not wait out the 60 s a batch may gather for.
      expect(Date.now() - begun).toBeLessThan(5_000);
      expect(waiting.calls).toHaveLength(0);
      expect(host.health().subscriptions[0]?.state).toBe('stopped');
      // The gathered message was not acknowledged: the next member gets it.
      const next = messaging();
      const after = recorder('batch.stop');
      next.subscribeBatch(channel, after.handler, { ...fast, batch: { maxSize: 10, maxWaitMs: 20 } });
      await next.start();
      await until(() => after.handled.length === 1, timeout, 'the message comes to the next member');
      expect(after.handled.map((h) => h.seq)).toEqual([1]);
    });
  });
}
