/**
 * The JSON Schema `format` checks of generated validators, with no dependency: every format of
 * the "full" set that ajv-formats defines (the formats keiyaku's generator accepts), read from
 * their specifications (RFC 3339 dates and times, RFC 3986 URIs, RFC 6570 URI templates,
 * RFC 5321/5322 addresses, RFC 1123 host names, RFC 4291 IPv6, RFC 6901 JSON pointers,
 * RFC 4648 base64) with the readings ajv-formats gives them, so a contract validates alike
 * whether ajv or keiyaku checks it. Where the two differ on purpose, docs/formats.md says so.
 *
 * The checks read their strings character by character (ASCII classes from one table); none
 * builds a regular expression, but `regex`, whose value is one.
 */

/** A format check: true when `value` is in the format. */
export type FormatCheck = (value: unknown) => boolean;

/** A format: the JSON type it applies to and its check (`check` absent: annotation only). */
export interface FormatDefinition {
  readonly type: 'string' | 'number';
  readonly check?: FormatCheck;
}

// --- characters -------------------------------------------------------------------------------

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlpha = (c: number): boolean => (c | 0x20) >= 97 && (c | 0x20) <= 122;
const isAlnum = (c: number): boolean => isDigit(c) || isAlpha(c);
const isHex = (c: number): boolean => isDigit(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 102);

/** A code unit of JavaScript's white space class (`\s`). */
function isSpace(c: number): boolean {
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
const UNRESERVED = 1;
/** RFC 3986 `sub-delims`. */
const SUB_DELIM = 2;
/** RFC 3986 `pchar` outside percent-encodings: unreserved, sub-delims, `:`, `@`. */
const PCHAR = 4;
/** A path character: pchar or `/`. */
const PATH = 8;
/** A query or fragment character: pchar, `/` or `?`. */
const QUERY = 16;
/** RFC 5322 `atext`. */
const ATEXT = 32;
/** The base64 alphabet (RFC 4648 section 4). */
const BASE64 = 64;
/** Letters, digits, hyphen (host-name labels). */
const LDH = 128;
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
const is = (c: number, bits: number): boolean => c < 128 && (CLASSES[c]! & bits) !== 0;
const isUnreserved = (c: number): boolean => is(c, UNRESERVED);
const isSubDelim = (c: number): boolean => is(c, SUB_DELIM);

/** `%` followed by two hex digits at `i`. */
const isPct = (s: string, i: number): boolean => s.charCodeAt(i) === 37 && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));

/** The two ASCII digits at `at` as a number, or -1. */
function digits2(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48;
  const b = s.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

// --- RFC 3339 dates and times -----------------------------------------------------------------

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `full-date` (`YYYY-MM-DD`, a real calendar date, Gregorian leap years) spanning `s[from, from + 10)`. */
function dateAt(s: string, from: number): boolean {
  const century = digits2(s, from);
  const year = digits2(s, from + 2);
  const month = digits2(s, from + 5);
  const day = digits2(s, from + 8);
  if (century < 0 || year < 0 || s.charCodeAt(from + 4) !== 45 || s.charCodeAt(from + 7) !== 45) return false;
  const y = century * 100 + year;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!);
}

const date = (s: string): boolean => s.length === 10 && dateAt(s, 0);

/**
 * `partial-time` and offset from `from` to the end: `HH:MM:SS[.frac]` then `Z`, or `±HH[[:]MM]`
 * (the offset optional unless `zoned`). A second of 60 is a leap second, valid only where UTC
 * reads 23:59 (the offset taken into account).
 */
function timeAt(s: string, from: number, zoned: boolean): boolean {
  const n = s.length;
  const hour = digits2(s, from);
  const minute = digits2(s, from + 3);
  const whole = digits2(s, from + 6);
  if (hour < 0 || minute < 0 || whole < 0 || s.charCodeAt(from + 2) !== 58 || s.charCodeAt(from + 5) !== 58) return false;
  let i = from + 8;
  let second = whole;
  if (s.charCodeAt(i) === 46 /* . */) {
    const start = ++i;
    while (isDigit(s.charCodeAt(i))) i++;
    if (i === start) return false;
    // Only "below 60, below 61" matters, which a fraction changes only when, too long for a
    // double, it rounds up to the next second (as the number the string reads as does).
    if (i - start > 12) second = Number(s.slice(from + 6, i));
  }
  let offsetHours = 0;
  let offsetMinutes = 0;
  let sign = 1;
  if (i === n) {
    if (zoned) return false;
  } else {
    const zone = s.charCodeAt(i);
    if ((zone | 0x20) === 122 /* z */) {
      if (i + 1 !== n) return false;
    } else if (zone === 43 || zone === 45) {
      sign = zone === 45 ? -1 : 1;
      offsetHours = digits2(s, i + 1);
      if (offsetHours < 0) return false;
      i += 3;
      if (i !== n) {
        if (s.charCodeAt(i) === 58) i++;
        offsetMinutes = digits2(s, i);
        if (offsetMinutes < 0 || i + 2 !== n) return false;
      }
      if (offsetHours > 23 || offsetMinutes > 59) return false;
    } else return false;
  }
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second: the local time shifted back to UTC must read 23:59 (or the minute before midnight of the day before).
  const utcMinute = minute - offsetMinutes * sign;
  const utcHour = hour - offsetHours * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

/** A date and a time joined by `T` (any case) or one white space character (RFC 3339 section 5.6 NOTE). */
function dateTime(s: string, zoned: boolean): boolean {
  if (s.length < 19) return false;
  const separator = s.charCodeAt(10);
  return ((separator | 0x20) === 116 || isSpace(separator)) && dateAt(s, 0) && timeAt(s, 11, zoned);
}

/**
 * Numbers each followed by one of `units` (in that order, each once at most) from `from`; where
 * they end, or -1 (a number without a unit, or a unit out of order).
 */
function durationParts(s: string, from: number, units: string): number {
  let i = from;
  let next = 0;
  while (isDigit(s.charCodeAt(i))) {
    i++;
    while (isDigit(s.charCodeAt(i))) i++;
    const unit = s.charCodeAt(i);
    while (next < units.length && units.charCodeAt(next) !== unit) next++;
    if (next === units.length) return -1;
    next++;
    i++;
  }
  return i;
}

/** RFC 3339 appendix A `duration`: `P` then years/months/days and `T` hours/minutes/seconds in order, or weeks. */
function duration(s: string): boolean {
  const n = s.length;
  if (n < 2 || s.charCodeAt(0) !== 80 /* P */) return false;
  let i = 1;
  while (isDigit(s.charCodeAt(i))) i++;
  // weeks stand alone
  if (i > 1 && s.charCodeAt(i) === 87 /* W */) return i + 1 === n;
  i = durationParts(s, 1, 'YMD');
  if (i === n) return true;
  if (i < 0 || s.charCodeAt(i) !== 84 /* T */ || !isDigit(s.charCodeAt(i + 1))) return false;
  return durationParts(s, i + 1, 'HMS') === n;
}

// --- RFC 3986 URIs ----------------------------------------------------------------------------

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

/** RFC 3986 `dec-octet` as ajv-formats reads it inside URIs: one to three digits up to 255, leading zeros allowed. */
function uriOctet(s: string, from: number, to: number): boolean {
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
function ipv6In(s: string, from: number, to: number, octet: (s: string, from: number, to: number) => boolean): boolean {
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
function uri(s: string): boolean {
  const start = schemeLength(s);
  if (start === 0) return false;
  const end = queryAndFragment(s, start, false);
  return end >= 0 && hierPart(s, start, end, false, false);
}

/** RFC 3986 `URI-reference`: a URI, or a relative reference (ajv-formats also admits `"`). */
function uriReference(s: string): boolean {
  const end = queryAndFragment(s, 0, true);
  if (end < 0) return false;
  const start = schemeLength(s);
  if (start > 0 && start <= end && hierPart(s, start, end, true, true)) return true;
  return hierPart(s, 0, end, true, true);
}

/** RFC 6570 URI template: literals, percent-encodings and `{op var[:n|*],…}` expressions. */
function uriTemplate(s: string): boolean {
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

// --- URLs, addresses and host names -----------------------------------------------------------

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
function url(s: string): boolean {
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
function email(s: string): boolean {
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
function hostname(s: string): boolean {
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

/** A decimal octet 0…255 without leading zeros. */
function strictOctet(s: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 1 || length > 3 || (length > 1 && s.charCodeAt(from) === 48)) return false;
  return uriOctet(s, from, to);
}

/** Dotted-quad IPv4: four decimal octets 0…255 without leading zeros. */
function ipv4(s: string): boolean {
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
const ipv6 = (s: string): boolean => ipv6In(s, 0, s.length, strictOctet);

// --- the rest ---------------------------------------------------------------------------------

/** A regular expression JavaScript compiles, without the `\Z` anchor of other dialects. */
function regex(s: string): boolean {
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
function uuid(s: string): boolean {
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

/** RFC 6901 JSON pointer from `from`: `/`-prefixed tokens in which `~` is only `~0` or `~1`. */
function jsonPointerAt(s: string, from: number): boolean {
  if (from < s.length && s.charCodeAt(from) !== 47) return false;
  for (let i = from; i < s.length; i++)
    if (s.charCodeAt(i) === 126) {
      const next = s.charCodeAt(i + 1);
      if (next !== 48 && next !== 49) return false;
      i++;
    }
  return true;
}

const jsonPointer = (s: string): boolean => jsonPointerAt(s, 0);

/** A JSON pointer as a URI fragment: `#`, then tokens of fragment characters, percent-encodings, `~0`, `~1`. */
function jsonPointerUriFragment(s: string): boolean {
  if (s.charCodeAt(0) !== 35) return false;
  if (s.length > 1 && s.charCodeAt(1) !== 47) return false;
  for (let i = 1; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 126) {
      const next = s.charCodeAt(i + 1);
      if (next !== 48 && next !== 49) return false;
      i += 2;
    } else if (c === 47 || isUnreserved(c) || isSubDelim(c) || c === 58 || c === 64) i++;
    else if (isPct(s, i)) i += 3;
    else return false;
  }
  return true;
}

/** A relative JSON pointer: a non-negative integer, then `#` or a JSON pointer. */
function relativeJsonPointer(s: string): boolean {
  let i = 0;
  while (isDigit(s.charCodeAt(i))) i++;
  if (i === 0 || (i > 1 && s.charCodeAt(0) === 48)) return false;
  if (s.charCodeAt(i) === 35) return i + 1 === s.length;
  return jsonPointerAt(s, i);
}

const isBase64 = (c: number): boolean => is(c, BASE64);

/** RFC 4648 base64 (standard alphabet, padded) of the whole string. */
function byte(s: string): boolean {
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

const int32 = (value: unknown): boolean =>
  Number.isInteger(value) && (value as number) <= 2_147_483_647 && (value as number) >= -2_147_483_648;
const int64 = (value: unknown): boolean => Number.isInteger(value);
const anyNumber = (): boolean => true;

/** A check on strings: other values are read as their string form. */
const onString =
  (check: (s: string) => boolean): FormatCheck =>
  (value) =>
    check(typeof value === 'string' ? value : String(value));

/** The formats keiyaku checks (ajv-formats' "full" set, same names). */
export const FORMATS: Readonly<Record<string, FormatDefinition>> = Object.freeze({
  date: { type: 'string', check: onString(date) },
  time: { type: 'string', check: onString((s) => timeAt(s, 0, true)) },
  'date-time': { type: 'string', check: onString((s) => dateTime(s, true)) },
  'iso-time': { type: 'string', check: onString((s) => timeAt(s, 0, false)) },
  'iso-date-time': { type: 'string', check: onString((s) => dateTime(s, false)) },
  duration: { type: 'string', check: onString(duration) },
  uri: { type: 'string', check: onString(uri) },
  'uri-reference': { type: 'string', check: onString(uriReference) },
  'uri-template': { type: 'string', check: onString(uriTemplate) },
  url: { type: 'string', check: onString(url) },
  email: { type: 'string', check: onString(email) },
  hostname: { type: 'string', check: onString(hostname) },
  ipv4: { type: 'string', check: onString(ipv4) },
  ipv6: { type: 'string', check: onString(ipv6) },
  regex: { type: 'string', check: onString(regex) },
  uuid: { type: 'string', check: onString(uuid) },
  'json-pointer': { type: 'string', check: onString(jsonPointer) },
  'json-pointer-uri-fragment': { type: 'string', check: onString(jsonPointerUriFragment) },
  'relative-json-pointer': { type: 'string', check: onString(relativeJsonPointer) },
  byte: { type: 'string', check: onString(byte) },
  int32: { type: 'number', check: int32 },
  int64: { type: 'number', check: int64 },
  float: { type: 'number', check: anyNumber },
  double: { type: 'number', check: anyNumber },
  password: { type: 'string' },
  binary: { type: 'string' },
} satisfies Record<string, FormatDefinition>);

const ACCEPT: FormatCheck = () => true;

/** The check of format `name`; formats keiyaku does not know, and annotation-only ones, accept every value. */
export function formatCheckOf(name: string): FormatCheck {
  return (Object.hasOwn(FORMATS, name) ? FORMATS[name]!.check : undefined) ?? ACCEPT;
}
