// Contract headers: the generated descriptors carry the headers schema; publish validates
// and encodes them; decode validates them as it validates the payload, and a mismatch blocks
// the belt (no dead-letter policy) naming the header. Every transport runs the park case in
// the conformance suite (runtime/testing/conformance.ts).

import { CE_HEADERS, createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import {
  type ContractMessage,
  ContractValidationError,
  defineChannel,
  defineMessage,
  type StandaloneValidator,
} from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, DueDateReminder } from '../../generated/index.js';
import { waitFor } from '../helpers.js';

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

const borrowed = () =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId: 'C-1',
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

/** Headers `{ retries: integer ≥ 0 (required), region?: "eu" | "us" }`. */
const validateHeaders: StandaloneValidator = (data) => {
  const d = data as Record<string, unknown>;
  const errors: { instancePath: string; keyword: string; message: string; params?: Record<string, unknown> }[] = [];
  if (typeof d !== 'object' || d === null) errors.push({ instancePath: '', keyword: 'type', message: 'must be object' });
  else {
    if (!Object.hasOwn(d, 'retries'))
      errors.push({ instancePath: '', keyword: 'required', message: 'is required', params: { missingProperty: 'retries' } });
    else if (!Number.isInteger(d['retries']) || (d['retries'] as number) < 0)
      errors.push({ instancePath: '/retries', keyword: 'minimum', message: 'must be >= 0' });
    if (d['region'] !== undefined && d['region'] !== 'eu' && d['region'] !== 'us')
      errors.push({ instancePath: '/region', keyword: 'enum', message: 'must be equal to one of the allowed values' });
  }
  validateHeaders.errors = errors.length > 0 ? errors : null;
  return errors.length === 0;
};
interface Headers {
  readonly retries: number;
  readonly region?: 'eu' | 'us';
}
type Job = ContractMessage<'Job', { readonly n: number }, Headers>;
const Job = defineMessage<'Job', { readonly n: number }, Job>({
  type: 'Job',
  id: 'Job',
  contentType: 'application/json',
  schemaHash: 'test',
  validate: () => true,
  headers: { names: ['retries', 'region', '__proto__'], json: ['retries'], validate: validateHeaders },
});

describe('generated descriptors carry the headers schema', () => {
  it('BookBorrowed declares correlationId; DueDateReminder declares no headers', () => {
    expect(BookBorrowed.headers?.names).toEqual(['correlationId']);
    expect(BookBorrowed.headers?.validate({ correlationId: 'c-1' })).toEqual([]);
    expect(BookBorrowed.headers?.validate({ correlationId: 7 })[0]).toMatchObject({ path: '$.correlationId', keyword: 'type' });
    expect(DueDateReminder.headers).toBeUndefined();
  });
});

describe('the headers codec', () => {
  const codec = Job.headers!;

  it('encodes declared headers (JSON text for non-strings) and passes undeclared string headers through', () => {
    expect(codec.encode({ retries: 2, region: 'eu', traceparent: 't' })).toEqual({ retries: '2', region: 'eu', traceparent: 't' });
  });

  it('refuses headers that break the schema, naming the header', () => {
    expect(() => codec.encode({ retries: -1 })).toThrow(ContractValidationError);
    expect(() => codec.encode({ retries: -1 })).toThrow(/headers\.retries/);
    expect(() => codec.encode({})).toThrow(/headers\.retries: is required/);
    expect(() => codec.encode({ retries: 1, extra: 5 })).toThrow(/headers\.extra: a header the contract does not declare must be a string/);
  });

  it('decodes only declared headers, validated, and names the header that fails', () => {
    const ok = codec.decode({ retries: '3', region: 'us', ce_type: 'Job' });
    expect(ok.ok && { ...ok.value }).toEqual({ retries: 3, region: 'us' });
    const notJson = codec.decode({ retries: 'three' });
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) {
      expect(notJson.error).toMatchObject({ reason: 'headers', code: 'decode_headers', messageType: 'Job', path: 'headers.retries' });
      expect(notJson.error.message).toBe('Job: header "retries" is not valid: is not JSON');
    }
    const wrong = codec.decode({ retries: '1', region: 'mars' });
    expect(!wrong.ok && wrong.error.message).toBe('Job: header "region" is not valid: must be equal to one of the allowed values');
    const missing = codec.decode({});
    expect(!missing.ok && missing.error.message).toBe('Job: header "retries" is not valid: is required');
  });

  it('a declared header named __proto__ stays a plain property', () => {
    const decoded = codec.decode(JSON.parse('{"retries":"1","__proto__":"x"}') as Record<string, string>);
    expect(decoded.ok).toBe(true);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    const wire = codec.encode(JSON.parse('{"retries":1,"__proto__":"x"}'));
    expect(Object.entries(wire)).toEqual([
      ['retries', '1'],
      ['__proto__', 'x'],
    ]);
    expect(Object.getPrototypeOf(wire)).toBe(Object.prototype);
  });
});

describe('headers on the belt (memory transport)', () => {
  it('valid contract headers pass the belt; publish sends declared and undeclared string headers', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const handled: string[] = [];
    const subscription = host.subscribe(
      BookIntegrationEvents,
      {
        groupId: 'headers.block',
        handle(message) {
          handled.push(message.copyId);
        },
      },
      { retry: { initialMs: 5, maxMs: 10, jitter: 0 } },
    );
    await host.start();
    const producer = transport.producer();
    await producer.send([
      {
        address: BookIntegrationEvents.address,
        value: BookBorrowed.encode(borrowed()),
        headers: { [CE_HEADERS.type]: 'BookBorrowed', [CE_HEADERS.id]: 'e-1', correlationId: 'c-1' },
      },
    ]);
    await waitFor(() => handled.length === 1, 'the first message is handled');
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    await publisher.publish(borrowed(), { headers: { correlationId: 'c-2', traceparent: '00-abc' } });
    await waitFor(() => handled.length === 2, 'the published message is handled');
    expect(transport.published('library.book-integration-events').at(-1)?.headers).toMatchObject({
      correlationId: 'c-2',
      traceparent: '00-abc',
    });
    expect(subscription.health().stalls).toEqual([]);
  });

  it('blocks the lane on a header mismatch (no dead-letter policy), naming the header', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport });
    hosts.push(host);
    const jobs = defineChannel<Job>({
      id: 'jobs',
      address: 'jobs',
      addressTemplate: 'jobs',
      parameters: [],
      messages: [Job],
      bindings: {},
    });
    const handled: number[] = [];
    const subscription = host.subscribe(
      jobs,
      {
        groupId: 'headers.block',
        handle(message) {
          handled.push(message.n);
        },
      },
      { retry: { initialMs: 5, maxMs: 10, jitter: 0 } },
    );
    await host.start();
    const producer = transport.producer();
    await producer.send([
      {
        address: 'jobs',
        value: new TextEncoder().encode('{"n":1}'),
        headers: { [CE_HEADERS.type]: 'Job', [CE_HEADERS.id]: 'j-1', retries: '-4' },
      },
    ]);
    await host.publisher(jobs).publish(Job.create({ n: 2 }), { headers: { retries: 0 } });
    await waitFor(() => (subscription.health().stalls[0]?.attempts ?? 0) >= 3, 'the lane retried the record three times');
    const stall = subscription.health().stalls[0]!;
    expect(stall).toMatchObject({ messageId: 'j-1', type: 'Job', offset: '0' });
    expect(stall.reason).toBe('ContractDecodeError: Job: header "retries" is not valid: must be >= 0');
    expect(handled).toEqual([]);
  });
});
