/**
 * `@keiyaku/runtime/config`: the transport and dead-letter store from a configuration object or the
 * environment (docs/configuration.md). `configure()` and its parts are in `configure.ts`; the settings,
 * environment variables and store choices each in their own module.
 */
export { type ConfigChoice, type ConfigSource, choiceOf, describeChoice } from './config/choice.js';
export {
  type ConfigureOptions,
  configure,
  createDeadLetterStore,
  createTransport,
  describeConfig,
  type ResolvedConfig,
  resolveConfig,
} from './config/configure.js';
export { ENVIRONMENT_VARIABLES, type EnvironmentVariable, OTHER_ENVIRONMENT_VARIABLES, readEnvironment } from './config/env.js';
export type { IggySection } from './config/iggy.js';
export { EVENT_HUBS_PORT, EVENT_HUBS_USERNAME, type KafkaSection } from './config/kafka.js';
export { KAFKA_PROPERTIES, UNSUPPORTED_KAFKA_PROPERTIES } from './config/kafka-properties.js';
export { type ConfigProblem, ConfigurationError } from './config/problems.js';
export type { IggySettings, KafkaRetrySettings, KafkaSaslSettings, KafkaSettings } from './config/settings.js';
export type { DeadLetterChoice, DeadLetterSection, DeadLetterStoreFactory, DeadLetterStoreKind } from './config/stores.js';
export type { KeiyakuConfig, TransportKind } from './config/types.js';
