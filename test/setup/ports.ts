/**
 * Free loopback ports for the servers tests start themselves (scripts/kafka, scripts/postgres),
 * so two test runs on one machine never collide on a fixed port.
 *
 * A port is drawn at random from 20000–32767, below Linux's ephemeral range (32768–60999) from
 * which outgoing connections take their local ports: a port chosen there could be taken by a
 * client socket between the check and the server's start. Every port of the span (Kafka uses
 * three: broker, controller, SASL) must accept a listener on 127.0.0.1 and on every interface.
 */
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_767;

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when every port from `port` to `port + span - 1` is free on loopback and on every interface. */
export async function portsFree(port: number, span = 1): Promise<boolean> {
  for (let p = port; p < port + span; p++) {
    if (!(await canListen(p, '127.0.0.1')) || !(await canListen(p, '0.0.0.0'))) return false;
  }
  return true;
}

/**
 * The first of `span` consecutive free ports (random, below the ephemeral range). Throws after
 * `attempts` draws found none free.
 */
export async function freePort(span = 1, attempts = 200): Promise<number> {
  for (let i = 0; i < attempts; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW - span + 2));
    if (await portsFree(port, span)) return port;
  }
  throw new Error(`no ${span} consecutive free port(s) found in ${LOW}–${HIGH} after ${attempts} draws`);
}

/** `process.env[name]` when set, else a free port (the first of `span`), as a string. */
export async function portFromEnv(name: string, span = 1): Promise<string> {
  const given = process.env[name];
  if (given !== undefined && given !== '') return given;
  return String(await freePort(span));
}
