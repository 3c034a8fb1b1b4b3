// IP addresses: `ipv4`, `ipv6`, and the octet and IPv6 readings URIs share with them (RFC 3986, RFC 4291).
import { isDigit, isHex } from './chars.js';

/** RFC 3986 `dec-octet` as ajv-formats reads it inside URIs: one to three digits up to 255, leading zeros allowed. */
export function uriOctet(s: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 1 || length > 3) return false;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return false;
    value = value * 10 + c - 48;
  }
  return value <= 255;
}

/** A dotted-quad IPv4 address in `s[from, to)` whose octets satisfy `octet`. */
function dottedQuad(s: string, from: number, to: number, octet: (s: string, from: number, to: number) => boolean): boolean {
  let start = from;
  for (let part = 0; part < 4; part++) {
    let end = start;
    while (end < to && s.charCodeAt(end) !== 46) end++;
    if (part < 3 ? end >= to : end !== to) return false;
    if (!octet(s, start, end)) return false;
    start = end + 1;
  }
  return true;
}

/** RFC 3986 / RFC 4291 text form of an IPv6 address in `s[from, to)` (no zone). */
export function ipv6In(s: string, from: number, to: number, octet: (s: string, from: number, to: number) => boolean): boolean {
  if (to - from < 2) return false;
  let groups = 0;
  let elided = false;
  let i = from;
  if (s.charCodeAt(i) === 58) {
    if (s.charCodeAt(i + 1) !== 58) return false;
    elided = true;
    i += 2;
    if (i === to) return true;
  }
  for (;;) {
    // one group: 1-4 hex digits, or a trailing IPv4 address
    const start = i;
    while (i < to && i - start < 5 && isHex(s.charCodeAt(i))) i++;
    if (i < to && s.charCodeAt(i) === 46) {
      if (!dottedQuad(s, start, to, octet)) return false;
      groups += 2;
      break;
    }
    const length = i - start;
    if (length < 1 || length > 4) return false;
    groups++;
    if (i === to) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (s.charCodeAt(i) === 58) {
      if (elided) return false;
      elided = true;
      i++;
      if (i === to) break;
    } else if (i === to) return false;
  }
  return elided ? groups <= 7 : groups === 8;
}

/** A decimal octet 0…255 without leading zeros. */
function strictOctet(s: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 1 || length > 3 || (length > 1 && s.charCodeAt(from) === 48)) return false;
  return uriOctet(s, from, to);
}

/** Dotted-quad IPv4: four decimal octets 0…255 without leading zeros. */
export function ipv4(s: string): boolean {
  const n = s.length;
  if (n < 7 || n > 15) return false;
  let i = 0;
  for (let part = 0; part < 4; part++) {
    const start = i;
    let value = 0;
    while (i < n && i - start < 4) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      value = value * 10 + c - 48;
      i++;
    }
    const length = i - start;
    if (length === 0 || length > 3 || value > 255 || (length > 1 && s.charCodeAt(start) === 48)) return false;
    if (part < 3) {
      if (s.charCodeAt(i) !== 46) return false;
      i++;
    }
  }
  return i === n;
}
export function ipv6(s: string): boolean {
  return ipv6In(s, 0, s.length, strictOctet);
}
