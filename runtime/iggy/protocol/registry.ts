/**
 * The protocol generations keiyaku speaks, newest first. The client uses
 * {@link DEFAULT_PROTOCOL} unless given another one.
 */
import { unpackVersion } from './primitives.js';
import { protocol_0_11 } from './v0_11/index.js';
import type { IggyProtocol } from './version.js';

export const PROTOCOLS: readonly IggyProtocol[] = [protocol_0_11];

export const DEFAULT_PROTOCOL: IggyProtocol = protocol_0_11;

/** The generation for a version label ("0.11") or a packed version a server announced. */
export function protocolFor(version: string | number): IggyProtocol {
  const found =
    typeof version === 'number'
      ? PROTOCOLS.find((protocol) => protocol.accepts(version))
      : PROTOCOLS.find((protocol) => protocol.label === version || unpackVersion(protocol.version) === version);
  if (found) return found;
  const shown = typeof version === 'number' ? unpackVersion(version) : version;
  throw new RangeError(
    `keiyaku does not speak Iggy protocol ${shown}; it speaks ${PROTOCOLS.map((protocol) => protocol.label).join(', ')}`,
  );
}
