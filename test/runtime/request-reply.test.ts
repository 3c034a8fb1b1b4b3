// Request-reply through the repository's generated contract (operation lookUpCopies, replies to the
// address in the request's `replyTo` header), over the in-memory transport: what the requester
// puts on the wire, what a failing responder leads to, requests that cannot be answered, stray
// replies, and the figures in health() and the Prometheus exposition.
import {
  CE_HEADERS,
  createMessaging,
  type Messaging,
  ReplyInvalidError,
  RequesterStoppedError,
  RequestTimeoutError,
  type ResponderHandler,
} from '@keiyaku/runtime';
import {
  type ContractMessage,
  defineChannel,
  defineMessage,
  defineRequestReply,
  type StandaloneValidator,
} from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { prometheusText } from '@keiyaku/runtime/ops';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CopiesCounted,
  CopiesRequested,
  CopyLookupAnswers,
  CopyLookups,
  LookUpCopies,
  type LookUpCopiesResponder,
} from '../../generated/index.js';
import { recordingLogger, waitFor } from '../helpers.js';

const bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function setup() {
  const transport = new InMemoryTransport({ defaultPartitions: 2, idleWaitMs: 5 });
  const logger = recordingLogger();
  const host = createMessaging({ transport, logger, shutdownBudgetMs: 2_000 });
  hosts.push(host);
  return { transport, host, logger };
}

const desk = (onLoan = 2): LookUpCopiesResponder => ({
  groupId: 'library.copy-lookups',
  respond: (asked) => CopiesCounted.create({ bookId: asked.bookId, title: 'The Dispossessed', onLoan }),
});

describe('request-reply from the generated contract', () => {
  it('puts the correlation id and the reply address on the request, and the correlation and causation on the reply', async () => {
    const { transport, host } = setup();
    host.respond(LookUpCopies, desk());
    const requester = host.requester(LookUpCopies, { replyAddress: 'library.copy-lookups.answers.inventory-1' });
    await host.start();
    const reply = await requester.request(CopiesRequested.create({ bookId }), { correlationId: 'lookup-1' });
    expect(CopiesCounted.is(reply)).toBe(true);
    expect(reply).toMatchObject({ bookId, title: 'The Dispossessed', onLoan: 2 });
    const [request] = transport.published(CopyLookups);
    expect(request!.record.headers).toMatchObject({
      replyTo: 'library.copy-lookups.answers.inventory-1',
      [CE_HEADERS.correlationId]: 'lookup-1',
    });
    const [answer] = transport.published('library.copy-lookups.answers.inventory-1');
    expect(answer!.headers[CE_HEADERS.type]).toBe('CopiesCounted');
    expect(answer!.headers[CE_HEADERS.correlationId]).toBe('lookup-1');
    expect(answer!.headers[CE_HEADERS.causationId]).toBe(request!.record.headers[CE_HEADERS.id]);
    // Nothing went to the reply channel's own address: the request named another.
    expect(transport.published(CopyLookupAnswers)).toHaveLength(0);
  });

  it('a responder that throws: the belt blocks and retries it, the requester sees a timeout, and a retry that succeeds answers late', async () => {
    const { host } = setup();
    let failures = 2;
    const subscription = host.respond(
      LookUpCopies,
      {
        groupId: 'library.copy-lookups',
        respond: (asked) => {
          if (failures-- > 0) throw new Error('catalogue unavailable');
          return CopiesCounted.create({ bookId: asked.bookId, title: 'The Dispossessed', onLoan: 0 });
        },
      },
      { retry: { initialMs: 150, maxMs: 150, jitter: 0 } },
    );
    const requester = host.requester(LookUpCopies);
    await host.start();
    await expect(requester.request(CopiesRequested.create({ bookId }), { timeoutMs: 100 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await waitFor(() => requester.stats().late === 1, 'the retried request is answered, late');
    expect(subscription.health().processed).toBe(1);
    expect(requester.stats()).toMatchObject({ timeouts: 1, late: 1, replies: 0, unknown: 0 });
  });

  it('a responder that throws under a dead-letter policy: the request is parked, the requester times out and no reply ever comes', async () => {
    const { host } = setup();
    const subscription = host.respond(
      LookUpCopies,
      {
        groupId: 'library.copy-lookups',
        respond: () => {
          throw new Error('catalogue corrupt');
        },
      },
      { deadLetter: { maxRetries: 1, backoffSchedule: [10] } },
    );
    const requester = host.requester(LookUpCopies);
    await host.start();
    await expect(requester.request(CopiesRequested.create({ bookId }), { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await waitFor(() => subscription.health().parked === 1, 'the request is parked');
    const [parked] = await host.deadLetters.list({ groupId: 'library.copy-lookups' });
    expect(parked).toMatchObject({ type: 'CopiesRequested', error: { message: 'catalogue corrupt' } });
    expect(requester.stats()).toMatchObject({ timeouts: 1, late: 0, replies: 0 });
  });

  it('a request without a reply address is logged, counted and acknowledged: it does not block the partition', async () => {
    const { host, logger } = setup();
    // A contract whose request does not require its reply header (the generated one does).
    type AskMessage = ContractMessage<'Ask', { n: number }>;
    type ToldMessage = ContractMessage<'Told', { n: number }>;
    const valid: StandaloneValidator = (data) => typeof data === 'object' && data !== null;
    const Ask = defineMessage<'Ask', { n: number }>({
      type: 'Ask',
      id: 'Ask',
      contentType: 'application/json',
      schemaHash: 't',
      validate: valid,
    });
    const Told = defineMessage<'Told', { n: number }>({
      type: 'Told',
      id: 'Told',
      contentType: 'application/json',
      schemaHash: 't',
      validate: valid,
    });
    const channel = (address: string, messages: readonly (typeof Ask | typeof Told)[]) =>
      defineChannel<AskMessage | ToldMessage>({ id: address, address, addressTemplate: address, parameters: [], messages, bindings: {} });
    const asks = channel('asks', [Ask]);
    const op = defineRequestReply<AskMessage, ToldMessage>({
      id: 'ask',
      request: asks,
      requestMessages: [Ask],
      reply: channel('told', [Told]),
      replyMessages: [Told],
      replyAddress: { header: 'replyTo' },
    });
    const subscription = host.respond(op, { groupId: 'answers', respond: (ask) => Told.create({ n: ask.n }) });
    const requester = host.requester(op);
    await host.start();
    await host.publisher(asks).publish(Ask.create({ n: 1 }));
    await waitFor(() => subscription.health().processed === 1, 'the request without a reply address is acknowledged');
    expect((subscription.handler as ResponderHandler<AskMessage>).stats()).toEqual({ operation: 'ask', replies: 0, unanswerable: 1 });
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'responder: the request names no reply address; it is not answered',
    ]);
    expect(await requester.request(Ask.create({ n: 2 }))).toMatchObject({ n: 2 });
    expect((subscription.handler as ResponderHandler<AskMessage>).stats()).toMatchObject({ replies: 1, unanswerable: 1 });
  });

  it('counts a reply nobody asked for as unknown, and a second reply to one request too', async () => {
    const { host } = setup();
    host.respond(LookUpCopies, desk());
    const requester = host.requester(LookUpCopies);
    await host.start();
    const stray = host.publisher(CopyLookupAnswers);
    await stray.publish(CopiesCounted.create({ bookId, title: 'x', onLoan: 0 }), { correlationId: 'nobody-asked' });
    expect(await requester.request(CopiesRequested.create({ bookId }), { correlationId: 'asked' })).toMatchObject({ onLoan: 2 });
    await stray.publish(CopiesCounted.create({ bookId, title: 'x', onLoan: 9 }), { correlationId: 'asked' });
    await waitFor(() => requester.stats().unknown === 2, 'both stray replies are counted');
    expect(requester.stats()).toMatchObject({ replies: 1, late: 0, unknown: 2 });
  });

  it('a reply that does not decode rejects its request with a ReplyInvalidError', async () => {
    const { host, transport } = setup();
    const requester = host.requester(LookUpCopies);
    await host.start();
    const pending = requester.request(CopiesRequested.create({ bookId }), { correlationId: 'c-1', timeoutMs: 5_000 });
    await waitFor(() => transport.published(CopyLookups).length === 1, 'the request is sent');
    const producer = transport.producer();
    await producer.send([
      {
        address: LookUpCopies.reply.address as string,
        value: new TextEncoder().encode('{"bookId": 7}'),
        headers: { [CE_HEADERS.type]: 'CopiesCounted', [CE_HEADERS.id]: 'r-1', [CE_HEADERS.correlationId]: 'c-1' },
      },
    ]);
    const failure = await pending.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReplyInvalidError);
    expect(failure).toMatchObject({ code: 'reply_invalid', operation: 'lookUpCopies', correlationId: 'c-1' });
  });

  it('an aborted signal rejects its request; health and the Prometheus exposition show the requester', async () => {
    const { host } = setup();
    const requester = host.requester(LookUpCopies);
    await host.start();
    const abort = new AbortController();
    const pending = requester.request(CopiesRequested.create({ bookId }), { signal: abort.signal }).catch((error: unknown) => error);
    await waitFor(() => requester.stats().pending === 1, 'the request waits');
    abort.abort();
    expect(await pending).toBeInstanceOf(RequesterStoppedError);
    await expect(requester.request(CopiesRequested.create({ bookId }), { timeoutMs: 20 })).rejects.toBeInstanceOf(RequestTimeoutError);
    const component = host.health().components.find((c) => c.kind === 'requester');
    expect(component).toMatchObject({
      name: 'lookUpCopies',
      ready: true,
      details: { pending: 0, requests: 2, replies: 0, timeouts: 1, late: 0, unknown: 0, addresses: ['library.copy-lookups.answers'] },
    });
    const text = await prometheusText(host);
    expect(text).toContain('keiyaku_requester_timeouts_total{kind="requester",name="lookUpCopies"} 1');
    expect(text).toContain('keiyaku_requester_replies_total{kind="requester",name="lookUpCopies",outcome="settled"} 0');
  });
});
