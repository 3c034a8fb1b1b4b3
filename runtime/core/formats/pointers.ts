// RFC 6901 JSON pointers (`json-pointer`, `json-pointer-uri-fragment`, `relative-json-pointer`).
import { isDigit, isPct, isSubDelim, isUnreserved } from './chars.js';

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

export function jsonPointer(s: string): boolean {
  return jsonPointerAt(s, 0);
}

/** A JSON pointer as a URI fragment: `#`, then tokens of fragment characters, percent-encodings, `~0`, `~1`. */
export function jsonPointerUriFragment(s: string): boolean {
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
export function relativeJsonPointer(s: string): boolean {
  let i = 0;
  while (isDigit(s.charCodeAt(i))) i++;
  if (i === 0 || (i > 1 && s.charCodeAt(0) === 48)) return false;
  if (s.charCodeAt(i) === 35) return i + 1 === s.length;
  return jsonPointerAt(s, i);
}
