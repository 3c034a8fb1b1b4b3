/**
 * The requester of one request-reply of the contract (`messaging.requester(GetBook)`): it
 * publishes a request with a fresh correlation id (`ce_correlationid`) and, where the contract
 * says so, the reply address in a header of the request; it reads its reply address with a
 * consumer group of its own that starts at the end (a fresh instance never reads old replies),
 * and settles each request with the reply of its correlation id, or a typed error.
 *
 * - A reply that comes after its request timed out is dropped and counted (`late`); one whose
 *   correlation id this requester never sent is dropped and counted (`unknown`): another
 *   instance's reply on a shared address, or an old one.
 * - `stop()` rejects every pending request with a {@link RequesterStoppedError}.
 *
 * It is a hosted component of its `Messaging` host: it shows in `health()` with these counts, and
 * stops inside the shared shutdown budget before the publishers close.
 */

import type { RequestReplyDescriptor } from '../core/contract/request-reply.js';
import type { AnyChannel, AnyContractMessage, HeadersOf } from '../core/contract.js';
import { openEnvelope, recordType } from '../core/envelope.js';
import { ClosedError, KeiyakuError } from '../core/errors.js';
import type { HostedComponent, HostedComponentHealth } from '../core/hosted.js';
import { messageId } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { IncomingRecord, Transport, TransportConsumer } from '../core/transport.js';
import type { Publisher, PublishOptions } from '../publish/publisher.js';

/** A request got no reply within its timeout. What it means: see docs/request-reply.md. */
export class RequestTimeoutError extends KeiyakuError {
  override readonly name = 'RequestTimeoutError';
  readonly operation: string;
  readonly correlationId: string;
  readonly timeoutMs: number;

  constructor(operation: string, correlationId: string, timeoutMs: number) {
    super(
      'request_timeout',
      `request ${operation} (correlation id ${correlationId}) got no reply within ${timeoutMs} ms; the responder may still handle it and answer late`,
      { retriable: true },
    );
    this.operation = operation;
    this.correlationId = correlationId;
    this.timeoutMs = timeoutMs;
  }
}

/** The requester stopped (or its request was aborted) while the request waited for its reply. */
export class RequesterStoppedError extends KeiyakuError {
  override readonly name = 'RequesterStoppedError';
  readonly operation: string;
  readonly correlationId: string;

  constructor(operation: string, correlationId: string, why: string, cause?: unknown) {
    super('requester_stopped', `request ${operation} (correlation id ${correlationId}) gets no reply: ${why}`, { cause });
    this.operation = operation;
    this.correlationId = correlationId;
  }
}

/** A reply arrived for the request but is not one the contract allows, or does not decode. */
export class ReplyInvalidError extends KeiyakuError {
  override readonly name = 'ReplyInvalidError';
  readonly operation: string;
  readonly correlationId: string;

  constructor(operation: string, correlationId: string, why: string, cause?: unknown) {
    super('reply_invalid', `the reply to request ${operation} (correlation id ${correlationId}) ${why}`, { cause });
    this.operation = operation;
    this.correlationId = correlationId;
  }
}

export interface RequesterOptions {
  /**
   * Where this requester's replies go, when the contract takes the reply address from the request
   * (`$message.header#/replyTo`): one address per instance (a topic of its own), read from its
   * end. Default: the reply channel's address (every instance reads it and drops the others' replies).
   */
  readonly replyAddress?: string;
  /** How long a request waits for its reply (default 30 s); `request` may give its own. */
  readonly timeoutMs?: number;
  /** The consumer group that reads the replies (default `keiyaku.reply.<operation>.<random id>`: one per instance). */
  readonly groupId?: string;
  /** Correlation ids of timed-out requests remembered to count their late replies (default 10,000). */
  readonly rememberTimedOut?: number;
  /** Its name in `health()` (default the operation id; give one to host two requesters of one operation). */
  readonly name?: string;
}

export interface RequestOptions<H> {
  readonly timeoutMs?: number;
  /** Aborts the wait: the request rejects with a RequesterStoppedError (the request may still be answered). */
  readonly signal?: AbortSignal;
  /** This request's reply address (the contract must take it from the request); read from its end, like the instance's. */
  readonly replyAddress?: string;
  /** Partition key of the request. */
  readonly key?: string;
  /** Contract headers of the request; the reply address header is set by the requester. */
  readonly headers?: H;
  /** The correlation id (default a random UUID); unique among this requester's pending requests. */
  readonly correlationId?: string;
}

/** What a requester has seen, as `health()` shows it. */
export interface RequesterStats {
  readonly operation: string;
  /** Requests waiting for their reply. */
  readonly pending: number;
  readonly requests: number;
  /** Replies that settled a request. */
  readonly replies: number;
  readonly timeouts: number;
  /** Replies that came after their request timed out, dropped. */
  readonly late: number;
  /** Replies with a correlation id this requester never sent (or no longer remembers), dropped. */
  readonly unknown: number;
  /** The addresses it reads replies from. */
  readonly addresses: readonly string[];
}

interface Pending<Rep> {
  readonly resolve: (reply: Rep) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: NodeJS.Timeout;
  readonly cleanup: () => void;
}

/** One consumer of one reply address: positioned at the end before any request that names it goes out. */
interface ReplyReader {
  readonly ready: Promise<void>;
  readonly loop: Promise<void>;
}

export interface RequesterDeps {
  readonly transport: Transport;
  readonly logger: Logger;
  /** The publisher of the request channel. */
  readonly publisher: Publisher<AnyContractMessage, unknown>;
  /** The reply channel as the host uses it (framed for a Schema Registry where the contract says so); default the descriptor's. */
  readonly reply?: AnyChannel;
}

export class Requester<Req extends AnyContractMessage, Rep extends AnyContractMessage> implements HostedComponent {
  readonly kind = 'requester';
  readonly name: string;
  readonly descriptor: RequestReplyDescriptor<Req, Rep>;
  /** The address replies to this instance go to (by default). */
  readonly replyAddress: string;
  readonly #deps: RequesterDeps;
  readonly #options: RequesterOptions;
  readonly #groupId: string;
  readonly #pending = new Map<string, Pending<Rep>>();
  readonly #timedOut = new Set<string>();
  readonly #readers = new Map<string, ReplyReader>();
  readonly #consumers = new Map<string, TransportConsumer>();
  readonly #stopping = new AbortController();
  #stopped = false;
  #requests = 0;
  #replies = 0;
  #timeouts = 0;
  #late = 0;
  #unknown = 0;
  #extraGroups = 0;

  constructor(descriptor: RequestReplyDescriptor<Req, Rep>, deps: RequesterDeps, options: RequesterOptions = {}) {
    this.descriptor = descriptor;
    this.#deps = deps;
    this.#options = options;
    this.name = options.name ?? descriptor.id;
    this.#groupId = options.groupId ?? `keiyaku.reply.${descriptor.id}.${messageId().slice(0, 8)}`;
    this.replyAddress = this.#addressOf(options.replyAddress);
  }

  /** The reply address for a request: the one given (the contract must take it from the request), else `fallback`, else the reply channel's. */
  #addressOf(given: string | undefined, fallback?: string): string {
    const rule = this.descriptor.replyAddress;
    const reply = this.descriptor.reply;
    if ('channel' in rule) {
      if (given !== undefined && given !== reply.address)
        throw new KeiyakuError(
          'reply_address_fixed',
          `request-reply ${this.descriptor.id} answers on the reply channel ${reply.id} (${reply.addressTemplate}); the contract gives the request no reply address, so ${JSON.stringify(given)} would never be answered`,
        );
      return reply.address as string;
    }
    const address = given ?? fallback ?? (typeof reply.address === 'string' ? reply.address : undefined);
    if (address === undefined)
      throw new KeiyakuError(
        'reply_address_required',
        `request-reply ${this.descriptor.id}: the reply channel ${reply.id} has parameters (${reply.addressTemplate}); give the requester a replyAddress`,
      );
    return address;
  }

  async start(): Promise<void> {
    await this.#reader(this.replyAddress).ready;
  }

  /**
   * Publishes `request` and resolves with its reply. Rejects with a RequestTimeoutError when no
   * reply came within the timeout, a RequesterStoppedError when the requester stops or `signal`
   * aborts first, a ReplyInvalidError when the reply is not one the contract allows, and as
   * `publish` does when the request cannot be sent.
   */
  async request<T extends Req>(request: T, options: RequestOptions<HeadersOf<T>> = {}): Promise<Rep> {
    if (this.#stopped) throw new ClosedError(`the requester of ${this.descriptor.id}`);
    const address = this.#addressOf(options.replyAddress, this.replyAddress);
    const correlationId = options.correlationId ?? messageId();
    if (this.#pending.has(correlationId))
      throw new KeiyakuError(
        'correlation_id_pending',
        `request ${this.descriptor.id}: correlation id ${correlationId} is already waiting for a reply`,
      );
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 30_000;
    const rule = this.descriptor.replyAddress;
    const headers = 'header' in rule ? { ...(options.headers as object | undefined), [rule.header]: address } : options.headers;
    const reply = new Promise<Rep>((resolve, reject) => {
      const abort = (): void =>
        this.#settle(correlationId, new RequesterStoppedError(this.descriptor.id, correlationId, 'aborted', options.signal?.reason));
      options.signal?.addEventListener('abort', abort, { once: true });
      const timer = setTimeout(() => {
        this.#timeouts++;
        this.#remember(correlationId);
        this.#settle(correlationId, new RequestTimeoutError(this.descriptor.id, correlationId, timeoutMs));
      }, timeoutMs);
      this.#pending.set(correlationId, { resolve, reject, timer, cleanup: () => options.signal?.removeEventListener('abort', abort) });
      if (options.signal?.aborted) abort();
    });
    // Settled (a timeout, an abort, stop()) perhaps while the publish below is still awaited: handled when returned.
    reply.catch(() => undefined);
    this.#requests++;
    const publishOptions = {
      correlationId,
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(headers === undefined ? {} : { headers }),
    } as unknown as PublishOptions<HeadersOf<T>, unknown>;
    try {
      // The timeout runs from here: waiting for the reply address's reader counts.
      await this.#reader(address).ready;
      if (this.#pending.has(correlationId)) await this.#deps.publisher.publish(request, publishOptions);
    } catch (error) {
      this.#settle(correlationId, error);
    }
    return reply;
  }

  /** Settles pending request `correlationId` with `outcome` (an error rejects), if it still waits. */
  #settle(correlationId: string, outcome: unknown, reply?: Rep): void {
    const pending = this.#pending.get(correlationId);
    if (pending === undefined) return;
    this.#pending.delete(correlationId);
    clearTimeout(pending.timer);
    pending.cleanup();
    if (reply !== undefined) pending.resolve(reply);
    else pending.reject(outcome);
  }

  #remember(correlationId: string): void {
    this.#timedOut.add(correlationId);
    const limit = this.#options.rememberTimedOut ?? 10_000;
    if (this.#timedOut.size > limit) this.#timedOut.delete(this.#timedOut.values().next().value as string);
  }

  /**
   * The reader of `address`, made (provisioned, positioned at the end) on first use. Each address
   * has a consumer group of its own (`<groupId>`, then `<groupId>.2`, …): members of one Kafka group
   * that subscribe to different topics would share out each other's partitions.
   */
  #reader(address: string): ReplyReader {
    let reader = this.#readers.get(address);
    if (reader !== undefined) return reader;
    const { transport } = this.#deps;
    const channel = this.#deps.reply ?? this.descriptor.reply;
    const groupId = this.#readers.size === 0 ? this.#groupId : `${this.#groupId}.${++this.#extraGroups + 1}`;
    const made = (async () => {
      await transport.provision?.(address, channel.bindings);
      const consumer = transport.consumer({ address, groupId, batchSize: 100, start: 'latest' });
      this.#consumers.set(address, consumer);
      return consumer;
    })();
    reader = {
      ready: made.then(async (consumer) => {
        await consumer.positioned?.();
      }),
      loop: made.then(
        (consumer) => this.#read(consumer, channel, address),
        () => undefined,
      ),
    };
    // A reader that could not be made is made again by the next request.
    reader.ready.catch(() => this.#readers.delete(address));
    this.#readers.set(address, reader);
    return reader;
  }

  /** Reads replies on `address` until the requester stops: each settles its request, or is counted and dropped. */
  async #read(consumer: TransportConsumer, channel: AnyChannel, address: string): Promise<void> {
    const signal = this.#stopping.signal;
    while (!signal.aborted) {
      let records: readonly IncomingRecord[];
      try {
        records = await consumer.poll(signal);
      } catch (error) {
        if (signal.aborted) return;
        this.#deps.logger.warn('requester: reading replies failed; trying again', {
          operation: this.descriptor.id,
          address,
          error: String(error),
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      for (const record of records) {
        // A reply framed for a Schema Registry decodes once its writer's schema is read.
        await channel.prepareRecord?.(record.value, recordType(record, channel) ?? '')?.catch(() => undefined);
        this.#accept(channel, record);
        consumer.ack(record);
      }
      if (records.length > 0) await consumer.commit().catch(() => undefined);
    }
  }

  #accept(channel: AnyChannel, record: IncomingRecord): void {
    const opened = openEnvelope(channel, record);
    const correlationId = opened.correlationId;
    if (correlationId === undefined || !this.#pending.has(correlationId)) {
      if (correlationId !== undefined && this.#timedOut.has(correlationId)) {
        this.#timedOut.delete(correlationId);
        this.#late++;
      } else this.#unknown++;
      return;
    }
    if (!opened.decoded.ok) {
      this.#settle(correlationId, new ReplyInvalidError(this.descriptor.id, correlationId, 'does not decode', opened.decoded.error));
      return;
    }
    if (!(this.descriptor.replyTypes as readonly string[]).includes(opened.type)) {
      this.#settle(
        correlationId,
        new ReplyInvalidError(this.descriptor.id, correlationId, `is a ${opened.type}, not a reply of the contract`),
      );
      return;
    }
    this.#replies++;
    this.#settle(correlationId, undefined, opened.decoded.value as Rep);
  }

  stats(): RequesterStats {
    return {
      operation: this.descriptor.id,
      pending: this.#pending.size,
      requests: this.#requests,
      replies: this.#replies,
      timeouts: this.#timeouts,
      late: this.#late,
      unknown: this.#unknown,
      addresses: [...this.#readers.keys()],
    };
  }

  health(): HostedComponentHealth {
    const { pending, requests, replies, timeouts, late, unknown, addresses } = this.stats();
    return {
      kind: this.kind,
      name: this.name,
      ready: !this.#stopped,
      details: { operation: this.descriptor.id, pending, requests, replies, timeouts, late, unknown, addresses },
    };
  }

  /** Rejects every pending request with a RequesterStoppedError and closes the reply consumers. */
  async stop(_deadline?: AbortSignal): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const id of [...this.#pending.keys()])
      this.#settle(id, new RequesterStoppedError(this.descriptor.id, id, 'the requester stopped'));
    this.#stopping.abort();
    await Promise.allSettled([...this.#readers.values()].map((r) => r.loop));
    await Promise.allSettled([...this.#consumers.values()].map((c) => c.close()));
  }
}
