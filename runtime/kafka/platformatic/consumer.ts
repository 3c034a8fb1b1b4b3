/**
 * The consumer of the platformatic driver: one consumer group per handler `groupId`, on
 * `@platformatic/kafka`. The client's `consume()` joins the group and keeps its membership
 * (classic or KIP-848 `consumer` protocol, heart-beating, rejoining); the records are fetched
 * here, not through its message stream, which never flows:
 *
 * - per partition, so a stalled partition is paused (not fetched) while the others flow;
 * - from the group's committed offsets, else the earliest (`fromBeginning: false`: the latest) —
 *   never the client's default of the latest by accident;
 * - committed only when the belt commits what it acknowledged (the client's autocommit would
 *   commit a fetch before its handler ran), and never while cut off;
 * - lean per record: one fetch response becomes transport records directly (`fetched.ts`), headers
 *   decoded in one pass, with no message object, closure or diagnostics per record;
 * - `read_committed` unless the subscription or the transport says `read_uncommitted`.
 *
 * Outages as the kafkajs driver: cut off on positive evidence (a fetch, heartbeat or commit failing
 * on connectivity), cleared by an assignment or a fetch that succeeded; after `rebuildAfterMs` a new
 * client replaces the old one in place, backing off towards `maxRebuildIntervalMs`. An
 * authentication failure is not an outage: it faults loudly.
 */
import {
  type Backoff,
  ClosedError,
  type ConsumedOffset,
  type ConsumerOptions,
  exponentialBackoff,
  type IncomingRecord,
  type PartitionPosition,
  type TransportConsumer,
  TransportError,
  type Waiter,
  waitForWake,
} from '@keiyaku/runtime/adapter';
import type { Consumer, MessagesStream } from '@platformatic/kafka';
import { CutOff } from '../client.js';
import type { KafkaClientStatus } from '../options.js';
import type { PlatformaticClients } from './client.js';
import { isAuthentication, isConnectivity, toTransportError } from './errors.js';
import { isOffsetOutOfRange, takeFetched } from './fetched.js';
import { MAX_BYTES, memberOptions } from './group.js';

/** Records fetched and not yet polled beyond which fetching waits for the belt. */
const MIN_BUFFERED = 10_000;
/** How long a shutdown or a rebuild waits for the client to leave the group. */
const CLOSE_BUDGET_MS = 10_000;

/** What a client error says, its nested errors included (for logs and faults). */
const describe = (error: unknown): string => toTransportError(error).message;

type Client = Consumer<Buffer, Buffer, Buffer, Buffer>;
type Stream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;

/** One client with its group membership; replaced as a whole by a rebuild. */
interface Member {
  readonly client: Client;
  stream: Stream | undefined;
  replaced: boolean;
}

/** @internal The consumer of one handler group on `@platformatic/kafka`. */
export class PlatformaticTransportConsumer implements TransportConsumer {
  readonly #transport: PlatformaticClients;
  readonly #options: ConsumerOptions;
  readonly #topic: string;
  readonly #group: string;
  readonly #onClose: () => void;
  readonly #readCommitted: boolean;
  readonly #cutOff = new CutOff();
  /** Rebuilds while cut off, on the runtime's backoff without jitter: rebuildAfterMs, doubling, up to maxRebuildIntervalMs. */
  readonly #rebuildBackoff: Backoff;
  /** Fetched records not yet polled, from `#head` on. */
  #buffer: IncomingRecord[] = [];
  #head = 0;
  readonly #highWater: number;
  readonly #acked = new Map<number, number>();
  readonly #committed = new Map<number, number>();
  readonly #high = new Map<number, number>();
  readonly #paused = new Set<number>();
  /** The offset to fetch next, per assigned partition (known once its start is looked up). */
  readonly #next = new Map<number, number>();
  /** The last offset this client handed to the belt, per partition: a refetch does not deliver it twice. */
  readonly #delivered = new Map<number, number>();
  /** Offsets with no record for the belt (markers, aborted records), per partition: start → end. */
  readonly #gaps = new Map<number, Map<number, number>>();
  #assigned: number[] = [];
  readonly #readers = new Set<Waiter>();
  readonly #fetchers = new Set<Waiter>();
  #member: Member | undefined;
  #running: Promise<void> | undefined;
  #fault: TransportError | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #rebuilding = false;
  #closed = false;
  /** Since when every commit has failed (fetches may succeed meanwhile); cleared by one that succeeds. */
  #commitsFailingSince: number | undefined;
  /** Resolves {@link positioned}: every assigned partition has its start (or the consumer closed). */
  #isPositioned: () => void = () => undefined;
  readonly #positioned = new Promise<void>((resolve) => {
    this.#isPositioned = resolve;
  });

  constructor(transport: PlatformaticClients, options: ConsumerOptions, onClose: () => void) {
    this.#transport = transport;
    this.#options = options;
    this.#topic = transport.topic(options.address);
    this.#group = transport.group(options.groupId);
    this.#onClose = onClose;
    this.#readCommitted = (options.isolation ?? transport.options.isolation ?? 'read_committed') === 'read_committed';
    this.#highWater = Math.max(MIN_BUFFERED, options.batchSize * 8);
    this.#rebuildBackoff = exponentialBackoff({
      initialMs: transport.options.rebuildAfterMs ?? 90_000,
      multiplier: 2,
      maxMs: transport.options.maxRebuildIntervalMs ?? 600_000,
      jitter: 0,
    });
    this.#running = this.#start();
    this.#watchdog = setInterval(() => this.#checkCutOff(), 1_000);
    this.#watchdog.unref();
  }

  #wake(waiters: Set<Waiter>): void {
    if (waiters.size === 0) return;
    const woken = [...waiters];
    waiters.clear();
    for (const wake of woken) wake();
  }

  /** A new client joins the group; the fetch loop runs until it is replaced or closed. */
  async #start(): Promise<void> {
    const { logger } = this.#transport;
    let member: Member | undefined;
    try {
      const kafka = await this.#transport.load();
      if (this.#closed) return;
      const client: Client = new kafka.Consumer(memberOptions(this.#transport, this.#group, this.#readCommitted));
      member = { client, stream: undefined, replaced: false };
      this.#member = member;
      this.#listen(member);
      const stream = await client.consume({
        topics: [this.#topic],
        autocommit: false,
        mode: 'committed',
        fallbackMode: this.#fromBeginning() ? 'earliest' : 'latest',
      });
      member.stream = stream;
      // The stream is the group membership only: it must never fetch. The client resumes it after a
      // KIP-848 revocation; that resume is ignored (restored before closing, which needs it).
      (stream as { resume: () => unknown }).resume = () => stream;
      stream.on('error', (error) => this.#lost(member!, error));
      stream.once('close', () => this.#lost(member!, new Error('the group stream of the client closed')));
      if (member.replaced || this.#closed) return;
      this.#assign(member);
      void this.#fetchLoop(member);
    } catch (error) {
      if (member?.replaced || this.#closed) return;
      if (isAuthentication(error)) this.#faultWith(error);
      else {
        this.#cutOff.mark(Date.now());
        logger.error('kafka: consumer could not start; it will be rebuilt', { topic: this.#topic, error: describe(error) });
      }
    }
  }

  /** Group events of `member`'s client: assignments, heartbeat failures. */
  #listen(member: Member): void {
    const { client } = member;
    client.on('consumer:group:join', () => {
      if (member.replaced || this.#closed) return;
      this.#cutOff.clear();
      this.#assign(member);
      this.#transport.logger.info('kafka: joined group', { group: this.#group, topic: this.#topic, partitions: this.#assigned });
    });
    client.on('consumer:heartbeat:error', ({ error }) => {
      if (member.replaced || this.#closed) return;
      if (isAuthentication(error)) this.#faultWith(error);
      else if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      this.#transport.logger.debug('kafka: heartbeat failed', { group: this.#group, error: describe(error) });
    });
    client.on('error', (error: Error) => {
      if (member.replaced || this.#closed) return;
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      this.#transport.logger.warn('kafka: consumer client error', { group: this.#group, error: describe(error) });
    });
  }

  /** The group stream of `member` ended or failed: the membership is gone; a new client takes over. */
  #lost(member: Member, error: unknown): void {
    if (member.replaced || this.#closed || this.#member !== member) return;
    if (isAuthentication(error)) {
      this.#faultWith(error);
      return;
    }
    if (isConnectivity(error)) this.#cutOff.mark(Date.now());
    this.#transport.logger.error('kafka: consumer lost its group membership', { group: this.#group, error: describe(error) });
    void this.#rebuild(`its group membership ended (${describe(error)})`);
  }

  /** Takes the client's current assignment: forgets partitions no longer assigned, looks up where new ones start. */
  #assign(member: Member): boolean {
    const current = member.client.assignments?.find((a) => a.topic === this.#topic)?.partitions ?? [];
    const sorted = [...current].sort((a, b) => a - b);
    if (sorted.length === this.#assigned.length && sorted.every((p, i) => p === this.#assigned[i])) return false;
    this.#assigned = sorted;
    for (const map of [this.#next, this.#delivered, this.#acked, this.#committed, this.#gaps, this.#high])
      for (const p of [...map.keys()]) if (!sorted.includes(p)) map.delete(p);
    this.#wake(this.#fetchers);
    return true;
  }

  status(): KafkaClientStatus {
    const since = this.#cutOff.since;
    return {
      role: 'consumer',
      topic: this.#topic,
      group: this.#group,
      ...(since === undefined ? {} : { cutOffSince: new Date(since).toISOString() }),
      rebuilds: this.#cutOff.totalRebuilds,
      ...(this.#fault === undefined ? {} : { fault: this.#fault.message }),
    };
  }

  #faultWith(error: unknown): void {
    if (this.#fault) return;
    this.#fault = new TransportError('kafka', `authentication failed: ${describe(error)}`, { retriable: false, cause: error });
    this.#transport.logger.error(`kafka: ${this.#fault.message}`, { topic: this.#topic, group: this.#options.groupId });
    this.#wake(this.#readers);
    this.#wake(this.#fetchers);
  }

  #current(member: Member): boolean {
    return !member.replaced && !this.#closed && this.#member === member && this.#fault === undefined;
  }

  /**
   * Fetches the assigned, unpaused partitions from their leaders while the belt keeps up, until
   * `member` is replaced or the consumer closes. Long because: one pass reads the assignment, looks
   * up where new partitions start, waits for room, and fetches per leader; split, it reads worse.
   */
  async #fetchLoop(member: Member): Promise<void> {
    const { client } = member;
    const waitMs = this.#transport.options.maxWaitTimeInMs ?? 500;
    while (this.#current(member)) {
      this.#assign(member);
      if (this.#buffer.length - this.#head >= this.#highWater) {
        await waitForWake(this.#fetchers, { timeoutMs: 1_000 });
        continue;
      }
      const unknown = this.#assigned.filter((p) => !this.#next.has(p));
      try {
        if (unknown.length > 0) await this.#lookUpStarts(client, unknown);
        if (this.#assigned.length > 0 && this.#assigned.every((p) => this.#next.has(p))) this.#isPositioned();
        const wanted = this.#assigned.filter((p) => !this.#paused.has(p) && this.#next.has(p));
        if (wanted.length === 0) {
          await waitForWake(this.#fetchers, { timeoutMs: waitMs });
          continue;
        }
        const metadata = await client.metadata({ topics: [this.#topic] });
        const topic = metadata.topics.get(this.#topic);
        if (topic === undefined) throw new TransportError('kafka', `no metadata for topic ${this.#topic}`);
        const byLeader = new Map<number, number[]>();
        for (const p of wanted) {
          const leader = topic.partitions[p]?.leader ?? -1;
          const list = byLeader.get(leader);
          if (list === undefined) byLeader.set(leader, [p]);
          else list.push(p);
        }
        await Promise.all([...byLeader].map(([leader, partitions]) => this.#fetchFrom(member, leader, topic.id, partitions, waitMs)));
      } catch (error) {
        if (!this.#current(member)) return;
        if (isAuthentication(error)) {
          this.#faultWith(error);
          return;
        }
        if (isConnectivity(error)) this.#cutOff.mark(Date.now());
        if (isOffsetOutOfRange(error)) for (const p of this.#assigned) this.#next.delete(p);
        this.#transport.logger.debug('kafka: fetch failed; retrying', { topic: this.#topic, error: describe(error) });
        client.clearMetadata();
        await waitForWake(this.#fetchers, { timeoutMs: Math.min(1_000, waitMs * 2) });
      }
    }
  }

  /** Fetches `partitions` from broker `leader` and hands their records to the belt. */
  async #fetchFrom(member: Member, leader: number, topicId: string, partitions: number[], waitMs: number): Promise<void> {
    const requested = new Map<number, number>();
    for (const p of partitions) requested.set(p, this.#next.get(p)!);
    const response = await member.client.fetch({
      node: leader,
      topics: [
        {
          topicId,
          partitions: partitions.map((partition) => ({
            partition,
            fetchOffset: BigInt(requested.get(partition)!),
            partitionMaxBytes: MAX_BYTES,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
          })),
        },
      ],
      maxWaitTime: waitMs,
      minBytes: 1,
      maxBytes: MAX_BYTES,
      isolationLevel: this.#readCommitted ? 1 : 0,
      ...(member.stream === undefined ? {} : { connectionPool: member.stream.connections }),
    });
    if (!this.#current(member)) return;
    this.#cutOff.clear();
    const before = this.#buffer.length;
    for (const topic of response.responses) {
      for (const fetched of topic.partitions) {
        const p = fetched.partitionIndex;
        const from = requested.get(p);
        // A partition revoked, rewound or paused while the fetch was under way: its records are not
        // this fetch's to give (a paused one is fetched again from here once resumed).
        if (from === undefined || this.#next.get(p) !== from || this.#paused.has(p)) continue;
        this.#high.set(p, Number(fetched.highWatermark));
        const taken = takeFetched(
          fetched,
          from,
          this.#delivered.get(p) ?? -1,
          this.#readCommitted,
          this.#options.address,
          this.#buffer,
          (a, b) => this.#gap(p, a, b),
        );
        this.#next.set(p, taken.next);
        if (taken.delivered >= 0) this.#delivered.set(p, taken.delivered);
      }
    }
    if (this.#buffer.length > before) this.#wake(this.#readers);
  }

  /** Whether a group without committed offsets starts at the earliest record (the subscription's `start`, else the transport's `fromBeginning`). */
  #fromBeginning(): boolean {
    return this.#options.start === undefined ? (this.#transport.options.fromBeginning ?? true) : this.#options.start === 'earliest';
  }

  /** Resolves once every assigned partition has its start position (see TransportConsumer.positioned). */
  positioned(): Promise<void> {
    return this.#positioned;
  }

  /** Where each of `partitions` starts: the group's committed offset, else the earliest (or latest) one. */
  async #lookUpStarts(client: Client, partitions: number[]): Promise<void> {
    const committed = (await client.listCommittedOffsets({ topics: [{ topic: this.#topic, partitions }] })).get(this.#topic) ?? [];
    const missing = partitions.filter((p) => (committed[p] ?? -1n) < 0n);
    let fallback: bigint[] = [];
    if (missing.length > 0) {
      const timestamp = this.#fromBeginning() ? -2n : -1n;
      fallback =
        (
          await client.listOffsets({
            topics: [this.#topic],
            partitions: { [this.#topic]: missing },
            timestamp,
            isolationLevel: this.#readCommitted ? 1 : 0,
          })
        ).get(this.#topic) ?? [];
    }
    for (const p of partitions) {
      if (!this.#assigned.includes(p)) continue;
      const at = committed[p] ?? -1n;
      if (at >= 0n) {
        const next = Number(at);
        if (next > (this.#committed.get(p) ?? -1)) this.#committed.set(p, next);
        this.#next.set(p, next);
      } else {
        const start = fallback[p];
        if (start !== undefined) this.#next.set(p, Number(start));
      }
    }
  }

  /** Offsets `from` up to `to` of `partition` hold nothing for the belt: acknowledging up to `from` steps over them. */
  #gap(partition: number, from: number, to: number): void {
    const acked = this.#acked.get(partition);
    if (acked === from || (acked === undefined && this.#committed.get(partition) === from)) {
      this.#acked.set(partition, to);
      return;
    }
    let gaps = this.#gaps.get(partition);
    if (gaps === undefined) {
      gaps = new Map();
      this.#gaps.set(partition, gaps);
    }
    gaps.set(from, to);
  }

  async poll(signal: AbortSignal): Promise<readonly IncomingRecord[]> {
    if (this.#closed) throw new ClosedError(`the kafka consumer of ${this.#options.groupId}`);
    if (this.#fault) throw this.#fault;
    if (this.#head >= this.#buffer.length && !signal.aborted)
      await waitForWake(this.#readers, { timeoutMs: this.#transport.options.maxWaitTimeInMs ?? 500, signal });
    if (this.#fault) throw this.#fault;
    const end = Math.min(this.#buffer.length, this.#head + this.#options.batchSize);
    const records = this.#buffer.slice(this.#head, end);
    this.#head = end;
    if (this.#head === this.#buffer.length) {
      this.#buffer = [];
      this.#head = 0;
    } else if (this.#head > 4_096 && this.#head * 2 > this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
    if (records.length > 0) this.#wake(this.#fetchers);
    return records;
  }

  ack(record: IncomingRecord): void {
    let next = Number(record.offset) + 1;
    const gaps = this.#gaps.get(record.partition);
    if (gaps !== undefined && gaps.size > 0) {
      const to = gaps.get(next);
      if (to !== undefined) {
        gaps.delete(next);
        next = to;
      }
    }
    if (next > (this.#acked.get(record.partition) ?? 0)) this.#acked.set(record.partition, next);
  }

  #uncommitted(): Array<[number, number]> {
    return [...this.#acked].filter(
      ([partition, next]) => this.#assigned.includes(partition) && next > (this.#committed.get(partition) ?? -1),
    );
  }

  async commit(): Promise<void> {
    const member = this.#member;
    if (member === undefined || member.stream === undefined) return;
    if (this.#cutOff.since !== undefined) {
      // Committing blocks for the length of an outage; acknowledged offsets are cumulative, the next commit carries them.
      throw new TransportError(
        'kafka',
        `not committing while cut off from the brokers (since ${new Date(this.#cutOff.since).toISOString()})`,
        { address: this.#options.address },
      );
    }
    const offsets = this.#uncommitted();
    if (offsets.length === 0) return;
    this.#pruneGaps();
    try {
      await member.client.commit({
        offsets: offsets.map(([partition, next]) => ({ topic: this.#topic, partition, offset: BigInt(next), leaderEpoch: -1 })),
      });
      for (const [partition, next] of offsets) if (next > (this.#committed.get(partition) ?? -1)) this.#committed.set(partition, next);
      this.#commitsFailingSince = undefined;
    } catch (error) {
      if (isConnectivity(error)) this.#cutOff.mark(Date.now());
      // @platformatic/kafka 1.x never looks its group coordinator up again: once that broker died, every commit
      // fails while fetches from the new leaders succeed (so the client never counts as cut off). A new client does.
      this.#commitsFailingSince ??= Date.now();
      const failingMs = Date.now() - this.#commitsFailingSince;
      if (failingMs >= (this.#transport.options.rebuildAfterMs ?? 90_000))
        void this.#rebuild(`its commits have failed for ${Math.round(failingMs / 1000)} s (${describe(error)})`);
      throw new TransportError('kafka', describe(error), {
        address: this.#options.address,
        retriable: !isAuthentication(error),
        cause: error,
      });
    }
  }

  /** Forgets gaps behind what was acknowledged (they can no longer be stepped over). */
  #pruneGaps(): void {
    for (const [partition, gaps] of this.#gaps) {
      const acked = this.#acked.get(partition) ?? 0;
      for (const from of gaps.keys()) if (from < acked) gaps.delete(from);
    }
  }

  /** Acknowledged and not yet committed, per assigned partition: the next offset to read (for a transaction's `sendOffsets`). */
  uncommitted(): readonly ConsumedOffset[] {
    return this.#uncommitted().map(([partition, next]) => ({ address: this.#options.address, partition, offset: String(next) }));
  }

  /** A transaction committed `offsets` for this group: positions show them, and the next plain commit leaves them out. */
  committed(offsets: readonly ConsumedOffset[]): void {
    for (const o of offsets) {
      if (o.address !== this.#options.address || !this.#assigned.includes(o.partition)) continue;
      const next = Number(o.offset);
      if (next > (this.#committed.get(o.partition) ?? -1)) this.#committed.set(o.partition, next);
    }
  }

  pause(partition: number): void {
    this.#paused.add(partition);
  }

  resume(partition: number): void {
    if (this.#paused.delete(partition)) this.#wake(this.#fetchers);
  }

  positions(): readonly PartitionPosition[] {
    return this.#assigned.map((partition) => {
      const committed = this.#committed.get(partition);
      const acked = this.#acked.get(partition);
      const high = this.#high.get(partition);
      return {
        partition,
        ...(committed === undefined ? {} : { committed: String(committed) }),
        ...(acked === undefined ? {} : { acknowledged: String(acked) }),
        ...(high === undefined ? {} : { highWatermark: String(high) }),
        ...(high === undefined ? {} : { lag: Math.max(0, high - (committed ?? 0)) }),
      };
    });
  }

  #checkCutOff(): void {
    const since = this.#cutOff.since;
    if (since === undefined || this.#closed || this.#fault || this.#rebuilding) return;
    const interval = this.#rebuildBackoff.delay(this.#cutOff.rebuilds + 1);
    const reference = Math.max(since, this.#cutOff.lastRebuild);
    if (Date.now() - reference >= interval) void this.#rebuild(`cut off from the brokers for ${Math.round((Date.now() - since) / 1000)} s`);
  }

  /** Replaces the client in place; this object keeps its identity. Resumes from committed offsets. */
  async #rebuild(reason: string): Promise<void> {
    // One rebuild at a time: two overlapping rebuilds would leave an orphaned client in the group.
    if (this.#closed || this.#rebuilding) return;
    this.#rebuilding = true;
    try {
      this.#cutOff.rebuilds++;
      this.#cutOff.totalRebuilds++;
      this.#cutOff.lastRebuild = Date.now();
      this.#commitsFailingSince = undefined;
      this.#transport.logger.warn(`kafka: rebuilding the consumer of ${this.#options.groupId}: ${reason}`, {
        topic: this.#topic,
        rebuilds: this.#cutOff.rebuilds,
      });
      const old = this.#member;
      this.#member = undefined;
      // What was delivered but not acknowledged is redelivered by the new client from the committed offsets.
      this.#buffer = [];
      this.#head = 0;
      this.#next.clear();
      this.#delivered.clear();
      this.#gaps.clear();
      this.#assigned = [];
      this.#wake(this.#fetchers);
      if (old) await this.#leave(old, 'disconnecting a replaced consumer');
      if (this.#closed) return;
      this.#running = this.#start();
      await this.#running;
    } finally {
      this.#rebuilding = false;
    }
  }

  /** Leaves the group with `member`'s client and closes its connections, within {@link CLOSE_BUDGET_MS}. */
  async #leave(member: Member, what: string): Promise<void> {
    member.replaced = true;
    const { client, stream } = member;
    const leaving = (async () => {
      if (stream !== undefined) {
        delete (stream as { resume?: unknown }).resume;
        await stream.close();
      }
      await client.close(true);
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), CLOSE_BUDGET_MS);
    });
    try {
      if ((await Promise.race([leaving.then(() => 'done' as const), timeout])) === 'timeout')
        this.#transport.logger.warn(`kafka: ${what} did not finish within ${CLOSE_BUDGET_MS} ms; moving on`);
    } catch (error) {
      this.#transport.logger.warn(`kafka: ${what} failed`, { error: describe(error) });
    } finally {
      clearTimeout(timer);
    }
    // Whatever the goodbye did, nothing of this client reaches the brokers again.
    leaving.catch(() => undefined);
    if (!client.closed) void client.connections.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#isPositioned();
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#wake(this.#readers);
    this.#wake(this.#fetchers);
    // A client still joining is left as it is (its join fails once its connections close), within the budget.
    const member = this.#member;
    this.#member = undefined;
    if (member) await this.#leave(member, 'leaving the consumer group');
    this.#onClose();
  }
}
