/**
 * Reading one section of a plain configuration object (parsed JSON, YAML, or the environment):
 * keys match case-insensitively, so `BootstrapServers` (as in an appsettings.json) and
 * `bootstrapServers` both work; an unknown key is a problem with a "did you mean"; numbers may be
 * numbers or decimal strings (the environment only has strings). Every reader records its problem
 * and returns undefined, so one pass finds everything that is wrong.
 */
import { closest, type Problems, shown } from './problems.js';

export class SectionReader {
  readonly path: string;
  readonly #values = new Map<string, unknown>();
  readonly #problems: Problems;

  constructor(raw: unknown, path: string, known: readonly string[], problems: Problems) {
    this.path = path;
    this.#problems = problems;
    if (raw === undefined || raw === null) return;
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      problems.add(path || 'configuration', `must be an object, got ${Array.isArray(raw) ? 'an array' : typeof raw}`);
      return;
    }
    const canonical = new Map(known.map((k) => [k.toLowerCase(), k]));
    for (const [key, value] of Object.entries(raw)) {
      const name = canonical.get(key.toLowerCase());
      if (name === undefined) {
        const guess = closest(key, known);
        problems.add(this.at(key), `unknown key${guess ? `; did you mean ${guess}?` : ''} (known: ${known.join(', ')})`);
        continue;
      }
      if (value !== undefined) this.#values.set(name, value);
    }
  }

  at(name: string): string {
    return this.path === '' ? name : `${this.path}.${name}`;
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  raw(name: string): unknown {
    return this.#values.get(name);
  }

  string(name: string, options: { secret?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.#problems.add(this.at(name), `must be a string, got ${typeof value}`);
      return undefined;
    }
    if ((options.nonEmpty ?? true) && value.trim() === '') {
      this.#problems.add(this.at(name), 'must not be empty');
      return undefined;
    }
    return value;
  }

  /** An integer (or a decimal string of one) within [min, max]. */
  integer(name: string, options: { min?: number; max?: number } = {}): number | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    return integerValue(value, this.at(name), this.#problems, options);
  }

  /** A list of non-empty strings: an array, or one comma-separated string. */
  list(name: string): string[] | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
    if (items === undefined || items.some((i) => typeof i !== 'string')) {
      this.#problems.add(this.at(name), 'must be a list of strings or one comma-separated string');
      return undefined;
    }
    const list = (items as string[]).map((i) => i.trim()).filter((i) => i.length > 0);
    if (list.length === 0) {
      this.#problems.add(this.at(name), 'must name at least one entry');
      return undefined;
    }
    return list;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    const match = values.find((v) => v.toLowerCase() === text);
    if (match === undefined) {
      this.#problems.add(this.at(name), `must be one of ${values.join(', ')}, got ${shown(value)}`);
      return undefined;
    }
    return match;
  }

  /** A nested object whose own keys are free (e.g. librdkafka properties). */
  record(name: string): Record<string, unknown> | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.#problems.add(this.at(name), 'must be an object of key/value pairs');
      return undefined;
    }
    return value as Record<string, unknown>;
  }
}

export function integerValue(
  value: unknown,
  key: string,
  problems: Problems,
  options: { min?: number; max?: number; secret?: boolean } = {},
): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  const min = options.min ?? 0;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(number)) {
    problems.add(key, `must be an integer, got ${shown(value, options.secret)}`);
    return undefined;
  }
  if (number < min || number > max) {
    problems.add(key, `must be between ${min} and ${max}, got ${number}`);
    return undefined;
  }
  return number;
}
