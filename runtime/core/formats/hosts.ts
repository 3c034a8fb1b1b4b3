// Web URLs, e-mail addresses and host names (`url`, `email`, `hostname`), as ajv-formats reads them.
import { ATEXT, is, isAlnum, isAlpha, isDigit, isSpace, LDH } from './chars.js';

/** A character of a URL host label: ASCII letter or digit, or a code point U+00A1…U+FFFF. */
const isUrlLabelChar = (c: number): boolean => isAlnum(c) || (c >= 0xa1 && c <= 0xffff);

/**
 * `s[from, to)` as a public dotted-quad: first octet 1…223, last 1…254, none of 10/8, 127/8,
 * 169.254/16, 192.168/16, 172.16/12 (the reading of ajv-formats' `url`).
 */
function publicIpv4(s: string, from: number, to: number): boolean {
  const octets: number[] = [];
  const lengths: number[] = [];
  let start = from;
  for (let part = 0; part < 4; part++) {
    let end = start;
    while (end < to && s.charCodeAt(end) !== 46) end++;
    if ((part < 3 ? end >= to : end !== to) || end === start || end - start > 3) return false;
    let value = 0;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      if (!isDigit(c)) return false;
      value = value * 10 + c - 48;
    }
    octets.push(value);
    lengths.push(end - start);
    start = end + 1;
  }
  const [a, b, c, d] = octets as [number, number, number, number];
  const [la, lb, lc, ld] = lengths as [number, number, number, number];
  if (a === 10 || a === 127 || (a === 169 && b === 254) || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31)) return false;
  const noLeadingZero = (value: number, length: number): boolean => String(value).length === length;
  // the middle octets may be written with a leading zero in two digits ("05"), not in three
  const middle = (value: number, length: number): boolean => value <= 255 && (length < 3 || value >= 100);
  return a >= 1 && a <= 223 && noLeadingZero(a, la) && middle(b, lb) && middle(c, lc) && d >= 1 && d <= 254 && noLeadingZero(d, ld);
}

/** A URL host name: labels of letters, digits and non-ASCII characters joined by single hyphens, dot-separated, ending in a top-level label of 2+ letters. */
function urlHostName(s: string, from: number, to: number): boolean {
  let lastDot = -1;
  for (let i = to - 1; i >= from; i--)
    if (s.charCodeAt(i) === 46) {
      lastDot = i;
      break;
    }
  if (lastDot < 0 || to - lastDot - 1 < 2) return false;
  for (let i = lastDot + 1; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!(isAlpha(c) || (c >= 0xa1 && c <= 0xffff)) || (c >= 0xd800 && c <= 0xdbff && isTrail(s.charCodeAt(i + 1)))) return false;
  }
  let start = from;
  while (start <= lastDot) {
    let end = start;
    while (end < lastDot && s.charCodeAt(end) !== 46) end++;
    if (end === start) return false;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === 45) {
        if (i === start || i === end - 1 || s.charCodeAt(i + 1) === 45) return false;
      } else if (!isUrlLabelChar(c) || (c >= 0xd800 && c <= 0xdbff && isTrail(s.charCodeAt(i + 1)))) return false;
    }
    start = end + 1;
  }
  return true;
}

const isTrail = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** `host [":" port] [path]` from `from` to the end of a URL. */
function urlHostAndRest(s: string, from: number): boolean {
  const n = s.length;
  let end = from;
  while (end < n && s.charCodeAt(end) !== 58 && s.charCodeAt(end) !== 47) end++;
  if (end === from || !(publicIpv4(s, from, end) || urlHostName(s, from, end))) return false;
  let i = end;
  if (s.charCodeAt(i) === 58) {
    const digits = ++i;
    while (isDigit(s.charCodeAt(i))) i++;
    if (i - digits < 2 || i - digits > 5) return false;
  }
  if (i === n) return true;
  if (s.charCodeAt(i) !== 47) return false;
  for (i++; i < n; i++) if (isSpace(s.charCodeAt(i))) return false;
  return true;
}

/** A web URL (`http`, `https` or `ftp`) with a public host, as ajv-formats' `url` reads it. */
export function url(s: string): boolean {
  let i = 0;
  const letter = (lower: number): boolean => {
    const c = s.charCodeAt(i);
    // with the case-insensitive Unicode reading, U+017F (long s) is an "s"
    if ((c | 0x20) === lower || (lower === 115 && c === 0x17f)) {
      i++;
      return true;
    }
    return false;
  };
  if (letter(104)) {
    if (!(letter(116) && letter(116) && letter(112))) return false;
    letter(115);
  } else if (!(letter(102) && letter(116) && letter(112))) return false;
  if (s.charCodeAt(i) !== 58 || s.charCodeAt(i + 1) !== 47 || s.charCodeAt(i + 2) !== 47) return false;
  const authority = i + 3;
  if (urlHostAndRest(s, authority)) return true;
  // user information: any non-space characters before an "@"
  for (let at = s.indexOf('@', authority + 1); at >= 0; at = s.indexOf('@', at + 1)) {
    let clean = true;
    for (let j = authority; j < at; j++)
      if (isSpace(s.charCodeAt(j))) {
        clean = false;
        break;
      }
    if (!clean) return false;
    if (urlHostAndRest(s, at + 1)) return true;
  }
  return false;
}

/** A host-name label of letters, digits and hyphens, not starting or ending with a hyphen, in `s[from, to)`. */
function ldhLabel(s: string, from: number, to: number, maxLength: number): boolean {
  if (to <= from || to - from > maxLength) return false;
  if (!isAlnum(s.charCodeAt(from)) || !isAlnum(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) if (!is(s.charCodeAt(i), LDH)) return false;
  return true;
}

/** An e-mail address: an RFC 5322 `dot-atom` local part, `@`, and a domain of two or more host-name labels. */
export function email(s: string): boolean {
  const n = s.length;
  let i = 0;
  let afterDot = true;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 64 /* @ */) break;
    if (c === 46) {
      if (afterDot) return false;
      afterDot = true;
    } else if (is(c, ATEXT)) afterDot = false;
    else return false;
  }
  if (i === n || afterDot) return false;
  let labels = 0;
  let start = ++i;
  for (; ; i++) {
    const c = i < n ? s.charCodeAt(i) : 46;
    if (c === 46) {
      if (i === start || s.charCodeAt(start) === 45 || s.charCodeAt(i - 1) === 45) return false;
      labels++;
      if (i >= n) return labels >= 2;
      start = i + 1;
    } else if (!is(c, LDH)) return false;
  }
}

/** An RFC 1123 host name: labels of 1…63 letters, digits and hyphens, 253 characters at most (a final dot aside). */
export function hostname(s: string): boolean {
  let n = s.length;
  if (n > 0 && s.charCodeAt(n - 1) === 46) n--;
  if (n < 1 || n > 253) return false;
  let start = 0;
  for (;;) {
    let end = start;
    while (end < n && s.charCodeAt(end) !== 46) end++;
    if (!ldhLabel(s, start, end, 63)) return false;
    if (end === n) return true;
    start = end + 1;
  }
}
