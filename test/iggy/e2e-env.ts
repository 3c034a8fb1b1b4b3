// Where the end-to-end suites find a real iggy-server: IGGY_TCP_ADDRESS (host:port), with
// IGGY_USERNAME / IGGY_PASSWORD (default iggy / iggy). The restart test also needs
// IGGY_RESTART_COMMAND, a shell command that restarts that server keeping its data and returns
// once it accepts connections again. Without them the suites are skipped and say why.
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../runtime/core/logger.js';
import { IggyClient, type IggyClientOptions } from '../../runtime/iggy/client.js';

export const address = process.env['IGGY_TCP_ADDRESS'];
export const restartCommand = process.env['IGGY_RESTART_COMMAND'];
export const skipReason = address ? '' : 'IGGY_TCP_ADDRESS is not set (no iggy-server on any registry this project reaches)';

const [host = '127.0.0.1', port = '8090'] = (address ?? '').split(':');

export function clientOptions(extra: Partial<IggyClientOptions> = {}): IggyClientOptions {
  return {
    host,
    port: Number(port),
    username: process.env['IGGY_USERNAME'] ?? 'iggy',
    password: process.env['IGGY_PASSWORD'] ?? 'iggy',
    requestTimeoutMs: 10_000,
    // The suites check outcomes; what the client logs is checked against the protocol double (reconnect/recovery tests).
    logger: silentLogger,
    ...extra,
  };
}

export async function connect(extra: Partial<IggyClientOptions> = {}): Promise<IggyClient> {
  const client = new IggyClient(clientOptions(extra));
  await client.connect();
  return client;
}

/** A stream name no earlier run used. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
