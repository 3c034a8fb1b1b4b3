/**
 * Pooled ("rented") batches: a builder serializes every payload into one buffer taken from a
 * pool; `build()` hands out a batch whose message payloads are views into that buffer.
 * Ownership passes to whoever sends it (the publisher disposes it once sent); after
 * `dispose()` the buffer goes back to the pool and reading the batch throws instead of
 * exposing recycled memory.
 */
import type { PublisherMessage } from './publisher.js';

/** A small pool of growable byte buffers. */
export class BufferPool {
  readonly #free: Uint8Array[] = [];
  readonly #max: number;

  constructor(maxPooled = 16) {
    this.#max = maxPooled;
  }

  rent(minimum: number): Uint8Array {
    const index = this.#free.findIndex((b) => b.length >= minimum);
    if (index !== -1) return this.#free.splice(index, 1)[0]!;
    return new Uint8Array(Math.max(minimum, 4096));
  }

  give(buffer: Uint8Array): void {
    if (this.#free.length < this.#max) this.#free.push(buffer);
  }

  get pooled(): number {
    return this.#free.length;
  }
}

export const sharedPool = new BufferPool();

export class ObjectDisposedError extends Error {
  override readonly name = 'ObjectDisposedError';
}

export class RentedMessageBatch implements Disposable {
  #buffer: Uint8Array | undefined;
  readonly #entries: readonly { readonly start: number; readonly end: number; readonly id?: bigint; readonly headers?: Uint8Array }[];
  readonly #pool: BufferPool;

  /** @internal */
  constructor(buffer: Uint8Array, entries: RentedMessageBatch['entries'], pool: BufferPool) {
    this.#buffer = buffer;
    this.#entries = entries;
    this.#pool = pool;
  }

  /** @internal */
  get entries(): readonly { readonly start: number; readonly end: number; readonly id?: bigint; readonly headers?: Uint8Array }[] {
    return this.#entries;
  }

  get disposed(): boolean {
    return this.#buffer === undefined;
  }

  get length(): number {
    return this.#entries.length;
  }

  /** The messages; their payloads are views into the pooled buffer. Throws once disposed. */
  get messages(): PublisherMessage[] {
    const buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this rented batch was disposed; its buffer is back in the pool');
    return this.#entries.map((e) => ({
      payload: buffer.subarray(e.start, e.end),
      ...(e.id === undefined ? {} : { id: e.id }),
      ...(e.headers ? { headers: e.headers } : {}),
    }));
  }

  dispose(): void {
    const buffer = this.#buffer;
    if (buffer === undefined) return;
    this.#buffer = undefined;
    this.#pool.give(buffer);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Writes payloads one after another into a rented buffer. */
export class RentedMessageBatchBuilder implements Disposable {
  #buffer: Uint8Array | undefined;
  #length = 0;
  readonly #entries: { start: number; end: number; id?: bigint; headers?: Uint8Array }[] = [];
  readonly #pool: BufferPool;

  constructor(sizeHint = 4096, pool: BufferPool = sharedPool) {
    this.#pool = pool;
    this.#buffer = pool.rent(sizeHint);
  }

  /** Appends one message; `write` serializes `item` with the given writer (no intermediate copy). */
  add<T>(item: T, write: (item: T, writer: { write(bytes: Uint8Array): void }) => void, id?: bigint, headers?: Uint8Array): this {
    if (this.#buffer === undefined) throw new ObjectDisposedError('this builder was already built or disposed');
    const start = this.#length;
    write(item, { write: (bytes) => this.#append(bytes) });
    if (this.#length === start) throw new RangeError('a message payload must not be empty');
    this.#entries.push({ start, end: this.#length, ...(id === undefined ? {} : { id }), ...(headers ? { headers } : {}) });
    return this;
  }

  #append(bytes: Uint8Array): void {
    let buffer = this.#buffer!;
    if (this.#length + bytes.length > buffer.length) {
      const bigger = this.#pool.rent(Math.max(buffer.length * 2, this.#length + bytes.length));
      bigger.set(buffer.subarray(0, this.#length));
      this.#pool.give(buffer);
      buffer = bigger;
      this.#buffer = buffer;
    }
    buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** The batch; the builder becomes a no-op. */
  build(): RentedMessageBatch {
    const buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this builder was already built or disposed');
    this.#buffer = undefined;
    return new RentedMessageBatch(buffer, [...this.#entries], this.#pool);
  }

  /** Gives the buffer back if the builder is abandoned before build(); a no-op afterwards. */
  dispose(): void {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    if (buffer) this.#pool.give(buffer);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
