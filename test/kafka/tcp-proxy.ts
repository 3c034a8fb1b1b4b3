/**
 * A loopback TCP proxy in front of a single-node broker, for outage tests that must not stop the
 * broker the other test files share. kafkajs connects to the addresses the broker advertises, so a
 * test routes every connection of its clients here with a `socketFactory` ({@link TcpProxy.socketFactory}).
 *
 * - `forward` (the start): every connection is piped to the broker.
 * - `stall()`: every open connection is cut, and new ones are accepted and held without an answer
 *   (what a client sees of a broker that hangs, or of a network that black-holes).
 * - `refuse()`: every open connection is cut, and new ones are closed at once (a broker that is down).
 *   `refuse('reset')` cuts with a TCP reset (the client reads ECONNRESET), `refuse('close')` with an
 *   orderly close (the client reads end of stream: kafkajs' "Closed connection"); which one a real
 *   outage gives depends on timing, so a test should see both.
 * - `restore()`: held connections are piped to the broker with what they already sent, new ones too.
 */
import { createServer, type Server, Socket } from 'node:net';
import type { ISocketFactory } from 'kafkajs';

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  readonly #held = new Set<Socket>();
  #mode: 'forward' | 'stall' | 'refuse' = 'forward';
  #cut: 'reset' | 'close' = 'reset';
  /** Connections accepted so far (forwarded or held). */
  accepted = 0;

  constructor(broker: string) {
    const [host, port] = broker.split(':');
    this.#target = { host: host!, port: Number(port) };
    this.#server = createServer((client) => {
      this.accepted++;
      this.#open.add(client);
      client.on('close', () => {
        this.#open.delete(client);
        this.#held.delete(client);
      });
      client.on('error', () => client.destroy());
      if (this.#mode === 'refuse') this.#cutOne(client);
      else if (this.#mode === 'stall') {
        client.pause();
        this.#held.add(client);
      } else this.#forward(client);
    });
  }

  #forward(client: Socket): void {
    const upstream = new Socket();
    this.#open.add(upstream);
    upstream.on('close', () => {
      this.#open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.connect(this.#target.port, this.#target.host, () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  /** Listens on a free loopback port; resolves with it. */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        const address = this.#server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  }

  /** A kafkajs socket factory that sends every connection, whatever broker it is for, through this proxy. */
  socketFactory(): ISocketFactory {
    return ({ onConnect }) => {
      const address = this.#server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const socket = new Socket();
      socket.connect(port, '127.0.0.1', onConnect);
      return socket;
    };
  }

  stall(): void {
    this.#mode = 'stall';
    for (const socket of [...this.#open]) socket.destroy();
  }

  refuse(how: 'reset' | 'close' = 'reset'): void {
    this.#mode = 'refuse';
    this.#cut = how;
    for (const socket of [...this.#open]) this.#cutOne(socket);
  }

  #cutOne(socket: Socket): void {
    if (this.#cut === 'reset') socket.resetAndDestroy();
    else socket.end(() => socket.destroy());
  }

  restore(): void {
    this.#mode = 'forward';
    for (const client of [...this.#held]) {
      this.#held.delete(client);
      this.#forward(client);
    }
  }

  async close(): Promise<void> {
    for (const socket of [...this.#open]) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
