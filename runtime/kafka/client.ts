/**
 * What the Kafka producers and consumers share about their kafkajs clients: the part of the
 * transport they read, the cut-off tracking, the fence around a client's connections, and a
 * bounded wait for a client's goodbye.
 */
import { isIP, Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ChannelBindings, ContentMode, Logger } from '@keiyaku/runtime/adapter';
import type { ISocketFactory, Kafka, LogEntry, RetryOptions } from 'kafkajs';
import type { KafkaTransportOptions } from './options.js';

/** @internal What a producer or consumer reads from the transport that made it (`KafkaTransport`). */
export interface KafkaClients {
  readonly options: KafkaTransportOptions;
  readonly logger: Logger;
  /** kafkajs retry options: the transport's defaults with `options.retry` over them. */
  readonly retry: RetryOptions;
  /** The topic of `address`, with the namespace. */
  topic(address: string): string;
  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string;
  /** Creates the topic of `address` when missing (see `KafkaTransport.provision`). */
  provision(address: string, bindings: ChannelBindings): Promise<void>;
  /** How records for `address` are written. */
  contentMode(address: string): ContentMode;
  /** The shared kafkajs client, or with `onLog` a new one of its own (see `KafkaTransport.client`). */
  client(onLog?: (entry: LogEntry) => unknown, fence?: ClientFence): Kafka;
}

/** Tracks whether a kafkajs client is cut off from the brokers, on positive evidence only. */
export class CutOff {
  since: number | undefined;
  /** Rebuilds during the current outage (drives the back-off). */
  rebuilds = 0;
  /** Rebuilds since the client was made. */
  totalRebuilds = 0;
  lastRebuild = 0;

  mark(now: number): void {
    this.since ??= now;
  }

  /** Positive evidence: an assignment, a consumed batch, a confirmed send. */
  clear(): void {
    this.since = undefined;
    this.rebuilds = 0;
  }
}

/** kafkajs' own socket factory (2.2.4 `network/socketFactory.js`): TCP, or TLS with the host as server name. */
export const defaultSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : tcpConnect({ host, port }, onConnect);
  socket.setKeepAlive(true, 60_000);
  return socket;
};

/**
 * @internal The connections of one kafkajs consumer client. When the transport replaces the client,
 * it opens no new connection (a socket it asks for fails at once), and after its bounded goodbye
 * every connection it still has is cut: nothing of a replaced client reaches the brokers again.
 * kafkajs forgets a client it is still (re)starting when told to stop: without this, such a client
 * joined the group once the brokers were back, as a second member holding partitions it never
 * consumed.
 */
export class ClientFence {
  readonly #sockets = new Set<Socket>();
  #replaced = false;

  /** True once the transport replaced (or closed) the client. */
  get replaced(): boolean {
    return this.#replaced;
  }

  wrap(inner: ISocketFactory): ISocketFactory {
    return (args) => {
      if (this.#replaced) {
        const refused = new Socket();
        setImmediate(() => refused.destroy(new Error('this Kafka client was replaced; it opens no connection')));
        return refused;
      }
      const socket = inner(args);
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      return socket;
    };
  }

  /** No new connection from now on; the open ones stay for a goodbye (leaving the group). */
  replace(): void {
    this.#replaced = true;
  }

  /** Closes every connection the client still has, and opens none again. */
  cut(): void {
    this.#replaced = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}

/** Waits for `promise` at most `ms`; logs and moves on if it takes longer. */
export async function bounded(promise: Promise<unknown>, ms: number, logger: Logger, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const outcome = await Promise.race([promise.then(() => 'done' as const), timeout]);
    if (outcome === 'timeout') logger.warn(`kafka: ${what} did not finish within ${ms} ms; moving on`);
  } catch (error) {
    logger.warn(`kafka: ${what} failed`, { error: String(error) });
  } finally {
    clearTimeout(timer);
  }
}
