/**
 * The `iggy` section of a keiyaku configuration turned into {@link IggySettings} (the Iggy transport's options):
 *
 * ```json
 * { "iggy": { "address": "iggy:8090", "username": "iggy", "password": "…", "stream": "my-app" } }
 * ```
 */
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';
import type { IggySettings } from './settings.js';

export interface IggySection {
  /** `host:port` of the server's TCP endpoint (or `host` and `port`). */
  readonly address?: string;
  readonly host?: string;
  readonly port?: number | string;
  /** Default `iggy`. */
  readonly username?: string;
  /** Default `iggy` (secret). */
  readonly password?: string;
  /** Stream of addresses without an `x-iggy` binding (default `keiyaku`). */
  readonly stream?: string;
  readonly defaultPartitions?: number | string;
  readonly requestTimeoutMs?: number | string;
  readonly heartbeatMs?: number | string;
}

export const IGGY_SECTION_KEYS = [
  'address',
  'host',
  'port',
  'username',
  'password',
  'stream',
  'defaultPartitions',
  'requestTimeoutMs',
  'heartbeatMs',
] as const;

export function iggyOptionsFrom(raw: unknown, path: string, problems: Problems): IggySettings | undefined {
  const section = new SectionReader(raw, path, IGGY_SECTION_KEYS, problems);
  const before = problems.list.length;
  const address = section.string('address');
  let host = section.string('host');
  let port = section.integer('port', { min: 1, max: 65_535 });
  const username = section.string('username');
  const password = section.string('password', { secret: true });
  const stream = section.string('stream');
  const defaultPartitions = section.integer('defaultPartitions', { min: 1, max: 100_000 });
  const requestTimeoutMs = section.integer('requestTimeoutMs', { min: 1, max: 2_147_483_647 });
  const heartbeatMs = section.integer('heartbeatMs', { max: 2_147_483_647 });
  if (address !== undefined) {
    const match = /^(.+):(\d{1,5})$/.exec(address);
    if (host !== undefined || port !== undefined)
      problems.add(section.at('address'), `use either it or ${problems.key(section.at('host'))}/port, not both`);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65_535)
      problems.add(section.at('address'), `must be host:port, got ${JSON.stringify(address)}`);
    else {
      host = match[1]!.replace(/^\[(.*)\]$/, '$1');
      port = Number(match[2]);
    }
  } else if (host === undefined && problems.list.length === before) {
    problems.add(section.at('address'), 'is required (host:port of the Iggy server, e.g. 127.0.0.1:8090)');
  }
  if (problems.list.length > before) return undefined;
  return {
    host: host!,
    port: port ?? 8090,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(stream === undefined ? {} : { stream }),
    ...(defaultPartitions === undefined ? {} : { defaultPartitions }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  };
}
