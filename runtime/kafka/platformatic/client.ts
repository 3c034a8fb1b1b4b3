/**
 * What the producers and consumers of the `platformatic` driver share: the part of the transport
 * they read and the `@platformatic/kafka` module, loaded on first use (importing it takes about two
 * seconds, and a service on the kafkajs driver never installs it).
 */
import type { ChannelBindings, ContentMode, Logger } from '@keiyaku/runtime/adapter';
import type * as Platformatic from '@platformatic/kafka';
import type { KafkaTransportOptions } from '../options.js';

/** The `@platformatic/kafka` module. */
export type PlatformaticModule = typeof Platformatic;

/** @internal What a producer or consumer of the platformatic driver reads from its transport. */
export interface PlatformaticClients {
  readonly options: KafkaTransportOptions;
  readonly logger: Logger;
  /** The topic of `address`, with the namespace. */
  topic(address: string): string;
  /** The consumer group of `groupId`, with the namespace. */
  group(groupId: string): string;
  /** Creates the topic of `address` when missing. */
  provision(address: string, bindings: ChannelBindings): Promise<void>;
  /** How records for `address` are written. */
  contentMode(address: string): ContentMode;
  /** `@platformatic/kafka`, imported once; a clear `KeiyakuError` when it is not installed. */
  load(): Promise<PlatformaticModule>;
  /**
   * The options every client of this transport shares (client id, bootstrap brokers, TLS, SASL,
   * timeouts, retries), from the transport's options.
   */
  baseOptions(): Platformatic.BaseOptions;
}

let read: ((transport: object) => PlatformaticClients) | undefined;

/** @internal Set once by the transport's class: how to reach a transport's `PlatformaticClients` (its declarations never show them). */
export function readClientsWith(reader: (transport: object) => PlatformaticClients): void {
  read = reader;
}

/** @internal What a `PlatformaticKafkaTransport`'s producers and consumers read from it (for tests of the option mapping). */
export function clientsOf(transport: object): PlatformaticClients {
  if (read === undefined) throw new TypeError('no PlatformaticKafkaTransport was loaded');
  return read(transport);
}
