/**
 * Random (version 4) UUIDs for message ids, from the same CSPRNG as `crypto.randomUUID`.
 *
 * `crypto.randomUUID` builds each id by concatenating 20 short strings (about 540 bytes of
 * intermediate strings per id on Node 20). Here 128 ids at a time are drawn in one
 * `randomFillSync` and written as ASCII into one buffer; each id is then a single 36-byte
 * string cut from it.
 */
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';

const BATCH = 128;
const random = new Uint8Array(16 * BATCH);
const text = Buffer.alloc(36 * BATCH);
const HEX_DIGITS = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) {
  const hex = byte.toString(16).padStart(2, '0');
  HEX_DIGITS[2 * byte] = hex.charCodeAt(0);
  HEX_DIGITS[2 * byte + 1] = hex.charCodeAt(1);
}
let next = BATCH;

function refill(): void {
  randomFillSync(random);
  for (let id = 0; id < BATCH; id++) {
    const r = id * 16;
    random[r + 6] = (random[r + 6]! & 0x0f) | 0x40; // version 4
    random[r + 8] = (random[r + 8]! & 0x3f) | 0x80; // variant 10
    let at = id * 36;
    for (let k = 0; k < 16; k++) {
      if (k === 4 || k === 6 || k === 8 || k === 10) text[at++] = 0x2d; // '-'
      const digits = random[r + k]! * 2;
      text[at++] = HEX_DIGITS[digits]!;
      text[at++] = HEX_DIGITS[digits + 1]!;
    }
  }
  random.fill(0);
  next = 0;
}

/** A random UUID (version 4, lower case, `8-4-4-4-12`), as `crypto.randomUUID()` returns. */
export function messageId(): string {
  if (next === BATCH) refill();
  const at = next++ * 36;
  return text.toString('latin1', at, at + 36);
}
