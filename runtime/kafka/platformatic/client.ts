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
