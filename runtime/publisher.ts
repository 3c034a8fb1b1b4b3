/**
 * A typed publisher per channel: `publish`/`publishMany` enqueue, a background batcher
 * sends by count, bytes or linger time, retries with backoff, and resolves each caller's
 * promise only when the transport acknowledged its message. A send that finally fails
 * rejects the caller's promise and is announced on `onError`; nothing is dropped silently.
 */
import type { AnyChannel, AnyContractMessage } from './codegen-v1.js';
import { resolveAddress } from './core/address.js';
import { type BackoffOptions, exponentialBackoff } from './core/backoff.js';
import { type Clock, systemClock } from './core/clock.js';
import { type EnvelopeOptions, encodeEnvelope } from './core/envelope.js';
import { ClosedError, PublishError } from './core/errors.js';
import { type Logger, stderrLogger } from './core/logger.js';
import type { OutgoingRecord, Transport, TransportProducer } from './core/transport.js';

export interface PublisherOptions<M> {
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
  /** Partition key of a message when `publish` is not given one (the aggregate id). */
  readonly key?: (message: M) => string | undefined;
  /** The concrete address, required when the channel has parameters. */
  readonly address?: string;
}

export type PublishOptions = EnvelopeOptions;

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

export class Publisher<M extends AnyContractMessage> implements AsyncDisposable {
  readonly channel: AnyChannel<M>;
  readonly address: string;
  readonly #producer: TransportProducer;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: Required<Pick<PublisherOptions<M>, 'maxBatchCount' | 'maxBatchBytes' | 'lingerMs' | 'maxAttempts' | 'source'>> &
    PublisherOptions<M>;
  readonly #queue: Pending[] = [];
  readonly #errorListeners = new Set<(error: PublishError) => void>();
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #queuedBytes = 0;
  #provisioned: Promise<void> | undefined;
  readonly #transport: Pick<Transport, 'provision'> | undefined;
  #closed = false;

  constructor(channel: AnyChannel<M>, deps: PublisherDeps, options: PublisherOptions<M> = {}) {
    this.channel = channel;
    this.address = resolveAddress(channel, options.address);
    this.#producer = deps.producer;
    this.#transport = deps.transport;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? stderrLogger;
    this.#options = { maxBatchCount: 100, maxBatchBytes: 1024 * 1024, lingerMs: 5, maxAttempts: 5, source: 'keiyaku', ...options };
  }

  /** Resolves when the transport has acknowledged `message`; rejects with a {@link PublishError} after the last retry. */
  publish(message: M, options: PublishOptions = {}): Promise<void> {
    if (this.#closed) return Promise.reject(new ClosedError(`the publisher of ${this.channel.id}`));
    const key = options.key ?? this.#options.key?.(message);
    const record = encodeEnvelope(
      this.channel,
      message,
      this.address,
      this.#options.source,
      { ...options, ...(key === undefined ? {} : { key }) },
      this.#clock.now(),
    );
    const promise = new Promise<void>((resolve, reject) => {
      this.#queue.push({ record, type: this.channel.typeOf(message), resolve, reject });
    });
    this.#queuedBytes += record.value.byteLength;
    this.#schedule();
    return promise;
  }

  /** Publishes each message (or `[message, options]`) in order; resolves when all are acknowledged. */
  publishMany(items: Iterable<M | readonly [M, PublishOptions]>): Promise<void> {
    const promises: Promise<void>[] = [];
    for (const item of items) {
      if (Array.isArray(item)) promises.push(this.publish(item[0] as M, item[1] as PublishOptions));
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
        this.#provisioned ??= this.#transport?.provision?.(this.address, this.channel.bindings) ?? Promise.resolve();
        await this.#provisioned.catch((error: unknown) => {
          this.#provisioned = undefined;
          throw error;
        });
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
