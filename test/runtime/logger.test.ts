// The runtime speaks up by default: warnings and errors go to standard error as one JSON line
// each (a blocked belt rate-limited while it stays blocked, a parked message), info stays off,
// and an injected logger replaces the default entirely.

import { createMessaging, createStreamLogger, InMemoryDeadLetterStore, type Logger, ManualClock, type Messaging } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';

/** Captures what is written to process.stderr while `body` runs (the default logger's destination). */
async function captureStderr(body: (lines: string[]) => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const previous = process.stderr.write;
  process.stderr.write = ((chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await body(lines);
  } finally {
    process.stderr.write = previous;
  }
  return lines;
}

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function rig(logger?: Logger) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 8, 0, 0));
  const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const deadLetters = new InMemoryDeadLetterStore();
  const host = createMessaging({
    transport,
    deadLetters,
    clock,
    random: () => 0.5,
    shutdownBudgetMs: 1_000,
    ...(logger ? { logger } : {}),
  });
  hosts.push(host);
  const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
  return { clock, host, publisher };
}

describe('the stream logger', () => {
  it('writes warnings and errors as one JSON line each and leaves info and debug out by default', () => {
    const lines: string[] = [];
    const logger = createStreamLogger({ write: (line) => lines.push(line), now: () => new Date(Date.UTC(2026, 0, 1)) });
    logger.debug('hidden');
    logger.info('hidden too');
    logger.warn('belt blocked', { channel: 'books', offset: '7', big: 10n });
    logger.error('transport cut off\nsecond line', { cutOffMs: 1_500 });
    expect(lines).toEqual([
      '{"time":"2026-01-01T00:00:00.000Z","level":"warn","logger":"keiyaku","msg":"belt blocked","channel":"books","offset":"7","big":"10"}\n',
      '{"time":"2026-01-01T00:00:00.000Z","level":"error","logger":"keiyaku","msg":"transport cut off\\nsecond line","cutOffMs":1500}\n',
    ]);
  });

  it('honours a level', () => {
    const lines: string[] = [];
    createStreamLogger({ level: 'info', write: (line) => lines.push(line) }).info('now shown');
    createStreamLogger({ level: 'off', write: (line) => lines.push(line) }).error('never shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'now shown' });
  });
});

describe('the default logger of a running service', () => {
  it('says on stderr that a belt is blocked, rate-limited while it stays blocked, and when it moves again', async () => {
    let healthy = false;
    const attempts: number[] = [];
    const lines = await captureStderr(async () => {
      const { clock, host, publisher } = rig();
      host.subscribe(
        BookIntegrationEvents,
        {
          groupId: 'example.group',
          handle() {
            attempts.push(clock.now());
            if (!healthy) throw new Error('database down');
          },
        },
        { retry: { initialMs: 1_000, multiplier: 2, maxMs: 8_000, jitter: 0 } },
      );
      await host.start();
      await publisher.publish(borrowed('C-1'));
      await waitFor(() => attempts.length === 1 && clock.pending === 1, 'the first failure');
      // attempts at 0, 1, 3, 7, 15, 23, 31, 39 s: warnings at 0 and 31 s only
      for (let i = 0; i < 7; i++) {
        await clock.advance(clock.nextWake! - clock.now());
        await waitFor(() => attempts.length === i + 2 && clock.pending === 1, `attempt ${i + 2}`);
      }
      healthy = true;
      await clock.advance(clock.nextWake! - clock.now());
      await waitFor(() => attempts.length === 9, 'the belt moves again');
      await waitFor(() => host.health().ready, 'ready again');
    });
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    expect(records.map((r) => [r['level'], r['msg']])).toEqual([
      ['warn', 'belt blocked: handler failed; the belt is stopped at this record and retries it'],
      ['warn', 'belt still blocked: handler keeps failing at this record'],
      ['warn', 'the belt moves again'],
    ]);
    expect(records[0]).toMatchObject({
      logger: 'keiyaku',
      channel: 'bookIntegrationEvents',
      groupId: 'example.group',
      attempt: 1,
      error: 'Error: database down',
    });
    expect(records[1]).toMatchObject({ attempt: 7, stalledMs: 31_000, failuresSinceLastWarning: 5 });
    expect(records[2]).toMatchObject({ attempts: 9, stalledMs: 47_000 });
  });

  it('says on stderr that a message was parked', async () => {
    const lines = await captureStderr(async () => {
      const { clock, host, publisher } = rig();
      host.subscribe(
        BookIntegrationEvents,
        {
          groupId: 'example.group',
          handle() {
            throw new Error('poison');
          },
        },
        { deadLetter: { maxRetries: 0 } },
      );
      await host.start();
      await publisher.publish(borrowed('C-1'));
      await waitFor(
        () => host.deadLetters instanceof InMemoryDeadLetterStore && clock.pending === 0 && host.health().subscriptions[0]!.parked === 1,
        'parked',
      );
    });
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain('parked a message in the dead-letter store; the belt moves on');
  });

  it('is replaced entirely by an injected logger', async () => {
    const told: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (message) => told.push(message),
      error: (message) => told.push(message),
    };
    const lines = await captureStderr(async () => {
      const { host, publisher } = rig(logger);
      host.subscribe(BookIntegrationEvents, {
        groupId: 'example.group',
        handle() {
          throw new Error('database down');
        },
      });
      await host.start();
      await publisher.publish(borrowed('C-1'));
      await waitFor(() => told.length > 0, 'the injected logger is told');
    });
    expect(lines).toEqual([]);
    expect(told[0]).toMatch(/^belt blocked/);
  });
});
