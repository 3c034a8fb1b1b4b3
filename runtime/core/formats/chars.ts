// The character classes the format checks read strings with: ASCII classes from one table, so a
// check costs one lookup a character.
//
// The helpers are function declarations, not `const` arrows: a module that imports a `const` reads it
// through its binding, checked for the temporal dead zone, at every call (measured: about a fifth of
// the checks' speed); a function declaration is initialised before any module runs.

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
export function isAlpha(c: number): boolean {
  return (c | 0x20) >= 97 && (c | 0x20) <= 122;
}
export function isAlnum(c: number): boolean {
  return isDigit(c) || isAlpha(c);
}
export function isHex(c: number): boolean {
  return isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 102);
}

/** A code unit of JavaScript's white space class (`\s`). */
export function isSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

// Classes of ASCII characters, one bit each, looked up in a table.
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** RFC 3986 `unreserved`. */
export const UNRESERVED = 1;
/** RFC 3986 `sub-delims`. */
export const SUB_DELIM = 2;
/** RFC 3986 `pchar` outside percent-encodings: unreserved, sub-delims, `:`, `@`. */
export const PCHAR = 4;
/** A path character: pchar or `/`. */
export const PATH = 8;
/** A query or fragment character: pchar, `/` or `?`. */
export const QUERY = 16;
/** RFC 5322 `atext`. */
export const ATEXT = 32;
/** The base64 alphabet (RFC 4648 section 4). */
export const BASE64 = 64;
/** Letters, digits, hyphen (host-name labels). */
export const LDH = 128;
const CLASSES = new Uint8Array(128);
for (const [chars, bits] of [
  [`${ALNUM}-._~`, UNRESERVED | PCHAR | PATH | QUERY],
  ["!$&'()*+,;=", SUB_DELIM | PCHAR | PATH | QUERY],
  [':@', PCHAR | PATH | QUERY],
  ['/', PATH | QUERY],
  ['?', QUERY],
  [`${ALNUM}!#$%&'*+-/=?^_\`{|}~`, ATEXT],
  [`${ALNUM}+/`, BASE64],
  [`${ALNUM}-`, LDH],
] as const)
  for (let i = 0; i < chars.length; i++) CLASSES[chars.charCodeAt(i)]! |= bits;

/** `c` is an ASCII character of one of the classes `bits`. */
export function is(c: number, bits: number): boolean {
  return c < 128 && (CLASSES[c]! & bits) !== 0;
}
export function isUnreserved(c: number): boolean {
  return is(c, UNRESERVED);
}
export function isSubDelim(c: number): boolean {
  return is(c, SUB_DELIM);
}

/** `%` followed by two hex digits at `i`. */
export function isPct(s: string, i: number): boolean {
  return s.charCodeAt(i) === 37 && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

/** The two ASCII digits at `at` as a number, or -1. */
export function digits2(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48;
  const b = s.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}
