/**
 * A typed publisher per channel: `publish`/`publishMany` enqueue, a background batcher
 * sends by count, bytes or linger time, retries with backoff, and resolves each caller's
 * promise only when the transport acknowledged its message. A send that finally fails
 * rejects the caller's promise and is announced on `onError`; nothing is dropped silently.
 */
import type { Span, Tracer } from '@opentelemetry/api';
import { addressOf, chooseAddress } from '../core/address.js';
import { type BackoffOptions, exponentialBackoff } from '../core/backoff.js';
import { activeCapture, type PublishCapture } from '../core/capture.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { AnyChannel, AnyContractMessage, HeadersOf } from '../core/contract.js';
import { CE_HEADERS, type EnvelopeOptions, envelopeRecord } from '../core/envelope.js';
import { ClosedError, KeiyakuError, PublishError } from '../core/errors.js';
import { type Logger, stderrLogger } from '../core/logger.js';
import { otelApi, SPAN_KIND } from '../core/otel-api.js';
import { retry } from '../core/retry.js';
import { ATTR, failSpan, formatTraceparent, remoteContext, tracer, tracingEnabled } from '../core/tracing.js';
import type { OutgoingRecord, Transport, TransportProducer } from '../core/transport.js';

/**
 * Options of a publisher. `P` is the type of the channel's parameters (`never` for a channel
 * with a fixed address): give them here to send every message to one address, or per
 * `publish` to route each message (one publisher for every region).
 */
export interface PublisherOptions<M, P = never> {
  /** Most messages per send (default 100). */
  readonly maxBatchCount?: number;
  /** Most payload bytes per send (default 1 MiB). */
  readonly maxBatchBytes?: number;
  /** How long the first queued message waits for company before a send (default 5 ms). */
  readonly lingerMs?: number;
  /** Attempts per batch before it fails (default 5). */
  readonly maxAttempts?: number;
  readonly retry?: BackoffOptions;
  /** CloudEvents `ce_source` (default `keiyaku`). */
  readonly source?: string;
  /**
   * Partition key of a message when `publish` is not given one (the aggregate id). Default: the
   * message's key property from its Kafka binding's key schema, when the contract has one.
   */
  readonly key?: (message: M) => string | undefined;
  /** Parameter values of a channel with parameters, for every message of this publisher (else give them per publish). */
  readonly parameters?: P;
  /**
   * @deprecated Pass `parameters` instead. A concrete address: on a channel with parameters it
   * must fit the channel's template and parameter rules (a warning is logged); on a channel
   * without parameters it is refused unless it is the channel's own address or `forceAddress` is set.
   */
  readonly address?: string;
  /** Publish to `address` although it is not the channel's (for a channel without parameters, or an address outside the template). */
  readonly forceAddress?: boolean;
}

/**
 * Options of one publish: `headers` are the message's contract headers where the contract declares
 * them (`H`); `parameters` route this message on a channel with parameters (`P`).
 */
export type PublishOptions<H = Readonly<Record<string, string>>, P = never> = EnvelopeOptions<H> & {
  /** Parameter values for this message's address; they win over the publisher's. */
  readonly parameters?: P;
};

/** The callers of one message type in one batch share one promise (not one per message). */
interface Settlement {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const CE_ID = CE_HEADERS.id;
const CE_TYPE = CE_HEADERS.type;
/** The options of a publish that was given none (one object, not one per message). */
const NO_OPTIONS: PublishOptions<never, never> = Object.freeze({});
/** What a publish captured into a transactional attempt resolves with: the record is buffered. */
const CAPTURED: Promise<void> = Promise.resolve();

/** What a publisher has done so far, for metrics and the operations page. */
export interface PublisherStats {
  readonly channel: string;
  readonly address: string;
  /** Messages the transport acknowledged. */
  readonly sent: number;
  /** Payload bytes of those messages. */
  readonly sentBytes: number;
  /** Messages that finally failed (their `publish` rejected). */
  readonly failed: number;
  /** Messages waiting for a batch. */
  readonly queued: number;
  /** Payload bytes waiting for a batch. */
  readonly queuedBytes: number;
  /** Batches on their way to the transport. */
  readonly inFlightBatches: number;
  readonly closed: boolean;
}

/** Messages that travel in one send: their records and one settlement per type. */
interface Batch {
  readonly records: OutgoingRecord[];
  readonly settlements: Map<string, Settlement>;
  /** The address of every record, while they share one (the usual batch); undefined once they do not. */
  address: string | undefined;
  /** The recording `send` spans of its messages (only while a tracer records), ended with the send. */
  spans: Span[] | undefined;
  bytes: number;
}

function newBatch(): Batch {
  return { records: [], settlements: new Map(), address: undefined, spans: undefined, bytes: 0 };
}

function settlement(): Settlement {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface PublisherDeps {
  readonly producer: TransportProducer;
  /**
   * When given, the address is provisioned (from the channel's bindings) before the first send, and
   * the transport may refuse the channel at once (`checkChannel`).
   */
  readonly transport?: Pick<Transport, 'provision' | 'checkChannel'>;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** `messaging.system` of the publisher's spans (the transport's name; default `keiyaku`). */
  readonly system?: string;
}

export class Publisher<M extends AnyContractMessage, P = never> implements AsyncDisposable {
  readonly channel: AnyChannel<M>;
  /** The address every message goes to; the channel's address template when parameters come with each publish. */
  readonly address: string;
  readonly #fixedAddress: string | undefined;
  readonly #producer: TransportProducer;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: Required<Pick<PublisherOptions<M, P>, 'maxBatchCount' | 'maxBatchBytes' | 'lingerMs' | 'maxAttempts' | 'source'>> &
    PublisherOptions<M, P>;
  /** Batches waiting to be sent, the last one still filling. */
  readonly #queue: Batch[] = [];
  #queuedCount = 0;
  #queuedBytes = 0;
  readonly #errorListeners = new Set<(error: PublishError) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  /** Settles when the last publish that waited for its channel's preparation has gone on; undefined when none waits. */
  #waiting: Promise<void> | undefined;
  readonly #provisioned = new Map<string, Promise<void>>();
  readonly #transport: Pick<Transport, 'provision'> | undefined;
  #closed = false;
  readonly #tracer: Tracer | undefined;
  readonly #system: string;
  #sent = 0;
  #sentBytes = 0;
  #failed = 0;

  /**
   * @throws ChannelAddressError when the parameters or the address do not fit the channel;
   * StructuredBinaryPayloadError when the transport writes the channel in structured content mode and its payloads are Avro or Protobuf.
   */
  constructor(
    channel: AnyChannel<M> & { readonly address: string | ((params: P) => string) },
    deps: PublisherDeps,
    options: PublisherOptions<M, P> = {},
  ) {
    this.channel = channel;
    this.#producer = deps.producer;
    this.#transport = deps.transport;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? stderrLogger;
    this.#fixedAddress = chooseAddress(channel, options, this.#logger);
    this.address = this.#fixedAddress ?? channel.addressTemplate;
    deps.transport?.checkChannel?.(channel, this.address);
    this.#tracer = tracer();
    this.#system = deps.system ?? 'keiyaku';
    this.#options = { maxBatchCount: 100, maxBatchBytes: 1024 * 1024, lingerMs: 5, maxAttempts: 5, source: 'keiyaku', ...options };
  }

  /**
   * Resolves when the transport has acknowledged `message`; rejects with a {@link PublishError} after the last retry,
   * at once with a ContractValidationError naming the header when its contract headers do not validate, and at once
   * with a ChannelAddressError when `options.parameters` do not fit the channel (or are missing on a channel with
   * parameters whose publisher has none). Inside the handler of a transactional subscription
   * (same transport) it resolves when the record is buffered in the handler's attempt; the record
   * is sent in the subscription's transaction and becomes visible when that commits.
   */
  publish<T extends M>(message: T, options: PublishOptions<HeadersOf<T>, P> = NO_OPTIONS): Promise<void> {
    return this.#publish(message, options, tracingEnabled());
  }

  /** {@link publish}, told whether a tracer records (asked once per call of publishMany, not per message). */
  #publish<T extends M>(message: T, options: PublishOptions<HeadersOf<T>, P>, tracing: boolean, now?: number): Promise<void> {
    if (this.#closed) return Promise.reject(new ClosedError(`the publisher of ${this.channel.id}`));
    // A channel that must look something up before it can encode (a Schema Registry's id): wait
    // for it, and keep every later message behind it so the order of publishes holds.
    if (this.channel.prepare !== undefined) {
      let pending: Promise<void> | undefined;
      let address: string;
      const type = this.channel.typeOf(message);
      try {
        address = options.parameters === undefined ? this.#addressFor(undefined) : this.#addressFor(options.parameters);
        pending = this.channel.prepare(address, type);
      } catch (error) {
        return Promise.reject(error);
      }
      if (pending !== undefined || this.#waiting !== undefined)
        return this.#afterPrepared(pending === undefined ? undefined : this.#prepared(pending, address, type), () =>
          this.#enqueue(message, options, tracing, undefined),
        );
    }
    return this.#enqueue(message, options, tracing, now);
  }

  /** Runs `run` once `ready` resolved and every publish that waited before it has gone on; rejects as `ready` does. */
  #afterPrepared(ready: Promise<void> | undefined, run: () => Promise<void>): Promise<void> {
    ready?.catch(() => undefined); // rejects through `turn`, later: not an unhandled rejection meanwhile
    const turn = (this.#waiting ?? Promise.resolve()).then(() => ready);
    const result = turn.then(run);
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.#waiting = settled;
    void settled.then(() => {
      if (this.#waiting === settled) this.#waiting = undefined;
    });
    return result;
  }

  /**
   * `first` (the channel's preparation for `type` on `address`), retried like a send: a
   * transient failure (the registry unavailable) is asked again on the backoff; the last failure
   * rejects with a PublishError, as a send that finally fails does, and nothing is sent unframed.
   */
  async #prepared(first: Promise<void>, address: string, type: string): Promise<void> {
    let attempts = 0;
    try {
      await retry(
        async (n) => {
          attempts = n;
          await (n === 1 ? first : this.channel.prepare?.(address, type));
        },
        {
          maxAttempts: Math.max(1, this.#options.maxAttempts),
          backoff: exponentialBackoff(this.#options.retry),
          clock: this.#clock,
          onRetry: (cause, n, delayMs) =>
            this.#logger.warn('publish could not prepare its encoding; retrying', {
              channel: this.channel.id,
              type,
              attempt: n,
              delayMs,
              error: String(cause),
            }),
        },
      );
    } catch (cause) {
      this.#failed++;
      const error = new PublishError(this.channel.id, type, attempts, cause);
      this.#announce(error);
      throw error;
    }
  }

  /** Encodes `message` and puts it in the batch that is filling (or in the capture of a transactional attempt). */
  #enqueue<T extends M>(message: T, options: PublishOptions<HeadersOf<T>, P>, tracing: boolean, now: number | undefined): Promise<void> {
    const type = this.channel.typeOf(message);
    let record: OutgoingRecord;
    let span: Span | undefined;
    try {
      const address = options.parameters === undefined ? this.#addressFor(undefined) : this.#addressFor(options.parameters);
      const key = options.key ?? this.#options.key?.(message) ?? this.channel.message(type)?.key(message);
      if (tracing) {
        // The send span: a child of the active context (or of a context the caller carried over,
        // e.g. from an outbox row); its context travels in the message.
        const parent = options.traceparent === undefined ? undefined : remoteContext(options.traceparent, options.tracestate);
        const started = this.#tracer!.startSpan(`send ${address}`, { kind: SPAN_KIND.PRODUCER }, parent);
        const spanContext = started.spanContext();
        let envelope = options;
        if (otelApi()?.isSpanContextValid(spanContext) === true) {
          const state = spanContext.traceState?.serialize();
          envelope = { ...options, traceparent: formatTraceparent(spanContext), ...(state ? { tracestate: state } : {}) };
        }
        try {
          record = envelopeRecord(this.channel, message, address, this.#options.source, envelope, key, now ?? this.#clock.now());
        } catch (error) {
          failSpan(started, error);
          started.end();
          throw error;
        }
        if (started.isRecording()) {
          span = started;
          span.setAttributes({
            [ATTR.system]: this.#system,
            [ATTR.destination]: address,
            [ATTR.operationType]: 'send',
            [ATTR.operationName]: 'send',
            [ATTR.messageId]: record.headers[CE_ID]!,
            [ATTR.eventId]: record.headers[CE_ID]!,
            [ATTR.eventType]: type,
            [ATTR.eventSource]: this.#options.source,
            [ATTR.channel]: this.channel.id,
            ...(record.key === undefined || this.#system !== 'kafka' ? {} : { [ATTR.kafkaKey]: record.key }),
          });
        }
      } else {
        record = envelopeRecord(this.channel, message, address, this.#options.source, options, key, now ?? this.#clock.now());
      }
    } catch (error) {
      return Promise.reject(error);
    }
    // Inside a transactional handler attempt the record goes to the attempt's buffer: the belt
    // sends it in its transaction, and it becomes visible when that commits.
    const capture = activeCapture(this.#transport);
    if (capture !== undefined) return this.#capture(capture, record, span);
    const size = record.value.byteLength;
    let batch = this.#queue[this.#queue.length - 1];
    if (
      batch === undefined ||
      batch.records.length >= this.#options.maxBatchCount ||
      (batch.records.length > 0 && batch.bytes + size > this.#options.maxBatchBytes)
    ) {
      batch = newBatch();
      this.#queue.push(batch);
    }
    if (batch.records.length === 0) batch.address = record.address;
    else if (batch.address !== record.address) batch.address = undefined;
    batch.records.push(record);
    batch.bytes += size;
    if (span !== undefined) {
      batch.spans ??= [];
      batch.spans.push(span);
    }
    this.#queuedCount++;
    this.#queuedBytes += size;
    let settled = batch.settlements.get(type);
    if (settled === undefined) {
      settled = settlement();
      batch.settlements.set(type, settled);
    }
    this.#schedule();
    return settled.promise;
  }

  #capture(capture: PublishCapture, record: OutgoingRecord, span: Span | undefined): Promise<void> {
    try {
      capture.capture(record, this.#provision(record.address));
    } catch (error) {
      if (span !== undefined) failSpan(span, error);
      return Promise.reject(error);
    } finally {
      span?.end();
    }
    return CAPTURED;
  }

  /** Provisions `address` once (from the channel's bindings) when the publisher was given its transport. */
  #provision(address: string): Promise<void> {
    let provisioned = this.#provisioned.get(address);
    if (provisioned === undefined) {
      provisioned = this.#transport?.provision?.(address, this.channel.bindings) ?? Promise.resolve();
      this.#provisioned.set(address, provisioned);
      // A failure is asked again at the next send, and is not an unhandled rejection meanwhile.
      provisioned.catch(() => this.#provisioned.delete(address));
    }
    return provisioned;
  }

  #addressFor(parameters: P | undefined): string {
    if (parameters !== undefined) {
      if (typeof this.channel.address !== 'function') return chooseAddress(this.channel, { parameters }) as string;
      return addressOf(this.channel, parameters);
    }
    if (this.#fixedAddress !== undefined) return this.#fixedAddress;
    throw new KeiyakuError(
      'address_required',
      `channel ${this.channel.id} has parameters (${this.channel.addressTemplate}): give parameters to the publisher or to each publish`,
    );
  }

  /** Publishes each message (or `[message, options]`) in order, stamped with one time (`ce_time`, unless given); resolves when all are acknowledged. */
  publishMany(items: Iterable<M | readonly [M, PublishOptions<HeadersOf<M>, P>]>): Promise<void> {
    // The messages of one type in one batch share a settlement: wait for each distinct promise once.
    const promises = new Set<Promise<void>>();
    const tracing = tracingEnabled();
    // One call publishes its messages at one time: they share the default `ce_time` (a message
    // given a `time` keeps it; one that waits for its channel's preparation is stamped when it goes on).
    const now = this.#clock.now();
    for (const item of items) {
      if (Array.isArray(item)) promises.add(this.#publish(item[0] as M, item[1] as PublishOptions<HeadersOf<M>, P>, tracing, now));
      else promises.add(this.#publish(item as M, NO_OPTIONS, tracing, now));
    }
    return Promise.all(promises).then(() => undefined);
  }

  /** Called with every message that finally failed (as well as rejecting its `publish`). Returns an unsubscribe function. */
  onError(listener: (error: PublishError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  /** Counts and queue sizes, for metrics and the operations page. */
  stats(): PublisherStats {
    return {
      channel: this.channel.id,
      address: this.address,
      sent: this.#sent,
      sentBytes: this.#sentBytes,
      failed: this.#failed,
      queued: this.#queuedCount,
      queuedBytes: this.#queuedBytes,
      inFlightBatches: this.#inFlight.size,
      closed: this.#closed,
    };
  }

  /** Messages queued or in flight. */
  get pending(): number {
    return this.#queuedCount + this.#inFlight.size;
  }

  /** Sends everything queued now and waits until all of it is acknowledged or failed. */
  async flush(): Promise<void> {
    while (this.#waiting !== undefined) await this.#waiting;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length > 0) this.#sendBatch();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Flushes, then refuses new messages. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #schedule(): void {
    // Full batches go now; the one still filling waits at most lingerMs for company.
    while (this.#queue.length > 1 || this.#isFull(this.#queue[0])) this.#sendBatch();
    if (this.#queue.length === 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        while (this.#queue.length > 0) this.#sendBatch();
      }, this.#options.lingerMs);
    }
  }

  #isFull(batch: Batch | undefined): boolean {
    return batch !== undefined && (batch.records.length >= this.#options.maxBatchCount || batch.bytes >= this.#options.maxBatchBytes);
  }

  /** Takes the oldest batch off the queue and sends it in the background. */
  #sendBatch(): void {
    const batch = this.#queue.shift();
    if (batch === undefined) return;
    this.#queuedCount -= batch.records.length;
    this.#queuedBytes -= batch.bytes;
    const sending = this.#sendWithRetry(batch).finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }

  async #sendWithRetry(batch: Batch): Promise<void> {
    let attempt = 0;
    try {
      await retry(
        async (n) => {
          attempt = n;
          if (batch.address !== undefined) await this.#provision(batch.address);
          else for (const address of new Set(batch.records.map((record) => record.address))) await this.#provision(address);
          await this.#producer.send(batch.records);
          this.#sent += batch.records.length;
          this.#sentBytes += batch.bytes;
          if (batch.spans !== undefined) for (const span of batch.spans) span.end();
          for (const settled of batch.settlements.values()) settled.resolve();
        },
        {
          maxAttempts: Math.max(1, this.#options.maxAttempts),
          backoff: exponentialBackoff(this.#options.retry),
          clock: this.#clock,
          onRetry: (cause, n, delayMs) =>
            this.#logger.warn('publish failed; retrying', { channel: this.channel.id, attempt: n, delayMs, error: String(cause) }),
        },
      );
    } catch (cause) {
      this.#logger.error('publish failed', {
        channel: this.channel.id,
        address: this.address,
        attempts: attempt,
        messages: batch.records.length,
        error: String(cause),
      });
      // Settle every caller first: a listener that throws must not leave the rest of the batch pending.
      this.#failed += batch.records.length;
      // Every record carries its message type (`ce_type`): the batch keeps no list of them beside.
      const types = batch.records.map((record) => record.headers[CE_TYPE]!);
      const errors = types.map((type) => new PublishError(this.channel.id, type, attempt, cause));
      if (batch.spans !== undefined)
        for (const span of batch.spans) {
          failSpan(span, cause);
          span.end();
        }
      types.forEach((type, i) => {
        const settled = batch.settlements.get(type);
        if (settled !== undefined) {
          settled.reject(errors[i]);
          batch.settlements.delete(type); // the first message of each type names its callers' error
        }
      });
      for (const error of errors) this.#announce(error);
    }
  }

  /** Tells every error listener; one that throws is logged and the others still hear it. */
  #announce(error: PublishError): void {
    for (const listener of [...this.#errorListeners]) {
      try {
        listener(error);
      } catch (thrown) {
        this.#logger.error('a publish error listener threw', {
          channel: this.channel.id,
          messageType: error.messageType,
          error: String(thrown),
        });
      }
    }
  }
}
