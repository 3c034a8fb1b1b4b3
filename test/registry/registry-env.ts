/**
 * The Schema Registry registry tests talk to: SCHEMA_REGISTRY_URL, the base URL of a
 * Confluent-compatible API (`scripts/registry start` prints it: http://127.0.0.1:PORT/apis/ccompat/v7).
 * Unset, registry tests skip with the printed reason — and under CI that is a failure instead
 * (.ci/run starts one).
 *
 * The registry is shared by every test file and run, and keeps what it is given: take subjects
 * from {@link testSubject}, and change compatibility only on those, never the global level.
 */
import { randomUUID } from 'node:crypto';

/** The API's base URL without a trailing slash, or '' when registry tests are skipped. */
export const registryUrl = (process.env['SCHEMA_REGISTRY_URL'] ?? '').replace(/\/+$/, '');

/** Why registry tests are skipped ('' when a registry is given). */
export const registrySkipReason =
  registryUrl === '' ? 'Schema Registry tests skipped: SCHEMA_REGISTRY_URL is not set (scripts/registry start prints one)' : '';

if (registrySkipReason !== '') {
  if (process.env['CI']) throw new Error(`${registrySkipReason}; under CI a real registry is required`);
  process.stdout.write(`\n${registrySkipReason}\n`);
}

/** `describe` title suffix naming why the block is skipped (empty when a registry is there). */
export const registrySkipNote = registrySkipReason ? ` (${registrySkipReason})` : '';

/** A subject name no other test or run uses (`<name>-<8 hex>`). */
export function testSubject(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}`;
}

/** The media type Confluent's clients send and accept. */
export const registryMediaType = 'application/vnd.schemaregistry.v1+json';

export interface RegistryAnswer {
  readonly status: number;
  /** The parsed JSON body (undefined when the body is empty). */
  readonly body: unknown;
}

/**
 * One call to the registry's API with plain fetch: `path` is relative to {@link registryUrl}
 * (e.g. `/subjects/x/versions`), `body` is sent as JSON.
 */
export async function registryCall(method: string, path: string, body?: unknown): Promise<RegistryAnswer> {
  const response = await fetch(`${registryUrl}${path}`, {
    method,
    headers: { accept: registryMediaType, ...(body === undefined ? {} : { 'content-type': registryMediaType }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}
