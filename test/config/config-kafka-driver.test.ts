// The Kafka driver chosen by configuration: `kafka.driver` in the configuration object (or
// keiyaku.json) and KEIYAKU_KAFKA_DRIVER in the environment; kafkajs by default; a wrong value is a
// problem naming the setting and the drivers there are.
import { KafkaTransport, PlatformaticKafkaTransport } from '@keiyaku/kafka';
import { ConfigurationError, createTransport, ENVIRONMENT_VARIABLES, resolveConfig } from '@keiyaku/runtime/config';
import { describe, expect, it } from 'vitest';

function problemsOf(run: () => unknown): { key: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems.map(({ key, message }) => ({ key, message }));
    throw error;
  }
  return [];
}

describe('configuration: the Kafka driver', () => {
  it('is kafkajs unless configured', async () => {
    const transport = await createTransport({ transport: 'kafka', kafka: { bootstrapServers: 'broker:9092' } });
    expect(transport).toBeInstanceOf(KafkaTransport);
    expect((transport as KafkaTransport).driver).toBe('kafkajs');
    expect((transport as KafkaTransport).options.driver).toBeUndefined();
    await transport.close();
  });

  it('is platformatic with kafka.driver, with the same settings as kafkajs', async () => {
    const transport = await createTransport({
      transport: 'kafka',
      kafka: {
        driver: 'platformatic',
        bootstrapServers: 'a:9092,b:9092',
        namespace: 'staging',
        contentMode: 'structured',
        properties: { 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.username': 'svc', 'sasl.password': 'pw' },
      },
    });
    expect(transport).toBeInstanceOf(PlatformaticKafkaTransport);
    const platformatic = transport as PlatformaticKafkaTransport;
    expect(platformatic.driver).toBe('platformatic');
    expect(platformatic.topic('library.books')).toBe('staging.library.books');
    expect(platformatic.contentMode('library.books')).toBe('structured');
    expect(platformatic.baseOptions()).toMatchObject({
      clientId: 'keiyaku',
      bootstrapBrokers: ['a:9092', 'b:9092'],
      tls: {},
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'svc', password: 'pw' },
      retries: 5,
    });
    await transport.close();
  });

  it('is platformatic with KEIYAKU_KAFKA_DRIVER (any case), which is a documented variable', async () => {
    expect(ENVIRONMENT_VARIABLES.map((v) => v.name)).toContain('KEIYAKU_KAFKA_DRIVER');
    const transport = await createTransport(undefined, {
      env: { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: 'broker:9092', KEIYAKU_KAFKA_DRIVER: 'Platformatic' },
    });
    expect(transport).toBeInstanceOf(PlatformaticKafkaTransport);
    await transport.close();
  });

  it('names the setting and the drivers there are when the value is wrong', () => {
    expect(
      problemsOf(() => resolveConfig({ transport: 'kafka', kafka: { bootstrapServers: 'broker:9092', driver: 'librdkafka' } })),
    ).toEqual([{ key: 'kafka.driver', message: 'must be one of kafkajs, platformatic, got "librdkafka"' }]);
    expect(
      problemsOf(() =>
        resolveConfig(undefined, {
          env: { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: 'broker:9092', KEIYAKU_KAFKA_DRIVER: 'confluent' },
        }),
      ),
    ).toEqual([{ key: 'KEIYAKU_KAFKA_DRIVER', message: 'must be one of kafkajs, platformatic, got "confluent"' }]);
  });
});
