// Configuration from a plain object or from the environment: the options each transport is built
// with, Azure Event Hubs, librdkafka properties, every problem listed at once with its key, and
// secrets kept out of errors and logs. (Round trips over the real broker and the Iggy protocol
// double: test/config/config-transports.test.ts.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IggyTransport } from '@keiyaku/iggy';
import { KafkaTransport } from '@keiyaku/kafka';
import { InMemoryDeadLetterStore, type Logger } from '@keiyaku/runtime';
import {
  ConfigurationError,
  configure,
  createDeadLetterStore,
  createTransport,
  describeConfig,
  ENVIRONMENT_VARIABLES,
  resolveConfig,
} from '@keiyaku/runtime/config';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { SqliteDeadLetterStore } from '@keiyaku/sqlite';
import { describe, expect, it } from 'vitest';

const CONNECTION_STRING =
  'Endpoint=sb://my-eventhub.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=c2VjcmV0LWtleS1kby1ub3Qtc2hvdw==';

function problemsOf(run: () => unknown): { key: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe('invalid_configuration');
    return [...(error as ConfigurationError).problems];
  }
  throw new Error('expected a ConfigurationError');
}

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { logger: { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') }, lines };
}

describe('the seed JSON (Nagare appsettings.json Kafka sections) as configuration objects', () => {
  it('BootstrapServers + Namespace: brokers and namespace, keys matched case-insensitively', () => {
    const config = resolveConfig({ transport: 'kafka', Kafka: { BootstrapServers: 'localhost:9092', Namespace: 'my-app' } });
    expect(config.transport).toBe('kafka');
    expect(config.kafka).toEqual({ brokers: ['localhost:9092'], namespace: 'my-app' });
  });

  it('FullyQualifiedNamespace: Event Hubs on port 9093, TLS, SASL/PLAIN as $ConnectionString with the connection string', () => {
    const config = resolveConfig({
      transport: 'kafka',
      Kafka: { FullyQualifiedNamespace: 'my-eventhub.servicebus.windows.net', Namespace: 'my-app', ConnectionString: CONNECTION_STRING },
    });
    expect(config.kafka).toEqual({
      brokers: ['my-eventhub.servicebus.windows.net:9093'],
      namespace: 'my-app',
      ssl: true,
      sasl: { mechanism: 'plain', username: '$ConnectionString', password: CONNECTION_STRING },
    });
  });

  it('Event Hubs with the SASL settings in Properties, as the seed writes them, gives the same options', () => {
    const fromProperties = resolveConfig({
      kafka: {
        fullyQualifiedNamespace: 'my-eventhub.servicebus.windows.net',
        namespace: 'my-app',
        properties: {
          'security.protocol': 'SASL_SSL',
          'sasl.mechanism': 'PLAIN',
          'sasl.username': '$ConnectionString',
          'sasl.password': CONNECTION_STRING,
        },
      },
    });
    expect(fromProperties.kafka?.brokers).toEqual(['my-eventhub.servicebus.windows.net:9093']);
    expect(fromProperties.kafka?.ssl).toBe(true);
    expect(fromProperties.kafka?.sasl).toEqual({ mechanism: 'plain', username: '$ConnectionString', password: CONNECTION_STRING });
  });

  it('Properties with SASL_SSL/PLAIN: TLS and SASL for kafkajs', () => {
    const config = resolveConfig({
      transport: 'kafka',
      Kafka: {
        BootstrapServers: 'broker:9092',
        Namespace: 'my-app',
        Properties: {
          'security.protocol': 'SASL_SSL',
          'sasl.mechanism': 'PLAIN',
          'sasl.username': '$ConnectionString',
          'sasl.password': 'your-connection-string',
        },
      },
    });
    expect(config.kafka).toEqual({
      brokers: ['broker:9092'],
      namespace: 'my-app',
      ssl: true,
      sasl: { mechanism: 'plain', username: '$ConnectionString', password: 'your-connection-string' },
    });
  });
});

describe('librdkafka properties', () => {
  it('maps the timeout, security and client keys onto the transport options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keiyaku-config-'));
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const config = resolveConfig({
      kafka: {
        bootstrapServers: ['a:9092', 'b:9092'],
        properties: {
          'client.id': 'library',
          'security.protocol': 'sasl_ssl',
          'sasl.mechanisms': 'SCRAM-SHA-512',
          'sasl.username': 'svc',
          'sasl.password': 'pw',
          'ssl.ca.location': join(dir, 'ca.pem'),
          'enable.ssl.certificate.verification': 'true',
          'message.timeout.ms': '15000',
          'request.timeout.ms': 20_000,
          'socket.timeout.ms': '25000',
          'socket.connection.setup.timeout.ms': '3000',
          'session.timeout.ms': '12000',
          'heartbeat.interval.ms': '1000',
          'fetch.wait.max.ms': '250',
          'auto.offset.reset': 'latest',
          'enable.idempotence': 'false',
          'isolation.level': 'read_uncommitted',
          'transaction.timeout.ms': '30000',
          retries: '7',
          'retry.backoff.ms': '200',
          'retry.backoff.max.ms': '5000',
          acks: 'all',
          'enable.auto.commit': 'false',
        },
      },
    });
    expect(config.kafka).toEqual({
      brokers: ['a:9092', 'b:9092'],
      clientId: 'library',
      ssl: { ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', rejectUnauthorized: true },
      sasl: { mechanism: 'scram-sha-512', username: 'svc', password: 'pw' },
      client: { requestTimeout: 25_000, connectionTimeout: 3_000 },
      retry: { retries: 7, initialRetryTime: 200, maxRetryTime: 5_000 },
      publishTimeoutMs: 15_000,
      ackTimeoutMs: 20_000,
      sessionTimeoutMs: 12_000,
      heartbeatIntervalMs: 1_000,
      maxWaitTimeInMs: 250,
      fromBeginning: false,
      idempotent: false,
      isolation: 'read_uncommitted',
      transactionTimeoutMs: 30_000,
    });
  });

  it('refuses an unknown key by name, with a suggestion, and an unsupported one with the reason', () => {
    const problems = problemsOf(() =>
      resolveConfig({
        kafka: {
          bootstrapServers: 'broker:9092',
          properties: { 'mesage.timeout.ms': '1000', 'transactional.id': 'service-0', 'sasl.mechanism': 'GSSAPI', 'x.y': 1 },
        },
      }),
    );
    expect(problems).toEqual([
      {
        key: 'kafka.properties["mesage.timeout.ms"]',
        message: expect.stringMatching(/^unknown librdkafka property; did you mean message\.timeout\.ms\?/),
      },
      {
        key: 'kafka.properties["transactional.id"]',
        message: expect.stringMatching(/^is not supported: transactional ids are per producer/),
      },
      { key: 'kafka.properties["sasl.mechanism"]', message: expect.stringMatching(/GSSAPI is not supported/) },
      { key: 'kafka.properties["x.y"]', message: expect.stringMatching(/^unknown librdkafka property/) },
      { key: 'kafka.properties["sasl.mechanism"]', message: expect.stringMatching(/SASL settings need security\.protocol/) },
    ]);
  });

  it('refuses values it cannot honour rather than ignoring them', () => {
    const problems = problemsOf(() =>
      resolveConfig({
        kafka: {
          bootstrapServers: 'broker:9092',
          properties: { acks: '1', 'enable.auto.commit': 'true', 'ssl.ca.location': '/nonexistent/ca.pem', 'security.protocol': 'SSL' },
        },
      }),
    );
    expect(problems.map((p) => p.key)).toEqual([
      'kafka.properties["acks"]',
      'kafka.properties["enable.auto.commit"]',
      'kafka.properties["ssl.ca.location"]',
    ]);
    expect(problems[2]!.message).toMatch(/cannot read "\/nonexistent\/ca.pem": ENOENT/);
  });
});

describe('validation at start-up: every problem at once, each naming its key', () => {
  it('from an object', () => {
    const problems = problemsOf(() =>
      resolveConfig({
        transport: 'rabbitmq',
        kafka: { bootstrapServers: 'no-port', namespce: 'x', publishTimeoutMs: -5, properties: { 'security.protocol': 'SASL_SSL' } },
        iggy: { address: 'iggy' },
        deadLetters: { store: 'sqlite' },
      }),
    );
    expect(problems).toEqual([
      { key: 'transport', message: 'must be one of memory, kafka, iggy, got "rabbitmq"' },
      { key: 'kafka.namespce', message: expect.stringMatching(/^unknown key; did you mean namespace\?/) },
      { key: 'kafka.publishTimeoutMs', message: 'must be between 0 and 2147483647, got -5' },
      { key: 'kafka.bootstrapServers', message: '"no-port" is not host:port' },
      { key: 'kafka.properties["sasl.mechanism"]', message: 'is required with security.protocol SASL_SSL' },
      { key: 'kafka.properties["sasl.username"]', message: 'is required with security.protocol SASL_SSL' },
      { key: 'kafka.properties["sasl.password"]', message: 'is required with security.protocol SASL_SSL' },
      { key: 'iggy.address', message: 'must be host:port, got "iggy"' },
      { key: 'deadLetters.path', message: 'is required with store sqlite (a file path, or :memory:)' },
    ]);
  });

  it('from the environment, naming the variables', () => {
    const problems = problemsOf(() =>
      resolveConfig(undefined, {
        env: {
          KEIYAKU_TRANSPORT: 'kafka',
          KEIYAKU_KAFKA_NAMESPACE: 'my app',
          KEIYAKU_KAFKA_BOOTSTRAP_SERVER: 'broker:9092',
          KEIYAKU_KAFKA_PROPERTY_MESSAGE_TIMEOUT_MS: 'soon',
          KEIYAKU_KAFKA_PROPERTY_LINGER_MS: '5',
          KEIYAKU_KAFKA_CONTENT_MODE: 'json',
          KEIYAKU_KAFKA_MAX_HEADERS: '0',
          KEIYAKU_DEAD_LETTERS: 'postgres',
          PATH: '/usr/bin',
        },
      }),
    );
    expect(problems).toEqual([
      { key: 'KEIYAKU_KAFKA_BOOTSTRAP_SERVER', message: 'unknown keiyaku variable; did you mean KEIYAKU_KAFKA_BOOTSTRAP_SERVERS?' },
      { key: 'KEIYAKU_KAFKA_PROPERTY_LINGER_MS', message: expect.stringMatching(/^is not supported: batching is the publisher's/) },
      { key: 'KEIYAKU_KAFKA_PROPERTY_MESSAGE_TIMEOUT_MS', message: 'must be an integer, got "soon"' },
      { key: 'KEIYAKU_KAFKA_CONTENT_MODE', message: 'must be one of binary, structured, got "json"' },
      { key: 'KEIYAKU_KAFKA_MAX_HEADERS', message: 'must be between 1 and 2147483647, got 0' },
      { key: 'KEIYAKU_KAFKA_NAMESPACE', message: expect.stringMatching(/^may only hold letters/) },
      { key: 'KEIYAKU_KAFKA_BOOTSTRAP_SERVERS', message: 'is required (or fullyQualifiedNamespace for Azure Event Hubs)' },
      {
        key: 'KEIYAKU_DEAD_LETTERS_CONNECTION_STRING',
        message: 'is required with store postgres (postgres://user:password@host:port/database)',
      },
    ]);
  });

  it('the error message lists them all, one per line', () => {
    try {
      resolveConfig({ transport: 'iggy', deadLetters: { store: 'sqlite', path: 'x.db', schema: 's' } });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe(
        'the configuration has 2 problems:\n  - deadLetters.schema: is only used with store postgres\n  - iggy.address: is required with transport iggy (host:port)',
      );
    }
  });

  it('a bad configuration builds nothing', async () => {
    await expect(configure({ transport: 'kafka', kafka: {} })).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('secrets never appear in errors or logs', () => {
  const secret = 'Sup3r-Secret-Value';

  it('not in problems about secret keys', () => {
    const problems = problemsOf(() =>
      resolveConfig({
        kafka: {
          fullyQualifiedNamespace: 'my-eventhub.servicebus.windows.net',
          connectionString: `Endpoint=sb://other.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=${secret}`,
          properties: { 'sasl.password': `${secret}2` },
        },
        iggy: { address: 'h:1', password: 42 },
        deadLetters: { store: 'postgres', connectionString: `mysql://u:${secret}@h/db` },
      }),
    );
    expect(problems).toEqual([
      { key: 'kafka.properties["sasl.password"]', message: 'conflicts with kafka.connectionString; set one of them (values not shown)' },
      {
        key: 'kafka.connectionString',
        message: 'names the namespace other.servicebus.windows.net, but fullyQualifiedNamespace is my-eventhub.servicebus.windows.net',
      },
      { key: 'iggy.password', message: 'must be a string, got number' },
      { key: 'deadLetters.connectionString', message: 'must be a postgres:// or postgresql:// URL (value not shown)' },
    ]);
    expect(JSON.stringify(problems)).not.toContain(secret);
  });

  it('not in what the transport factory logs', async () => {
    const { logger, lines } = recordingLogger();
    const transport = await createTransport(
      {
        transport: 'kafka',
        kafka: {
          bootstrapServers: '127.0.0.1:1',
          properties: { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN', 'sasl.username': 'svc', 'sasl.password': secret },
        },
      },
      { logger },
    );
    await transport.close();
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain('"password":"(secret)"');
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('not in describeConfig', () => {
    const described = describeConfig(
      resolveConfig({
        transport: 'iggy',
        iggy: { address: '127.0.0.1:8090', password: secret },
        deadLetters: { store: 'postgres', connectionString: `postgres://u:${secret}@h/db` },
      }),
    );
    expect(JSON.stringify(described)).not.toContain(secret);
    expect(described['iggy']).toEqual({ host: '127.0.0.1', port: 8090, password: '(secret)' });
  });
});

describe('one call builds the transport and the store, from an object or the environment', () => {
  it('memory by default', async () => {
    const { transport, deadLetters } = await configure(undefined, { env: {} });
    expect(transport).toBeInstanceOf(InMemoryTransport);
    expect(deadLetters).toBeInstanceOf(InMemoryDeadLetterStore);
  });

  it('Kafka from the environment', async () => {
    const transport = await createTransport(undefined, {
      env: {
        KEIYAKU_TRANSPORT: 'kafka',
        KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: 'a:9092, b:9092',
        KEIYAKU_KAFKA_NAMESPACE: 'staging',
        KEIYAKU_KAFKA_PROPERTY_MESSAGE_TIMEOUT_MS: '30000',
        KEIYAKU_KAFKA_PROPERTY_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
        KEIYAKU_KAFKA_PROPERTY_SASL_MECHANISM: 'SCRAM-SHA-256',
        KEIYAKU_KAFKA_PROPERTY_SASL_USERNAME: 'svc',
        KEIYAKU_KAFKA_PROPERTY_SASL_PASSWORD: 'pw',
        KEIYAKU_KAFKA_CONTENT_MODE: 'Structured',
        KEIYAKU_KAFKA_MAX_HEADERS: '200',
      },
    });
    expect(transport).toBeInstanceOf(KafkaTransport);
    const { logger: _logger, ...options } = (transport as KafkaTransport).options;
    expect(options).toEqual({
      brokers: ['a:9092', 'b:9092'],
      namespace: 'staging',
      sasl: { mechanism: 'scram-sha-256', username: 'svc', password: 'pw' },
      publishTimeoutMs: 30_000,
      contentMode: 'structured',
      maxHeaders: 200,
    });
    expect((transport as KafkaTransport).contentMode('library.book-integration-events')).toBe('structured');
    expect((transport as KafkaTransport).topic('library.book-integration-events')).toBe('staging.library.book-integration-events');
    await transport.close();
  });

  it('Event Hubs from the environment', async () => {
    const config = resolveConfig(undefined, {
      env: {
        KEIYAKU_TRANSPORT: 'kafka',
        KEIYAKU_KAFKA_FULLY_QUALIFIED_NAMESPACE: 'my-eventhub.servicebus.windows.net',
        KEIYAKU_KAFKA_CONNECTION_STRING: CONNECTION_STRING,
      },
    });
    expect(config.kafka).toEqual({
      brokers: ['my-eventhub.servicebus.windows.net:9093'],
      ssl: true,
      sasl: { mechanism: 'plain', username: '$ConnectionString', password: CONNECTION_STRING },
    });
  });

  it('Iggy from the environment', async () => {
    const transport = await createTransport(undefined, {
      env: {
        KEIYAKU_TRANSPORT: 'iggy',
        KEIYAKU_IGGY_ADDRESS: '127.0.0.1:8090',
        KEIYAKU_IGGY_USERNAME: 'svc',
        KEIYAKU_IGGY_PASSWORD: 'pw',
        KEIYAKU_IGGY_STREAM: 'library',
        KEIYAKU_IGGY_REQUEST_TIMEOUT_MS: '5000',
      },
    });
    expect(transport).toBeInstanceOf(IggyTransport);
    expect((transport as IggyTransport).options).toEqual({
      host: '127.0.0.1',
      port: 8090,
      username: 'svc',
      password: 'pw',
      stream: 'library',
      requestTimeoutMs: 5_000,
    });
    await transport.close();
  });

  it('the SQLite dead-letter store, and a store of your own through a factory', async () => {
    const sqlite = await createDeadLetterStore(undefined, {
      env: { KEIYAKU_DEAD_LETTERS: 'sqlite', KEIYAKU_DEAD_LETTERS_PATH: ':memory:', KEIYAKU_DEAD_LETTERS_MIGRATE: 'true' },
    });
    expect(sqlite).toBeInstanceOf(SqliteDeadLetterStore);
    expect(await sqlite.count()).toBe(0);
    await sqlite.close?.();
    // Tables are never created silently: without migrate, an empty database is refused by name.
    await expect(createDeadLetterStore({ deadLetters: { store: 'sqlite', path: ':memory:' } })).rejects.toMatchObject({
      name: 'StoreNotMigratedError',
    });
    const postgres = { store: 'postgres' as const, connectionString: 'postgres://u:p@127.0.0.1:5432/db', migrate: false };
    const seen: unknown[] = [];
    const store = await createDeadLetterStore(
      { deadLetters: { store: 'postgres', connectionString: 'postgres://u:p@127.0.0.1:5432/db' } },
      {
        stores: {
          postgres: async (choice) => {
            seen.push(choice);
            return new InMemoryDeadLetterStore();
          },
        },
      },
    );
    expect(store).toBeInstanceOf(InMemoryDeadLetterStore);
    expect(seen).toEqual([postgres]);
  });

  it('every variable in the table is read (none is reported unknown)', () => {
    for (const variable of ENVIRONMENT_VARIABLES) {
      if (variable.name.includes('<')) continue;
      let problems: readonly { key: string; message: string }[] = [];
      try {
        resolveConfig(undefined, { env: { [variable.name]: 'x' } });
      } catch (error) {
        problems = (error as ConfigurationError).problems;
      }
      expect(problems.filter((p) => p.message.startsWith('unknown keiyaku variable'))).toEqual([]);
    }
    expect(problemsOf(() => resolveConfig(undefined, { env: { KEIYAKU_IGGY_ADRESS: 'x' } }))[0]!.message).toMatch(
      /^unknown keiyaku variable/,
    );
  });
});
