// `keiyaku mock` through the CLI's entry (main): --dry-run prints the messages as JSON lines, which
// the repository's generated code decodes; wrong flags, an unknown channel, an example the contract
// refuses and a missing broker exit 2 with a clear line; against the real Kafka broker it publishes
// the same messages the dry run printed for that seed, read back by a plain kafkajs consumer.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookIntegrationEvents, MemberNotifications } from '../../generated/index.js';
import { scratch } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';
import { jsonLines, runMock } from './run-mock.js';

const mock = runMock;
const lines = jsonLines;

describe('keiyaku mock --dry-run', () => {
  it('prints the examples, then built messages, as JSON lines the generated code accepts; the same seed prints the same', async () => {
    const args = ['--channel', 'bookIntegrationEvents', '--count', '6', '--seed', '11', '--dry-run'];
    const first = await mock(args);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const printed = lines(first);
    expect(printed).toHaveLength(6);
    expect(printed[0]).toMatchObject({ channel: 'bookIntegrationEvents', origin: 'example', example: 'first-loan', type: 'BookBorrowed' });
    expect(printed.slice(1).map((m) => m['type'])).toEqual([
      'BookBorrowed',
      'BookReturned',
      'BookBorrowed',
      'BookReturned',
      'BookBorrowed',
    ]);
    for (const line of printed) {
      expect(line['address']).toBe('library.book-integration-events');
      const decoded = BookIntegrationEvents.decode(new TextEncoder().encode(JSON.stringify(line['payload'])), line['type'] as string);
      expect(decoded.ok, JSON.stringify(line)).toBe(true);
      // The Kafka key is the message's key property (bookId), as a generated publisher sends it.
      if (line['type'] === 'BookBorrowed') expect(line['key']).toBe((line['payload'] as { bookId: string }).bookId);
    }
    expect((await mock(args)).stdout).toBe(first.stdout);
    expect((await mock(['--channel', 'bookIntegrationEvents', '--count', '6', '--seed', '12', '--dry-run'])).stdout).not.toBe(first.stdout);
  });

  it('prints its own usage with --help', async () => {
    const r = await mock(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: keiyaku mock --channel <id> [--count N] [--rate R] [--seed S] [--dry-run] [options]');
  });

  it('fills the address parameters from --param, and --no-examples builds every message', async () => {
    const r = await mock(['--channel', 'MemberNotifications', '--count', '2', '--param', 'memberId=M-77', '--no-examples', '--dry-run']);
    expect(r.code).toBe(0);
    for (const line of lines(r)) {
      expect(line).toMatchObject({ channel: 'memberNotifications', address: 'library.members.M-77.notifications', origin: 'generated' });
      expect(MemberNotifications.decode(new TextEncoder().encode(JSON.stringify(line['payload'])), 'DueDateReminder').ok).toBe(true);
    }
  });

  it("prints Avro and Protobuf payloads in their codecs' JSON views", async () => {
    const avro = await mock(['--spec', 'test/fixtures/avro/asyncapi.yaml', '--channel', 'catalogue', '--count', '1', '--dry-run']);
    expect(avro.code).toBe(0);
    const payload = lines(avro)[0]!['payload'] as Record<string, unknown>;
    expect(Buffer.from((payload['hash'] as { $bytes: string }).$bytes, 'base64')).toHaveLength(16); // fixed Md5
    expect(payload['day']).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/); // date: UTC midnight
    const protobuf = await mock(['--spec', 'test/fixtures/protobuf/asyncapi.yaml', '--channel', 'books', '--count', '4', '--dry-run']);
    expect(protobuf.code).toBe(0);
    const printed = lines(protobuf);
    expect(printed.map((m) => m['type'])).toEqual(['BookBorrowed', 'ShelfAudited', 'BookBorrowed', 'ShelfAudited']);
    // The Protobuf JSON mapping: a 64-bit integer is decimal text.
    const big = printed.map((m) => (m['payload'] as Record<string, unknown>)['big']).find((v) => v !== undefined);
    expect(big).toMatch(/^\d+$/);
  });

  it.each([
    [[], 'keiyaku: keiyaku mock needs --channel <channel id> (see keiyaku mock --help)'],
    [['--channel', 'x', '--count', 'ten'], 'keiyaku: --count ten is not an integer from 1 to 1000000'],
    [['--channel', 'x', '--rate', '0'], 'keiyaku: --rate 0 is not a positive number of messages per second'],
    [['--channel', 'x', '--seed=-1'], 'keiyaku: --seed -1 is not an integer from 0 to 9007199254740991'],
    [['--channel', 'x', '--dry-run', '--json'], 'keiyaku: options --dry-run and --json cannot be combined: --dry-run prints JSON lines'],
    [['--channel', 'x', '--store', 'a.db'], 'keiyaku: option --store does not apply to "keiyaku mock"'],
    [['--chanel', 'x'], 'keiyaku: unknown option "--chanel"; did you mean --channel? (see keiyaku --help)'],
    [
      ['--channel', 'nope', '--dry-run'],
      'keiyaku: the contract has no channel "nope" (channels: bookIntegrationEvents, memberNotifications, copyLookups, copyLookupAnswers)',
    ],
    [['--channel', 'memberNotifications', '--param', 'member=1', '--dry-run'], 'has no parameter "member" (parameters: memberId)'],
    [
      ['--spec', 'test/fixtures/payments/asyncapi.yaml', '--channel', 'paymentRequests', '--param', 'region=mars', '--dry-run'],
      'keiyaku: --param region=mars: the contract allows eu, us, apac',
    ],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const r = await mock(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  it('refuses the memory transport: without a configured broker it says how to configure one, or to use --dry-run', async () => {
    const r = await mock(['--channel', 'bookIntegrationEvents', '--count', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the memory transport lives inside one process, so no consumer would see the messages');
    expect(r.stderr).toContain('KEIYAKU_TRANSPORT=kafka with KEIYAKU_KAFKA_BOOTSTRAP_SERVERS');
    expect(r.stderr).toContain('or pass --dry-run');
  });

  it('stops before sending anything when an example of the contract does not satisfy its own schema', async () => {
    const dir = scratch('mock-bad-example');
    writeFileSync(
      join(dir, 'asyncapi.yaml'),
      JSON.stringify({
        asyncapi: '3.0.0',
        info: { title: 'Bad example', version: '1.0.0' },
        channels: { pings: { address: 'pings', messages: { Ping: { $ref: '#/components/messages/Ping' } } } },
        components: {
          messages: {
            Ping: {
              name: 'Ping',
              payload: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1 } } },
              examples: [{ name: 'zero', payload: { n: 0 } }],
            },
          },
        },
      }),
    );
    const r = await mock(['--channel', 'pings', '--dry-run'], {}, dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('keiyaku: example zero of Ping does not satisfy the contract');
    expect(r.stderr).toContain('fix the example in the contract, or pass --no-examples; nothing sent');
    expect((await mock(['--channel', 'pings', '--dry-run', '--no-examples', '--count', '3'], {}, dir)).code).toBe(0);
  });
});

(kafkaBrokers === '' ? describe.skip : describe)(`keiyaku mock over Kafka${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  let kafka: Kafka;
  let admin: Admin;
  const topics: string[] = [];
  beforeAll(async () => {
    kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-mock', logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.deleteTopics({ topics }).catch(() => {});
    await admin?.disconnect();
  });

  it('publishes the messages the dry run printed for the seed, paced by --rate, to the topic a consumer of the channel reads', async () => {
    const namespace = `mock${randomUUID().slice(0, 8)}`;
    const topic = `${namespace}.library.book-integration-events`;
    topics.push(topic);
    const env = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: namespace };
    const args = ['--channel', 'bookIntegrationEvents', '--count', '8', '--seed', '5'];
    const started = performance.now();
    const sent = await mock([...args, '--rate', '40', '--json'], env);
    const elapsed = performance.now() - started;
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toEqual({
      ok: true,
      channel: 'bookIntegrationEvents',
      addresses: ['library.book-integration-events'],
      transport: `kafka at ${kafkaBrokers}`,
      published: 8,
      examples: 1,
      generated: 7,
      seed: 5,
    });
    // 8 messages at 40 per second: the last is due 175 ms after the first.
    expect(elapsed).toBeGreaterThanOrEqual(175);

    const consumer = kafka.consumer({ groupId: `${namespace}.check`, sessionTimeout: 6_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received: { type: string; source: string; key: string | undefined; payload: unknown; ok: boolean }[] = [];
    try {
      await new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
            const type = headers['ce_type']!;
            received.push({
              type,
              source: headers['ce_source']!,
              key: message.key?.toString('utf8'),
              payload: JSON.parse(message.value!.toString('utf8')),
              ok: BookIntegrationEvents.decode(new Uint8Array(message.value!), type).ok,
            });
            if (received.length === 8) resolve();
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    const printed = lines(await mock([...args, '--dry-run']));
    // One partition key per book: the order across partitions is not kept, so compare as sets.
    const sortKey = (m: { payload: unknown }): string => JSON.stringify(m.payload);
    expect(received.map((m) => ({ type: m.type, payload: m.payload })).sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      printed.map((m) => ({ type: m['type'], payload: m['payload'] })).sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
    );
    expect(received.every((m) => m.ok && m.source === 'keiyaku-mock')).toBe(true);
    for (const m of received) if (m.type === 'BookBorrowed') expect(m.key).toBe((m.payload as { bookId: string }).bookId);
  });
});
