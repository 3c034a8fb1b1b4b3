/** The UTF-8 encoder of contract messages: small texts share a slab instead of an ArrayBuffer each. */
import { Buffer } from 'node:buffer';

/** Bytes of one slab that small encoded messages share (views into it, like Node's own Buffer pool). */
const SLAB_BYTES = 64 * 1024;
/** Texts that may need more than this many bytes get an array of their own. */
const SLAB_MAX_TEXT = 4 * 1024;
let slab = Buffer.from(new ArrayBuffer(SLAB_BYTES));
let slabOffset = 0;

/**
 * The UTF-8 bytes of `text` as a Uint8Array of exactly its length (a view: mind `byteOffset`).
 * Small texts are written into a shared zero-filled slab: a fresh ArrayBuffer per message
 * (`TextEncoder.encode`) costs several times the encoding itself in allocation and GC.
 */
export function utf8Bytes(text: string): Uint8Array {
  const worst = text.length * 3; // one UTF-16 unit is at most three UTF-8 bytes
  if (worst > SLAB_MAX_TEXT) {
    const own = Buffer.from(text, 'utf8');
    return new Uint8Array(own.buffer, own.byteOffset, own.byteLength);
  }
  if (SLAB_BYTES - slabOffset < worst) {
    slab = Buffer.from(new ArrayBuffer(SLAB_BYTES));
    slabOffset = 0;
  }
  const written = slab.write(text, slabOffset, 'utf8');
  const bytes = new Uint8Array(slab.buffer, slabOffset, written);
  slabOffset += written;
  return bytes;
}
