// `keiyaku mock` and the Schema Registry: a message whose Kafka binding puts the schema id in the
// payload is sent in the registry's wire format when the configuration names a registry (as a host
// sends it), and refused before anything is sent when it names none. Real Kafka, real registry.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { avroCodec } from '@keiyaku/avro';
import { readFrame } from '@keiyaku/runtime/registry';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';
import { registrySkipNote, registryUrl } from '../registry/registry-env.js';
import { runMock } from './run-mock.js';

const SCHEMA = {
  type: 'record',
  name: 'Shelved',
  namespace: 'shelf.mock',
  fields: [
    { name: 'bookId', type: 'string' },
    { name: 'copies', type: 'int' },
  ],
};

function contract(): string {
  const dir = scratch('mock-registry');
  writeFileSync(
    join(dir, 'asyncapi.yaml'),
    JSON.stringify({
      asyncapi: '3.0.0',
      info: { title: 'Shelving', version: '1.0.0' },
      channels: { shelving: { address: 'shelving', messages: { Shelved: { $ref: '#/components/messages/Shelved' } } } },
      components: {
        messages: {
          Shelved: {
            name: 'Shelved',
            payload: { schemaFormat: 'application/vnd.apache.avro;version=1.9.0', schema: SCHEMA },
            bindings: { kafka: { schemaIdLocation: 'payload', bindingVersion: '0.5.0' } },
          },
        },
      },
    }),
  );
  return dir;
}

const skip = kafkaSkipReason || registrySkipNote;
(kafkaBrokers === '' || registryUrl === '' ? describe.skip : describe)(
  `keiyaku mock with a Schema Registry${skip ? ` (${skip})` : ''}`,
  () => {
    let admin: Admin;
    let kafka: Kafka;
    const topics: string[] = [];
    const dir = contract();
    beforeAll(async () => {
      kafka = new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-mock-registry', logLevel: logLevel.NOTHING });
      admin = kafka.admin();
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.deleteTopics({ topics }).catch(() => {});
      await admin?.disconnect();
    });

    it('refuses a contract that frames the channel when no registry is configured; nothing sent', async () => {
      const namespace = `mockreg${randomUUID().slice(0, 8)}`;
      const env = { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers, KEIYAKU_KAFKA_NAMESPACE: namespace };
      const r = await runMock(['--channel', 'shelving', '--count', '2'], env, dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('channel shelving carries Shelved in the Schema Registry wire format');
      expect(r.stderr).toContain('no registry is configured');
      expect(await admin.listTopics()).not.toContain(`${namespace}.shelving`);
    });

    it('sends the registry wire format: magic byte, the registered schema id, then the Avro payload', async () => {
      const namespace = `mockreg${randomUUID().slice(0, 8)}`;
      const topic = `${namespace}.shelving`;
      topics.push(topic);
      const env = {
        KEIYAKU_TRANSPORT: 'kafka',
        KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: kafkaBrokers,
        KEIYAKU_KAFKA_NAMESPACE: namespace,
        KEIYAKU_SCHEMA_REGISTRY_URL: registryUrl,
        KEIYAKU_SCHEMA_REGISTRY_AUTO_REGISTER: 'true',
      };
      const sent = await runMock(['--channel', 'shelving', '--count', '3', '--seed', '4'], env, dir);
      expect(sent.stderr).toBe('');
      expect(sent.code).toBe(0);

      const consumer = kafka.consumer({ groupId: `${namespace}.check`, sessionTimeout: 6_000, heartbeatInterval: 500 });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const values: Buffer[] = [];
      try {
        await new Promise<void>((resolve) => {
          void consumer.run({
            eachMessage: async ({ message }) => {
              values.push(message.value!);
              if (values.length === 3) resolve();
            },
          });
        });
      } finally {
        await consumer.disconnect();
      }
      const codec = avroCodec(SCHEMA);
      for (const value of values) {
        const frame = readFrame(new Uint8Array(value), false);
        if ('problem' in frame) throw new Error(frame.problem);
        expect(frame.offset).toBe(5);
        const registered = (await (await fetch(`${registryUrl}/schemas/ids/${frame.schemaId}`)).json()) as { schema: string };
        expect(JSON.parse(registered.schema)).toMatchObject({ type: 'record', name: 'shelf.mock.Shelved' });
        expect(codec.decode(new Uint8Array(value.subarray(frame.offset)), 'Shelved').ok).toBe(true);
      }
    });
  },
);
