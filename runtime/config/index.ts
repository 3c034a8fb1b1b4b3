/**
 * One call builds the transport and the dead-letter store from a plain configuration object or
 * from the environment, so the same service code runs on memory in tests and on Kafka or Iggy in
 * production by configuration alone (Nagare's one-line transport swap, twelve-factor style):
 *
 * ```ts
 * import { configure } from '@keiyaku/runtime/config';
 * await using messaging = createMessaging({ ...(await configure()), logger }); // KEIYAKU_TRANSPORT=kafka|iggy|memory, …
 * // or from an object (e.g. a parsed appsettings.json):
 * await configure({ transport: 'kafka', kafka: { bootstrapServers: 'broker:9092', namespace: 'my-app' } });
 * ```
 *
 * The whole configuration is validated before anything is built: every problem is listed at once
 * in one {@link ConfigurationError}, each naming its key (the variable's name when it came from
 * the environment). Transport and store modules are loaded only when chosen, so a memory-only
 * service never loads kafkajs or SQLite.
 */
import type { Logger } from '../core/logger.js';
import type { Transport } from '../core/transport.js';
import type { DeadLetterStore } from '../dead-letter/store.js';
import { ENVIRONMENT_VARIABLES, readEnvironment } from './env.js';
import { iggyOptionsFrom } from './iggy.js';
import { kafkaOptionsFrom } from './kafka.js';
import { loadPackage } from './packages.js';
import { ConfigurationError, Problems } from './problems.js';
import { SectionReader } from './section.js';
import type { IggySettings, KafkaSettings } from './settings.js';
import {
  DEAD_LETTER_STORES,
  type DeadLetterChoice,
  type DeadLetterStoreFactory,
  type DeadLetterStoreKind,
  deadLetterChoiceFrom,
} from './stores.js';
import type { KeiyakuConfig, TransportKind } from './types.js';

export type { KeiyakuConfig, TransportKind } from './types.js';

/** A validated configuration: the options each part is built with. */
export interface ResolvedConfig {
  readonly transport: TransportKind;
  readonly kafka?: KafkaSettings;
  readonly iggy?: IggySettings;
  readonly deadLetters: DeadLetterChoice;
  /** Where it came from. */
  readonly source: 'object' | 'environment';
}

export interface ConfigureOptions {
  /** The environment to read when no configuration object is given (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Given to the transport; hears one line saying what was built (secrets left out). */
  readonly logger?: Logger;
  /** Dead-letter store factories to add or replace (e.g. a PostgreSQL store). */
  readonly stores?: Partial<Record<DeadLetterStoreKind, DeadLetterStoreFactory>>;
}

const TOP_KEYS = ['transport', 'kafka', 'iggy', 'deadLetters'] as const;

/** How a config path is named to the user when the configuration came from the environment. */
function environmentNamer(origins: ReadonlyMap<string, string>): (path: string) => string {
  const byPath = new Map(ENVIRONMENT_VARIABLES.map((v) => [v.path, v.name]));
  return (path) => {
    const origin = origins.get(path) ?? byPath.get(path);
    if (origin !== undefined) return origin;
    const property = /^kafka\.properties\["(.+)"\]$/.exec(path)?.[1];
    if (property !== undefined) return `KEIYAKU_KAFKA_PROPERTY_${property.toUpperCase().replace(/\./g, '_')}`;
    return path;
  };
}

/**
 * Validates a configuration object, or (with none) the environment, and returns what each part is
 * built with. Throws one {@link ConfigurationError} that lists every problem.
 */
export function resolveConfig(config?: unknown, options: Pick<ConfigureOptions, 'env'> = {}): ResolvedConfig {
  let raw: unknown = config;
  let problems = new Problems();
  const source = config === undefined ? 'environment' : 'object';
  if (config === undefined) {
    const env = readEnvironment(options.env ?? process.env);
    raw = env.config;
    problems = new Problems(environmentNamer(env.origins));
    problems.list.push(...env.problems);
  }
  const top = new SectionReader(raw, '', TOP_KEYS, problems);
  const transport = top.oneOf('transport', ['memory', 'kafka', 'iggy'] as const) ?? (top.has('transport') ? undefined : 'memory');
  const kafka = top.has('kafka') ? kafkaOptionsFrom(top.raw('kafka'), 'kafka', problems) : undefined;
  const iggy = top.has('iggy') ? iggyOptionsFrom(top.raw('iggy'), 'iggy', problems) : undefined;
  const deadLetters = deadLetterChoiceFrom(top.raw('deadLetters'), 'deadLetters', problems);
  if (transport === 'kafka' && !top.has('kafka'))
    problems.add('kafka.bootstrapServers', 'is required with transport kafka (or fullyQualifiedNamespace for Azure Event Hubs)');
  if (transport === 'iggy' && !top.has('iggy')) problems.add('iggy.address', 'is required with transport iggy (host:port)');
  problems.throwIfAny();
  return {
    transport: transport!,
    ...(kafka === undefined ? {} : { kafka }),
    ...(iggy === undefined ? {} : { iggy }),
    deadLetters: deadLetters!,
    source,
  };
}

function isResolved(value: unknown): value is ResolvedConfig {
  return typeof value === 'object' && value !== null && (value as { source?: unknown }).source !== undefined && 'deadLetters' in value;
}

/** The transport the configuration chooses (memory, Kafka or Iggy), built with its options. */
export async function createTransport(config?: KeiyakuConfig | ResolvedConfig, options: ConfigureOptions = {}): Promise<Transport> {
  const resolved = isResolved(config) ? config : resolveConfig(config, options);
  options.logger?.info('keiyaku: transport from configuration', describeConfig(resolved));
  const logger = options.logger === undefined ? {} : { logger: options.logger };
  switch (resolved.transport) {
    case 'memory':
      return new (await import('../transports/memory.js')).InMemoryTransport();
    case 'kafka': {
      const { KafkaTransport } = await loadPackage('@keiyaku/kafka', transportKey(resolved));
      return new KafkaTransport({ ...resolved.kafka!, ...logger });
    }
    case 'iggy': {
      const { IggyTransport } = await loadPackage('@keiyaku/iggy', transportKey(resolved));
      return new IggyTransport({ ...resolved.iggy!, ...logger });
    }
  }
}

function transportKey(resolved: ResolvedConfig): string {
  return resolved.source === 'environment' ? 'KEIYAKU_TRANSPORT' : 'transport';
}

/** The dead-letter store the configuration chooses (memory by default). */
export async function createDeadLetterStore(
  config?: KeiyakuConfig | ResolvedConfig,
  options: ConfigureOptions = {},
): Promise<DeadLetterStore> {
  const resolved = isResolved(config) ? config : resolveConfig(config, options);
  const choice = resolved.deadLetters;
  const factory = options.stores?.[choice.store] ?? DEAD_LETTER_STORES[choice.store];
  if (factory === undefined)
    throw new ConfigurationError([
      {
        key: resolved.source === 'environment' ? 'KEIYAKU_DEAD_LETTERS' : 'deadLetters.store',
        message: `the ${choice.store} dead-letter store is not part of this build; pass a factory as stores.${choice.store}`,
      },
    ]);
  return factory(choice);
}

/**
 * The transport and dead-letter store of a configuration object, or (with none) of the
 * environment, ready for `createMessaging({ ...(await configure()), logger })`. Validation happens
 * before anything is built, so a bad configuration builds nothing.
 */
export async function configure(
  config?: KeiyakuConfig,
  options: ConfigureOptions = {},
): Promise<{ transport: Transport; deadLetters: DeadLetterStore }> {
  const resolved = resolveConfig(config, options);
  const transport = await createTransport(resolved, options);
  const deadLetters = await createDeadLetterStore(resolved, options);
  return { transport, deadLetters };
}

const SECRET = '(secret)';

/** The resolved configuration with every secret replaced, for logs and diagnostics. */
export function describeConfig(config: ResolvedConfig): Record<string, unknown> {
  const kafka = config.kafka;
  const ssl = kafka?.ssl;
  return {
    transport: config.transport,
    source: config.source,
    ...(kafka
      ? {
          kafka: {
            ...kafka,
            ...(kafka.sasl
              ? {
                  sasl: {
                    mechanism: kafka.sasl.mechanism,
                    username: 'username' in kafka.sasl ? kafka.sasl.username : undefined,
                    password: SECRET,
                  },
                }
              : {}),
            ...(ssl && typeof ssl === 'object'
              ? {
                  ssl: Object.fromEntries(
                    Object.entries(ssl).map(([k, v]) => [
                      k,
                      k === 'key' || k === 'passphrase' ? SECRET : typeof v === 'function' ? 'custom' : v,
                    ]),
                  ),
                }
              : {}),
          },
        }
      : {}),
    ...(config.iggy ? { iggy: { ...config.iggy, ...(config.iggy.password === undefined ? {} : { password: SECRET }) } } : {}),
    deadLetters: config.deadLetters.store === 'postgres' ? { ...config.deadLetters, connectionString: SECRET } : config.deadLetters,
  };
}

export { ENVIRONMENT_VARIABLES, type EnvironmentVariable, readEnvironment } from './env.js';
export type { IggySection } from './iggy.js';
export { EVENT_HUBS_PORT, EVENT_HUBS_USERNAME, type KafkaSection, kafkaOptionsFrom } from './kafka.js';
export { KAFKA_PROPERTIES, UNSUPPORTED_KAFKA_PROPERTIES } from './kafka-properties.js';
export { type ConfigProblem, ConfigurationError } from './problems.js';
export type { IggySettings, KafkaRetrySettings, KafkaSaslSettings, KafkaSettings } from './settings.js';
export type { DeadLetterChoice, DeadLetterSection, DeadLetterStoreFactory, DeadLetterStoreKind } from './stores.js';
