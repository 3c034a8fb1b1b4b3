/**
 * Pooled ("rented") batches: a builder serializes every payload into one buffer taken from a
 * pool; `build()` hands out a batch whose message payloads are views into that buffer.
 * Ownership passes to whoever sends it (the publisher disposes it once sent); after
 * `dispose()` the buffer goes back to the pool and reading the batch throws instead of
 * exposing recycled memory.
 *
 * ```ts
 * using builder = new RentedMessageBatchBuilder(4096);
 * for (const event of events) builder.add(event, (e, writer) => writer.writeUtf8(JSON.stringify(e)));
 * await publisher.send(builder.build()); // the publisher owns the batch now
 *
 * using batch = builder2.build(); // a direct low-level send: you own it, `using` disposes it
 * await client.sendMessages(stream, topic, Partitioning.none(), batch.messages);
 * ```
 */
import { KeiyakuError } from '@keiyaku/runtime/adapter';
import { DEFAULT_PROTOCOL } from './protocol/registry.js';
import type { FrameSlot, InPlaceBatch } from './protocol/version.js';

/** Bytes left before each payload for its frame header: what the default protocol generation writes in place when sending. */
const FRAME_HEADER_SIZE = DEFAULT_PROTOCOL.sendInPlace.frameHeaderSize;

/**
 * A small pool of byte buffers whose views can be revoked. Buffers are handed out as
 * `Uint8Array`s over an `ArrayBuffer` of the pool's own. When one comes back (`give`), its memory
 * moves to a fresh `ArrayBuffer` object (a transfer: no copy) and the old one is detached, so every
 * view ever taken of it — a payload, a header slice, a `subarray` of either — has length 0 and
 * throws on `slice`, `set` and `subarray` instead of reading memory that is about to be reused.
 * Only buffers this pool rented are taken back; anything else is left alone.
 */
export class BufferPool {
  readonly #free: ArrayBuffer[] = [];
  readonly #max: number;
  /** The buffers currently out on rent, so that only those are detached and reused. */
  readonly #out = new WeakSet<ArrayBuffer>();
  #allocated = 0;
  #reused = 0;

  constructor(maxPooled = 16) {
    this.#max = maxPooled;
  }

  /** A buffer of at least `minimum` bytes (its contents are whatever was there before). */
  rent(minimum: number): Uint8Array {
    const index = this.#free.findIndex((b) => b.byteLength >= minimum);
    let memory: ArrayBuffer;
    if (index === -1) {
      memory = new ArrayBuffer(Math.max(minimum, 4096));
      this.#allocated++;
    } else {
      memory = this.#free.splice(index, 1)[0]!;
      this.#reused++;
    }
    this.#out.add(memory);
    return new Uint8Array(memory);
  }

  /** Takes back a buffer this pool rented: every view of it is revoked, and its memory is kept for the next `rent`. */
  give(buffer: Uint8Array): void {
    const memory = buffer.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#out.has(memory)) return;
    this.#out.delete(memory);
    // Detach: the memory moves to a new ArrayBuffer (no copy); every view of the old one now refuses reads.
    const kept = structuredClone(memory, { transfer: [memory] });
    if (this.#free.length < this.#max) this.#free.push(kept);
  }

  /** Buffers waiting in the pool. */
  get pooled(): number {
    return this.#free.length;
  }

  /** How many rents allocated new memory, and how many reused pooled memory. */
  get stats(): { readonly allocated: number; readonly reused: number } {
    return { allocated: this.#allocated, reused: this.#reused };
  }
}

export const sharedPool = new BufferPool();

const utf8 = new TextEncoder();

/** A pooled object (batch, builder, received message) was read after it was disposed. */
export class ObjectDisposedError extends KeiyakuError {
  override readonly name = 'ObjectDisposedError';

  constructor(message: string) {
    super('object_disposed', message);
  }
}

/** A message of a rented batch: its payload is a view into the pooled buffer. It also fits `IggyClient.sendMessages` (and `IggyPublisher.sendMessages`) as is. */
export interface RentedMessage {
  /** 128-bit id; absent: minted when sent. */
  readonly id?: bigint;
  readonly payload: Uint8Array;
  readonly headers?: Uint8Array;
  /** When the batch was built, µs since the epoch. */
  readonly originTimestamp: bigint;
}

/** What a payload serializer writes to: bytes, or text encoded as UTF-8 straight into the pooled buffer. */
export interface RentedPayloadWriter {
  write(bytes: Uint8Array): void;
  writeUtf8(text: string): void;
}

/**
 * A built batch. Its messages sit in its pooled buffer in wire order: for each one, room for the
 * protocol's frame header, the payload, then the user headers — so a publisher can write the
 * frame headers in place and send the buffer itself, without copying a payload.
 */
export class RentedMessageBatch implements Disposable {
  #buffer: Uint8Array | undefined;
  readonly #frames: readonly FrameSlot[];
  readonly #pool: BufferPool;
  #sealed: Uint8Array | undefined;
  /** When the batch was built, µs since the epoch: the origin timestamp of its messages on a direct send. */
  readonly originTimestamp: bigint;

  /** @internal */
  constructor(buffer: Uint8Array, frames: readonly FrameSlot[], pool: BufferPool) {
    this.#buffer = buffer;
    this.#frames = frames;
    this.#pool = pool;
    this.originTimestamp = BigInt(Date.now()) * 1000n;
  }

  get disposed(): boolean {
    return this.#buffer === undefined;
  }

  get length(): number {
    return this.#frames.length;
  }

  /** Payload bytes of all messages. */
  get payloadBytes(): number {
    let n = 0;
    for (const f of this.#frames) n += f.payloadLength;
    return n;
  }

  /**
   * The messages; their payloads are views into the pooled buffer, so use them before the
   * batch is disposed. Throws {@link ObjectDisposedError} once disposed (and every view taken
   * earlier refuses reads from then on).
   */
  get messages(): RentedMessage[] {
    const buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this rented batch was disposed; its buffer is back in the pool');
    return this.#frames.map((f) => {
      const start = f.at + FRAME_HEADER_SIZE;
      const end = start + f.payloadLength;
      return {
        payload: buffer.subarray(start, end),
        ...(f.id === undefined ? {} : { id: f.id }),
        ...(f.headersLength > 0 ? { headers: buffer.subarray(end, end + f.headersLength) } : {}),
        originTimestamp: this.originTimestamp,
      };
    });
  }

  /**
   * @internal The batch in wire order, its frame headers written in place (once: retries send the
   * same ids), for `IggyClient.sendRentedBatch`.
   */
  wire(
    seal: (batch: InPlaceBatch) => Uint8Array,
    frameHeaderSize = FRAME_HEADER_SIZE,
  ): { readonly batch: InPlaceBatch; readonly header: Uint8Array } {
    const buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this rented batch was disposed; its buffer is back in the pool');
    if (frameHeaderSize !== FRAME_HEADER_SIZE)
      throw new RangeError(
        `this rented batch leaves ${FRAME_HEADER_SIZE} bytes per frame header; the client's protocol writes ${frameHeaderSize}`,
      );
    const batch: InPlaceBatch = { bytes: buffer, frames: this.#frames, originTimestamp: this.originTimestamp };
    this.#sealed ??= seal(batch);
    return { batch, header: this.#sealed };
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

/** Writes messages one after another into a rented buffer, in wire order (room for each frame header, payload, user headers). */
export class RentedMessageBatchBuilder implements Disposable {
  #buffer: Uint8Array | undefined;
  #length = 0;
  readonly #frames: FrameSlot[] = [];
  readonly #pool: BufferPool;

  readonly #writer: RentedPayloadWriter = {
    write: (bytes) => {
      this.#reserve(bytes.length).set(bytes, this.#length);
      this.#length += bytes.length;
    },
    writeUtf8: (text) => {
      // Encode in place: first with room for ASCII; whatever did not fit gets the worst case (3 bytes per UTF-16 unit).
      let rest = text;
      let room = text.length;
      while (rest.length > 0) {
        const { read, written } = utf8.encodeInto(rest, this.#reserve(room).subarray(this.#length));
        this.#length += written;
        rest = rest.slice(read);
        room = rest.length * 3;
      }
    },
  };

  constructor(sizeHint = 4096, pool: BufferPool = sharedPool) {
    this.#pool = pool;
    this.#buffer = pool.rent(sizeHint);
  }

  /**
   * Appends one message: `write` serializes `item` into the pooled buffer through the writer
   * (pass a function that closes over nothing, and `item` as its state, to allocate no
   * closure per message). An id of 0 or none lets one be minted; `headers` are raw user
   * header bytes (see `UserHeaders.encode`), copied in after the payload.
   */
  add<T>(item: T, write: (item: T, writer: RentedPayloadWriter) => void, id?: bigint, headers?: Uint8Array): this {
    if (this.#buffer === undefined) throw new ObjectDisposedError('this builder was already built or disposed');
    const at = this.#length;
    this.#reserve(FRAME_HEADER_SIZE);
    this.#length += FRAME_HEADER_SIZE;
    const start = this.#length;
    try {
      write(item, this.#writer);
    } catch (error) {
      this.#length = at; // drop the half-written message
      throw error;
    }
    const payloadLength = this.#length - start;
    if (payloadLength === 0) {
      this.#length = at;
      throw new RangeError('a message payload must not be empty');
    }
    if (headers && headers.length > 0) this.#writer.write(headers);
    this.#frames.push({ at, payloadLength, headersLength: headers?.length ?? 0, ...(id === undefined ? {} : { id }) });
    return this;
  }

  /** The buffer, grown (through the pool) to hold `extra` more bytes. */
  #reserve(extra: number): Uint8Array {
    let buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this builder was already built or disposed');
    if (this.#length + extra > buffer.length) {
      const bigger = this.#pool.rent(Math.max(buffer.length * 2, this.#length + extra));
      bigger.set(buffer.subarray(0, this.#length));
      this.#pool.give(buffer);
      buffer = bigger;
      this.#buffer = buffer;
    }
    return buffer;
  }

  /** The batch; the builder becomes a no-op. */
  build(): RentedMessageBatch {
    const buffer = this.#buffer;
    if (buffer === undefined) throw new ObjectDisposedError('this builder was already built or disposed');
    this.#buffer = undefined;
    return new RentedMessageBatch(buffer, [...this.#frames], this.#pool);
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
