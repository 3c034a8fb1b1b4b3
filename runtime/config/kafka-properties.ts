/**
 * librdkafka configuration properties (the `Properties` dictionary of a Confluent-client
 * configuration) mapped onto the Kafka transport's kafkajs options. Each supported key has one
 * row below; a key librdkafka knows but keiyaku cannot honour is refused with the reason, and any
 * other key is refused as unknown (with a "did you mean"). Nothing is silently ignored. Values of
 * secret keys (`sasl.password`, `ssl.key.password`, `ssl.key.pem`) never appear in a problem.
 *
 * @see https://github.com/confluentinc/librdkafka/blob/master/CONFIGURATION.md
 */
import { readFileSync } from 'node:fs';
import { closest, type Problems, shown } from './problems.js';
import { integerValue } from './section.js';
import type { KafkaRetrySettings } from './settings.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** What the properties say, before it is merged with the section's own keys. */
export interface KafkaPropertyValues {
  brokers?: string[];
  clientId?: string;
  securityProtocol?: SecurityProtocol;
  saslMechanism?: SaslMechanism;
  saslUsername?: string;
  saslPassword?: string;
  /** TLS options for Node's `tls.connect` (from the `ssl.*` keys), and which keys set them. */
  tls: {
    ca?: string;
    cert?: string;
    key?: string;
    passphrase?: string;
    rejectUnauthorized?: boolean;
    checkServerIdentity?: () => undefined;
  };
  tlsKeys: string[];
  saslKeys: string[];
  publishTimeoutMs?: number;
  ackTimeoutMs?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  maxWaitTimeInMs?: number;
  fromBeginning?: boolean;
  idempotent?: boolean;
  isolation?: 'read_committed' | 'read_uncommitted';
  transactionTimeoutMs?: number;
  retry: { -readonly [K in keyof KafkaRetrySettings]?: KafkaRetrySettings[K] };
}

interface Row {
  /** What the key becomes, for the documentation table. */
  readonly maps: string;
  readonly secret?: boolean;
  apply(out: KafkaPropertyValues, value: unknown, key: string, problems: Problems, display: string): void;
}

const ms = (set: (out: KafkaPropertyValues, value: number) => void, maps: string, max = 2_147_483_647): Row => ({
  maps,
  apply(out, value, _key, problems, display) {
    const n = integerValue(value, display, problems, { max });
    if (n !== undefined) set(out, n);
  },
});

function bool(value: unknown, display: string, problems: Problems): boolean | undefined {
  if (value === true || value === false) return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === 'true') return true;
  if (text === 'false') return false;
  problems.add(display, `must be true or false, got ${shown(value)}`);
  return undefined;
}

function text(value: unknown, display: string, problems: Problems, secret = false): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') {
    problems.add(display, `must be a string, got ${typeof value}`);
    return undefined;
  }
  const s = String(value);
  if (s.trim() === '') {
    problems.add(display, secret ? 'must not be empty (the value is secret and not shown)' : 'must not be empty');
    return undefined;
  }
  return s;
}

function file(value: unknown, display: string, problems: Problems): string | undefined {
  const path = text(value, display, problems);
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    problems.add(display, `cannot read ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return undefined;
  }
}

const tls = (maps: string, set: (out: KafkaPropertyValues, value: string) => void, read: 'file' | 'text', secret = false): Row => ({
  maps,
  secret,
  apply(out, value, key, problems, display) {
    const v = read === 'file' ? file(value, display, problems) : text(value, display, problems, secret);
    if (v === undefined) return;
    set(out, v);
    out.tlsKeys.push(key);
  },
});

const bootstrap: Row = {
  maps: 'brokers',
  apply(out, value, _key, problems, display) {
    const list =
      typeof value === 'string'
        ? value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
    if (list.length === 0) problems.add(display, 'must be a comma-separated list of host:port');
    else out.brokers = list;
  },
};

const messageTimeout = ms((o, v) => (o.publishTimeoutMs = v), 'publishTimeoutMs (0 = no limit)');

const retries: Row = {
  maps: 'retry.retries (kafkajs)',
  apply(out, value, _key, problems, display) {
    const n = integerValue(value, display, problems, { max: 2_147_483_647 });
    if (n !== undefined) out.retry.retries = n;
  },
};

const acks: Row = {
  maps: 'always all in-sync replicas (-1)',
  apply(_out, value, _key, problems, display) {
    const v = String(value).trim().toLowerCase();
    if (v !== 'all' && v !== '-1')
      problems.add(display, `keiyaku always waits for all in-sync replicas; only "all" or -1 is accepted, got ${shown(value)}`);
  },
};

/** The supported librdkafka keys. */
export const KAFKA_PROPERTIES: Readonly<Record<string, Row>> = {
  'bootstrap.servers': bootstrap,
  'metadata.broker.list': bootstrap,
  'client.id': {
    maps: 'clientId',
    apply(out, value, _key, problems, display) {
      const v = text(value, display, problems);
      if (v !== undefined) out.clientId = v;
    },
  },
  'security.protocol': {
    maps: 'ssl / sasl',
    apply(out, value, _key, problems, display) {
      const v = typeof value === 'string' ? value.trim().toUpperCase() : '';
      if (v === 'PLAINTEXT' || v === 'SSL' || v === 'SASL_PLAINTEXT' || v === 'SASL_SSL') out.securityProtocol = v;
      else problems.add(display, `must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL, got ${shown(value)}`);
    },
  },
  'sasl.mechanism': {
    maps: 'sasl.mechanism',
    apply(out, value, key, problems, display) {
      const v = typeof value === 'string' ? value.trim().toUpperCase() : '';
      out.saslKeys.push(key);
      if (v === 'PLAIN') out.saslMechanism = 'plain';
      else if (v === 'SCRAM-SHA-256') out.saslMechanism = 'scram-sha-256';
      else if (v === 'SCRAM-SHA-512') out.saslMechanism = 'scram-sha-512';
      else if (v === 'GSSAPI' || v === 'OAUTHBEARER')
        problems.add(display, `${v} is not supported by the Kafka transport (kafkajs); use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512`);
      else problems.add(display, `must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, got ${shown(value)}`);
    },
  },
  'sasl.username': {
    maps: 'sasl.username',
    apply(out, value, key, problems, display) {
      out.saslKeys.push(key);
      const v = text(value, display, problems);
      if (v !== undefined) out.saslUsername = v;
    },
  },
  'sasl.password': {
    maps: 'sasl.password',
    secret: true,
    apply(out, value, key, problems, display) {
      out.saslKeys.push(key);
      const v = text(value, display, problems, true);
      if (v !== undefined) out.saslPassword = v;
    },
  },
  'ssl.ca.location': tls('ssl.ca (file contents)', (o, v) => (o.tls.ca = v), 'file'),
  'ssl.ca.pem': tls('ssl.ca', (o, v) => (o.tls.ca = v), 'text'),
  'ssl.certificate.location': tls('ssl.cert (file contents)', (o, v) => (o.tls.cert = v), 'file'),
  'ssl.certificate.pem': tls('ssl.cert', (o, v) => (o.tls.cert = v), 'text'),
  'ssl.key.location': tls('ssl.key (file contents)', (o, v) => (o.tls.key = v), 'file'),
  'ssl.key.pem': tls('ssl.key', (o, v) => (o.tls.key = v), 'text', true),
  'ssl.key.password': tls('ssl.passphrase', (o, v) => (o.tls.passphrase = v), 'text', true),
  'enable.ssl.certificate.verification': {
    maps: 'ssl.rejectUnauthorized',
    apply(out, value, key, problems, display) {
      const v = bool(value, display, problems);
      if (v === undefined) return;
      out.tls.rejectUnauthorized = v;
      out.tlsKeys.push(key);
    },
  },
  'ssl.endpoint.identification.algorithm': {
    maps: 'ssl.checkServerIdentity (none: not checked)',
    apply(out, value, key, problems, display) {
      const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
      if (v === 'https') return;
      if (v === 'none') {
        out.tls.checkServerIdentity = () => undefined;
        out.tlsKeys.push(key);
      } else problems.add(display, `must be https or none, got ${shown(value)}`);
    },
  },
  'message.timeout.ms': messageTimeout,
  'delivery.timeout.ms': messageTimeout,
  'request.timeout.ms': ms((o, v) => (o.ackTimeoutMs = v), 'ackTimeoutMs (the broker-side ack timeout of a send)'),
  'socket.timeout.ms': ms((o, v) => (o.requestTimeout = v), 'client.requestTimeout'),
  'socket.connection.setup.timeout.ms': ms((o, v) => (o.connectionTimeout = v), 'client.connectionTimeout'),
  'session.timeout.ms': ms((o, v) => (o.sessionTimeoutMs = v), 'sessionTimeoutMs'),
  'heartbeat.interval.ms': ms((o, v) => (o.heartbeatIntervalMs = v), 'heartbeatIntervalMs'),
  'fetch.wait.max.ms': ms((o, v) => (o.maxWaitTimeInMs = v), 'maxWaitTimeInMs'),
  'auto.offset.reset': {
    maps: 'fromBeginning',
    apply(out, value, _key, problems, display) {
      const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
      if (v === 'earliest' || v === 'smallest' || v === 'beginning') out.fromBeginning = true;
      else if (v === 'latest' || v === 'largest' || v === 'end') out.fromBeginning = false;
      else problems.add(display, `must be earliest or latest, got ${shown(value)}`);
    },
  },
  'enable.idempotence': {
    maps: 'idempotent',
    apply(out, value, _key, problems, display) {
      const v = bool(value, display, problems);
      if (v !== undefined) out.idempotent = v;
    },
  },
  'isolation.level': {
    maps: 'isolation',
    apply(out, value, _key, problems, display) {
      const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
      if (v === 'read_committed' || v === 'read_uncommitted') out.isolation = v;
      else problems.add(display, `must be read_committed or read_uncommitted, got ${shown(value)}`);
    },
  },
  'transaction.timeout.ms': ms((o, v) => (o.transactionTimeoutMs = v), 'transactionTimeoutMs'),
  retries,
  'message.send.max.retries': retries,
  'retry.backoff.ms': ms((o, v) => (o.retry.initialRetryTime = v), 'retry.initialRetryTime (kafkajs)'),
  'retry.backoff.max.ms': ms((o, v) => (o.retry.maxRetryTime = v), 'retry.maxRetryTime (kafkajs)'),
  acks,
  'request.required.acks': acks,
  'enable.auto.commit': {
    maps: 'always false',
    apply(_out, value, _key, problems, display) {
      if (bool(value, display, problems) === true)
        problems.add(display, 'keiyaku commits only what handlers acknowledged; auto-commit cannot be enabled');
    },
  },
};

/** librdkafka keys that exist but that the Kafka transport cannot honour, with the reason. */
export const UNSUPPORTED_KAFKA_PROPERTIES: Readonly<Record<string, string>> = {
  'group.id': 'each handler names its own consumer group (its groupId); set namespace to prefix them',
  'group.instance.id': 'static group membership is not supported by kafkajs',
  'transactional.id':
    "transactional ids are per producer: Transport.transactionalProducer(id), or the outbox dispatcher's transactional option",
  'compression.type': 'compression is not configurable in the Kafka transport',
  'compression.codec': 'compression is not configurable in the Kafka transport',
  'linger.ms': "batching is the publisher's (PublisherOptions.lingerMs, maxBatchCount, maxBatchBytes)",
  'queue.buffering.max.ms': "batching is the publisher's (PublisherOptions.lingerMs)",
  'batch.size': "batching is the publisher's (PublisherOptions.maxBatchBytes)",
  'batch.num.messages': "batching is the publisher's (PublisherOptions.maxBatchCount)",
  'partition.assignment.strategy': 'kafkajs assigns with its round-robin assigner',
  'sasl.kerberos.service.name': 'GSSAPI (Kerberos) is not supported by kafkajs',
  'sasl.oauthbearer.config': 'OAUTHBEARER is not supported through properties',
  'sasl.oauthbearer.method': 'OAUTHBEARER is not supported through properties',
  'statistics.interval.ms': 'kafkajs has no statistics callback',
  debug: 'kafkajs logs through the logger given to the transport',
};

const SECRET_PROPERTIES = new Set(Object.entries(KAFKA_PROPERTIES).flatMap(([k, row]) => (row.secret ? [k] : [])));

export function isSecretProperty(key: string): boolean {
  return SECRET_PROPERTIES.has(key);
}

/** Reads a librdkafka properties object; every problem is recorded under `display(key)`. */
export function readKafkaProperties(
  properties: Readonly<Record<string, unknown>>,
  problems: Problems,
  display: (key: string) => string,
): KafkaPropertyValues {
  const out: KafkaPropertyValues = { tls: {}, tlsKeys: [], saslKeys: [], retry: {} };
  for (const [rawKey, value] of Object.entries(properties)) {
    const key = rawKey.trim() === 'sasl.mechanisms' ? 'sasl.mechanism' : rawKey.trim();
    const row = KAFKA_PROPERTIES[key];
    if (row) {
      row.apply(out, value, key, problems, display(rawKey));
      continue;
    }
    const reason = UNSUPPORTED_KAFKA_PROPERTIES[key];
    if (reason !== undefined) {
      problems.add(display(rawKey), `is not supported: ${reason}`);
      continue;
    }
    const guess = closest(key, [...Object.keys(KAFKA_PROPERTIES), 'sasl.mechanisms']);
    problems.add(
      display(rawKey),
      `unknown librdkafka property${guess ? `; did you mean ${guess}?` : ''} (supported: see docs/configuration.md)`,
    );
  }
  return out;
}
