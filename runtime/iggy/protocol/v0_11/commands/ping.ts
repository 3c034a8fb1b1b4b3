/**
 * PING (code 1, NonReplicated): empty body; a header-only reply. Allowed before login and
 * counts as a heartbeat.
 */
export const PING = { code: 1, operation: 2 } as const;

export function encodePing(): Uint8Array {
  return new Uint8Array(0);
}
