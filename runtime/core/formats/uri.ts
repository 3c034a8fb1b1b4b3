// RFC 3986 URIs and RFC 6570 URI templates (`uri`, `uri-reference`, `uri-template`).
import { is, isAlnum, isAlpha, isDigit, isHex, isPct, isSubDelim, isUnreserved, PATH, QUERY } from './chars.js';
import { ipv6In, uriOctet } from './ip.js';

/** `s[from, to)` is made of characters of class `bits` and percent-encodings (and `"` if `quote`: ajv-formats' uri-reference admits it). */
function pchars(s: string, from: number, to: number, quote: boolean, bits: number): boolean {
  let i = from;
  while (i < to) {
    const c = s.charCodeAt(i);
    if (is(c, bits) || (quote && c === 34)) i++;
    else if (isPct(s, i)) i += 3;
    else return false;
  }
  return i === to;
}

/** `IP-literal` between the brackets `s[from, to)`: an IPv6 address or `v<hex>.<chars>`. */
function ipLiteral(s: string, from: number, to: number): boolean {
  if ((s.charCodeAt(from) | 0x20) === 118 /* v */) {
    let i = from + 1;
    while (i < to && isHex(s.charCodeAt(i))) i++;
    if (i === from + 1 || s.charCodeAt(i) !== 46 || i + 1 >= to) return false;
    for (i++; i < to; i++) {
      const c = s.charCodeAt(i);
      if (!isUnreserved(c) && !isSubDelim(c) && c !== 58) return false;
    }
    return true;
  }
  return ipv6In(s, from, to, uriOctet);
}

/** `authority path-abempty` spanning `s[from, to)`. */
function authorityAndPath(s: string, from: number, to: number, quote: boolean): boolean {
  let end = from;
  while (end < to && s.charCodeAt(end) !== 47) end++;
  if (!pchars(s, end, to, quote, PATH)) return false;
  // authority = [ userinfo "@" ] host [ ":" port ]
  let host = from;
  const at = s.indexOf('@', from);
  if (at >= 0 && at < end) {
    for (let i = from; i < at; ) {
      const c = s.charCodeAt(i);
      if (isUnreserved(c) || isSubDelim(c) || c === 58) i++;
      else if (isPct(s, i)) i += 3;
      else return false;
    }
    host = at + 1;
  }
  let i = host;
  if (s.charCodeAt(i) === 91 /* [ */) {
    const close = s.indexOf(']', i);
    if (close < 0 || close >= end || !ipLiteral(s, i + 1, close)) return false;
    i = close + 1;
  } else {
    while (i < end) {
      const c = s.charCodeAt(i);
      if (isUnreserved(c) || isSubDelim(c) || (quote && c === 34)) i++;
      else if (isPct(s, i)) i += 3;
      else break;
    }
  }
  if (i === end) return true;
  if (s.charCodeAt(i) !== 58) return false;
  for (i++; i < end; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

/** `hier-part` (or `relative-part` when `optional`) spanning `s[from, to)`. */
function hierPart(s: string, from: number, to: number, quote: boolean, optional: boolean): boolean {
  if (from === to) return optional;
  if (s.charCodeAt(from) === 47) {
    // "//" authority path-abempty; ajv-formats also reads one slash before an authority
    if (s.charCodeAt(from + 1) === 47 && authorityAndPath(s, from + 2, to, quote)) return true;
    if (authorityAndPath(s, from + 1, to, quote)) return true;
    // path-absolute
    return s.charCodeAt(from + 1) !== 47 && pchars(s, from + 1, to, quote, PATH);
  }
  // path-rootless
  return pchars(s, from, to, quote, PATH);
}

/** The length of `scheme ":"` at the start of `s`, or 0. */
function schemeLength(s: string): number {
  if (!isAlpha(s.charCodeAt(0))) return 0;
  let i = 1;
  for (;;) {
    const c = s.charCodeAt(i);
    if (isAlnum(c) || c === 43 || c === 45 || c === 46) i++;
    else return c === 58 ? i + 1 : 0;
  }
}

/** `[ "?" query ] [ "#" fragment ]` from `from` to the end; returns where the hierarchical part ends, or -1. */
function queryAndFragment(s: string, from: number, quote: boolean): number {
  let hierEnd = s.length;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 63 || c === 35) {
      hierEnd = i;
      break;
    }
  }
  if (hierEnd === s.length) return hierEnd;
  if (s.charCodeAt(hierEnd) === 35) return pchars(s, hierEnd + 1, s.length, quote, QUERY) ? hierEnd : -1;
  let hash = s.indexOf('#', hierEnd);
  if (hash < 0) hash = s.length;
  if (!pchars(s, hierEnd + 1, hash, quote, QUERY)) return -1;
  if (hash < s.length && !pchars(s, hash + 1, s.length, quote, QUERY)) return -1;
  return hierEnd;
}

/** RFC 3986 `URI`: a scheme, then a hierarchical part, query and fragment. */
export function uri(s: string): boolean {
  const start = schemeLength(s);
  if (start === 0) return false;
  const end = queryAndFragment(s, start, false);
  return end >= 0 && hierPart(s, start, end, false, false);
}

/** RFC 3986 `URI-reference`: a URI, or a relative reference (ajv-formats also admits `"`). */
export function uriReference(s: string): boolean {
  const end = queryAndFragment(s, 0, true);
  if (end < 0) return false;
  const start = schemeLength(s);
  if (start > 0 && start <= end && hierPart(s, start, end, true, true)) return true;
  return hierPart(s, 0, end, true, true);
}

/** RFC 6570 URI template: literals, percent-encodings and `{op var[:n|*],…}` expressions. */
export function uriTemplate(s: string): boolean {
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 123 /* { */) {
      i++;
      if ('+#./;?&=,!@|'.includes(s[i] ?? '')) i++;
      for (;;) {
        const start = i;
        for (;;) {
          const v = s.charCodeAt(i);
          if (isAlnum(v) || v === 95) i++;
          else if (isPct(s, i)) i += 3;
          else break;
        }
        if (i === start) return false;
        if (s.charCodeAt(i) === 42 /* * */) i++;
        else if (s.charCodeAt(i) === 58 /* : */) {
          i++;
          const digits = i;
          if (s.charCodeAt(i) === 48) return false;
          while (isDigit(s.charCodeAt(i))) i++;
          if (i === digits || i - digits > 4) return false;
        }
        if (s.charCodeAt(i) === 44 /* , */) i++;
        else break;
      }
      if (s.charCodeAt(i) !== 125 /* } */) return false;
      i++;
    } else if (c === 37 /* % */) {
      if (!isPct(s, i)) return false;
      i += 3;
    } else if (c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 92 || c === 94 || c === 96 || c === 124 || c === 125)
      return false;
    else i++;
  }
  return true;
}
