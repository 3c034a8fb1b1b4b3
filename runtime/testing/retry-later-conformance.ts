/**
 * The retry-later conformance cases (`retryLater` of a subscription, docs/retry-later.md): what
 * every transport must do for a failing message to wait on delay tiers while its partition keeps
 * moving. Memory, Kafka and Iggy run them with the same {@link ConformanceTarget} as the transport
 * suite; the tiers are short real delays (200 ms, 400 ms), since the transports' record times are
 * the system clock's.
 *
 * ```ts
 * await runRetryLaterConformance({ name: 'memory', create: async () => ({ transport: new InMemoryTransport() }) });
 * ```
 */
import { RETRY_HEADERS } from '../belt/retry-tiers.js';
import { type ContractMessage, defineChannel, defineMessage, type MessageContext, type StandaloneValidator } from '../core/contract.js';
import { caseHarness, until } from './cases.js';
import { type ConformanceRunner, type ConformanceTarget, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

export const RETRY_LATER_CONFORMANCE_CASES = [
  'moves a failing message to tier 1 while the messages behind it are handled, and hands it back when due',
  'a success on a tier ends the retries',
  'parks after the last tier with the history in its headers',
  'a stop while a tier waits leaves the record unacknowledged; it is handled after a restart',
] as const;
export type RetryLaterConformanceCase = (typeof RETRY_LATER_CONFORMANCE_CASES)[number];

interface JobPayload {
  readonly seq: number;
}
type Job = ContractMessage<'Job', JobPayload>;
const validateJob: StandaloneValidator = (data) => {
  const ok = typeof data === 'object' && data !== null && typeof (data as Partial<JobPayload>).seq === 'number';
  validateJob.errors = ok ? null : [{ instancePath: '', keyword: 'type', message: 'must be a Job' }];
  return ok;
};
const Job = defineMessage<'Job', JobPayload>({
  type: 'Job',
  id: 'Job',
  contentType: 'application/json',
  schemaHash: 'retry-later-conformance',
  validate: validateJob,
});

interface Attempt {
  readonly seq: number;
  /** The tier it was read from (0: the channel itself). */
  readonly tier: number;
  readonly at: number;
  readonly context: MessageContext;
}

/** A handler of `groupId` that fails `seq` while `fails(seq, tier)` says so, and records every attempt. */
function recorder(groupId: string, fails: (seq: number, tier: number) => boolean) {
  const attempts: Attempt[] = [];
  const handled: Attempt[] = [];
  return {
    attempts,
    handled,
    handler: {
      groupId,
      handle(message: Job, context: MessageContext) {
        const tier = Number(context.headers[RETRY_HEADERS.tier] ?? 0);
        const attempt: Attempt = { seq: message.seq, tier, at: Date.now(), context };
        attempts.push(attempt);
        if (fails(message.seq, tier)) throw new Error(`job ${message.seq} failed on tier ${tier}`);
        handled.push(attempt);
      },
    },
  };
}

/**
 * Registers the cases for `target` with `runner`; without one, with vitest (loaded now: await the
 * result at the top of the test file). `target.skip` may name these cases too.
 */
export function runRetryLaterConformance(target: ConformanceTarget, runner?: ConformanceRunner): Promise<void> {
  return withRunner('runRetryLaterConformance', runner, (r) => {
    use(r);
    register(target);
  });
}

function register(target: ConformanceTarget): void {
  const timeout = target.timeoutMs ?? 15_000;
  const skips = (target.skip ?? {}) as Readonly<Record<string, string>>;

  describe(`retry-later conformance: ${target.name}`, () => {
    const cases = caseHarness(target, { it, afterEach }, 'keiyaku-retry', skips);

    async function setup() {
      const { address, deadLetters, messaging } = await cases.setup();
      const channel = defineChannel<Job>({
        id: 'retry-later',
        address,
        addressTemplate: address,
        parameters: [],
        messages: [Job],
        bindings: {},
      });
      return { address, channel, deadLetters, messaging };
    }

    const fast = { retry: { initialMs: 5, maxMs: 20, jitter: 0 } } as const;

    const test = (name: RetryLaterConformanceCase, body: () => Promise<void>): void => cases.test(name, body);

    test('moves a failing message to tier 1 while the messages behind it are handled, and hands it back when due', async () => {
      const { channel, messaging, address } = await setup();
      const host = messaging();
      const jobs = recorder('retry-later.tier-one', (seq, tier) => seq === 2 && tier === 0);
      const subscription = host.subscribe(channel, jobs.handler, { ...fast, retryLater: { tiers: [200, 400] } });
      await host.start();
      await host.publisher(channel, { key: () => 'same' }).publishMany([1, 2, 3].map((seq) => Job.create({ seq })));
      await until(() => jobs.handled.length === 3, timeout, 'all three are handled');
      // The partition moved on: 3 was handled on the channel before 2 came back from its tier.
      expect(jobs.handled.map((a) => [a.seq, a.tier])).toEqual([
        [1, 0],
        [3, 0],
        [2, 1],
      ]);
      const failed = jobs.attempts.find((a) => a.seq === 2 && a.tier === 0)!;
      const retried = jobs.handled[2]!;
      const h = retried.context.headers;
      expect(retried.context.messageId).toBe(failed.context.messageId);
      expect(retried.context.key).toBe('same');
      expect(h[RETRY_HEADERS.attempts]).toBe('1');
      expect(h[RETRY_HEADERS.originalAddress]).toBe(address);
      expect(h[RETRY_HEADERS.originalPartition]).toBe(String(failed.context.partition));
      expect(h[RETRY_HEADERS.originalOffset]).toBe(failed.context.offset);
      expect(h[RETRY_HEADERS.lastError]).toBe('Error: job 2 failed on tier 0');
      const firstFailure = Date.parse(h[RETRY_HEADERS.firstFailure]!);
      const due = Date.parse(h[RETRY_HEADERS.due]!);
      expect(due - firstFailure).toBeGreaterThanOrEqual(200);
      // Not before it was due (a timer may fire a millisecond early against Date.now()).
      expect(retried.at).toBeGreaterThanOrEqual(due - 2);
      expect(jobs.attempts.filter((a) => a.seq === 2)).toHaveLength(2);
      const tiers = subscription.health().retryTiers!;
      expect(tiers.map((t) => [t.tier, t.delayMs, t.address])).toEqual([
        [1, 200, `${address}.retry.retry-later.tier-one.200ms`],
        [2, 400, `${address}.retry.retry-later.tier-one.400ms`],
      ]);
      await until(() => subscription.health().retryTiers?.[0]?.processed === 1, timeout, 'tier 1 counts the message it handled');
      expect(subscription.health().parked).toBe(0);
    });

    test('a success on a tier ends the retries', async () => {
      const { channel, messaging, deadLetters } = await setup();
      const host = messaging();
      const jobs = recorder('retry-later.success', (seq, tier) => seq === 1 && tier < 2);
      const subscription = host.subscribe(channel, jobs.handler, { ...fast, retryLater: { tiers: [200, 400] } });
      await host.start();
      await host.publisher(channel).publish(Job.create({ seq: 1 }), { key: 'k' });
      await until(() => jobs.handled.length === 1, timeout, 'the job is handled on tier 2');
      const [done] = jobs.handled;
      expect(done!.tier).toBe(2);
      expect(done!.context.headers[RETRY_HEADERS.attempts]).toBe('2');
      expect(done!.context.headers[RETRY_HEADERS.lastError]).toBe('Error: job 1 failed on tier 1');
      // Nothing more: no further tier, no park, no second handling.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(jobs.attempts.map((a) => a.tier)).toEqual([0, 1, 2]);
      expect(await deadLetters.count({ groupId: 'retry-later.success' })).toBe(0);
      const tiers = subscription.health().retryTiers!;
      expect(tiers.map((t) => [t.movedOn, t.parked])).toEqual([
        [1, 0],
        [0, 0],
      ]);
    });

    test('parks after the last tier with the history in its headers', async () => {
      const { channel, messaging, deadLetters, address } = await setup();
      const host = messaging();
      const jobs = recorder('retry-later.park', (seq) => seq === 7);
      const subscription = host.subscribe(channel, jobs.handler, { ...fast, retryLater: { tiers: [200, 400], immediateRetries: 1 } });
      await host.start();
      const published = Date.now();
      await host.publisher(channel).publishMany([Job.create({ seq: 7 }), Job.create({ seq: 8 })]);
      await until(() => subscription.health().retryTiers?.[1]?.parked === 1, timeout, 'the job is parked after tier 2');
      expect(Date.now() - published).toBeGreaterThanOrEqual(600);
      expect(jobs.handled.map((a) => a.seq)).toEqual([8]);
      // Two attempts on the channel and on each tier (one immediate retry each).
      expect(jobs.attempts.filter((a) => a.seq === 7).map((a) => a.tier)).toEqual([0, 0, 1, 1, 2, 2]);
      const first = jobs.attempts.find((a) => a.seq === 7)!;
      const parked = await deadLetters.list({ groupId: 'retry-later.park' });
      expect(parked).toHaveLength(1);
      const [entry] = parked;
      expect(entry).toMatchObject({
        channel: 'retry-later',
        address,
        groupId: 'retry-later.park',
        type: 'Job',
        partition: first.context.partition,
        offset: first.context.offset,
        attempts: 6,
      });
      expect(entry!.error.message).toBe('job 7 failed on tier 2');
      expect(entry!.headers[RETRY_HEADERS.tier]).toBe('2');
      expect(entry!.headers[RETRY_HEADERS.attempts]).toBe('4');
      expect(entry!.headers[RETRY_HEADERS.lastError]).toBe('Error: job 7 failed on tier 1');
      expect(entry!.firstFailureAt.getTime()).toBe(Date.parse(entry!.headers[RETRY_HEADERS.firstFailure]!));
      expect(JSON.parse(new TextDecoder().decode(entry!.payload))).toEqual({ seq: 7 });
      expect(subscription.health().retryTiers!.map((t) => t.movedOn)).toEqual([1, 0]);
    });

    test('a stop while a tier waits leaves the record unacknowledged; it is handled after a restart', async () => {
      const { channel, messaging } = await setup();
      const first = messaging();
      const before = recorder('retry-later.restart', (_seq, tier) => tier === 0);
      const subscription = first.subscribe(channel, before.handler, { ...fast, retryLater: { tiers: [3_000] } });
      await first.start();
      await first.publisher(channel).publish(Job.create({ seq: 1 }), { key: 'r' });
      await until(() => subscription.health().retryTiers?.[0]?.waiting === 1, timeout, 'tier 1 holds the job');
      const tier = subscription.health().retryTiers![0]!;
      expect(tier.oldestWaitingAgeMs).toBeGreaterThanOrEqual(0);
      expect(tier.oldestWaitingAgeMs).toBeLessThan(3_000);
      expect(tier.ready).toBe(true);
      const stopping = Date.now();
      await first.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000); // within the shutdown budget: the wait ended with the stop
      expect(before.attempts.map((a) => a.tier)).toEqual([0]);
      const second = messaging();
      const after = recorder('retry-later.restart', () => false);
      second.subscribe(channel, after.handler, { ...fast, retryLater: { tiers: [3_000] } });
      await second.start();
      await until(() => after.handled.length === 1, timeout, 'the job is handled on tier 1 after the restart');
      expect(after.handled[0]!.tier).toBe(1);
      expect(after.handled[0]!.at).toBeGreaterThanOrEqual(Date.parse(after.handled[0]!.context.headers[RETRY_HEADERS.due]!) - 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The channel's record was acknowledged when it moved to the tier: it is not read again.
      expect(after.attempts.map((a) => a.tier)).toEqual([1]);
    });
  });
}
