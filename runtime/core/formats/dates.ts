// RFC 3339 dates, times and durations (`date`, `time`, `date-time`, `iso-time`, `iso-date-time`, `duration`).
import { digits2, isDigit, isSpace } from './chars.js';

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

export function date(s: string): boolean {
  return s.length === 10 && dateAt(s, 0);
}

/**
 * `partial-time` and offset from `from` to the end: `HH:MM:SS[.frac]` then `Z`, or `±HH[[:]MM]`
 * (the offset optional unless `zoned`). A second of 60 is a leap second, valid only where UTC
 * reads 23:59 (the offset taken into account).
 */
export function timeAt(s: string, from: number, zoned: boolean): boolean {
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
export function dateTime(s: string, zoned: boolean): boolean {
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
export function duration(s: string): boolean {
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
