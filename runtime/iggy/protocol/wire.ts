/**
 * Little-endian byte writing and reading for Iggy's binary protocol. A `u128` is two LE
 * u64 halves, low half first. Readers throw {@link IggyDecodeError} on a short buffer.
 */
import { KeiyakuError } from '@keiyaku/runtime/adapter';

export class IggyDecodeError extends KeiyakuError {
  override readonly name = 'IggyDecodeError';

  constructor(message: string, options: { cause?: unknown } = {}) {
    // Not retriable: the same bytes decode the same way, and re-sending a request whose reply did not decode could apply it twice.
    super('iggy_decode_failed', message, { retriable: false, cause: options.cause });
  }
}

export class Writer {
  #buffer: Uint8Array;
  #view: DataView;
  #length = 0;

  constructor(capacity = 256) {
    this.#buffer = new Uint8Array(capacity);
    this.#view = new DataView(this.#buffer.buffer);
  }

  #ensure(extra: number): void {
    if (this.#length + extra <= this.#buffer.length) return;
    const next = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + extra));
    next.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = next;
    this.#view = new DataView(next.buffer);
  }

  u8(value: number): this {
    this.#ensure(1);
    this.#view.setUint8(this.#length, value);
    this.#length += 1;
    return this;
  }

  u32(value: number): this {
    this.#ensure(4);
    this.#view.setUint32(this.#length, value >>> 0, true);
    this.#length += 4;
    return this;
  }

  u64(value: bigint | number): this {
    this.#ensure(8);
    this.#view.setBigUint64(this.#length, BigInt(value), true);
    this.#length += 8;
    return this;
  }

  u128(value: bigint): this {
    return this.u64(value & 0xffff_ffff_ffff_ffffn).u64(value >> 64n);
  }

  bytes(value: Uint8Array): this {
    this.#ensure(value.length);
    this.#buffer.set(value, this.#length);
    this.#length += value.length;
    return this;
  }

  zeros(count: number): this {
    this.#ensure(count);
    this.#buffer.fill(0, this.#length, this.#length + count);
    this.#length += count;
    return this;
  }

  get length(): number {
    return this.#length;
  }

  /** The bytes written, as a view (no copy): a writer is not written to after it finished. */
  finish(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }
}

export class Reader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #offset: number;

  constructor(bytes: Uint8Array, offset = 0) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#offset = offset;
  }

  #need(count: number, what: string): void {
    if (this.#offset + count > this.#bytes.length) {
      throw new IggyDecodeError(
        `truncated: ${what} needs ${count} bytes at offset ${this.#offset}, ${this.#bytes.length - this.#offset} left`,
      );
    }
  }

  u8(what = 'u8'): number {
    this.#need(1, what);
    return this.#view.getUint8(this.#offset++);
  }

  u32(what = 'u32'): number {
    this.#need(4, what);
    const value = this.#view.getUint32(this.#offset, true);
    this.#offset += 4;
    return value;
  }

  u64(what = 'u64'): bigint {
    this.#need(8, what);
    const value = this.#view.getBigUint64(this.#offset, true);
    this.#offset += 8;
    return value;
  }

  u128(what = 'u128'): bigint {
    const low = this.u64(what);
    return (this.u64(what) << 64n) | low;
  }

  bytes(count: number, what = 'bytes'): Uint8Array {
    this.#need(count, what);
    const out = this.#bytes.subarray(this.#offset, this.#offset + count);
    this.#offset += count;
    return out;
  }

  get offset(): number {
    return this.#offset;
  }

  get remaining(): number {
    return this.#bytes.length - this.#offset;
  }
}

export const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** UTF-8 text of `bytes`; an IggyDecodeError naming `what` when they are not UTF-8. */
export function fromUtf8(bytes: Uint8Array, what = 'text'): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (cause) {
    throw new IggyDecodeError(`${what} is not valid UTF-8`, { cause });
  }
}
