// The rest of the string formats: `regex`, `uuid` and base64 `byte`.
import { BASE64, is } from './chars.js';

/** A regular expression JavaScript compiles, without the `\Z` anchor of other dialects. */
export function regex(s: string): boolean {
  for (let i = 1; i + 1 < s.length; i++)
    if (s.charCodeAt(i) === 92 && s.charCodeAt(i + 1) === 90 && s.charCodeAt(i - 1) !== 92) return false;
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/** 1 at the code of each ASCII hex digit. */
const HEX_DIGIT = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX_DIGIT[c.charCodeAt(0)] = 1;

/** Whether `s[from, to)` is hex digits only (one table lookup per character). */
function hexRun(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || HEX_DIGIT[c] === 0) return false;
  }
  return true;
}

/** RFC 4122 UUID in its `8-4-4-4-12` hex spelling, optionally as a `urn:uuid:` URN. */
export function uuid(s: string): boolean {
  let f = 0;
  if (s.length === 45) {
    if (s.slice(0, 9).toLowerCase() !== 'urn:uuid:') return false;
    f = 9;
  } else if (s.length !== 36) return false;
  // The four dashes, then the five runs of hex digits between them.
  return (
    s.charCodeAt(f + 8) === 45 &&
    s.charCodeAt(f + 13) === 45 &&
    s.charCodeAt(f + 18) === 45 &&
    s.charCodeAt(f + 23) === 45 &&
    hexRun(s, f, f + 8) &&
    hexRun(s, f + 9, f + 13) &&
    hexRun(s, f + 14, f + 18) &&
    hexRun(s, f + 19, f + 23) &&
    hexRun(s, f + 24, f + 36)
  );
}

const isBase64 = (c: number): boolean => is(c, BASE64);

/** RFC 4648 base64 (standard alphabet, padded) of the whole string. */
export function byte(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isBase64(c)) continue;
    // padding: "xx==" or "xxx=" as the last quantum
    if (c !== 61 || i < n - 2) return false;
    if (i === n - 2 && s.charCodeAt(n - 1) !== 61) return false;
  }
  return true;
}
