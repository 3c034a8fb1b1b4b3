/**
 * The helpers that the validators keiyaku writes (`generated/validators.ts`) call: error
 * records in ajv's shape, JSON Schema's length and equality, and the format checks.
 */
import { type FormatCheck, formatCheckOf } from '../formats.js';
import type { StandaloneValidator, StandaloneValidatorError } from './issues.js';

/** At most this many errors are reported for one value; the first is the summary. */
export const MAX_VALIDATION_ERRORS = 20;

type ErrorSink = StandaloneValidatorError[] & { s?: number };

const COMPARISON: Readonly<Record<string, string>> = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' };

function errorOf(instancePath: string, keyword: string, arg: unknown): StandaloneValidatorError {
  switch (keyword) {
    case 'type':
      return { instancePath, keyword, params: { type: arg }, message: `must be ${arg}` };
    case 'required':
      return { instancePath, keyword, params: { missingProperty: arg }, message: `must have required property '${arg}'` };
    case 'additionalProperties':
      return { instancePath, keyword, params: { additionalProperty: arg }, message: 'must NOT have additional properties' };
    case 'unevaluatedProperties':
      return { instancePath, keyword, params: { unevaluatedProperty: arg }, message: 'must NOT have unevaluated properties' };
    case 'enum':
      return {
        instancePath,
        keyword,
        params: { allowedValues: arg },
        message: `must be equal to one of the allowed values: ${allowedValuesText(arg as readonly unknown[])}`,
      };
    case 'const':
      return { instancePath, keyword, params: { allowedValue: arg }, message: 'must be equal to constant' };
    case 'format':
      return { instancePath, keyword, params: { format: arg }, message: `must match format "${arg}"` };
    case 'pattern':
      return { instancePath, keyword, params: { pattern: arg }, message: `must match pattern "${arg}"` };
    case 'minLength':
    case 'maxLength':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minLength' ? 'fewer' : 'more'} than ${arg} characters`,
      };
    case 'minItems':
    case 'maxItems':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minItems' ? 'fewer' : 'more'} than ${arg} items`,
      };
    case 'items':
    case 'unevaluatedItems':
      return { instancePath, keyword, params: { limit: arg }, message: `must NOT have more than ${arg} items` };
    case 'minProperties':
    case 'maxProperties':
      return {
        instancePath,
        keyword,
        params: { limit: arg },
        message: `must NOT have ${keyword === 'minProperties' ? 'fewer' : 'more'} than ${arg} properties`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        instancePath,
        keyword,
        params: { comparison: COMPARISON[keyword], limit: arg },
        message: `must be ${COMPARISON[keyword]} ${arg}`,
      };
    case 'multipleOf':
      return { instancePath, keyword, params: { multipleOf: arg }, message: `must be multiple of ${arg}` };
    case 'uniqueItems': {
      const [i, j] = arg as [number, number];
      return { instancePath, keyword, params: { i, j }, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` };
    }
    case 'oneOf':
      return {
        instancePath,
        keyword,
        params: { passingSchemas: arg === -1 ? null : arg },
        message: 'must match exactly one schema in oneOf',
      };
    case 'anyOf':
      return { instancePath, keyword, params: {}, message: 'must match a schema in anyOf' };
    case 'not':
      return { instancePath, keyword, params: {}, message: 'must NOT be valid' };
    case 'if':
      return { instancePath, keyword, params: { failingKeyword: arg }, message: `must match "${arg}" schema` };
    case 'contains':
      return { instancePath, keyword, params: { minContains: arg }, message: `must contain at least ${arg} valid item(s)` };
    case 'maxContains':
      return { instancePath, keyword: 'contains', params: { maxContains: arg }, message: `must contain at most ${arg} valid item(s)` };
    case 'dependentRequired': {
      const [property, missing] = arg as [string, string];
      return {
        instancePath,
        keyword,
        params: { property, missingProperty: missing },
        message: `must have property ${missing} when property ${property} is present`,
      };
    }
    case 'propertyNames':
      return { instancePath, keyword, params: { propertyName: arg }, message: 'property name must be valid' };
    default:
      return { instancePath, keyword, params: {}, message: 'boolean schema is false' };
  }
}

/** At most this many allowed values are listed in an `enum` error, each cut to {@link MAX_VALUE_TEXT} characters. */
const MAX_ALLOWED_VALUES = 10;
const MAX_VALUE_TEXT = 60;

/** `"desk", "kiosk", "online"` (bounded: a long list ends in `… (N more)`). */
function allowedValuesText(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_ALLOWED_VALUES).map((value) => {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT - 1)}…` : text;
  });
  return values.length > shown.length ? `${shown.join(', ')}, … (${values.length - shown.length} more)` : shown.join(', ');
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys)
    if (!Object.hasOwn(b, key) || !deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}

const formatChecks = new Map<string, FormatCheck>();

/** The check of `format` (core/formats.ts: the formats of ajv-formats' full set; unknown formats accept every value). */
function formatCheck(name: string): FormatCheck {
  let check = formatChecks.get(name);
  if (check === undefined) {
    check = formatCheckOf(name);
    formatChecks.set(name, check);
  }
  return check;
}

/**
 * Helpers that the validators keiyaku writes (`generated/validators.ts`) call. Generated
 * code imports them from here only; their names and signatures are part of codegen-v1.
 */
export const validatorRuntime = Object.freeze({
  /** JSON Schema's `object`: not null, not an array (one short call in generated code instead of three tests). */
  isObject(value: unknown): value is Record<string, unknown> {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  },
  /** Records an error (bounded by {@link MAX_VALIDATION_ERRORS}); returns false for `ok = report(…)`. */
  report(errors: ErrorSink, instancePath: string, keyword: string, arg?: unknown): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, keyword, arg));
    return false;
  },
  /** A `type` error: `types` is the comma-separated list of allowed types. */
  type(errors: ErrorSink, instancePath: string, types: string): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, 'type', types));
    return false;
  },
  /** A `format` error. */
  formatError(errors: ErrorSink, instancePath: string, format: string): false {
    if (errors.length < MAX_VALIDATION_ERRORS) errors.push(errorOf(instancePath, 'format', format));
    return false;
  },
  /** One `required` error per property of `required` that `data` lacks (absent or undefined). */
  required(errors: ErrorSink, instancePath: string, data: Readonly<Record<string, unknown>>, required: readonly string[]): false {
    for (const key of required)
      if (
        (key in Object.prototype || key === '__proto__' ? !Object.hasOwn(data, key) || data[key] === undefined : data[key] === undefined) &&
        errors.length < MAX_VALIDATION_ERRORS
      )
        errors.push(errorOf(instancePath, 'required', key));
    return false;
  },
  /** After a validator failed: prefixes the paths of the errors it added (from `errors.s` on); returns false. */
  prefix(errors: ErrorSink, path: string): false {
    for (let i = errors.s ?? errors.length; i < errors.length; i++) {
      const error = errors[i]!;
      errors[i] = { ...error, instancePath: path + error.instancePath };
    }
    return false;
  },
  /** A validator failed: remembers where its errors start (for `prefix`); returns false. */
  failed(errors: ErrorSink, start: number): false {
    errors.s = start;
    return false;
  },
  /** A property name as a JSON pointer token. */
  escape: (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1'),
  /** Length in code points, as JSON Schema counts it. */
  length: codePoints,
  equal: deepEqual,
  /** The first pair of equal items as [later, earlier], or undefined. */
  unique(items: readonly unknown[]): [number, number] | undefined {
    for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (deepEqual(items[i], items[j])) return [i, j];
    return undefined;
  },
  mergeItems(into: { n: number; a: boolean; s: Set<number> | null }, from: { n: number; a: boolean; s: Set<number> | null }): void {
    into.n = Math.max(into.n, from.n);
    into.a ||= from.a;
    if (from.s) {
      into.s ??= new Set();
      for (const i of from.s) into.s.add(i);
    }
  },
  /** The exported validate function of a root schema: `errors` holds every error of the last failing value. */
  root(check: (data: unknown, errors: ErrorSink) => boolean): StandaloneValidator {
    // One error list reused while values pass; a failing value keeps its own copy in `errors`.
    const shared: ErrorSink = [];
    let busy = false;
    const validate: StandaloneValidator = (data: unknown): boolean => {
      const errors: ErrorSink = busy ? [] : shared;
      const own = errors === shared;
      busy = true;
      let ok: boolean;
      try {
        ok = check(data, errors);
      } finally {
        if (own) busy = false;
      }
      if (ok) {
        validate.errors = null;
        return true;
      }
      validate.errors = errors.slice();
      errors.length = 0;
      return false;
    };
    validate.errors = null;
    return validate;
  },
  /** The check of a `format` keyword, called on strings (and numbers, for the numeric formats). */
  format: formatCheck,
});
