// Redrive over Iggy, against the in-repo protocol double: the target is the channel's x-iggy
// stream/topic, a missing stream/topic is refused and not created, and after the send the record
// is gone; `keiyaku dead-letters redrive` reaches Iggy through KEIYAKU_TRANSPORT=iggy.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { IggyTransport } from '@keiyaku/iggy';
import { createMessaging, InMemoryDeadLetterStore, type ParkRequest, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { migrateSqlite, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { repoRoot, scratch } from '../helpers.js';
import { IggyProtocolDouble } from './protocol-double.js';

const server = new IggyProtocolDouble();
const dir = scratch('iggy-redrive');
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function parkRequest(copyId: string): Promise<ParkRequest> {
  const memory = new InMemoryTransport();
  const source = createMessaging({ transport: memory, logger: silentLogger });
  await source.publisher(BookIntegrationEvents, { lingerMs: 0 }).publish(borrowed(copyId));
  const [sent] = memory.published(BookIntegrationEvents);
  await source.stop();
  return {
    channel: 'bookIntegrationEvents',
    address: 'library.book-integration-events',
    groupId: 'inventory.book-availability',
    type: 'BookBorrowed',
    payload: sent!.record.value,
    headers: sent!.record.headers,
    ...(sent!.record.key === undefined ? {} : { key: sent!.record.key }),
    error: { name: 'Error', message: 'inventory database unavailable' },
    attempts: 3,
    firstFailureAt: new Date(0),
    lastFailureAt: new Date(1),
  };
}

function cli(args: readonly string[], vars: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([n]) => !n.startsWith('KEIYAKU_') && n !== 'KAFKA_BROKERS'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', join(repoRoot, 'generator', 'cli', 'run.ts'), 'dead-letters', ...args],
      { cwd: repoRoot, env: { ...clean, ...vars }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

describe('redrive over Iggy (protocol double)', () => {
  it('goes to the x-iggy stream/topic; a missing one is refused and not created; removed after the send', async () => {
    const transport = new IggyTransport({
      host: '127.0.0.1',
      port: server.port,
      requestTimeoutMs: 2_000,
      heartbeatMs: 0,
      idleWaitMs: 10,
      logger: silentLogger,
    });
    const store = new InMemoryDeadLetterStore();
    const host = createMessaging({ transport, deadLetters: store, logger: silentLogger });
    host.publisher(BookIntegrationEvents);
    try {
      const parked = await store.park(await parkRequest('C-iggy'), new Date());
      expect(await host.planRedrive(parked.id)).toMatchObject({
        transport: 'iggy',
        destination: 'library/book-integration-events',
        exists: false,
      });
      await expect(host.redrive(parked.id)).rejects.toMatchObject({ code: 'redrive_target_missing' });
      expect(await transport.destinationExists('library.book-integration-events', BookIntegrationEvents.bindings)).toBe(false);
      expect(await store.get(parked.id)).toBeDefined();
      const before = server.sentBatches.length;

      await transport.provision('library.book-integration-events', BookIntegrationEvents.bindings);
      await expect(host.redrive(parked.id)).resolves.toMatchObject({
        removed: true,
        target: { destination: 'library/book-integration-events', exists: true },
      });
      expect(server.sentBatches.slice(before).reduce((n, b) => n + b.messages, 0)).toBe(1);
      expect(await store.get(parked.id)).toBeUndefined();
    } finally {
      await host.stop();
      await transport.close();
    }
  });

  it('keiyaku dead-letters redrive takes Iggy from KEIYAKU_TRANSPORT=iggy and KEIYAKU_IGGY_ADDRESS', async () => {
    const db = new Database(join(dir, 'iggy.db'));
    migrateSqlite(db);
    const store = new SqliteDeadLetterStore(db);
    try {
      const parked = await store.park(await parkRequest('C-iggy-cli'), new Date());
      const vars = { KEIYAKU_TRANSPORT: 'iggy', KEIYAKU_IGGY_ADDRESS: `127.0.0.1:${server.port}` };
      const file = join(dir, 'iggy.db');
      const dry = await cli(['redrive', parked.id, '--store', file, '--dry-run'], vars);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(
        `goes to Iggy stream/topic library/book-integration-events (address library.book-integration-events) on iggy at 127.0.0.1:${server.port}; nothing sent`,
      );
      const before = server.sentBatches.length;
      const done = await cli(['redrive', parked.id, '--store', file, '--yes'], vars);
      expect(done.stdout).toContain('to Iggy stream/topic library/book-integration-events');
      expect(done.code).toBe(0);
      expect(server.sentBatches.slice(before).reduce((n, b) => n + b.messages, 0)).toBe(1);
      expect(await store.get(parked.id)).toBeUndefined();
    } finally {
      db.close();
    }
  }, 120_000);
});
