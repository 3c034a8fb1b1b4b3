// An idempotent kafkajs producer sends one batch at a time. kafkajs numbers a send's records per
// partition when it builds the request and rewinds the numbers when the request fails; two sends in
// flight at once can then reuse numbers during a failover, and the broker acknowledges the second as
// a duplicate without writing it (records lost with every send reported done: the leader fault run
// lost 4 of 2,000 that way). The real kafkajs producer is watched, not replaced: its sendBatch is
// wrapped to count the sends in flight, and the records are read back from the broker.
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import type { KafkaClients } from '../../runtime/kafka/client.js';
import { KafkaTransportProducer } from '../../runtime/kafka/producer.js';
import { KafkaTransport } from '../../runtime/kafka/transport.js';
import { onlyOnDriver } from './kafka-driver.js';
import { kafkaBrokers, kafkaSkipReason } from './kafka-env.js';

const driverReason = kafkaBrokers === '' ? '' : onlyOnDriver('kafkajs', 'the kafkajs producer’s sends in flight');
const skipReason = kafkaSkipReason || driverReason;
const run = skipReason ? describe.skip : describe;
const raw =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-idem', logLevel: logLevel.NOTHING });
const admin = raw?.admin();
afterAll(async () => {
  await admin?.disconnect();
});

/** The transport's own clients, with every kafkajs producer's sendBatch counting the sends in flight. */
function watched(transport: KafkaTransport): { clients: KafkaClients; maxInFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  const clients: KafkaClients = {
    options: transport.options,
    logger: transport.logger,
    retry: transport.retry,
    topic: (address) => transport.topic(address),
    group: (groupId) => transport.group(groupId),
    provision: (address, bindings) => transport.provision(address, bindings),
    contentMode: (address) => transport.contentMode(address),
    client: (onLog, fence) => {
      const kafka = transport.client(onLog, fence);
      const producer = kafka.producer.bind(kafka);
      kafka.producer = (config) => {
        const made: Producer = producer(config);
        const sendBatch = made.sendBatch.bind(made);
        made.sendBatch = async (batch) => {
          inFlight++;
          max = Math.max(max, inFlight);
          try {
            return await sendBatch(batch);
          } finally {
            inFlight--;
          }
        };
        return made;
      };
      return kafka;
    },
  };
  return { clients, maxInFlight: () => max };
}

run(`idempotent kafkajs producer${skipReason ? ` (${skipReason})` : ''}`, () => {
  for (const idempotent of [true, false]) {
    it(`${idempotent ? 'sends one batch at a time' : 'without idempotence, sends batches side by side'}, and every record lands`, async () => {
      const transport = new KafkaTransport({
        brokers: kafkaBrokers.split(','),
        clientId: 'keiyaku-tests-idem',
        namespace: `idem${Math.random().toString(36).slice(2, 8)}`,
        idempotent,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
      const topic = transport.topic('idempotent.sends');
      await admin!.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
      const { clients, maxInFlight } = watched(transport);
      const producer = new KafkaTransportProducer(clients);
      try {
        const sends = Array.from({ length: 30 }, (_, i) =>
          producer.send(
            Array.from({ length: 4 }, (_, j) => ({
              address: 'idempotent.sends',
              key: `k-${(i * 4 + j) % 7}`,
              value: Buffer.from(`r-${i}-${j}`),
              headers: {},
            })),
          ),
        );
        await Promise.all(sends);
      } finally {
        await producer.close();
      }
      if (idempotent) expect(maxInFlight()).toBe(1);
      else expect(maxInFlight()).toBeGreaterThan(1);
      const offsets = await admin!.fetchTopicOffsets(topic);
      expect(offsets.reduce((n, p) => n + Number(p.high), 0)).toBe(120);
    });
  }
});
