/**
 * Random (version 4) UUIDs for message ids, from the same CSPRNG as `crypto.randomUUID`.
 *
 * `crypto.randomUUID` builds each id by concatenating 20 short strings (about 540 bytes of
 * intermediate strings per id on Node 20). Here 512 ids at a time are drawn in one
 * `randomFillSync`, written as ASCII into one buffer (dashes in place once, two hex digits per
 * byte from a table, one statement per byte) and read as one string; each id is a 36-character
 * slice of it (V8 shares the characters: no copy per id; an id kept on its own keeps its batch's
 * 18 KiB string alive, which is what 512 ids kept as copies would take).
 */
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';

const BATCH = 512;
const ID_LENGTH = 36;
const random = new Uint8Array(16 * BATCH);
const text = Buffer.alloc(ID_LENGTH * BATCH);
for (let at = 0; at < text.length; at += ID_LENGTH) text[at + 8] = text[at + 13] = text[at + 18] = text[at + 23] = 0x2d; // '-'
/** The two lower-case hex digits of each byte, first digit in the low 8 bits. */
const HEX_PAIRS = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  const hex = byte.toString(16).padStart(2, '0');
  HEX_PAIRS[byte] = hex.charCodeAt(0) | (hex.charCodeAt(1) << 8);
}
let ids = '';
let next = BATCH;

/** Writes the hex digits of byte `r + k` at `at + offset` (the offsets skip the dashes). */
function writeIds(): void {
  for (let r = 0, at = 0; r < random.length; r += 16, at += ID_LENGTH) {
    random[r + 6] = (random[r + 6]! & 0x0f) | 0x40; // version 4
    random[r + 8] = (random[r + 8]! & 0x3f) | 0x80; // variant 10
    // Unrolled: a loop over a table of offsets measured two to three times slower.
    let h = HEX_PAIRS[random[r]!]!;
    text[at] = h;
    text[at + 1] = h >> 8;
    h = HEX_PAIRS[random[r + 1]!]!;
    text[at + 2] = h;
    text[at + 3] = h >> 8;
    h = HEX_PAIRS[random[r + 2]!]!;
    text[at + 4] = h;
    text[at + 5] = h >> 8;
    h = HEX_PAIRS[random[r + 3]!]!;
    text[at + 6] = h;
    text[at + 7] = h >> 8;
    h = HEX_PAIRS[random[r + 4]!]!;
    text[at + 9] = h;
    text[at + 10] = h >> 8;
    h = HEX_PAIRS[random[r + 5]!]!;
    text[at + 11] = h;
    text[at + 12] = h >> 8;
    h = HEX_PAIRS[random[r + 6]!]!;
    text[at + 14] = h;
    text[at + 15] = h >> 8;
    h = HEX_PAIRS[random[r + 7]!]!;
    text[at + 16] = h;
    text[at + 17] = h >> 8;
    h = HEX_PAIRS[random[r + 8]!]!;
    text[at + 19] = h;
    text[at + 20] = h >> 8;
    h = HEX_PAIRS[random[r + 9]!]!;
    text[at + 21] = h;
    text[at + 22] = h >> 8;
    h = HEX_PAIRS[random[r + 10]!]!;
    text[at + 24] = h;
    text[at + 25] = h >> 8;
    h = HEX_PAIRS[random[r + 11]!]!;
    text[at + 26] = h;
    text[at + 27] = h >> 8;
    h = HEX_PAIRS[random[r + 12]!]!;
    text[at + 28] = h;
    text[at + 29] = h >> 8;
    h = HEX_PAIRS[random[r + 13]!]!;
    text[at + 30] = h;
    text[at + 31] = h >> 8;
    h = HEX_PAIRS[random[r + 14]!]!;
    text[at + 32] = h;
    text[at + 33] = h >> 8;
    h = HEX_PAIRS[random[r + 15]!]!;
    text[at + 34] = h;
    text[at + 35] = h >> 8;
  }
}

function refill(): void {
  randomFillSync(random);
  writeIds();
  random.fill(0);
  ids = text.toString('latin1');
  next = 0;
}

/** A random UUID (version 4, lower case, `8-4-4-4-12`), as `crypto.randomUUID()` returns. */
export function messageId(): string {
  if (next === BATCH) refill();
  const at = next++ * ID_LENGTH;
  return ids.slice(at, at + ID_LENGTH);
}
