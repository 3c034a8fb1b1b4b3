/** `@keiyaku/runtime/config`: the transport and dead-letter store from a configuration object or the environment (docs/configuration.md). */
export type {
  ConfigProblem,
  ConfigureOptions,
  DeadLetterChoice,
  DeadLetterSection,
  DeadLetterStoreFactory,
  DeadLetterStoreKind,
  EnvironmentVariable,
  IggySection,
  KafkaSection,
  KeiyakuConfig,
  ResolvedConfig,
  TransportKind,
} from './config/index.js';
export {
  ConfigurationError,
  configure,
  createDeadLetterStore,
  createTransport,
  describeConfig,
  ENVIRONMENT_VARIABLES,
  EVENT_HUBS_PORT,
  EVENT_HUBS_USERNAME,
  KAFKA_PROPERTIES,
  readEnvironment,
  resolveConfig,
  UNSUPPORTED_KAFKA_PROPERTIES,
} from './config/index.js';
