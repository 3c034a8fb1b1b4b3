// SchemaRegistryClient against the real registry (scripts/registry): register, look up, by id,
// latest, the errors of 4xx answers, the bounded cache, coalescing, auth headers, and the typed
// retriable error when the registry is away (refused, silent, stopped mid-run).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SchemaRegistryClient, SchemaRegistryError, SchemaRegistryUnavailableError } from '@keiyaku/runtime/registry';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers.js';
import { countingFetch, shelvedV1Schema, shelvedV2Schema } from './contract.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
const avro = (schema: object) => ({ schemaType: 'AVRO' as const, schema: JSON.stringify(schema) });
const v1 = avro(shelvedV1Schema);
const v2 = avro(shelvedV2Schema);
/** v1 with a field added without a default: not backward compatible. */
const v1NoDefault = avro({ ...shelvedV1Schema, fields: [...shelvedV1Schema.fields, { name: 'shelf', type: 'string' }] });

/** A free TCP port (listened on once, then closed). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

run(`SchemaRegistryClient on the real registry${registrySkipNote}`, () => {
  it('registers, looks up, reads by id and the latest version, and caches ids and schemas', async () => {
    const subject = testSubject('client-value');
    const counting = countingFetch(registryUrl);
    const client = new SchemaRegistryClient({ url: `${registryUrl}/`, fetch: counting.fetch });
    const id = await client.register(subject, v1);
    expect(await client.register(subject, v1)).toBe(id); // the same schema: the same id
    expect(await client.lookup(subject, v1)).toMatchObject({ subject, id, version: 1, schemaType: 'AVRO' });
    expect(await client.latest(subject)).toMatchObject({ subject, id, version: 1 });
    counting.requests.length = 0;
    expect(await client.id(subject, v1)).toBe(id); // cached by register
    expect(await client.schema(id)).toMatchObject({ schemaType: 'AVRO' }); // cached by register
    expect(counting.requests).toEqual([]);
    const reader = new SchemaRegistryClient({ url: registryUrl, fetch: counting.fetch });
    const byId = await reader.schema(id);
    expect(JSON.parse(byId.schema)).toMatchObject({ name: 'Shelved', namespace: 'shelf.avro' });
    await reader.schema(id);
    expect(counting.requests).toEqual([`GET /schemas/ids/${id}`]);
  });

  it('coalesces concurrent lookups of one key into one request, and keeps at most cacheSize entries', async () => {
    const subject = testSubject('client-value');
    const counting = countingFetch(registryUrl);
    const client = new SchemaRegistryClient({ url: registryUrl, fetch: counting.fetch, cacheSize: 1 });
    const ids = await Promise.all(Array.from({ length: 10 }, () => client.id(subject, v1, { autoRegister: true })));
    expect(new Set(ids).size).toBe(1);
    expect(counting.requests).toEqual([`POST /subjects/${subject}`, `POST /subjects/${subject}/versions`]);
    await registryCall('PUT', `/config/${subject}`, { compatibility: 'BACKWARD' });
    const id2 = await client.id(subject, v2, { autoRegister: true }); // v1's id is dropped: the cache holds one
    counting.requests.length = 0;
    expect(await client.id(subject, v2)).toBe(id2);
    expect(await client.id(subject, v1)).toBe(ids[0]);
    expect(counting.requests).toEqual([`POST /subjects/${subject}`]);
  });

  it('turns 4xx answers into SchemaRegistryError with the registry error code, the subject and the fix', async () => {
    const subject = testSubject('client-value');
    const client = new SchemaRegistryClient({ url: registryUrl });
    const missing = await client.lookup(subject, v1).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SchemaRegistryError);
    expect(missing).toMatchObject({ errorCode: 40401, status: 404, subject, retriable: false });
    expect((missing as Error).message).toContain(`subject ${subject} does not exist`);
    const notRegistered = await client.id(subject, v1).catch((e: unknown) => e);
    expect(notRegistered).toMatchObject({ code: 'schema_not_registered', message: expect.stringContaining('autoRegister: true') });

    await client.register(subject, v1);
    await registryCall('PUT', `/config/${subject}`, { compatibility: 'BACKWARD' });
    const incompatible = await client.register(subject, v1NoDefault).catch((e: unknown) => e);
    expect(incompatible).toMatchObject({ errorCode: 409, status: 409, subject });
    expect((incompatible as Error).message).toMatch(/incompatible with the registered versions of .*keiyaku check/);

    const invalid = await client
      .register(testSubject('client-value'), { schemaType: 'AVRO', schema: '{"type":"record"' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(SchemaRegistryError);
    expect(invalid).toMatchObject({ errorCode: 42201 });

    const noId = await client.schema(2_000_000_000).catch((e: unknown) => e);
    expect(noId).toMatchObject({ errorCode: 40403, status: 404 });
  });

  it('sends basic auth from the options or from the URL, and a bearer token', async () => {
    const seen: (string | undefined)[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push((init?.headers as Record<string, string> | undefined)?.['authorization']);
      return fetch(input, init);
    };
    const subject = testSubject('client-value');
    const withUrl = registryUrl.replace('://', '://svc:p%C3%A4ss@');
    await new SchemaRegistryClient({ url: withUrl, fetch: recording }).register(subject, v1);
    await new SchemaRegistryClient({ url: registryUrl, fetch: recording, auth: { username: 'svc', password: 'päss' } }).lookup(subject, v1);
    await new SchemaRegistryClient({ url: registryUrl, fetch: recording, auth: { token: 't0k3n' } }).latest(subject);
    const basic = `Basic ${Buffer.from('svc:päss', 'utf8').toString('base64')}`;
    expect(seen).toEqual([basic, basic, 'Bearer t0k3n']);
    expect(new SchemaRegistryClient({ url: withUrl }).url).toBe(registryUrl);
  });
});

describe('SchemaRegistryClient when the registry is away', () => {
  it('reports a refused connection as SchemaRegistryUnavailableError, retriable', async () => {
    const port = await freePort();
    const client = new SchemaRegistryClient({ url: `http://127.0.0.1:${port}/apis/ccompat/v7` });
    const error = await client.schema(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect(error).toMatchObject({ code: 'schema_registry_unavailable', retriable: true, status: 0 });
    expect((error as Error).message).toMatch(/is unavailable \(GET \/schemas\/ids\/1: ECONNREFUSED\)/);
  });

  it('gives up on a registry that does not answer after timeoutMs', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const client = new SchemaRegistryClient({ url: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, timeoutMs: 200 });
      const started = Date.now();
      const error = await client.latest('x-value').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
      expect((error as Error).message).toContain('no answer within 200 ms');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

// A registry of its own, halted mid-run: the cached ids keep working, new lookups fail retriably.
const own = registryUrl === '' ? describe.skip : describe;
own(`a registry stopped mid-run${registrySkipNote}`, () => {
  const state = mkdtempSync(join(tmpdir(), 'keiyaku-registry-'));
  const script = join(repoRoot, 'scripts', 'registry');
  let env: NodeJS.ProcessEnv = {};
  afterAll(async () => {
    await promisify(execFile)(script, ['stop'], { env }).catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  });

  it('answers from its cache while away and raises SchemaRegistryUnavailableError for what it never saw', {
    timeout: 180_000,
  }, async () => {
    env = { ...process.env, REGISTRY_PORT: String(await freePort()), REGISTRY_STATE_DIR: state };
    const { stdout } = await promisify(execFile)(script, ['start'], { env });
    const url = stdout.trim().split('\n').pop()!;
    const client = new SchemaRegistryClient({ url, timeoutMs: 2_000 });
    const subject = testSubject('outage-value');
    const id = await client.id(subject, v1, { autoRegister: true });
    await promisify(execFile)(script, ['halt'], { env });
    expect(await client.id(subject, v1)).toBe(id);
    expect(await client.schema(id)).toMatchObject({ schemaType: 'AVRO' });
    const error = await client.id(subject, v2, { autoRegister: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect(error).toMatchObject({ retriable: true });
  });
});
