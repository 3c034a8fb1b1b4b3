/**
 * `npm run fault:kafka-leader`: leader failover on a three-broker cluster. One broker cannot show
 * it; production always has it. The run starts a cluster of its own (scripts/kafka,
 * KAFKA_BROKERS_COUNT=3, free ports), provisions the channel's topic with 6 partitions and
 * replication factor 3 (min.insync.replicas=2), and streams records through keiyaku on the driver
 * `KAFKA_DRIVER` names: a publisher (`createMessaging`, `publishMany`, paced over the stream) and a
 * consumer group through the belt, each on a transport of its own, as two services would be. Mid-
 * stream it SIGKILLs the broker that leads the busiest partitions (the most records), and starts
 * it again later, while the stream goes on. Prints progress on stderr and one line on stdout:
 *
 *   kafka-leader-fault (kafkajs): N published, N consumed, 0 lost, D duplicates, R client rebuilds, …
 *
 * and exits non-zero when anything is lost, when clients were rebuilt more than once each (a
 * failover is not an outage: the other brokers stay reachable and the clients should follow the new
 * leaders; a client that stays cut off from the dead one past `rebuildAfterMs` may get one new
 * client, a second means it did not follow them), or when a bound was hit. Duplicates are counted,
 * not failed: delivery is at least once. Loopback only; bounded in count and time.
 * Environment: KAFKA_DRIVER kafkajs (default) | platformatic; KAFKA_GROUP_PROTOCOL=consumer for the
 * KIP-848 group protocol (as the Kafka suites take it: Kafka 4.x, platformatic driver); LEADER_FAULT_COUNT (default 20 000);
 * LEADER_FAULT_STREAM_S how long the stream is paced over (default 40); LEADER_FAULT_DOWN_S how long
 * the killed broker stays down (default 15: past the controller's broker session timeout, 9 s, so new
 * leaders are elected while it is down); LEADER_FAULT_TIMEOUT_S (default 180 + count/200);
 * LEADER_FAULT_KILL busiest (default) | coordinator (kill the consumer group's coordinator instead,
 * with the partitions it leads); LEADER_FAULT_KAFKA_PORT (the first of 9 ports; default free ones);
 * KAFKA_VERSION as scripts/kafka takes it.
 */
import { pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging, type Logger } from '../runtime/index.js';
import { createKafkaTransport, KAFKA_DRIVERS, type KafkaDriver, type KafkaDriverTransport } from '../runtime/kafka/index.js';
import { ownBroker, readTopic, sleep } from './fault-kit.js';

export interface LeaderFaultOptions {
  readonly driver: KafkaDriver;
  readonly count: number;
  /** How long publishing is paced over. */
  readonly streamMs: number;
  /** How long the killed broker stays down. */
  readonly downMs: number;
  /** The consumer group protocol (`consumer`: KIP-848, Kafka 4.x and the platformatic driver only). */
  readonly groupProtocol?: 'classic' | 'consumer';
  /** Which broker is killed: the leader of the busiest partitions (default), or the group coordinator. */
  readonly kill?: 'busiest' | 'coordinator';
  readonly timeoutMs: number;
  /** The first of the cluster's 9 ports; default free ones. */
  readonly kafkaPort?: string;
  readonly log?: (line: string) => void;
}

export interface LeaderFaultResult {
  readonly published: number;
  /** Distinct records consumed. */
  readonly consumed: number;
  readonly lost: number;
  /** Deliveries beyond the first of a record. */
  readonly duplicates: number;
  /** Records on the topic at the end (more than `published` when a record was written twice). */
  readonly written: number;
  /** Records past the group's committed offsets at the end (0: commits caught up; -1: not read). */
  readonly uncommitted: number;
  /** Chunks the publishing caller sent again after `publishMany` finally failed. */
  readonly republished: number;
  /** Client rebuilds, from the transports' health (`details.rebuilds`), publisher's and consumer's. */
  readonly rebuilds: number;
  /** The clients that could have been rebuilt: the publisher's producer and the consumer. */
  readonly clients: number;
  /** The node SIGKILLed, the partitions it led and the records they held then. */
  readonly killed?: { readonly node: number; readonly partitions: readonly number[]; readonly records: number };
  /** From the kill to the controller having moved every partition's leadership off the dead node. */
  readonly electedMs?: number;
  /** From the kill to the first chunk published after it being acknowledged (every partition written). */
  readonly publishRecoveryMs?: number;
  /** From the kill to that chunk being consumed through the belt (the stream flowing again end to end). */
  readonly consumeRecoveryMs?: number;
  readonly boundHit?: string;
  readonly durationMs: number;
}

/** The keys of a chunk: 24 books, so every chunk of 24 or more writes every partition. */
const BOOKS = 24;
const message = (i: number) =>
  BookBorrowed.create({
    bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % BOOKS).padStart(12, '0')}`,
    copyId: `C-${i}`,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });

/** Each partition's leader (node id) and record count, read with a kafkajs admin of its own. */
async function partitions(brokers: string, topic: string): Promise<{ partition: number; leader: number; records: number }[]> {
  const admin = new Kafka({ brokers: brokers.split(','), clientId: 'leader-fault', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const offsets = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high) - Number(p.low)]));
    return metadata.topics[0]!.partitions.map((p) => ({
      partition: p.partitionId,
      leader: p.leader,
      records: offsets.get(p.partitionId) ?? 0,
    }));
  } finally {
    await admin.disconnect();
  }
}

/** The node leading the partitions that hold the most records, with those partitions. */
function busiestLeader(layout: Awaited<ReturnType<typeof partitions>>): { node: number; partitions: number[]; records: number } {
  const byLeader = new Map<number, { node: number; partitions: number[]; records: number }>();
  for (const p of layout) {
    const entry = byLeader.get(p.leader) ?? { node: p.leader, partitions: [], records: 0 };
    entry.partitions.push(p.partition);
    entry.records += p.records;
    byLeader.set(p.leader, entry);
  }
  return [...byLeader.values()].sort((a, b) => b.records - a.records)[0]!;
}

/** Records of `topic` past the offsets `group` has committed (its lag, were it restarted now). */
async function uncommitted(brokers: string, group: string, topic: string): Promise<number> {
  const admin = new Kafka({ brokers: brokers.split(','), clientId: 'leader-fault', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
    const committed = (await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0]?.partitions ?? [];
    let lag = 0;
    for (const [partition, high] of ends) {
      const offset = Number(committed.find((p) => p.partition === partition)?.offset ?? -1);
      lag += high - Math.max(0, offset);
    }
    return lag;
  } finally {
    await admin.disconnect();
  }
}

/** Node `node` with the partitions it leads. */
function leaderOf(layout: Awaited<ReturnType<typeof partitions>>, node: number): { node: number; partitions: number[]; records: number } {
  const led = layout.filter((p) => p.leader === node);
  return { node, partitions: led.map((p) => p.partition), records: led.reduce((n, p) => n + p.records, 0) };
}

/** Rebuilds a transport's health reports (both drivers put the total in `details.rebuilds`). */
const rebuildsOf = (transport: KafkaDriverTransport): number => Number(transport.health().details?.['rebuilds'] ?? 0);

/**
 * Runs the fault: a cluster, a publisher and a consumer on transports of their own, the kill of the
 * busiest leader once the stream flows, its restart `downMs` later, and the count at the end.
 * Long because: one run's sequence (set-up, the paced stream with the fault beside it, the drain and
 * the count) reads best in one place; the helpers above hold what stands alone.
 */
export async function runLeaderFault(options: LeaderFaultOptions): Promise<LeaderFaultResult> {
  const log = options.log ?? (() => {});
  const began = Date.now();
  const deadline = began + options.timeoutMs;
  const cluster = await ownBroker(options.kafkaPort, 3);
  // A client that throws from a network callback ends the process: say so, and leave no cluster behind.
  const crashed = (error: Error): void => {
    log(`uncaught exception (the run fails): ${error.stack ?? String(error)}`);
    cluster.stopSync();
    process.exit(1);
  };
  process.once('uncaughtException', crashed);
  log(`cluster ${cluster.brokers} (this run's own); driver ${options.driver}; ${options.count} records over ${options.streamMs / 1000} s`);
  const lines: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
  const namespace = `leader${Date.now().toString(36)}`;
  // The outage suite's settings: a short session, quick fetches, and rebuilds after 10 s cut off, so
  // that a client which does not follow the new leaders shows up as rebuilds within the run.
  const transport = (): KafkaDriverTransport =>
    createKafkaTransport({
      driver: options.driver,
      ...(options.groupProtocol === undefined ? {} : { groupProtocol: options.groupProtocol }),
      brokers: cluster.brokers.split(','),
      namespace,
      replicationFactor: 3,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      maxWaitTimeInMs: 100,
      rebuildAfterMs: 10_000,
      maxRebuildIntervalMs: 30_000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000 },
      client: { connectionTimeout: 1_000, requestTimeout: 5_000 },
      logger,
    });
  const publishing = transport();
  const consuming = transport();
  const publisherHost = createMessaging({ transport: publishing, logger });
  const consumerHost = createMessaging({ transport: consuming, logger });
  const topic = publishing.topic(BookIntegrationEvents.address);
  const received = new Map<string, number>();
  let boundHit: string | undefined;
  let killed: LeaderFaultResult['killed'];
  let killAt: number | undefined;
  let restart: Promise<unknown> = Promise.resolve();
  let electedMs: number | undefined;
  let publishRecoveryMs: number | undefined;
  let consumeRecoveryMs: number | undefined;
  let republished = 0;
  let published = 0;
  let rebuilds = 0;
  let written = 0;
  let lag = -1;
  try {
    // Replication factor 3, whatever the contract's binding says (it is written for one broker).
    const bindings = { ...BookIntegrationEvents.bindings, kafka: { ...BookIntegrationEvents.bindings.kafka, replicas: 3 } };
    await publishing.provision(BookIntegrationEvents.address, bindings);
    consumerHost.subscribe(BookIntegrationEvents, {
      groupId: 'inventory.book-availability',
      handle(m) {
        received.set(m.copyId, (received.get(m.copyId) ?? 0) + 1);
      },
    });
    await Promise.all([publisherHost.start(), consumerHost.start()]);
    const publisher = publisherHost.publisher(BookIntegrationEvents, {
      key: (m) => m.bookId,
      maxBatchCount: 500,
      maxAttempts: 8,
      retry: { initialMs: 250, maxMs: 2_000 },
    });
    const chunk = Math.max(BOOKS, Math.ceil(options.count / (options.streamMs / 250)));
    const chunks = Math.ceil(options.count / chunk);
    const interval = options.streamMs / chunks;
    log(`topic ${topic}: 6 partitions, RF 3; ${chunks} chunks of ${chunk}, one every ${Math.round(interval)} ms`);

    // The fault, beside the stream: once a quarter is published and an eighth consumed, kill the leader of the busiest partitions.
    const fault = (async () => {
      while (!(published >= options.count / 4 && received.size >= options.count / 8)) {
        if (Date.now() > deadline || published >= options.count) return;
        await sleep(50);
      }
      const layout = await partitions(cluster.brokers, topic);
      // scripts/kafka gives __consumer_offsets one partition: its leader coordinates every group.
      const coordinator = (await partitions(cluster.brokers, '__consumer_offsets').catch(() => []))[0]?.leader;
      const target = options.kill === 'coordinator' && coordinator !== undefined ? leaderOf(layout, coordinator) : busiestLeader(layout);
      await cluster.command('kill-node', String(target.node));
      killAt = Date.now();
      killed = target;
      log(
        `node ${target.node} SIGKILLed: leader of partitions ${target.partitions.join(', ')} (${target.records} of ${layout.reduce((n, p) => n + p.records, 0)} records)${coordinator === target.node ? ' and the group coordinator' : `; the group coordinator is node ${coordinator}`}; ${published} published, ${received.size} consumed; back in ${options.downMs / 1000} s`,
      );
      // When the controller has moved every partition off the dead node (it fences it after its broker session timeout).
      for (;;) {
        const now = await partitions(cluster.brokers, topic).catch(() => undefined);
        if (now?.every((p) => p.leader !== target.node && p.leader >= 0)) {
          electedMs = Date.now() - killAt;
          log(`new leaders elected ${electedMs} ms after the kill: ${now.map((p) => `${p.partition}→${p.leader}`).join(', ')}`);
          break;
        }
        if (Date.now() - killAt > options.downMs) break;
        await sleep(200);
      }
      await sleep(killAt + options.downMs - Date.now());
      await cluster.command('start-node', String(target.node));
      log(`node ${target.node} started again (${Math.round((Date.now() - killAt) / 1000)} s after the kill)`);
    })();
    restart = fault.catch((error: unknown) => {
      boundHit ??= `the fault failed: ${(error as Error).message}`;
    });

    // The stream: chunk k no earlier than its time; a chunk that finally fails is sent again (at least once).
    let firstAfterKill: { readonly ids: readonly string[] } | undefined;
    const start = Date.now();
    for (let k = 0; k < chunks; k++) {
      const wait = start + k * interval - Date.now();
      if (wait > 0) await sleep(wait);
      const from = k * chunk;
      const records = Array.from({ length: Math.min(chunk, options.count - from) }, (_, j) => message(from + j));
      const startedAt = Date.now();
      for (;;) {
        if (Date.now() > deadline) throw new Error(`publishing did not finish in ${options.timeoutMs / 1000} s`);
        try {
          await publisher.publishMany(records);
          break;
        } catch {
          republished++;
          await sleep(500);
        }
      }
      published += records.length;
      if (killAt !== undefined && startedAt >= killAt && firstAfterKill === undefined) {
        publishRecoveryMs = Date.now() - killAt;
        firstAfterKill = { ids: records.map((r) => r.copyId) };
        const ids = firstAfterKill.ids;
        const since = killAt;
        void (async () => {
          while (!ids.every((id) => received.has(id)) && Date.now() < deadline) await sleep(20);
          if (ids.every((id) => received.has(id))) consumeRecoveryMs = Date.now() - since;
        })();
        log(`publishing recovered: a chunk sent after the kill acknowledged ${publishRecoveryMs} ms after it`);
      }
    }
    log(`published ${published} (${republished} chunks sent again); draining`);
    await restart;
    let reported = Date.now();
    while (received.size < options.count && Date.now() < deadline) {
      if (Date.now() - reported > 5_000) {
        log(`draining: ${received.size} of ${options.count} consumed`);
        reported = Date.now();
      }
      await sleep(50);
    }
    if (received.size < options.count) boundHit ??= `not everything arrived in ${options.timeoutMs / 1000} s`;
    if (killAt === undefined) boundHit ??= 'the stream ended before the kill (raise LEADER_FAULT_COUNT or LEADER_FAULT_STREAM_S)';
    await sleep(500); // redeliveries still under way are counted too
    // Everything was handled: the group's commits must catch up (a consumer that lost its coordinator and never
    // commits again would deliver all of it again after a restart). Commits follow acknowledgements within moments.
    const group = consuming.group('inventory.book-availability');
    const commitDeadline = Date.now() + 20_000;
    for (;;) {
      lag = await uncommitted(cluster.brokers, group, topic).catch(() => -1);
      if (lag === 0 || Date.now() > commitDeadline) break;
      await sleep(500);
    }
    if (lag !== 0)
      boundHit ??= `the group's committed offsets are ${lag < 0 ? 'unreadable' : `${lag} records behind`} 20 s after everything was handled`;
    // What the topic holds: copies written twice (a send retried without idempotence, a chunk the caller sent again).
    const copies = new Map<string, number>();
    for (const r of await readTopic(cluster.brokers, topic, 'read_uncommitted')) {
      const value = JSON.parse(r.value) as { copyId?: string; data?: { copyId?: string } };
      const id = value.copyId ?? value.data?.copyId ?? '';
      copies.set(id, (copies.get(id) ?? 0) + 1);
    }
    written = [...copies.values()].reduce((n, c) => n + c, 0);
    rebuilds = rebuildsOf(publishing) + rebuildsOf(consuming);
    log(`client rebuilds: publisher's transport ${rebuildsOf(publishing)}, consumer's ${rebuildsOf(consuming)}`);
  } catch (error) {
    boundHit ??= (error as Error).message;
  } finally {
    await restart;
    await Promise.allSettled([publisherHost.stop(), consumerHost.stop()]);
    await cluster.stop();
    process.off('uncaughtException', crashed);
  }
  if (boundHit !== undefined || rebuilds > 2) log(`transport log tail:\n${lines.slice(-30).join('\n')}`);
  // What the clients and the belt said about the fault, by kind (the first words of each warning or error).
  const kinds = new Map<string, number>();
  for (const line of lines) if (!line.startsWith('info ')) kinds.set(line.slice(0, 90), (kinds.get(line.slice(0, 90)) ?? 0) + 1);
  log(`warnings and errors: ${[...kinds].map(([k, n]) => `${n} × ${k}`).join('; ') || 'none'}`);
  const lost = Array.from({ length: options.count }, (_, i) => `C-${i}`).filter((id) => !received.has(id)).length;
  return {
    published,
    consumed: received.size,
    lost,
    duplicates: [...received.values()].reduce((n, c) => n + c - 1, 0),
    written,
    uncommitted: lag,
    republished,
    rebuilds,
    clients: 2,
    ...(killed === undefined ? {} : { killed }),
    ...(electedMs === undefined ? {} : { electedMs }),
    ...(publishRecoveryMs === undefined ? {} : { publishRecoveryMs }),
    ...(consumeRecoveryMs === undefined ? {} : { consumeRecoveryMs }),
    ...(boundHit === undefined ? {} : { boundHit }),
    durationMs: Date.now() - began,
  };
}

/** Why the run failed, or undefined when it proved what it should. */
export function leaderFaultFailure(result: LeaderFaultResult): string | undefined {
  const problems: string[] = [];
  if (result.lost > 0) problems.push(`${result.lost} records lost`);
  if (result.rebuilds > result.clients)
    problems.push(`${result.rebuilds} client rebuilds for ${result.clients} clients (a rebuild storm: at most one each)`);
  if (result.killed === undefined) problems.push('no broker was killed');
  if (result.consumeRecoveryMs === undefined) problems.push('the stream did not recover after the kill');
  if (result.boundHit !== undefined) problems.push(result.boundHit);
  return problems.length === 0 ? undefined : problems.join('; ');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const driver = process.env['KAFKA_DRIVER'] ?? 'kafkajs';
  if (!(KAFKA_DRIVERS as readonly string[]).includes(driver)) {
    process.stderr.write(`kafka-leader-fault: KAFKA_DRIVER is ${driver}; use one of ${KAFKA_DRIVERS.join(', ')}\n`);
    process.exit(2);
  }
  const count = Number(process.env['LEADER_FAULT_COUNT'] ?? 20_000);
  const options: LeaderFaultOptions = {
    driver: driver as KafkaDriver,
    count,
    streamMs: Number(process.env['LEADER_FAULT_STREAM_S'] ?? 40) * 1000,
    downMs: Number(process.env['LEADER_FAULT_DOWN_S'] ?? 15) * 1000,
    kill: process.env['LEADER_FAULT_KILL'] === 'coordinator' ? 'coordinator' : 'busiest',
    ...(process.env['KAFKA_GROUP_PROTOCOL'] === 'consumer' ? { groupProtocol: 'consumer' as const } : {}),
    timeoutMs: Number(process.env['LEADER_FAULT_TIMEOUT_S'] ?? 180 + count / 200) * 1000,
    ...(process.env['LEADER_FAULT_KAFKA_PORT'] ? { kafkaPort: process.env['LEADER_FAULT_KAFKA_PORT'] } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const result = await runLeaderFault(options).catch((error: unknown) => {
    process.stderr.write(`kafka-leader-fault FAILED: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
  const seconds = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const killed = result.killed
    ? `node ${result.killed.node} (leader of partitions ${result.killed.partitions.join(', ')}) SIGKILLed and restarted`
    : 'no broker killed';
  process.stdout.write(
    `kafka-leader-fault (${driver}${options.groupProtocol === 'consumer' ? ', KIP-848 group protocol' : ''}, Kafka ${process.env['KAFKA_VERSION'] ?? '3.9.1'}): ${result.published} published, ${result.consumed} consumed, ` +
      `${result.lost} lost, ${result.duplicates} duplicates (${result.written - result.published} written twice, the rest delivered again), ` +
      `${result.rebuilds} client rebuilds, committed lag ${result.uncommitted}; ${killed}; ` +
      `new leaders in ${seconds(result.electedMs)}, publishing recovered in ${seconds(result.publishRecoveryMs)}, consuming in ${seconds(result.consumeRecoveryMs)}; ` +
      `${result.republished} chunks sent again by the caller; ${Math.round(result.durationMs / 1000)} s\n`,
  );
  const failed = leaderFaultFailure(result);
  if (failed !== undefined) {
    process.stderr.write(`kafka-leader-fault FAILED: ${failed}\n`);
    process.exitCode = 1;
  }
}
