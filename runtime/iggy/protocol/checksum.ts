/**
 * XXH3-64 (seed 0) for message and batch checksums, through `@node-rs/xxhash` (native, prebuilt per platform on npm; the official Node SDK
 * uses it too). bench/iggy.bench.ts compares it with a pure-JS fallback.
 */
import { xxh3 } from '@node-rs/xxhash';

export function xxh3_64(bytes: Uint8Array): bigint {
  return xxh3.xxh64(bytes);
}
