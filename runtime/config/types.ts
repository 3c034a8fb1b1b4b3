/** The shape of a keiyaku configuration, apart from the code that reads it. */
import type { IggySection } from './iggy.js';
import type { KafkaSection } from './kafka.js';
import type { SchemaRegistrySection } from './registry.js';
import type { DeadLetterSection } from './stores.js';

export type TransportKind = 'memory' | 'kafka' | 'iggy';

/** A keiyaku configuration as written (JSON, YAML, an object literal). Keys match case-insensitively. */
export interface KeiyakuConfig {
  /** Which transport to build (default `memory`). */
  readonly transport?: TransportKind;
  readonly kafka?: KafkaSection;
  readonly iggy?: IggySection;
  readonly deadLetters?: DeadLetterSection;
  /** The Schema Registry of channels whose contract frames their payloads. */
  readonly schemaRegistry?: SchemaRegistrySection;
}
