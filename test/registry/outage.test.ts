// A registry of its own (scripts/registry on a free port), halted mid-run: a framed publish fails
// with the typed, retriable error after the publisher's retries and sends nothing unframed; a
// subscription whose writer schema it cannot read stalls at the record (not parked) and reads it
// once the registry is back.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMessaging, PublishError, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SchemaRegistryClient, SchemaRegistryUnavailableError, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';
import { avroChannel } from './contract.js';
import { registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
const exec = promisify(execFile);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

run(`framed channels while the registry is away${registrySkipNote}`, () => {
  const state = mkdtempSync(join(tmpdir(), 'keiyaku-registry-'));
  const script = join(repoRoot, 'scripts', 'registry');
  let env: NodeJS.ProcessEnv = {};
  afterAll(async () => {
    await exec(script, ['stop'], { env }).catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  });

  it('fails a publish retriably and sends nothing; a subscription stalls at the record and reads it when the registry is back', {
    timeout: 240_000,
  }, async () => {
    env = { ...process.env, REGISTRY_PORT: String(await freePort()), REGISTRY_STATE_DIR: state };
    const url = (await exec(script, ['start'], { env })).stdout.trim().split('\n').pop()!;
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const messaging = createMessaging({ transport, logger: silentLogger });
    try {
      const topic = testSubject('outage');
      const { channel, Shelved } = avroChannel(topic, 1);
      const writer = withSchemaRegistry(channel, new SchemaRegistryClient({ url, timeoutMs: 1_000 }), { autoRegister: true });
      await messaging.publisher(writer).publish(Shelved.create({ bookId: 'before', copies: 1 }));
      await exec(script, ['halt'], { env });

      // A channel it has not resolved yet: the publish fails after its attempts, with the registry's error as cause.
      const other = avroChannel(testSubject('outage'), 1);
      const otherWriter = withSchemaRegistry(other.channel, new SchemaRegistryClient({ url, timeoutMs: 1_000 }), { autoRegister: true });
      const error = await messaging
        .publisher(otherWriter, { maxAttempts: 2, retry: { initialMs: 10 } })
        .publish(other.Shelved.create({ bookId: 'during', copies: 1 }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PublishError);
      expect(error).toMatchObject({ attempts: 2, retriable: true });
      expect((error as PublishError).cause).toBeInstanceOf(SchemaRegistryUnavailableError);
      expect(transport.published(other.channel.addressTemplate)).toEqual([]);

      // A reader that never saw the writer's schema: it waits at the record, it does not park it.
      const reader = withSchemaRegistry(channel, new SchemaRegistryClient({ url, timeoutMs: 1_000 }));
      const seen: string[] = [];
      const subscription = messaging.subscribe(
        reader,
        { groupId: 'outage-readers', handle: (message) => void seen.push(message.bookId) },
        { retry: { initialMs: 100, maxMs: 500 }, deadLetter: { maxRetries: 0 } },
      );
      await messaging.start();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(seen).toEqual([]);
      expect(await messaging.deadLetters.list({})).toHaveLength(0);
      expect(JSON.stringify(subscription.health())).toContain('unavailable');
      await exec(script, ['start'], { env });
      await expect.poll(() => seen, { timeout: 30_000 }).toEqual(['before']);
    } finally {
      await messaging.stop();
    }
  });
});
