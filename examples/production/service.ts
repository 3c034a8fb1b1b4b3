/**
 * A production-shaped keiyaku service: the library's lending desk (examples/production/README.md).
 *
 * - the transport and the dead-letter store come from `configure()`: the `KEIYAKU_*` environment
 *   variables over the service's defaults (dead letters in its own PostgreSQL database);
 * - each loan is written with its contract messages in one transaction of the service's database
 *   (the PostgreSQL outbox); the hosted outbox dispatcher publishes them;
 * - a subscription writes late-fee letters, with a dead-letter policy: a message that keeps
 *   failing is parked in PostgreSQL and the belt moves on;
 * - the operations server answers /healthz, /readyz and /metrics;
 * - SIGTERM (or Ctrl-C) stops it gracefully: no new requests, the belt and the dispatcher stop
 *   within one budget, then the connections close; the process exits 0.
 *
 * Settings: POSTGRES_URL (required), PORT (API, default 8080), HOST (default 127.0.0.1),
 * KEIYAKU_OPS_PORT (default 4380), KEIYAKU_OPS_TOKEN (enables redrive on the operations page),
 * and the KEIYAKU_* variables of docs/configuration.md (KEIYAKU_TRANSPORT=kafka, …).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { migratePostgres, PostgresOutbox } from '@keiyaku/postgres';
import { createMessaging, createStreamLogger } from '@keiyaku/runtime';
import { configure } from '@keiyaku/runtime/config';
import { serveOperations } from '@keiyaku/runtime/ops';
import pg from 'pg';
import { BookIntegrationEvents } from '../../generated/index.js';
import { createApi } from './api.js';
import { LATE_FEE_LETTERS_SCHEMA, LateFeeLetters } from './late-fee-letters.js';
import { LENDING_DESK_SCHEMA, LendingDesk } from './lending-desk.js';

/** CloudEvents `ce_source` of what this service publishes. */
const SOURCE = 'library.lending-desk';
/** How long a graceful stop may take before the process gives up and exits 1. */
const STOP_DEADLINE_MS = 30_000;

// One JSON line per log record on standard output: the runtime's records and the service's own.
const logger = createStreamLogger({ level: 'info', write: (line) => void process.stdout.write(line) });

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) throw new Error(`${name} must be a port number (0 picks a free one)`);
  return value;
}

function listen(server: Server, portNumber: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(portNumber, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`));
  });
}

/** Resolves at the first SIGTERM or SIGINT; listening starts at once, so a signal during start-up is not lost. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve(signal));
  });
}

async function main(): Promise<void> {
  const stopRequested = stopSignal();
  const databaseUrl = process.env['POSTGRES_URL'];
  if (!databaseUrl) throw new Error('POSTGRES_URL is not set: the service keeps its loans, outbox and dead letters in PostgreSQL');
  const host = process.env['HOST'] || '127.0.0.1';
  const apiPort = port('PORT', 8080);
  const opsPort = port('KEIYAKU_OPS_PORT', 4380);
  const opsToken = process.env['KEIYAKU_OPS_TOKEN'];

  // The service's own database. Tables are never created silently: this service migrates at
  // start-up; a team with a migration tool runs the same SQL there instead
  // (postgresMigrationSql(['dead-letters']), POSTGRES_OUTBOX_SCHEMA).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', (error) => logger.warn('an idle database connection failed', { error: String(error) }));
  const outbox = new PostgresOutbox(pool, { source: SOURCE, logger });
  await pool.query(LENDING_DESK_SCHEMA + LATE_FEE_LETTERS_SCHEMA);
  await outbox.migrate();
  await migratePostgres(pool, { components: ['dead-letters'] });

  // Transport and dead-letter store: KEIYAKU_TRANSPORT=kafka, KEIYAKU_KAFKA_BOOTSTRAP_SERVERS=…
  // from the environment, over the service's default of parking messages in its own database.
  const { transport, deadLetters } = await configure(
    { deadLetters: { store: 'postgres', connectionString: databaseUrl } },
    { withEnvironment: true, logger },
  );
  const messaging = createMessaging({ transport, deadLetters, logger, source: SOURCE, shutdownBudgetMs: 10_000 });

  // Late-fee letters: retried after 1 s and 5 s (the default schedule), then parked.
  const letters = new LateFeeLetters(pool);
  messaging.subscribe(BookIntegrationEvents, letters, { deadLetter: { maxRetries: 2 } });
  messaging.host(outbox.dispatcher({ transport }));
  const desk = new LendingDesk(pool, outbox);

  // The operations server starts first: /healthz answers at once, /readyz says 503 until started.
  const operations = await serveOperations(messaging, {
    host,
    port: opsPort,
    title: 'library lending desk',
    ...(opsToken ? { token: opsToken } : {}),
  });
  await messaging.start();
  const api = createApi(desk, letters, logger);
  const apiUrl = await listen(api, apiPort, host);
  logger.info('lending desk ready', { api: apiUrl, operations: operations.url, transport: transport.name });

  const signal = await stopRequested;
  logger.info('stopping', { signal });
  setTimeout(() => {
    logger.error('the graceful stop took too long; exiting', { deadlineMs: STOP_DEADLINE_MS });
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  // New requests are refused; those in flight finish (their transactions commit or roll back).
  await new Promise<void>((resolve) => api.close(() => resolve()));
  // Subscriptions and the outbox dispatcher stop within the shared budget; then the producer and
  // the dead-letter store close.
  await messaging.stop();
  await operations.close();
  await pool.end();
  logger.info('stopped', { signal });
}

main().catch((error: unknown) => {
  logger.error('the service failed', { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
