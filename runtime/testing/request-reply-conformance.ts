/**
 * The request-reply conformance suite: what `messaging.requester` and `messaging.respond` must do
 * over every transport (memory, Kafka, Iggy), through the public runtime. It takes the transport
 * suite's {@link ConformanceTarget} and runner, and registers its own cases:
 *
 * ```ts
 * await runRequestReplyConformance({ name: 'memory', create: async () => ({ transport: new InMemoryTransport() }) });
 * ```
 */
import { randomUUID } from 'node:crypto';
import { defineRequestReply, type ReplyAddressRule, type Responder } from '../core/contract/request-reply.js';
import { type ContractMessage, defineChannel, defineMessage, type StandaloneValidator } from '../core/contract.js';
import { silentLogger } from '../core/logger.js';
import { createMessaging, type Messaging } from '../host/messaging.js';
import { RequesterStoppedError, RequestTimeoutError } from '../host/requester.js';
import { InMemoryDeadLetterStore } from '../stores/dead-letter/store.js';
import { until } from './cases.js';
import { type ConformanceRunner, type ConformanceTarget, runnerFacade, withRunner } from './conformance.js';

const { use, describe, it, afterEach, expect } = runnerFacade();

export const REQUEST_REPLY_CONFORMANCE_CASES = [
  'answers a request with its typed reply, correlated by ce_correlationid',
  'correlates concurrent requests',
  'answers on the static reply channel when the contract names no reply address',
  'replies to a per-request reply address',
  'times out with a typed error naming the operation, correlation id and timeout',
  'drops and counts a late reply',
  'a fresh requester does not read replies written before it',
  'stop() rejects pending requests with a typed error',
] as const;
export type RequestReplyConformanceCase = (typeof REQUEST_REPLY_CONFORMANCE_CASES)[number];

/** The suite's own contract: `Ask { n, delayMs? }` answered by `Answer { n, doubled }` or `Refusal { n }`. */
interface AskPayload {
  readonly n: number;
  readonly delayMs?: number;
}
interface AnswerPayload {
  readonly n: number;
  readonly doubled: number;
}
interface RefusalPayload {
  readonly n: number;
}
const isObject = (data: unknown): data is Record<string, unknown> => typeof data === 'object' && data !== null;
const validator = (check: (d: Record<string, unknown>) => boolean, what: string): StandaloneValidator => {
  const validate: StandaloneValidator = (data) => {
    const ok = isObject(data) && check(data);
    validate.errors = ok ? null : [{ instancePath: '', keyword: 'type', message: `must be ${what}` }];
    return ok;
  };
  return validate;
};
type Ask = ContractMessage<'Ask', AskPayload>;
type Answer = ContractMessage<'Answer', AnswerPayload>;
type Refusal = ContractMessage<'Refusal', RefusalPayload>;
const Ask = defineMessage<'Ask', AskPayload>({
  type: 'Ask',
  id: 'Ask',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validator((d) => typeof d['n'] === 'number', 'an Ask'),
});
const Answer = defineMessage<'Answer', AnswerPayload>({
  type: 'Answer',
  id: 'Answer',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validator((d) => typeof d['n'] === 'number' && typeof d['doubled'] === 'number', 'an Answer'),
});
const Refusal = defineMessage<'Refusal', RefusalPayload>({
  type: 'Refusal',
  id: 'Refusal',
  contentType: 'application/json',
  schemaHash: 'conformance',
  validate: validator((d) => typeof d['n'] === 'number', 'a Refusal'),
});

/** The request-reply of one case: requests on `<base>.asks`, replies on `<base>.answers` (or where the request says). */
function operationFor(base: string, replyAddress: ReplyAddressRule) {
  const channel = <M extends Ask | Answer | Refusal>(address: string, messages: readonly (typeof Ask | typeof Answer | typeof Refusal)[]) =>
    defineChannel<M>({ id: address, address, addressTemplate: address, parameters: [], messages, bindings: {} });
  return defineRequestReply<Ask, Answer | Refusal>({
    id: 'ask',
    request: channel<Ask>(`${base}.asks`, [Ask]),
    requestMessages: [Ask],
    reply: channel<Answer | Refusal>(`${base}.answers`, [Answer, Refusal]),
    replyMessages: [Answer, Refusal],
    replyAddress,
  });
}

/** Doubles even numbers, refuses odd ones; waits `delayMs` first when the request asks. */
function doubler(groupId: string, seen: string[] = []): Responder<Ask, Answer | Refusal> {
  return {
    groupId,
    async respond(ask, context) {
      seen.push(context.correlationId ?? '');
      if (ask.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, ask.delayMs));
      return ask.n % 2 === 0 ? Answer.create({ n: ask.n, doubled: ask.n * 2 }) : Refusal.create({ n: ask.n });
    },
  };
}

/**
 * Registers the suite for `target` with `runner`; without one, with vitest (loaded now: await the
 * result at the top of the test file). The target's `skip` may name these cases too.
 */
export function runRequestReplyConformance(
  target: Omit<ConformanceTarget, 'skip'> & { readonly skip?: Partial<Record<RequestReplyConformanceCase, string>> },
  runner?: ConformanceRunner,
): Promise<void> {
  return withRunner('runRequestReplyConformance', runner, (r) => {
    use(r);
    const timeout = target.timeoutMs ?? 15_000;
    const partitions = target.partitions ?? 3;
    describe(`request-reply conformance: ${target.name}`, () => {
      const cleanups: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      const test = (name: RequestReplyConformanceCase, body: () => Promise<void>): void => {
        const reason = target.skip?.[name];
        if (reason !== undefined) it.skip(`${name} (skipped on ${target.name}: ${reason})`, () => {});
        else it(name, body, timeout * 3);
      };

      /** A transport, the case's addresses provisioned, and a responding and a requesting host on it. */
      async function setup(rule: ReplyAddressRule = { header: 'replyTo' }) {
        const { transport, cleanup } = await target.create();
        const base = `keiyaku-rr-${randomUUID().slice(0, 8)}`;
        const operation = operationFor(base, rule);
        for (const channel of [operation.request, operation.reply])
          await transport.provision?.(channel.address as string, { kafka: { partitions }, iggy: { partitions } });
        const hosts: Messaging[] = [];
        const host = (): Messaging => {
          const made = createMessaging({
            transport,
            deadLetters: new InMemoryDeadLetterStore(),
            logger: silentLogger,
            shutdownBudgetMs: 5_000,
          });
          hosts.push(made);
          return made;
        };
        cleanups.push(async () => {
          for (const h of hosts) await h.stop();
          if (cleanup) await cleanup();
          else await transport.close();
        });
        return { transport, base, operation, host };
      }

      test('answers a request with its typed reply, correlated by ce_correlationid', async () => {
        const { operation, host } = await setup();
        const seen: string[] = [];
        const service = host();
        service.respond(operation, doubler('conformance.doubler', seen));
        await service.start();
        const client = host();
        const requester = client.requester(operation, { timeoutMs: timeout });
        await client.start();
        const reply = await requester.request(Ask.create({ n: 4 }), { correlationId: 'c-4' });
        expect(Answer.is(reply)).toBe(true);
        expect(reply).toMatchObject({ n: 4, doubled: 8 });
        const refused = await requester.request(Ask.create({ n: 3 }));
        expect(Refusal.is(refused)).toBe(true);
        expect(seen[0]).toBe('c-4');
        expect(requester.stats()).toMatchObject({ requests: 2, replies: 2, pending: 0, timeouts: 0, late: 0, unknown: 0 });
      });

      test('correlates concurrent requests', async () => {
        const { operation, host } = await setup();
        const service = host();
        service.respond(operation, doubler('conformance.doubler'));
        await service.start();
        const client = host();
        const requester = client.requester(operation, { timeoutMs: timeout });
        await client.start();
        // Later requests are answered first (shorter delays): each must still get its own reply.
        const ns = Array.from({ length: 12 }, (_, i) => i * 2);
        const replies = await Promise.all(ns.map((n, i) => requester.request(Ask.create({ n, delayMs: (ns.length - i) * 5 }))));
        expect(replies.map((r) => [r.n, Answer.is(r) ? r.doubled : -1])).toEqual(ns.map((n) => [n, n * 2]));
        expect(requester.stats()).toMatchObject({ replies: ns.length, unknown: 0, pending: 0 });
      });

      test('answers on the static reply channel when the contract names no reply address', async () => {
        const { operation, host } = await setup({ channel: true });
        const service = host();
        service.respond(operation, doubler('conformance.doubler'));
        await service.start();
        const client = host();
        const requester = client.requester(operation, { timeoutMs: timeout });
        await client.start();
        expect(requester.replyAddress).toBe(operation.reply.address);
        expect(await requester.request(Ask.create({ n: 10 }))).toMatchObject({ n: 10, doubled: 20 });
        await expect(requester.request(Ask.create({ n: 1 }), { replyAddress: 'elsewhere' })).rejects.toThrow(/would never be answered/);
      });

      test('replies to a per-request reply address', async () => {
        const { operation, host, base, transport } = await setup();
        const service = host();
        service.respond(operation, doubler('conformance.doubler'));
        await service.start();
        const client = host();
        const instance = `${base}.answers.instance`;
        await transport.provision?.(instance, { kafka: { partitions }, iggy: { partitions } });
        const requester = client.requester(operation, { timeoutMs: timeout, replyAddress: instance });
        await client.start();
        const own = `${base}.answers.own`;
        await transport.provision?.(own, { kafka: { partitions }, iggy: { partitions } });
        expect(await requester.request(Ask.create({ n: 6 }), { replyAddress: own })).toMatchObject({ n: 6, doubled: 12 });
        expect(await requester.request(Ask.create({ n: 8 }))).toMatchObject({ n: 8, doubled: 16 });
        expect([...requester.stats().addresses].sort()).toEqual([instance, own].sort());
        expect(requester.stats().unknown).toBe(0);
      });

      test('times out with a typed error naming the operation, correlation id and timeout', async () => {
        const { operation, host } = await setup();
        const client = host();
        const requester = client.requester(operation);
        await client.start();
        const failure = await requester.request(Ask.create({ n: 2 }), { timeoutMs: 300, correlationId: 'c-lost' }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(RequestTimeoutError);
        expect(failure).toMatchObject({ code: 'request_timeout', operation: 'ask', correlationId: 'c-lost', timeoutMs: 300 });
        expect(requester.stats()).toMatchObject({ timeouts: 1, pending: 0 });
      });

      test('drops and counts a late reply', async () => {
        const { operation, host } = await setup();
        const service = host();
        service.respond(operation, doubler('conformance.doubler'));
        await service.start();
        const client = host();
        const requester = client.requester(operation);
        await client.start();
        await expect(requester.request(Ask.create({ n: 2, delayMs: 1_000 }), { timeoutMs: 200 })).rejects.toBeInstanceOf(
          RequestTimeoutError,
        );
        await until(() => requester.stats().late === 1, timeout, 'the late reply is counted');
        expect(requester.stats()).toMatchObject({ late: 1, unknown: 0, replies: 0, timeouts: 1 });
        // The requester goes on answering.
        expect(await requester.request(Ask.create({ n: 4 }), { timeoutMs: timeout })).toMatchObject({ doubled: 8 });
      });

      test('a fresh requester does not read replies written before it', async () => {
        const { operation, host } = await setup();
        const old = host();
        const stale = old.publisher(operation.reply as typeof operation.reply & { readonly address: string });
        for (let n = 0; n < 5; n++) await stale.publish(Answer.create({ n, doubled: 0 }), { correlationId: `old-${n}` });
        const service = host();
        service.respond(operation, doubler('conformance.doubler'));
        await service.start();
        const client = host();
        const requester = client.requester(operation, { timeoutMs: timeout });
        await client.start();
        expect(await requester.request(Ask.create({ n: 2 }))).toMatchObject({ doubled: 4 });
        expect(await requester.request(Ask.create({ n: 4 }))).toMatchObject({ doubled: 8 });
        expect(requester.stats().unknown).toBe(0);
      });

      test('stop() rejects pending requests with a typed error', async () => {
        const { operation, host } = await setup();
        const client = host();
        const requester = client.requester(operation);
        await client.start();
        const pending = requester.request(Ask.create({ n: 2 }), { timeoutMs: 60_000 }).then(
          () => undefined,
          (error: unknown) => error,
        );
        await until(() => requester.stats().pending === 1, timeout, 'the request is pending');
        await client.stop();
        expect(await pending).toBeInstanceOf(RequesterStoppedError);
        await expect(requester.request(Ask.create({ n: 4 }))).rejects.toThrow(/closed/);
      });
    });
  });
}
