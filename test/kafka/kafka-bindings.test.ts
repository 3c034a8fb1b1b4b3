// A channel's Kafka binding on the real broker: the binding's topic (not the address) is the topic,
// created with its partitions and topicConfiguration; the message binding's key schema makes the
// payload's paymentId the default partition key.

import { createMessaging, type Messaging, silentLogger } from '@keiyaku/runtime';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PaymentResults, PaymentSettled } from '../fixtures/payments/expected/index.js';
import { waitFor } from '../helpers.js';
import { kafkaBrokers, kafkaSkipReason, testTransport } from './kafka-env.js';

const run = kafkaBrokers === '' ? describe.skip : describe;
const admin =
  kafkaBrokers === ''
    ? undefined
    : new Kafka({ brokers: kafkaBrokers.split(','), clientId: 'keiyaku-tests-admin', logLevel: logLevel.NOTHING }).admin();
afterAll(async () => {
  await admin?.disconnect();
});
const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

run(`Kafka bindings on a real broker${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
  it('provisions the binding topic with its partitions and configs, and keys messages by the key property', async () => {
    await admin!.connect();
    const transport = testTransport();
    const namespace = transport.options.namespace!;
    const host = createMessaging({ transport, logger: silentLogger, shutdownBudgetMs: 5_000 });
    hosts.push(host);
    const seen: { key: string | undefined; address: string }[] = [];
    host.subscribe(PaymentResults, {
      groupId: 'example.group',
      handle: (_m, context) => void seen.push({ key: context.key, address: context.address }),
    });
    await host.start();
    const results = host.publisher(PaymentResults, { lingerMs: 0 });
    const paymentId = '0b6c3a52-8a4f-4c7e-9d0e-5f1a2b3c4d5e';
    await results.publish(PaymentSettled.create({ paymentId, outcome: 'settled' }));

    const topics = await admin!.listTopics();
    expect(topics).toContain(`${namespace}.payments-results-v1`);
    expect(topics).not.toContain(`${namespace}.payments.results`);
    const metadata = await admin!.fetchTopicMetadata({ topics: [`${namespace}.payments-results-v1`] });
    expect(metadata.topics[0]!.partitions).toHaveLength(4);
    const described = await admin!.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: `${namespace}.payments-results-v1`, configNames: ['retention.ms', 'cleanup.policy'] },
      ],
    });
    const configs = Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    expect(configs).toEqual({ 'retention.ms': '604800000', 'cleanup.policy': 'delete' });

    await waitFor(() => seen.length === 1, 'the subscription reads the binding topic', 30_000);
    expect(seen).toEqual([{ key: paymentId, address: 'payments.results' }]);
  });
});
