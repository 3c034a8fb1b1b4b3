/**
 * The environment variables a keiyaku configuration can come from (twelve-factor style). One
 * table, {@link ENVIRONMENT_VARIABLES}, is the reference (docs/configuration.md prints it); the
 * few variables other parts of keiyaku read are in {@link OTHER_ENVIRONMENT_VARIABLES}. Every other
 * variable named `KEIYAKU_*` (in any letter case) is a problem with a "did you mean", never ignored:
 * a typo such as `KEIYAKU_TRANSPROT=kafka` must not silently fall back to the in-memory default.
 * librdkafka properties are `KEIYAKU_KAFKA_PROPERTY_<KEY>` with the dots of the key written as
 * underscores (`KEIYAKU_KAFKA_PROPERTY_SECURITY_PROTOCOL` is `security.protocol`).
 */

import { type ConfigProblem, closest } from './problems.js';
import type { KeiyakuConfig } from './types.js';

export interface EnvironmentVariable {
  readonly name: string;
  /** The config path it sets. */
  readonly path: string;
  readonly description: string;
  readonly secret?: boolean;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'KEIYAKU_TRANSPORT', path: 'transport', description: 'memory (default), kafka or iggy' },
  { name: 'KEIYAKU_KAFKA_BOOTSTRAP_SERVERS', path: 'kafka.bootstrapServers', description: 'comma-separated host:port list' },
  { name: 'KEIYAKU_KAFKA_NAMESPACE', path: 'kafka.namespace', description: 'prefix of every topic and consumer group' },
  {
    name: 'KEIYAKU_KAFKA_FULLY_QUALIFIED_NAMESPACE',
    path: 'kafka.fullyQualifiedNamespace',
    description: 'Azure Event Hubs namespace host (port 9093, TLS, SASL/PLAIN as $ConnectionString)',
  },
  {
    name: 'KEIYAKU_KAFKA_CONNECTION_STRING',
    path: 'kafka.connectionString',
    description: "Azure Event Hubs: the namespace's connection string",
    secret: true,
  },
  { name: 'KEIYAKU_KAFKA_CLIENT_ID', path: 'kafka.clientId', description: 'kafkajs client id (default keiyaku)' },
  {
    name: 'KEIYAKU_KAFKA_PUBLISH_TIMEOUT_MS',
    path: 'kafka.publishTimeoutMs',
    description: 'how long a send may take before its caller is told (default 300000; 0 = no limit)',
  },
  {
    name: 'KEIYAKU_KAFKA_REBUILD_AFTER_MS',
    path: 'kafka.rebuildAfterMs',
    description: 'cut off this long: rebuild the client (default 90000)',
  },
  {
    name: 'KEIYAKU_KAFKA_MAX_REBUILD_INTERVAL_MS',
    path: 'kafka.maxRebuildIntervalMs',
    description: 'ceiling of the back-off between rebuilds (default 600000)',
  },
  {
    name: 'KEIYAKU_KAFKA_DEFAULT_PARTITIONS',
    path: 'kafka.defaultPartitions',
    description: 'partitions of topics without a binding (default 3)',
  },
  {
    name: 'KEIYAKU_KAFKA_REPLICATION_FACTOR',
    path: 'kafka.replicationFactor',
    description: 'replication factor of created topics (default 1)',
  },
  {
    name: 'KEIYAKU_KAFKA_CONTENT_MODE',
    path: 'kafka.contentMode',
    description: 'CloudEvents content mode: binary (default; ce_ headers) or structured (the event in the value)',
  },
  {
    name: 'KEIYAKU_KAFKA_DRIVER',
    path: 'kafka.driver',
    description: 'the Kafka client: kafkajs (default) or platformatic (@platformatic/kafka, installed by the service)',
  },
  {
    name: 'KEIYAKU_KAFKA_MAX_HEADERS',
    path: 'kafka.maxHeaders',
    description: 'most headers a record may carry (default 1000): publishers refuse more, kafkajs consumers park it',
  },
  {
    name: 'KEIYAKU_KAFKA_PROPERTY_<KEY>',
    path: 'kafka.properties',
    description: 'one librdkafka property, dots as underscores: KEIYAKU_KAFKA_PROPERTY_SASL_PASSWORD is sasl.password',
  },
  { name: 'KEIYAKU_IGGY_ADDRESS', path: 'iggy.address', description: 'host:port of the Iggy server (TCP)' },
  { name: 'KEIYAKU_IGGY_USERNAME', path: 'iggy.username', description: 'default iggy' },
  { name: 'KEIYAKU_IGGY_PASSWORD', path: 'iggy.password', description: 'default iggy', secret: true },
  { name: 'KEIYAKU_IGGY_STREAM', path: 'iggy.stream', description: 'stream of addresses without an x-iggy binding (default keiyaku)' },
  {
    name: 'KEIYAKU_IGGY_DEFAULT_PARTITIONS',
    path: 'iggy.defaultPartitions',
    description: 'partitions of topics without a binding (default 3)',
  },
  {
    name: 'KEIYAKU_IGGY_REQUEST_TIMEOUT_MS',
    path: 'iggy.requestTimeoutMs',
    description: 'a request without a reply this long fails (default 30000)',
  },
  {
    name: 'KEIYAKU_IGGY_HEARTBEAT_MS',
    path: 'iggy.heartbeatMs',
    description: 'ping an idle connection this often (default 5000; 0 = off)',
  },
  {
    name: 'KEIYAKU_SCHEMA_REGISTRY_URL',
    path: 'schemaRegistry.url',
    description: 'the Schema Registry of channels framed by their contract (Apicurio: …/apis/ccompat/v7)',
  },
  { name: 'KEIYAKU_SCHEMA_REGISTRY_USERNAME', path: 'schemaRegistry.username', description: 'basic auth user of the registry' },
  { name: 'KEIYAKU_SCHEMA_REGISTRY_PASSWORD', path: 'schemaRegistry.password', description: 'basic auth password', secret: true },
  { name: 'KEIYAKU_SCHEMA_REGISTRY_TOKEN', path: 'schemaRegistry.token', description: 'bearer token of the registry', secret: true },
  {
    name: 'KEIYAKU_SCHEMA_REGISTRY_AUTO_REGISTER',
    path: 'schemaRegistry.autoRegister',
    description: 'true: register a writer schema the subject lacks on first publish (default false: look up only)',
  },
  {
    name: 'KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY',
    path: 'schemaRegistry.subjectNameStrategy',
    description: 'topic (default, <topic>-value), record or topic-record, where the binding names none',
  },
  {
    name: 'KEIYAKU_SCHEMA_REGISTRY_TIMEOUT_MS',
    path: 'schemaRegistry.timeoutMs',
    description: 'most time one request may take (default 10000)',
  },
  { name: 'KEIYAKU_DEAD_LETTERS', path: 'deadLetters.store', description: 'memory (default), sqlite, postgres or mysql' },
  { name: 'KEIYAKU_DEAD_LETTERS_PATH', path: 'deadLetters.path', description: 'sqlite: the database file' },
  {
    name: 'KEIYAKU_DEAD_LETTERS_CONNECTION_STRING',
    path: 'deadLetters.connectionString',
    description: 'postgres: postgres://user:password@host:port/database; mysql: mysql://user:password@host:port/database',
    secret: true,
  },
  {
    name: 'KEIYAKU_DEAD_LETTERS_SCHEMA',
    path: 'deadLetters.schema',
    description: "postgres: schema of the table (its search_path; default the server's)",
  },
  {
    name: 'KEIYAKU_DEAD_LETTERS_MIGRATE',
    path: 'deadLetters.migrate',
    description: "true: create or upgrade the store's table at start-up (default false: migrate explicitly)",
  },
];

/** `KEIYAKU_*` variables that other parts of keiyaku (or a service, as the docs show) read: accepted here, not used. */
export const OTHER_ENVIRONMENT_VARIABLES: readonly { readonly name: string; readonly readBy: string }[] = [
  { name: 'KEIYAKU_OPS_TOKEN', readBy: "the operations server's operator token, passed by the service (docs/operations.md)" },
  { name: 'KEIYAKU_OPS_PORT', readBy: "the operations server's port in examples/serve.ts (docs/operations.md)" },
  { name: 'KEIYAKU_SCREENSHOT', readBy: "the dashboard's browser test: where to write its screenshot (docs/operations.md)" },
];

const PREFIX = /^keiyaku_/i;
const PROPERTY_PREFIX = 'KEIYAKU_KAFKA_PROPERTY_';

/** The suggestion for a `KEIYAKU_*` name that is not known. */
function suggestion(name: string, known: readonly string[]): string | undefined {
  const upper = name.toUpperCase();
  if (upper !== name && (known.includes(upper) || upper.startsWith(PROPERTY_PREFIX))) return upper;
  // KEIYAKU_KAFKA_PROPERTIES_X, KEIYAKU_KAFKA_PROP_X, KEIYAKU_KAFKA_PROPERTYX: the property family.
  const property = /^KEIYAKU_KAFKA_PROP(?:ERTY|ERTIES|S)?_?(.+)$/.exec(upper)?.[1];
  if (property !== undefined && !upper.startsWith(PROPERTY_PREFIX)) return `${PROPERTY_PREFIX}${property}`;
  // KEIYAKU_CONTENT_MODE: the one known name that ends the same way, its section left out.
  const rest = upper.slice('KEIYAKU_'.length);
  const bySuffix = known.filter((k) => k.endsWith(`_${rest}`));
  if (rest.length > 0 && bySuffix.length === 1) return bySuffix[0];
  return closest(upper, known);
}

export interface EnvironmentConfig {
  readonly config: KeiyakuConfig;
  /** Config path → the variable it came from, so problems name the variable. */
  readonly origins: ReadonlyMap<string, string>;
  /** `KEIYAKU_*` variables that mean nothing (misspelt, or in the wrong letter case). */
  readonly problems: readonly ConfigProblem[];
}

/** The configuration the environment describes (`process.env` unless given). */
export function readEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): EnvironmentConfig {
  const origins = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  const sections: Record<string, Record<string, unknown>> = {};
  const top: Record<string, unknown> = {};
  const byName = new Map(ENVIRONMENT_VARIABLES.map((v) => [v.name, v]));
  const section = (name: string): Record<string, unknown> => {
    const existing = sections[name];
    if (existing) return existing;
    const created: Record<string, unknown> = {};
    sections[name] = created;
    return created;
  };
  const knownNames = [
    ...ENVIRONMENT_VARIABLES.filter((v) => !v.name.includes('<')).map((v) => v.name),
    ...OTHER_ENVIRONMENT_VARIABLES.map((v) => v.name),
  ];
  const others = new Set(OTHER_ENVIRONMENT_VARIABLES.map((v) => v.name));
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !PREFIX.test(name) || others.has(name)) continue;
    if (name.startsWith(PROPERTY_PREFIX) && name.length > PROPERTY_PREFIX.length) {
      const key = name.slice(PROPERTY_PREFIX.length).toLowerCase().replace(/_/g, '.');
      const properties = (section('kafka')['properties'] ?? {}) as Record<string, unknown>;
      properties[key] = value;
      section('kafka')['properties'] = properties;
      origins.set(`kafka.properties["${key}"]`, name);
      continue;
    }
    const known = byName.get(name);
    if (known === undefined || known.path === 'kafka.properties') {
      const guess = suggestion(name, knownNames);
      problems.push({ key: name, message: `unknown keiyaku variable${guess ? `; did you mean ${guess}?` : ''}` });
      continue;
    }
    origins.set(known.path, name);
    const [name0, field] = known.path.split('.') as [string, string | undefined];
    if (field === undefined) top[name0] = value;
    else section(name0)[field] = value;
  }
  return { config: { ...top, ...sections } as KeiyakuConfig, origins, problems };
}
