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
import type { SchemaRegistrySetup } from '../registry/binding.js';
import { SchemaRegistryClient } from '../registry/client.js';
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import { type ConfigChoice, describeChoice, markChoice } from './choice.js';
import { ENVIRONMENT_VARIABLES, type EnvironmentConfig, readEnvironment } from './env.js';
import { iggyOptionsFrom } from './iggy.js';
import { kafkaOptionsFrom } from './kafka.js';
import { loadPackage } from './packages.js';
import { ConfigurationError, Problems } from './problems.js';
import { type SchemaRegistrySettings, schemaRegistryFrom } from './registry.js';
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

/** A validated configuration: the options each part is built with. */
export interface ResolvedConfig {
  readonly transport: TransportKind;
  readonly kafka?: KafkaSettings;
  readonly iggy?: IggySettings;
  readonly deadLetters: DeadLetterChoice;
  /** The Schema Registry of channels framed by their contract, when configured. */
  readonly schemaRegistry?: SchemaRegistrySettings;
  /** Where it came from: an object (or a file; see {@link ConfigureOptions.file}) or, with none, the environment. */
  readonly source: 'object' | 'environment';
  /** Which transport and dead-letter store were chosen, and from where (default, file, object, environment). */
  readonly chosen: { readonly transport: ConfigChoice; readonly deadLetters: ConfigChoice };
}

export interface ConfigureOptions {
  /** The environment to read when no configuration object is given (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Also read the environment when a configuration object is given: each `KEIYAKU_*` variable
   * wins over the key it sets (a file for every stage, the environment for what differs). Unknown
   * `KEIYAKU_*` variables are problems either way. Default false: an object alone.
   */
  readonly withEnvironment?: boolean;
  /**
   * The file the configuration object was read from: problems name it (`keiyaku.json: kafka.bootstrapServers`),
   * and health and the operations page show `file` as the source of what it chose.
   */
  readonly file?: string;
  /** Given to the transport; hears one line saying what was built (secrets left out). */
  readonly logger?: Logger;
  /** Dead-letter store factories to add or replace (e.g. a PostgreSQL store). */
  readonly stores?: Partial<Record<DeadLetterStoreKind, DeadLetterStoreFactory>>;
}

const TOP_KEYS = ['transport', 'kafka', 'iggy', 'deadLetters', 'schemaRegistry'] as const;

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
export function resolveConfig(config?: unknown, options: Pick<ConfigureOptions, 'env' | 'withEnvironment' | 'file'> = {}): ResolvedConfig {
  const source = config === undefined ? 'environment' : 'object';
  const file = config === undefined ? undefined : options.file;
  const env: EnvironmentConfig | undefined =
    config === undefined || options.withEnvironment === true ? readEnvironment(options.env ?? process.env) : undefined;
  const origins = env?.origins ?? new Map<string, string>();
  const raw = env === undefined ? config : config === undefined ? env.config : overlay(config, env.config as Record<string, unknown>);
  const named = environmentNamer(origins);
  const problems = new Problems(
    env === undefined && file === undefined
      ? undefined
      : (path) => (origins.has(path) || config === undefined ? named(path) : file === undefined ? path : `${file}: ${path}`),
  );
  problems.list.push(...(env?.problems ?? []));
  const top = new SectionReader(raw, '', TOP_KEYS, problems);
  const transport = top.oneOf('transport', ['memory', 'kafka', 'iggy'] as const) ?? (top.has('transport') ? undefined : 'memory');
  const kafka = top.has('kafka') ? kafkaOptionsFrom(top.raw('kafka'), 'kafka', problems) : undefined;
  const iggy = top.has('iggy') ? iggyOptionsFrom(top.raw('iggy'), 'iggy', problems) : undefined;
  const deadLetters = deadLetterChoiceFrom(top.raw('deadLetters'), 'deadLetters', problems);
  const schemaRegistry = top.has('schemaRegistry') ? schemaRegistryFrom(top.raw('schemaRegistry'), 'schemaRegistry', problems) : undefined;
  if (transport === 'kafka' && !top.has('kafka'))
    problems.add('kafka.bootstrapServers', 'is required with transport kafka (or fullyQualifiedNamespace for Azure Event Hubs)');
  if (transport === 'iggy' && !top.has('iggy')) problems.add('iggy.address', 'is required with transport iggy (host:port)');
  problems.throwIfAny();
  const choice = (kind: string, path: string, written: boolean): ConfigChoice => {
    const variable = origins.get(path);
    if (variable !== undefined) return { kind, source: 'environment', from: variable };
    if (!written) return { kind, source: 'default' };
    return file === undefined ? { kind, source: 'object', from: path } : { kind, source: 'file', from: `${file}: ${path}` };
  };
  return {
    transport: transport!,
    ...(kafka === undefined ? {} : { kafka }),
    ...(iggy === undefined ? {} : { iggy }),
    deadLetters: deadLetters!,
    ...(schemaRegistry === undefined ? {} : { schemaRegistry }),
    source,
    chosen: {
      transport: choice(transport!, 'transport', top.has('transport')),
      deadLetters: choice(deadLetters!.store, 'deadLetters.store', hasKey(top.raw('deadLetters'), 'store')),
    },
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `section` has `key` (keys match case-insensitively, as the section readers match them). */
function hasKey(section: unknown, key: string): boolean {
  return isRecord(section) && Object.keys(section).some((k) => k.toLowerCase() === key.toLowerCase() && section[k] !== undefined);
}

/** `over` laid over `base`, section by section; keys match case-insensitively and `over` wins. */
function overlay(base: unknown, over: Record<string, unknown>): unknown {
  if (!isRecord(base)) return base; // not an object: the top-level reader reports it
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = Object.keys(out).find((k) => k.toLowerCase() === key.toLowerCase());
    const prior = existing === undefined ? undefined : out[existing];
    if (existing !== undefined) delete out[existing];
    out[key] = isRecord(value) && isRecord(prior) ? overlay(prior, value) : value;
  }
  return out;
}

function isResolved(value: unknown): value is ResolvedConfig {
  return typeof value === 'object' && value !== null && (value as { source?: unknown }).source !== undefined && 'deadLetters' in value;
}

/** The transport the configuration chooses (memory, Kafka or Iggy), built with its options. */
export async function createTransport(config?: KeiyakuConfig | ResolvedConfig, options: ConfigureOptions = {}): Promise<Transport> {
  const resolved = isResolved(config) ? config : resolveConfig(config, options);
  options.logger?.info('keiyaku: transport from configuration', describeConfig(resolved));
  return markChoice(await buildTransport(resolved, options.logger), chosenOf(resolved).transport);
}

async function buildTransport(resolved: ResolvedConfig, logger: Logger | undefined): Promise<Transport> {
  const own = logger === undefined ? {} : { logger };
  switch (resolved.transport) {
    case 'memory':
      return new (await import('../memory/transport.js')).InMemoryTransport();
    case 'kafka': {
      const { createKafkaTransport } = await loadPackage('@keiyaku/kafka', transportKey(resolved));
      // The platformatic driver's client is the service's to install: missing, it is a problem of
      // the setting that chose it, found before anything is built.
      if (resolved.kafka!.driver === 'platformatic') await loadPackage('@platformatic/kafka', driverKey(resolved));
      return createKafkaTransport({ ...resolved.kafka!, ...own });
    }
    case 'iggy': {
      const { IggyTransport } = await loadPackage('@keiyaku/iggy', transportKey(resolved));
      return new IggyTransport({ ...resolved.iggy!, ...own });
    }
  }
}

/** The choices of a resolved configuration (one resolved before `chosen` existed: from its `source`). */
function chosenOf(resolved: ResolvedConfig): ResolvedConfig['chosen'] {
  const source = resolved.source === 'environment' ? 'environment' : 'object';
  return (
    (resolved as Partial<ResolvedConfig>).chosen ?? {
      transport: { kind: resolved.transport, source },
      deadLetters: { kind: resolved.deadLetters.store, source },
    }
  );
}

/** The setting that chose the Kafka driver: the environment variable or the configuration key. */
function driverKey(resolved: ResolvedConfig): string {
  return resolved.source === 'environment' ? 'KEIYAKU_KAFKA_DRIVER' : 'kafka.driver';
}

function transportKey(resolved: ResolvedConfig): string {
  const chosen = chosenOf(resolved).transport;
  return chosen.source === 'environment' ? 'KEIYAKU_TRANSPORT' : (chosen.from ?? 'transport');
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
        key: chosenOf(resolved).deadLetters.from ?? (resolved.source === 'environment' ? 'KEIYAKU_DEAD_LETTERS' : 'deadLetters.store'),
        message: `the ${choice.store} dead-letter store is not part of this build; pass a factory as stores.${choice.store}`,
      },
    ]);
  return markChoice(await factory(choice), chosenOf(resolved).deadLetters);
}

/**
 * The transport and dead-letter store of a configuration object, or (with none) of the
 * environment, ready for `createMessaging({ ...(await configure()), logger })`. Validation happens
 * before anything is built, so a bad configuration builds nothing.
 */
export async function configure(
  config?: KeiyakuConfig,
  options: ConfigureOptions = {},
): Promise<{ transport: Transport; deadLetters: DeadLetterStore; schemaRegistry?: SchemaRegistrySetup }> {
  const resolved = resolveConfig(config, options);
  const transport = await createTransport(resolved, options);
  const deadLetters = await createDeadLetterStore(resolved, options);
  const schemaRegistry = createSchemaRegistry(resolved);
  return schemaRegistry === undefined ? { transport, deadLetters } : { transport, deadLetters, schemaRegistry };
}

/** The Schema Registry the configuration names (client and defaults), for `createMessaging({ schemaRegistry })`; undefined when it names none. */
export function createSchemaRegistry(
  config?: KeiyakuConfig | ResolvedConfig,
  options: ConfigureOptions = {},
): SchemaRegistrySetup | undefined {
  const resolved = isResolved(config) ? config : resolveConfig(config, options);
  const settings = resolved.schemaRegistry;
  if (settings === undefined) return undefined;
  const client = new SchemaRegistryClient({
    url: settings.url,
    ...(settings.auth === undefined ? {} : { auth: settings.auth }),
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
  });
  return { client, autoRegister: settings.autoRegister, subjectNameStrategy: settings.subjectNameStrategy };
}

const SECRET = '(secret)';

/** The resolved configuration with every secret replaced, for logs and diagnostics. */
export function describeConfig(config: ResolvedConfig): Record<string, unknown> {
  const kafka = config.kafka;
  const ssl = kafka?.ssl;
  const chosen = chosenOf(config);
  return {
    transport: config.transport,
    source: config.source,
    chosen: { transport: describeChoice(chosen.transport), deadLetters: describeChoice(chosen.deadLetters) },
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
    deadLetters: 'connectionString' in config.deadLetters ? { ...config.deadLetters, connectionString: SECRET } : config.deadLetters,
    ...(config.schemaRegistry === undefined
      ? {}
      : {
          schemaRegistry: {
            ...config.schemaRegistry,
            url: config.schemaRegistry.url.replace(/\/\/[^/@]*@/, '//(secret)@'),
            ...(config.schemaRegistry.auth === undefined
              ? {}
              : {
                  auth:
                    'token' in config.schemaRegistry.auth
                      ? { token: SECRET }
                      : { username: config.schemaRegistry.auth.username, password: SECRET },
                }),
          },
        }),
  };
}
