/**
 * The `schemaRegistry` section of a keiyaku configuration: the Schema Registry that channels
 * framed by their contract (a Kafka message binding with `schemaIdLocation: payload`) use.
 *
 * ```json
 * { "schemaRegistry": { "url": "http://registry:8081", "username": "svc", "password": "…", "autoRegister": false } }
 * ```
 */
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';

export interface SchemaRegistrySection {
  /** The registry's base URL (Apicurio: `…/apis/ccompat/v7`). */
  readonly url?: string;
  /** Basic auth. */
  readonly username?: string;
  readonly password?: string;
  /** A bearer token (instead of basic auth). */
  readonly token?: string;
  /** Register a writer schema the subject lacks, on first publish (default false). */
  readonly autoRegister?: boolean | string;
  /** `topic` (default), `record` or `topic-record`. */
  readonly subjectNameStrategy?: string;
  /** Most time one request may take (default 10000). */
  readonly timeoutMs?: number | string;
}

/** A validated `schemaRegistry` section. */
export interface SchemaRegistrySettings {
  readonly url: string;
  readonly auth?: { readonly username: string; readonly password: string } | { readonly token: string };
  readonly autoRegister: boolean;
  readonly subjectNameStrategy: 'topic' | 'record' | 'topic-record';
  readonly timeoutMs?: number;
}

export const SCHEMA_REGISTRY_SECTION_KEYS = [
  'url',
  'username',
  'password',
  'token',
  'autoRegister',
  'subjectNameStrategy',
  'timeoutMs',
] as const;

export function schemaRegistryFrom(raw: unknown, path: string, problems: Problems): SchemaRegistrySettings | undefined {
  const section = new SectionReader(raw, path, SCHEMA_REGISTRY_SECTION_KEYS, problems);
  const before = problems.list.length;
  const url = section.string('url', { nonEmpty: true });
  const username = section.string('username');
  const password = section.string('password', { secret: true });
  const token = section.string('token', { secret: true });
  const strategy = section.oneOf('subjectNameStrategy', ['topic', 'record', 'topic-record'] as const);
  const timeoutMs = section.integer('timeoutMs', { min: 1, max: 2_147_483_647 });
  const autoRaw = section.raw('autoRegister');
  let autoRegister = false;
  if (autoRaw !== undefined) {
    const text = String(autoRaw).trim().toLowerCase();
    if (autoRaw === true || text === 'true') autoRegister = true;
    else if (autoRaw !== false && text !== 'false')
      problems.add(section.at('autoRegister'), `must be true or false, got ${JSON.stringify(autoRaw)}`);
  }
  if (url === undefined && problems.list.length === before)
    problems.add(section.at('url'), 'is required (the registry base URL, e.g. http://registry:8081)');
  else if (url !== undefined && !/^https?:\/\/[^/]/.test(url))
    problems.add(section.at('url'), `must be an http(s) URL, got ${JSON.stringify(url)}`);
  if (token !== undefined && (username !== undefined || password !== undefined))
    problems.add(section.at('token'), `use either it or ${problems.key(section.at('username'))}/password, not both`);
  if ((username === undefined) !== (password === undefined))
    problems.add(section.at(username === undefined ? 'username' : 'password'), 'is required with the other of username/password');
  if (problems.list.length > before) return undefined;
  const auth = token !== undefined ? { token } : username !== undefined ? { username, password: password! } : undefined;
  return {
    url: url!,
    ...(auth === undefined ? {} : { auth }),
    autoRegister,
    subjectNameStrategy: strategy ?? 'topic',
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
