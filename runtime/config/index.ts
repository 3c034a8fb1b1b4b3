/**
 * `@keiyaku/runtime/config`: the transport and dead-letter store from a configuration object or the
 * environment (docs/configuration.md). `configure()` and its parts are in `configure.ts`; the settings,
 * environment variables and store choices each in their own module.
 */
export { type ConfigChoice, type ConfigSource, choiceOf, describeChoice } from './choice.js';
export {
  type ConfigureOptions,
  configure,
  createDeadLetterStore,
  createSchemaRegistry,
  createTransport,
  describeConfig,
  type ResolvedConfig,
  resolveConfig,
} from './configure.js';
export { ENVIRONMENT_VARIABLES, type EnvironmentVariable, OTHER_ENVIRONMENT_VARIABLES, readEnvironment } from './env.js';
export type { IggySection } from './iggy.js';
export { EVENT_HUBS_PORT, EVENT_HUBS_USERNAME, type KafkaSection } from './kafka.js';
export { KAFKA_PROPERTIES, UNSUPPORTED_KAFKA_PROPERTIES } from './kafka-properties.js';
export { type ConfigProblem, ConfigurationError } from './problems.js';
export type { SchemaRegistrySection, SchemaRegistrySettings } from './registry.js';
export type { IggySettings, KafkaRetrySettings, KafkaSaslSettings, KafkaSettings } from './settings.js';
export type { DeadLetterChoice, DeadLetterSection, DeadLetterStoreFactory, DeadLetterStoreKind } from './stores.js';
export type { KeiyakuConfig, TransportKind } from './types.js';
