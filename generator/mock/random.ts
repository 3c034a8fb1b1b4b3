/**
 * The seeded source of randomness of mock values: sfc32 (Chris Doty-Humphrey's Small Fast Counting
 * generator, 128 bits of state), seeded from a number or a string through FNV-1a. The same seed
 * gives the same sequence on every platform; nothing reads `Math.random`.
 *
 * @see https://pracrand.sourceforge.net/RNG_engines.txt
 */

/** A seed: an integer, or any string (hashed). */
export type Seed = number | string;

export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: Seed) {
    const h = typeof seed === 'number' && Number.isFinite(seed) ? fnv1a(`n:${Math.trunc(seed)}`) : fnv1a(`s:${String(seed)}`);
    this.#a = h;
    this.#b = Math.imul(h ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
    this.#c = Math.imul(h ^ 0xc2b2ae35, 0x27d4eb2f) >>> 0;
    this.#d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** The next 32 bits, as an unsigned integer. */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 4_294_967_296;
  }

  /** An integer in [min, max] (both included; safe integers). */
  int(min: number, max: number): number {
    if (max <= min) return min;
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** The items in a random order (a new array). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** An independent generator derived from this one's next values (for a sub-task that may retry). */
  fork(): Random {
    return new Random(`${this.next()}:${this.next()}`);
  }
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
