// examples/production/service.ts run as a deployment runs it: a child process configured by its
// environment alone, against the real PostgreSQL and Kafka. It lends and takes back books over
// HTTP (loan and message in one transaction, through the outbox to Kafka), its own subscription
// writes the late-fee letters and parks a poison message in PostgreSQL, the operations server
// reports it, and SIGTERM stops it cleanly with exit code 0.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, waitFor, withoutKafkajsTimeoutWarning } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';
import { type FreshDatabase, freshDatabase, postgresSkipReason, postgresUrl } from '../postgres/postgres-env.js';

const skipReason = [kafkaSkipReason, postgresSkipReason].filter((reason) => reason !== '').join('; ');
const available = kafkaBrokers !== '' && postgresUrl !== '';
/** How long SIGTERM may take to end the process (the service's shutdown budget is 10 s). */
const STOP_BOUND_MS = 20_000;

interface LogRecord {
  readonly level?: string;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

class Service {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  stdout = '';
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<void>;

  constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, ['--import', 'tsx/esm', '--conditions=keiyaku-source', 'examples/production/service.ts'], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
  }

  /** Every line of standard output, parsed (a line that is not JSON is kept as `{ raw }`). */
  records(): LogRecord[] {
    return this.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as LogRecord;
        } catch {
          return { raw: line };
        }
      });
  }

  /** What it said so far, for failure messages. */
  output(): string {
    return `exit ${JSON.stringify(this.exit)}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }
}

/** The process environment without any KEIYAKU_* variable of the caller's, plus `own`. */
function environment(own: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^keiyaku_/i.test(name)));
  return { ...base, ...own };
}

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T };
}

const post = (url: string, body: unknown) =>
  json<{ error?: string }>(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The sum of a metric's samples whose labels include every `labels` pair. */
function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (match === null) continue;
    const given = match[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => given.includes(`${k}="${v}"`))) sum = (sum ?? 0) + Number(match[2]);
  }
  return sum;
}

(available ? describe : describe.skip)(
  `examples/production/service.ts over a real Kafka and PostgreSQL${skipReason ? ` (${skipReason})` : ''}`,
  () => {
    const bookId = randomUUID();
    const token = randomUUID();
    let database: FreshDatabase;
    let service: Service;
    let api: string;
    let ops: string;

    beforeAll(async () => {
      database = await freshDatabase('production_example');
      service = new Service(
        environment({
          KEIYAKU_TRANSPORT: 'kafka',
          KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers,
          KEIYAKU_KAFKA_NAMESPACE: `production-${randomUUID().slice(0, 8)}`,
          KEIYAKU_OPS_PORT: '0',
          KEIYAKU_OPS_TOKEN: token,
          POSTGRES_URL: database.url,
          PORT: '0',
        }),
      );
      await waitFor(
        () => service.exit !== undefined || service.records().some((r) => r.msg === 'lending desk ready'),
        () => `the service reported ready\n${service.output()}`,
        90_000,
      );
      const ready = service.records().find((r) => r.msg === 'lending desk ready');
      expect(ready, service.output()).toBeDefined();
      api = ready!['api'] as string;
      ops = ready!['operations'] as string;
    }, 120_000);

    afterAll(async () => {
      if (service !== undefined && service.exit === undefined) {
        service.child.kill('SIGKILL');
        await service.exited;
      }
      await database?.drop();
    });

    it('starts from its environment: alive, ready, Kafka from KEIYAKU_TRANSPORT, dead letters in PostgreSQL', async () => {
      expect((await fetch(`${ops}/healthz`)).status).toBe(200);
      let readyz!: { status: number; body: { status: string; configuration: Record<string, { kind: string; source: string }> } };
      await waitFor(
        async () => {
          readyz = await json(`${ops}/readyz`);
          return readyz.status === 200;
        },
        () => `/readyz answered 200, not ${JSON.stringify(readyz)}`,
        30_000,
      );
      expect(readyz.body.status).toBe('ready');
      expect(readyz.body.configuration['transport']).toMatchObject({ kind: 'kafka', source: 'environment' });
      expect(readyz.body.configuration['deadLetters']).toMatchObject({ kind: 'postgres' });
    });

    it('commits a loan with its message or neither; the message reaches Kafka and its own subscription writes the letter', async () => {
      expect((await post(`${api}/books/${bookId}/loans`, { copyId: 'C-1', memberId: 'M-1001' })).status).toBe(201);
      const again = await post(`${api}/books/${bookId}/loans`, { copyId: 'C-1', memberId: 'M-1002' });
      expect(again.status).toBe(409);
      expect(again.body.error).toContain('already on loan');
      // The contract refuses a member id that is not a library card number: the loan rolls back with it.
      const refused = await post(`${api}/books/${bookId}/loans`, { copyId: 'C-9', memberId: 'bob' });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toContain('BookBorrowed is not valid');
      const loans = await database.pool.query("SELECT count(*) AS n FROM library_loans WHERE copy_id = 'C-9'");
      expect(loans.rows).toEqual([{ n: '0' }]);
      const back = await post(`${api}/books/${bookId}/returns`, {
        copyId: 'C-1',
        condition: 'worn',
        lateFee: { cents: 150, currency: 'GBP' },
      });
      expect(back.status).toBe(200);
      let letters: unknown[] = [];
      await waitFor(
        async () => {
          letters = (await json<unknown[]>(`${api}/late-fee-letters`)).body;
          return letters.length === 1;
        },
        () => `one late-fee letter, got ${JSON.stringify(letters)}\n${service.output()}`,
        30_000,
      );
      expect(letters).toEqual([{ memberId: 'M-1001', copyId: 'C-1', amountEur: '1.76' }]);
    });

    it('parks a poison message in PostgreSQL after its retries, and the belt moves on', async () => {
      const statuses = [
        (await post(`${api}/books/${bookId}/loans`, { copyId: 'C-2', memberId: 'M-1002' })).status,
        (await post(`${api}/books/${bookId}/returns`, { copyId: 'C-2', lateFee: { cents: 300, currency: 'XXX' } })).status,
        (await post(`${api}/books/${bookId}/loans`, { copyId: 'C-2', memberId: 'M-1003' })).status,
        (await post(`${api}/books/${bookId}/returns`, { copyId: 'C-2', lateFee: { cents: 50, currency: 'USD' } })).status,
      ];
      expect(statuses).toEqual([201, 200, 201, 200]);
      let letters: { memberId: string }[] = [];
      await waitFor(
        async () => {
          letters = (await json<{ memberId: string }[]>(`${api}/late-fee-letters`)).body;
          return letters.length === 2;
        },
        () => `a second letter after the parked message, got ${JSON.stringify(letters)}\n${service.output()}`,
        40_000,
      );
      expect(letters[1]).toEqual({ memberId: 'M-1003', copyId: 'C-2', amountEur: '0.46' });
      const { rows } = await database.pool.query<{
        group_id: string;
        type: string;
        attempts: number;
        error_name: string;
        error_message: string;
      }>('SELECT group_id, type, attempts, error_name, error_message FROM keiyaku_dead_letters');
      expect(rows).toEqual([
        {
          group_id: 'notifications.late-fees',
          type: 'BookReturned',
          attempts: 3,
          error_name: 'UnknownCurrencyError',
          error_message: 'no exchange rate for XXX',
        },
      ]);
    });

    it('shows it in /readyz and /metrics; the outbox is drained', async () => {
      expect((await fetch(`${ops}/readyz`)).status).toBe(200);
      let text = '';
      await waitFor(
        async () => {
          text = await (await fetch(`${ops}/metrics`)).text();
          return metric(text, 'keiyaku_component_backlog', { kind: 'outbox' }) === 0;
        },
        () => `the outbox backlog in /metrics is 0:\n${text}`,
        10_000,
      );
      expect(metric(text, 'keiyaku_ready')).toBe(1);
      expect(metric(text, 'keiyaku_transport_ready')).toBe(1);
      const group = { channel: 'bookIntegrationEvents', group: 'notifications.late-fees' };
      expect(metric(text, 'keiyaku_dead_letters', group)).toBe(1);
      expect(metric(text, 'keiyaku_messages_parked_total', group)).toBe(1);
      expect(metric(text, 'keiyaku_messages_handled_total', group)).toBe(2);
      expect(metric(text, 'keiyaku_messages_skipped_total', group)).toBe(3); // the three borrowings
      const { rows } = await database.pool.query<{ n: string }>('SELECT count(*) AS n FROM keiyaku_outbox');
      expect(rows[0]!.n).toBe('0');
    });

    it(`stops on SIGTERM: exit code 0 within ${STOP_BOUND_MS / 1000} s, every log line JSON, no error`, async () => {
      const started = Date.now();
      service.child.kill('SIGTERM');
      await Promise.race([service.exited, new Promise((resolve) => setTimeout(resolve, STOP_BOUND_MS))]);
      expect(service.exit, `still running ${STOP_BOUND_MS} ms after SIGTERM\n${service.output()}`).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(STOP_BOUND_MS);
      const records = service.records();
      expect(records.filter((r) => 'raw' in r)).toEqual([]);
      expect(records.filter((r) => r.level === 'error')).toEqual([]);
      expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['stopping', 'messaging stopped', 'stopped']));
      expect(withoutKafkajsTimeoutWarning(service.stderr)).toBe('');
      await expect(fetch(`${ops}/healthz`)).rejects.toThrow();
    });
  },
);
