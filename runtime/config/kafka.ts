/**
 * The `kafka` section of a keiyaku configuration (Nagare's `Kafka` section: BootstrapServers,
 * Namespace, FullyQualifiedNamespace, Properties) turned into {@link KafkaSettings} (the Kafka transport's options).
 *
 * ```json
 * { "kafka": { "bootstrapServers": "broker:9092", "namespace": "my-app",
 *              "properties": { "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
 *                              "sasl.username": "$ConnectionString", "sasl.password": "…" } } }
 * ```
 *
 * Azure Event Hubs: `fullyQualifiedNamespace` (`my-eventhub.servicebus.windows.net`) means the
 * namespace's Kafka endpoint on port 9093, TLS, and SASL/PLAIN with the user `$ConnectionString`
 * and the namespace's connection string as the password (`connectionString`, or
 * `properties["sasl.password"]`).
 */
import { type KafkaPropertyValues, readKafkaProperties } from './kafka-properties.js';
import type { Problems } from './problems.js';
import { SectionReader } from './section.js';
import type { KafkaSaslSettings, KafkaSettings } from './settings.js';

/** The `kafka` section, as written in a configuration file or built from the environment. */
export interface KafkaSection {
  /** `host:port` list (array or comma-separated). Not with `fullyQualifiedNamespace`. */
  readonly bootstrapServers?: string | readonly string[];
  /** Prefix of every topic and consumer group (`<namespace>.`). */
  readonly namespace?: string;
  /** Azure Event Hubs namespace host (`<name>.servicebus.windows.net`): port 9093, TLS, SASL/PLAIN as `$ConnectionString`. */
  readonly fullyQualifiedNamespace?: string;
  /** Event Hubs: the namespace's connection string (secret), the SASL/PLAIN password. */
  readonly connectionString?: string;
  readonly clientId?: string;
  /** librdkafka properties (`security.protocol`, `sasl.*`, `ssl.*`, `message.timeout.ms`, …). */
  readonly properties?: Readonly<Record<string, string | number | boolean>>;
  /** How long a send may take before its caller is told (librdkafka `message.timeout.ms`; default 300 000, 0 = no limit). */
  readonly publishTimeoutMs?: number | string;
  readonly rebuildAfterMs?: number | string;
  readonly maxRebuildIntervalMs?: number | string;
  readonly defaultPartitions?: number | string;
  readonly replicationFactor?: number | string;
  /** CloudEvents content mode of every record written: `binary` (default; attributes in `ce_` headers) or `structured` (the whole event in the value). */
  readonly contentMode?: string;
  /** The Kafka client: `kafkajs` (default) or `platformatic` (`@platformatic/kafka`, which the service installs). */
  readonly driver?: string;
}

export const KAFKA_SECTION_KEYS = [
  'bootstrapServers',
  'namespace',
  'fullyQualifiedNamespace',
  'connectionString',
  'clientId',
  'properties',
  'publishTimeoutMs',
  'rebuildAfterMs',
  'maxRebuildIntervalMs',
  'defaultPartitions',
  'replicationFactor',
  'contentMode',
  'driver',
] as const;

/** The Kafka drivers a configuration can choose (`@keiyaku/kafka`'s `KAFKA_DRIVERS`). */
export const KAFKA_DRIVER_NAMES = ['kafkajs', 'platformatic'] as const;

/** The Event Hubs Kafka endpoint's port and SASL user. */
export const EVENT_HUBS_PORT = 9093;
export const EVENT_HUBS_USERNAME = '$ConnectionString';

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

/** Reads and validates the section; problems go to `problems` (nothing is thrown here). */
export function kafkaOptionsFrom(raw: unknown, path: string, problems: Problems): KafkaSettings | undefined {
  const section = new SectionReader(raw, path, KAFKA_SECTION_KEYS, problems);
  const before = problems.list.length;
  const servers = section.list('bootstrapServers');
  const namespace = section.string('namespace');
  const fqns = section.string('fullyQualifiedNamespace');
  const connectionString = section.string('connectionString', { secret: true });
  const clientId = section.string('clientId');
  const propertiesRaw = section.record('properties');
  const props: KafkaPropertyValues = propertiesRaw
    ? readKafkaProperties(propertiesRaw, problems, (key) => `${section.at('properties')}["${key}"]`)
    : { tls: {}, tlsKeys: [], saslKeys: [], retry: {} };
  const publishTimeoutMs = section.integer('publishTimeoutMs', { max: 2_147_483_647 });
  const rebuildAfterMs = section.integer('rebuildAfterMs', { min: 1, max: 2_147_483_647 });
  const maxRebuildIntervalMs = section.integer('maxRebuildIntervalMs', { min: 1, max: 2_147_483_647 });
  const defaultPartitions = section.integer('defaultPartitions', { min: 1, max: 100_000 });
  const replicationFactor = section.integer('replicationFactor', { min: 1, max: 32_767 });
  const contentMode = section.oneOf('contentMode', ['binary', 'structured'] as const);
  const driver = section.oneOf('driver', KAFKA_DRIVER_NAMES);
  const prop = (key: string): string => `${section.at('properties')}["${key}"]`;

  if (namespace !== undefined && !/^[A-Za-z0-9._-]+$/.test(namespace))
    problems.add(section.at('namespace'), 'may only hold letters, digits, ".", "_" and "-" (it prefixes topic names)');
  for (const server of servers ?? [])
    if (!HOST_PORT.test(server)) problems.add(section.at('bootstrapServers'), `${JSON.stringify(server)} is not host:port`);
  if (clientId !== undefined && props.clientId !== undefined && clientId !== props.clientId)
    problems.add(prop('client.id'), `conflicts with ${problems.key(section.at('clientId'))}; set one of them`);
  if (publishTimeoutMs !== undefined && props.publishTimeoutMs !== undefined && publishTimeoutMs !== props.publishTimeoutMs)
    problems.add(prop('message.timeout.ms'), `conflicts with ${problems.key(section.at('publishTimeoutMs'))}; set one of them`);

  let brokers = servers ?? props.brokers;
  if (servers && props.brokers)
    problems.add(prop('bootstrap.servers'), `conflicts with ${problems.key(section.at('bootstrapServers'))}; set one of them`);
  let protocol = props.securityProtocol;
  let sasl: KafkaSaslSettings | undefined;

  if (fqns !== undefined) {
    if (brokers)
      problems.add(section.at('fullyQualifiedNamespace'), `use either it or ${problems.key(section.at('bootstrapServers'))}, not both`);
    brokers = [`${fqns}:${EVENT_HUBS_PORT}`];
    sasl = eventHubsSasl(fqns, connectionString, protocol, props, section, problems);
    protocol = 'SASL_SSL';
  } else {
    if (connectionString !== undefined)
      problems.add(
        section.at('connectionString'),
        `is only used with ${problems.key(section.at('fullyQualifiedNamespace'))} (Azure Event Hubs)`,
      );
    sasl = saslOf(protocol, props, prop, problems);
    if (!brokers) problems.add(section.at('bootstrapServers'), 'is required (or fullyQualifiedNamespace for Azure Event Hubs)');
  }
  const wantsTls = protocol === 'SSL' || protocol === 'SASL_SSL';
  if (!wantsTls && props.tlsKeys.length > 0) problems.add(prop(props.tlsKeys[0]!), 'TLS settings need security.protocol SSL or SASL_SSL');

  if (problems.list.length > before) return undefined;
  const ssl: KafkaSettings['ssl'] = wantsTls ? (props.tlsKeys.length > 0 ? { ...props.tls } : true) : undefined;
  const client: { requestTimeout?: number; connectionTimeout?: number } = {
    ...(props.requestTimeout === undefined ? {} : { requestTimeout: props.requestTimeout }),
    ...(props.connectionTimeout === undefined ? {} : { connectionTimeout: props.connectionTimeout }),
  };
  const timeout = publishTimeoutMs ?? props.publishTimeoutMs;
  return {
    ...(driver === undefined ? {} : { driver }),
    brokers: brokers ?? [],
    ...((clientId ?? props.clientId) ? { clientId: (clientId ?? props.clientId)! } : {}),
    ...(namespace === undefined ? {} : { namespace }),
    ...(ssl === undefined ? {} : { ssl }),
    ...(sasl === undefined ? {} : { sasl }),
    ...(Object.keys(client).length > 0 ? { client } : {}),
    ...(Object.keys(props.retry).length > 0 ? { retry: props.retry } : {}),
    ...(timeout === undefined ? {} : { publishTimeoutMs: timeout }),
    ...(props.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: props.ackTimeoutMs }),
    ...(props.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: props.sessionTimeoutMs }),
    ...(props.heartbeatIntervalMs === undefined ? {} : { heartbeatIntervalMs: props.heartbeatIntervalMs }),
    ...(props.maxWaitTimeInMs === undefined ? {} : { maxWaitTimeInMs: props.maxWaitTimeInMs }),
    ...(props.fromBeginning === undefined ? {} : { fromBeginning: props.fromBeginning }),
    ...(props.idempotent === undefined ? {} : { idempotent: props.idempotent }),
    ...(props.isolation === undefined ? {} : { isolation: props.isolation }),
    ...(props.transactionTimeoutMs === undefined ? {} : { transactionTimeoutMs: props.transactionTimeoutMs }),
    ...(rebuildAfterMs === undefined ? {} : { rebuildAfterMs }),
    ...(maxRebuildIntervalMs === undefined ? {} : { maxRebuildIntervalMs }),
    ...(defaultPartitions === undefined ? {} : { defaultPartitions }),
    ...(replicationFactor === undefined ? {} : { replicationFactor }),
    ...(contentMode === undefined ? {} : { contentMode }),
  };
}

/**
 * Azure Event Hubs: the options a fully qualified namespace implies are fixed; properties may repeat
 * them but not contradict them. The SASL settings of the connection string.
 */
function eventHubsSasl(
  fqns: string,
  connectionString: string | undefined,
  protocol: string | undefined,
  props: KafkaPropertyValues,
  section: SectionReader,
  problems: Problems,
): KafkaSaslSettings {
  const prop = (key: string): string => `${section.at('properties')}["${key}"]`;
  if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(fqns))
    problems.add(
      section.at('fullyQualifiedNamespace'),
      `must be a host name such as my-eventhub.servicebus.windows.net, got ${JSON.stringify(fqns)}`,
    );
  if (protocol !== undefined && protocol !== 'SASL_SSL')
    problems.add(prop('security.protocol'), `Event Hubs needs SASL_SSL, got ${protocol}`);
  if (props.saslMechanism !== undefined && props.saslMechanism !== 'plain')
    problems.add(prop('sasl.mechanism'), 'Event Hubs with a connection string needs PLAIN');
  if (props.saslUsername !== undefined && props.saslUsername !== EVENT_HUBS_USERNAME)
    problems.add(prop('sasl.username'), `Event Hubs with a connection string needs the user ${EVENT_HUBS_USERNAME}`);
  if (connectionString !== undefined && props.saslPassword !== undefined && connectionString !== props.saslPassword)
    problems.add(
      prop('sasl.password'),
      `conflicts with ${problems.key(section.at('connectionString'))}; set one of them (values not shown)`,
    );
  const password = connectionString ?? props.saslPassword;
  if (password === undefined)
    problems.add(
      section.at('connectionString'),
      "is required with fullyQualifiedNamespace: the namespace's connection string (Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…)",
    );
  else checkConnectionString(password, fqns, section.at('connectionString'), problems);
  return { mechanism: 'plain', username: EVENT_HUBS_USERNAME, password: password ?? '' };
}

/** The SASL settings of a SASL_* security protocol (each one required); SASL properties without one are a problem. */
function saslOf(
  protocol: string | undefined,
  props: KafkaPropertyValues,
  prop: (key: string) => string,
  problems: Problems,
): KafkaSaslSettings | undefined {
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    if (props.saslMechanism === undefined) problems.add(prop('sasl.mechanism'), `is required with security.protocol ${protocol}`);
    if (props.saslUsername === undefined) problems.add(prop('sasl.username'), `is required with security.protocol ${protocol}`);
    if (props.saslPassword === undefined) problems.add(prop('sasl.password'), `is required with security.protocol ${protocol}`);
    return {
      mechanism: props.saslMechanism ?? 'plain',
      username: props.saslUsername ?? '',
      password: props.saslPassword ?? '',
    } as KafkaSaslSettings;
  }
  if (props.saslKeys.length > 0) problems.add(prop(props.saslKeys[0]!), 'SASL settings need security.protocol SASL_PLAINTEXT or SASL_SSL');
  return undefined;
}

/** An Event Hubs connection string names its namespace in `Endpoint=sb://<host>/`; it must be the configured one. */
function checkConnectionString(value: string, fqns: string, key: string, problems: Problems): void {
  const endpoint = /(?:^|;)\s*Endpoint\s*=\s*sb:\/\/([^/;]+)\/?/i.exec(value)?.[1];
  const hasKey = /(?:^|;)\s*SharedAccessKey(Name)?\s*=/i.test(value);
  if (endpoint === undefined || !hasKey) {
    problems.add(key, 'is not an Event Hubs connection string (Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…; value not shown)');
    return;
  }
  if (endpoint.toLowerCase() !== fqns.toLowerCase())
    problems.add(key, `names the namespace ${endpoint}, but fullyQualifiedNamespace is ${fqns}`);
}
