/**
 * What the configuration builds each transport with, as plain data: the runtime validates it
 * without loading a driver, and `@keiyaku/kafka` / `@keiyaku/iggy` accept it as their options
 * (a type test keeps the two in step).
 */
import type { ConnectionOptions as TlsOptions } from 'node:tls';

/** kafkajs-style retry settings. */
export interface KafkaRetrySettings {
  readonly retries?: number;
  readonly initialRetryTime?: number;
  readonly maxRetryTime?: number;
  readonly factor?: number;
  readonly multiplier?: number;
}

export interface KafkaSaslSettings {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** The Kafka transport's options a configuration can set. */
export interface KafkaSettings {
  /** The Kafka client the transport runs on: `kafkajs` (default) or `platformatic` (`@platformatic/kafka`, installed by the service). */
  readonly driver?: 'kafkajs' | 'platformatic';
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly namespace?: string;
  readonly ssl?: boolean | TlsOptions;
  readonly sasl?: KafkaSaslSettings;
  readonly client?: { readonly requestTimeout?: number; readonly connectionTimeout?: number };
  readonly retry?: KafkaRetrySettings;
  readonly publishTimeoutMs?: number;
  readonly ackTimeoutMs?: number;
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly maxWaitTimeInMs?: number;
  readonly fromBeginning?: boolean;
  readonly idempotent?: boolean;
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  readonly transactionTimeoutMs?: number;
  readonly rebuildAfterMs?: number;
  readonly maxRebuildIntervalMs?: number;
  readonly defaultPartitions?: number;
  readonly replicationFactor?: number;
  readonly contentMode?: 'binary' | 'structured';
}

/** The Iggy transport's options a configuration can set. */
export interface IggySettings {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly stream?: string;
  readonly defaultPartitions?: number;
  readonly requestTimeoutMs?: number;
  readonly heartbeatMs?: number;
}
