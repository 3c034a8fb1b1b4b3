/**
 * Configuration problems: every problem names its key (a path such as `kafka.properties["sasl.mechanism"]`
 * when the configuration came from an object, the variable's name such as `KEIYAKU_KAFKA_BOOTSTRAP_SERVERS`
 * when it came from the environment) and says how to fix it. Validation collects all of them and
 * throws one {@link ConfigurationError} listing every problem at once. A secret's value never appears
 * in a problem, an error or a log line.
 */
import { KeiyakuError } from '../core/errors.js';

export interface ConfigProblem {
  /** The key as the user wrote it: a config path or an environment variable name. */
  readonly key: string;
  readonly message: string;
}

/** The configuration is invalid; `problems` lists everything that is wrong, each naming its key. */
export class ConfigurationError extends KeiyakuError {
  override readonly name = 'ConfigurationError';
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `  - ${p.key}: ${p.message}`);
    super(
      'invalid_configuration',
      `the configuration has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
    );
    this.problems = problems;
  }
}

/** Where a config path came from: maps a path (`kafka.bootstrapServers`) to the name the user wrote. */
export type KeyNamer = (path: string) => string;

/** Collects problems while a section is read; `key()` names a path as the user wrote it. */
export class Problems {
  readonly list: ConfigProblem[] = [];
  readonly key: KeyNamer;

  constructor(key: KeyNamer = (path) => path) {
    this.key = key;
  }

  add(path: string, message: string): void {
    this.list.push({ key: this.key(path), message });
  }

  /** Throws a {@link ConfigurationError} with every problem collected, if there is any. */
  throwIfAny(): void {
    if (this.list.length > 0) throw new ConfigurationError(this.list);
  }
}

/** How a value is shown in a problem or a log line: secrets never are. */
export function shown(value: unknown, secret = false): string {
  if (secret) return '(secret, not shown)';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** The closest of `known` to `name` (edit distance ≤ 3), for "did you mean". */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
