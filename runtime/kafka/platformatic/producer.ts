/**
 * The producer of the platformatic driver. Each publisher batch is one `@platformatic/kafka` send
 * with acks from all in-sync replicas; keys are partitioned by murmur2 as kafkajs and the Java
 * client do, so a key lands on the same partition whichever driver wrote it. Records are written
 * as the kafkajs producer writes them (`../messages.ts`). A send that fails after the client's
 * retries rejects, so the publisher can retry it and, in the end, reach the caller. Producers are
 * idempotent unless the transport's `idempotent` option is `false`; a producer whose send failed
 * is replaced (a new producer id), and one cut off for longer than `rebuildAfterMs` is rebuilt in
 * place, backing off towards `maxRebuildIntervalMs`.
 */
import { type Backoff, ClosedError, exponentialBackoff, type OutgoingRecord, type TransportProducer } from '@keiyaku/runtime/adapter';
import type { MessageToProduce, Partitioner, Producer } from '@platformatic/kafka';
import { bounded, CutOff } from '../client.js';
import { wireMessage } from '../messages.js';
import type { KafkaClientStatus } from '../options.js';
import { murmur2 } from '../partitioner.js';
import { publishDeadline } from '../publish-timeout.js';
import type { PlatformaticClients, PlatformaticModule } from './client.js';
import { isAuthentication, isConnectivity, toTransportError } from './errors.js';

/** @internal A record as `@platformatic/kafka` takes it: bytes throughout, so nothing is serialized again. */
export type PlatformaticMessage = MessageToProduce<Buffer, Buffer, Buffer, Buffer>;

/** Header names repeat on every record (`ce_id`, `ce_type`, …): their bytes are made once. */
const headerNames = new Map<string, Buffer>();
const HEADER_NAMES_KEPT = 1_024;

function headerName(name: string): Buffer {
  let bytes = headerNames.get(name);
  if (bytes === undefined) {
    bytes = Buffer.from(name, 'utf8');
    if (headerNames.size < HEADER_NAMES_KEPT) headerNames.set(name, bytes);
  }
  return bytes;
}

/** @internal Records as `@platformatic/kafka` messages, in the content mode of their address. */
export function platformaticMessages(transport: PlatformaticClients, records: readonly OutgoingRecord[]): PlatformaticMessage[] {
  const messages: PlatformaticMessage[] = new Array(records.length);
  let address: string | undefined;
  let topic = '';
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.address !== address) {
      address = record.address;
      topic = transport.topic(address);
    }
    const wire = wireMessage(transport, record);
    let headers: Map<Buffer, Buffer> | undefined;
    for (const name in wire.headers) {
      headers ??= new Map();
      headers.set(headerName(name), Buffer.from(wire.headers[name]!, 'utf8'));
    }
    messages[i] = {
      topic,
      value: wire.value,
      ...(wire.key === null ? {} : { key: Buffer.from(wire.key, 'utf8') }),
      ...(headers === undefined ? {} : { headers }),
    };
  }
  return messages;
}

/**
 * @internal Kafka's key partitioning (Java client, kafkajs): murmur2 of the key's bytes, positive;
 * the client takes it modulo the partition count. A record without a key goes round robin.
 * (`@platformatic/kafka`'s default partitioner places about half the keys elsewhere, and its
 * `compatibilityPartitioner` sends every keyless record to partition 0.)
 */
export function keyPartitioner(): Partitioner<Buffer, Buffer, Buffer, Buffer> {
  let counter = Math.floor(Math.random() * 0x7fffffff);
  return (_message, key) => (key === undefined ? counter++ & 0x7fffffff : murmur2(key) & 0x7fffffff);
}

/** @internal The retries of an idempotent producer: at least two (see `#ensure`). */
export function idempotentRetries(retries: number | boolean | undefined): number {
  return typeof retries === 'number' ? Math.max(2, retries) : 5;
}

/** @internal A publisher's producer: one `@platformatic/kafka` producer, replaced after a failed send and rebuilt in place after a long cut-off. */
export class PlatformaticTransportProducer implements TransportProducer {
  readonly #transport: PlatformaticClients;
  readonly #cutOff = new CutOff();
  readonly #rebuildBackoff: Backoff;
  readonly #idempotent: boolean;
  #kafka: PlatformaticModule | undefined;
  #producer: Producer<Buffer, Buffer, Buffer, Buffer> | undefined;
  readonly #inFlight = new Map<Producer<Buffer, Buffer, Buffer, Buffer>, number>();
  /**
   * The last send of an idempotent producer: the next waits for it. The client numbers a batch when
   * it builds the request and counts it on the acknowledgment, so two sends in flight to one
   * partition would carry the same sequence numbers.
   */
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(transport: PlatformaticClients) {
    this.#transport = transport;
    this.#idempotent = transport.options.idempotent ?? true;
    this.#rebuildBackoff = exponentialBackoff({
      initialMs: transport.options.rebuildAfterMs ?? 90_000,
      multiplier: 2,
      maxMs: transport.options.maxRebuildIntervalMs ?? 600_000,
      jitter: 0,
    });
  }

  status(): KafkaClientStatus {
    const since = this.#cutOff.since;
    return {
      role: 'producer',
      ...(since === undefined ? {} : { cutOffSince: new Date(since).toISOString() }),
      rebuilds: this.#cutOff.totalRebuilds,
    };
  }

  #ensure(kafka: PlatformaticModule): Producer<Buffer, Buffer, Buffer, Buffer> {
    if (this.#producer === undefined) {
      const base = this.#transport.baseOptions();
      const producer = new kafka.Producer<Buffer, Buffer, Buffer, Buffer>({
        ...base,
        // An idempotent producer of @platformatic/kafka takes fewer than two retries as "retry forever".
        ...(this.#idempotent ? { retries: idempotentRetries(base.retries) } : {}),
        idempotent: this.#idempotent,
        acks: kafka.ProduceAcks.ALL,
        autocreateTopics: false,
        partitioner: keyPartitioner(),
      });
      // Positive evidence of an outage: a connection to a broker could not be made.
      producer.on('client:broker:failed', () => this.#cutOff.mark(Date.now()));
      this.#producer = producer;
    }
    return this.#producer;
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.#closed) throw new ClosedError('the kafka producer');
    if (records.length === 0) return;
    this.#maybeRebuild();
    this.#kafka ??= await this.#transport.load();
    const kafka = this.#kafka;
    const producer = this.#ensure(kafka);
    const messages = platformaticMessages(this.#transport, records);
    const address = records[0]?.address;
    this.#inFlight.set(producer, (this.#inFlight.get(producer) ?? 0) + 1);
    const deadline = publishDeadline(this.#transport.options.publishTimeoutMs, address);
    const previous = this.#tail;
    const sent = this.#idempotent
      ? previous.then(
          () => producer.send({ messages, acks: kafka.ProduceAcks.ALL }),
          () => producer.send({ messages, acks: kafka.ProduceAcks.ALL }),
        )
      : producer.send({ messages, acks: kafka.ProduceAcks.ALL });
    if (this.#idempotent) this.#tail = sent.catch(() => undefined);
    try {
      await deadline.race(sent);
      this.#cutOff.clear();
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      // A rejected credential fails its connections too: a fault, not an outage to rebuild for.
      else if (isAuthentication(error)) this.#cutOff.clear();
      // The client may have written the failed batch after all: the next send under the same
      // producer id and sequence numbers would be dropped as a duplicate or refused as out of order.
      if (this.#idempotent && this.#producer === producer) this.#replace(producer);
      throw toTransportError(error, address);
    } finally {
      deadline.clear();
      const left = (this.#inFlight.get(producer) ?? 1) - 1;
      if (left === 0) this.#inFlight.delete(producer);
      else this.#inFlight.set(producer, left);
    }
  }

  /** A producer cut off for longer than its back-off interval is replaced; the old one is drained, then closed. */
  #maybeRebuild(): void {
    const since = this.#cutOff.since;
    if (since === undefined || this.#producer === undefined) return;
    const interval = this.#rebuildBackoff.delay(this.#cutOff.rebuilds + 1);
    if (Date.now() - Math.max(since, this.#cutOff.lastRebuild) < interval) return;
    this.#cutOff.rebuilds++;
    this.#cutOff.totalRebuilds++;
    this.#cutOff.lastRebuild = Date.now();
    this.#transport.logger.warn('kafka: producer cut off; rebuilding its client', { cutOffMs: Date.now() - since });
    this.#replace(this.#producer);
  }

  /** The next send goes through a new client (a new producer id); the old one is closed once its sends are told. */
  #replace(old: Producer<Buffer, Buffer, Buffer, Buffer>): void {
    this.#producer = undefined;
    this.#tail = Promise.resolve();
    void this.#discard(old);
  }

  async #discard(old: Producer<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
    while ((this.#inFlight.get(old) ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await bounded(old.close(), 30_000, this.#transport.logger, 'closing a replaced producer');
  }

  async close(): Promise<void> {
    this.#closed = true;
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await this.#discard(producer);
  }
}
