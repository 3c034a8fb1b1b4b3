/**
 * A typed publisher per channel: `publish`/`publishMany` enqueue, a background batcher
 * sends by count, bytes or linger time, retries with backoff, and resolves each caller's
 * promise only when the transport acknowledged its message. A send that finally fails
 * rejects the caller's promise and is announced on `onError`; nothing is dropped silently.
 */
import type { AnyChannel, AnyContractMessage } from './codegen-v1.js';
import { addressOf, chooseAddress } from './core/address.js';
import { type BackoffOptions, exponentialBackoff } from './core/backoff.js';
import { type Clock, systemClock } from './core/clock.js';
import { type EnvelopeOptions, encodeEnvelope } from './core/envelope.js';
import { ClosedError, KeiyakuError, PublishError } from './core/errors.js';
import { type Logger, stderrLogger } from './core/logger.js';
import type { OutgoingRecord, Transport, TransportProducer } from './core/transport.js';

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

/** Options of one publish; `parameters` route this message on a channel with parameters (`P`). */
export type PublishOptions<P = never> = EnvelopeOptions & {
  /** Parameter values for this message's address; they win over the publisher's. */
  readonly parameters?: P;
};

interface Pending {
  readonly record: OutgoingRecord;
  readonly type: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface PublisherDeps {
  readonly producer: TransportProducer;
  /** When given, the address is provisioned (from the channel's bindings) before the first send. */
  readonly transport?: Pick<Transport, 'provision'>;
  readonly clock?: Clock;
  readonly logger?: Logger;
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
  readonly #queue: Pending[] = [];
  readonly #errorListeners = new Set<(error: PublishError) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #queuedBytes = 0;
  readonly #provisioned = new Map<string, Promise<void>>();
  readonly #transport: Pick<Transport, 'provision'> | undefined;
  #closed = false;

  /** @throws ChannelAddressError when the parameters or the address do not fit the channel. */
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
    this.#options = { maxBatchCount: 100, maxBatchBytes: 1024 * 1024, lingerMs: 5, maxAttempts: 5, source: 'keiyaku', ...options };
  }

  /** Resolves when the transport has acknowledged `message`; rejects with a {@link PublishError} after the last retry. */
  /**
   * Resolves when the transport has acknowledged `message`; rejects with a {@link PublishError} after the last retry,
   * or at once with a ChannelAddressError when `options.parameters` do not fit the channel (or are missing on a
   * channel with parameters whose publisher has none).
   */
  publish(message: M, options: PublishOptions<P> = {}): Promise<void> {
    if (this.#closed) return Promise.reject(new ClosedError(`the publisher of ${this.channel.id}`));
    const { parameters, ...envelope } = options;
    let address: string;
    try {
      address = this.#addressFor(parameters);
    } catch (error) {
      return Promise.reject(error);
    }
    const key = envelope.key ?? this.#options.key?.(message) ?? this.channel.message(this.channel.typeOf(message))?.key(message);
    const record = encodeEnvelope(
      this.channel,
      message,
      address,
      this.#options.source,
      { ...envelope, ...(key === undefined ? {} : { key }) },
      this.#clock.now(),
    );
    const promise = new Promise<void>((resolve, reject) => {
      this.#queue.push({ record, type: this.channel.typeOf(message), resolve, reject });
    });
    this.#queuedBytes += record.value.byteLength;
    this.#schedule();
    return promise;
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

  /** Publishes each message (or `[message, options]`) in order; resolves when all are acknowledged. */
  publishMany(items: Iterable<M | readonly [M, PublishOptions<P>]>): Promise<void> {
    const promises: Promise<void>[] = [];
    for (const item of items) {
      if (Array.isArray(item)) promises.push(this.publish(item[0] as M, item[1] as PublishOptions<P>));
      else promises.push(this.publish(item as M));
    }
    return Promise.all(promises).then(() => undefined);
  }

  /** Called with every message that finally failed (as well as rejecting its `publish`). Returns an unsubscribe function. */
  onError(listener: (error: PublishError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  /** Messages queued or in flight. */
  get pending(): number {
    return this.#queue.length + this.#inFlight.size;
  }

  /** Sends everything queued now and waits until all of it is acknowledged or failed. */
  async flush(): Promise<void> {
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
    if (this.#queue.length >= this.#options.maxBatchCount || this.#queuedBytes >= this.#options.maxBatchBytes) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#sendBatch();
      if (this.#queue.length > 0) this.#schedule();
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        while (this.#queue.length > 0) this.#sendBatch();
      }, this.#options.lingerMs);
    }
  }

  /** Takes one batch off the queue (by count and bytes) and sends it in the background. */
  #sendBatch(): void {
    const batch: Pending[] = [];
    let bytes = 0;
    while (this.#queue.length > 0 && batch.length < this.#options.maxBatchCount) {
      const next = this.#queue[0]!;
      if (batch.length > 0 && bytes + next.record.value.byteLength > this.#options.maxBatchBytes) break;
      batch.push(this.#queue.shift()!);
      bytes += next.record.value.byteLength;
      this.#queuedBytes -= next.record.value.byteLength;
    }
    if (batch.length === 0) return;
    const sending = this.#sendWithRetry(batch).finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }

  async #sendWithRetry(batch: Pending[]): Promise<void> {
    const backoff = exponentialBackoff(this.#options.retry);
    let attempt = 0;
    while (true) {
      attempt++;
      try {
        for (const address of new Set(batch.map((p) => p.record.address))) {
          let provisioned = this.#provisioned.get(address);
          if (provisioned === undefined) {
            provisioned = this.#transport?.provision?.(address, this.channel.bindings) ?? Promise.resolve();
            this.#provisioned.set(address, provisioned);
          }
          await provisioned.catch((error: unknown) => {
            this.#provisioned.delete(address);
            throw error;
          });
        }
        await this.#producer.send(batch.map((p) => p.record));
        for (const p of batch) p.resolve();
        return;
      } catch (cause) {
        const retriable = (cause as { retriable?: unknown }).retriable !== false;
        if (!retriable || attempt >= this.#options.maxAttempts) {
          this.#logger.error('publish failed', {
            channel: this.channel.id,
            address: this.address,
            attempts: attempt,
            messages: batch.length,
            error: String(cause),
          });
          // Settle every caller first: a listener that throws must not leave the rest of the batch pending.
          const errors = batch.map((p) => {
            const error = new PublishError(this.channel.id, p.type, attempt, cause);
            p.reject(error);
            return error;
          });
          for (const error of errors) this.#announce(error);
          return;
        }
        const delay = backoff.delay(attempt);
        this.#logger.warn('publish failed; retrying', { channel: this.channel.id, attempt, delayMs: delay, error: String(cause) });
        await this.#clock.sleep(delay);
      }
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
