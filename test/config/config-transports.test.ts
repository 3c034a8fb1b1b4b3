// The seed's one-line swap, by configuration alone: the same service code runs on memory, on the
// real Kafka broker (configured from the environment) and on Iggy (configured from an object,
// against the in-repo protocol double), and parks a poison message in the configured SQLite store.
import { randomUUID } from 'node:crypto';
import { createMessaging, type DeadLetterStore, silentLogger, type Transport } from '@keiyaku/runtime';
import { configure } from '@keiyaku/runtime/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { IggyProtocolDouble } from '../iggy/protocol-double.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresSkipReason } from '../postgres/postgres-env.js';

/** The service: one handler, one publisher. It knows nothing of the transport it runs on. */
async function runService(parts: { transport: Transport; deadLetters: DeadLetterStore }): Promise<{ handled: string[]; parked: number }> {
  const messaging = createMessaging({ logger: silentLogger, ...parts, shutdownBudgetMs: 5_000 });
  const handled: string[] = [];
  messaging.subscribe(
    BookIntegrationEvents,
    {
      groupId: 'inventory.book-availability',
      handle(message) {
        if (message.copyId === 'C-poison') throw new Error('cannot handle this one');
        handled.push(message.copyId);
      },
    },
    { deadLetter: { maxRetries: 1, backoffSchedule: [10] } },
  );
  await messaging.start();
  const books = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
  for (const copyId of ['C-1', 'C-poison', 'C-2', 'C-3']) await books.publish(borrowed(copyId));
  await waitFor(() => handled.length === 3, 'three messages handled', 45_000);
  await waitFor(async () => (await parts.deadLetters.count()) === 1, 'the poison message parked', 15_000);
  const parked = await parts.deadLetters.count();
  await messaging.stop();
  return { handled, parked };
}

describe('the same service code, swapped by configuration', () => {
  it('memory (nothing configured)', async () => {
    const result = await runService(
      await configure(undefined, {
        env: { KEIYAKU_DEAD_LETTERS: 'sqlite', KEIYAKU_DEAD_LETTERS_PATH: ':memory:', KEIYAKU_DEAD_LETTERS_MIGRATE: 'true' },
      }),
    );
    expect(result).toEqual({ handled: ['C-1', 'C-2', 'C-3'], parked: 1 });
  });

  describe('iggy (a configuration object; protocol double)', () => {
    const server = new IggyProtocolDouble();
    beforeAll(async () => {
      await server.start();
    });
    afterAll(async () => {
      await server.stop();
    });

    it('runs', async () => {
      const parts = await configure({
        transport: 'iggy',
        iggy: { address: `127.0.0.1:${server.port}`, stream: 'library', requestTimeoutMs: 2_000, heartbeatMs: 0 },
        deadLetters: { store: 'sqlite', path: ':memory:', migrate: true },
      });
      expect(parts.transport.name).toBe('iggy');
      expect(await runService(parts)).toEqual({ handled: ['C-1', 'C-2', 'C-3'], parked: 1 });
    });
  });

  (postgresSkipReason ? describe.skip : describe)(
    `memory with the PostgreSQL dead-letter store (the environment; real server)${postgresSkipNote}`,
    () => {
      let database: FreshDatabase;
      beforeAll(async () => {
        database = await freshDatabase('config');
      });
      afterAll(async () => {
        await database.drop();
      });

      it('runs, parks in PostgreSQL, and the record outlives the store', async () => {
        const env = {
          KEIYAKU_DEAD_LETTERS: 'postgres',
          KEIYAKU_DEAD_LETTERS_CONNECTION_STRING: database.url,
          KEIYAKU_DEAD_LETTERS_MIGRATE: 'true',
        };
        const parts = await configure(undefined, { env });
        expect(parts.deadLetters.constructor.name).toBe('PostgresDeadLetterStore');
        expect(await runService(parts)).toEqual({ handled: ['C-1', 'C-2', 'C-3'], parked: 1 });
        // messaging.stop() closed the store and ended its pool; the parked record stays in the database.
        const { rows } = await database.pool.query<{ type: string }>('SELECT type FROM keiyaku_dead_letters');
        expect(rows.map((r) => r.type)).toEqual(['BookBorrowed']);
      });
    },
  );

  (kafkaSkipReason ? describe.skip : describe)(
    `kafka (the environment; real broker)${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`,
    () => {
      it('runs', async () => {
        const parts = await configure(undefined, {
          env: {
            KEIYAKU_TRANSPORT: 'kafka',
            KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers,
            KEIYAKU_KAFKA_NAMESPACE: `cfg${randomUUID().slice(0, 8)}`,
            KEIYAKU_KAFKA_CLIENT_ID: 'keiyaku-config-test',
            KEIYAKU_KAFKA_PROPERTY_SESSION_TIMEOUT_MS: '6000',
            KEIYAKU_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS: '500',
            KEIYAKU_KAFKA_PROPERTY_FETCH_WAIT_MAX_MS: '100',
            KEIYAKU_KAFKA_PROPERTY_MESSAGE_TIMEOUT_MS: '20000',
            KEIYAKU_DEAD_LETTERS: 'sqlite',
            KEIYAKU_DEAD_LETTERS_PATH: ':memory:',
            KEIYAKU_DEAD_LETTERS_MIGRATE: 'true',
          },
        });
        expect(parts.transport.name).toBe('kafka');
        expect(await runService(parts)).toEqual({ handled: ['C-1', 'C-2', 'C-3'], parked: 1 });
      });
    },
  );
});

// The broker started by scripts/kafka has a SASL/PLAIN listener on its port + 2.
const saslBrokers =
  process.env['KAFKA_SASL_BROKERS'] ?? (kafkaBrokers === '' ? '' : kafkaBrokers.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 2}`));
const saslReason =
  kafkaSkipReason ||
  (process.env['KAFKA_BROKERS'] && !process.env['KAFKA_SASL_BROKERS'] ? 'an external broker without KAFKA_SASL_BROKERS' : '');

(saslReason ? describe.skip : describe)(`secrets on a real SASL listener${saslReason ? ` (${saslReason})` : ''}`, () => {
  it('a rejected password appears in no log line and no error', async () => {
    const password = `wrong-${randomUUID()}`;
    const lines: string[] = [];
    const put = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
      void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
    const logger = { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') };
    const parts = await configure(undefined, {
      logger,
      env: {
        KEIYAKU_TRANSPORT: 'kafka',
        KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: saslBrokers,
        KEIYAKU_KAFKA_NAMESPACE: `sasl${randomUUID().slice(0, 8)}`,
        KEIYAKU_KAFKA_PROPERTY_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
        KEIYAKU_KAFKA_PROPERTY_SASL_MECHANISM: 'PLAIN',
        KEIYAKU_KAFKA_PROPERTY_SASL_USERNAME: 'keiyaku',
        KEIYAKU_KAFKA_PROPERTY_SASL_PASSWORD: password,
        KEIYAKU_KAFKA_PROPERTY_RETRIES: '1',
        KEIYAKU_KAFKA_PROPERTY_RETRY_BACKOFF_MS: '100',
      },
    });
    const messaging = createMessaging({ ...parts, logger });
    messaging.subscribe(BookIntegrationEvents, { groupId: 'sasl.bad', handle: () => {} });
    const errors: unknown[] = [];
    await messaging.start().catch((error: unknown) => errors.push(error));
    await messaging
      .publisher(BookIntegrationEvents, { maxAttempts: 1 })
      .publish(
        BookBorrowed.create({
          bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
          copyId: 'C-1',
          borrower: { memberId: 'M-1001' },
          borrowedAt: '2026-11-02T10:15:00Z',
          dueAt: '2026-11-23T10:15:00Z',
          channel: 'desk',
        }),
      )
      .catch((error: unknown) => errors.push(error));
    await messaging.stop();
    expect(errors.length).toBe(2);
    const said = [...lines, ...errors.flatMap((e) => [String(e), JSON.stringify(e), String((e as Error).stack)])].join('\n');
    expect(said).toMatch(/SASL|[Aa]uthentication/); // the failure itself is reported…
    expect(said).toContain('"password":"(secret)"'); // …the configuration is logged with the secret masked…
    expect(said).not.toContain(password); // …and the password is nowhere.
  });
});
