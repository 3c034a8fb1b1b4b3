// A real iggy-server restarted mid-stream (IGGY_RESTART_COMMAND, see e2e-env.ts): nothing the
// publishers were told was sent is lost, through the high-level publisher and through a keiyaku
// subscription. Duplicates are allowed (at least once) and printed.
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import { createMessaging, InMemoryDeadLetterStore, silentLogger } from '@keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { IggyConsumerBuilder } from '../../runtime/iggy/consumer.js';
import { IggyPublisherBuilder, type IggyPublisherError } from '../../runtime/iggy/publisher.js';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { waitFor } from '../helpers.js';
import { clientOptions, connect, restartCommand, skipReason, text, uniqueName, utf8 } from './e2e-env.js';

const reason = skipReason || (restartCommand ? '' : 'IGGY_RESTART_COMMAND is not set (the test must restart the server)');
if (reason) process.stdout.write(`\nIggy server-restart test skipped: ${reason}\n`);

const restart = async (): Promise<void> => {
  await promisify(exec)(restartCommand!, { timeout: 120_000 });
};

(reason ? describe.skip : describe)(`Iggy server restart mid-stream${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('the high-level publisher and consumer lose nothing across a server restart', async () => {
    const stream = uniqueName('keiyaku-restart');
    const total = 2_000;
    const client = await connect({ reconnection: { initialDelayMs: 200, maxDelayMs: 1_000 } });
    const publisher = IggyPublisherBuilder.create(client, stream, 'events')
      .createIfMissing({ partitions: 2 })
      .withBackgroundSending({ batchSize: 50, lingerMs: 5 })
      .withRetry({ maxAttempts: 20, initialDelayMs: 100, maxDelayMs: 1_000 })
      .build();
    const failures: IggyPublisherError[] = [];
    publisher.onError((error) => failures.push(error));
    await publisher.init();
    let outage: Promise<void> | undefined;
    for (let i = 0; i < total; i++) {
      await publisher.sendMessages([{ payload: utf8(`event-${i}`) }]);
      if (i === total / 2) outage = restart();
      if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await outage;
    await publisher.waitUntilAllSends();
    expect(failures).toEqual([]);
    const reader = await connect();
    const consumer = IggyConsumerBuilder.create(reader, stream, 'events', { kind: 'consumer', id: 'check' })
      .withPollingStrategy({ kind: 'first' })
      .withAutoCommit('disabled')
      .withBatchSize(500)
      .build();
    await consumer.init();
    const seen = new Map<string, number>();
    for await (const message of consumer.receive()) {
      const payload = text(message.payload);
      seen.set(payload, (seen.get(payload) ?? 0) + 1);
      if (seen.size === total) break;
    }
    const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    process.stdout.write(
      `\nIggy restart (high-level SDK): ${total} sent, ${seen.size} distinct received, ${duplicates} duplicates, ${client.generation - 1} reconnects\n`,
    );
    expect(seen.size).toBe(total);
    expect(client.generation).toBeGreaterThan(1);
    await publisher.dispose();
    await client.close();
    await reader.close();
  }, 180_000);

  it('a keiyaku subscription over the Iggy transport delivers every published event across a server restart', async () => {
    const transport = new IggyTransport({
      ...clientOptions({ reconnection: { initialDelayMs: 200, maxDelayMs: 1_000 } }),
      stream: uniqueName('keiyaku-restart-transport'),
      idleWaitMs: 20,
    });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore() });
    const seen = new Map<string, number>();
    const run = uniqueName('C'); // the channel's topic is shared with earlier runs: count this run's copies only
    host.subscribe(BookIntegrationEvents, {
      groupId: uniqueName('inventory.book-availability'), // a group no earlier run left members in
      handle: (message) => {
        if (message.copyId.startsWith(run)) seen.set(message.copyId, (seen.get(message.copyId) ?? 0) + 1);
      },
    });
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.copyId });
    const total = 600;
    const event = (i: number) =>
      BookBorrowed.create({
        bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
        copyId: `${run}-${i}`,
        borrower: { memberId: 'M-1001' },
        borrowedAt: '2026-11-02T10:15:00Z',
        dueAt: '2026-11-23T10:15:00Z',
        channel: 'desk',
      });
    let outage: Promise<void> | undefined;
    for (let i = 0; i < total; i += 20) {
      await publisher.publishMany(Array.from({ length: 20 }, (_, j) => event(i + j)));
      if (i === 300) outage = restart();
    }
    await outage;
    await waitFor(() => seen.size === total, `all ${total} events arrive`, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${seen.size} of ${total} handled`);
    });
    const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    process.stdout.write(
      `\nIggy restart (keiyaku transport): ${total} published, ${seen.size} distinct handled, ${duplicates} duplicates\n`,
    );
    expect(seen.size).toBe(total);
    await host.stop();
  }, 180_000);
});
