/**
 * Which transport and dead-letter store a host runs on, and where each choice came from: the
 * default, a configuration file, a configuration object, the environment, or code that built the
 * part by hand. `configure()` marks each part it builds; the `Messaging` host reads the mark for
 * `health()`, the operations page and its start-up warning about process memory. The mark is a
 * property under a registered symbol, so it holds across two copies of the runtime in one process.
 */

/** Where a part's choice came from. */
export type ConfigSource = 'default' | 'environment' | 'file' | 'object' | 'code';

export interface ConfigChoice {
  /** `memory`, `kafka`, `iggy` / `memory`, `sqlite`, `postgres`, `mysql`, or a hand-built part's own name. */
  readonly kind: string;
  readonly source: ConfigSource;
  /** The variable (`KEIYAKU_TRANSPORT`), the file or the key that chose it, when one did. */
  readonly from?: string;
}

const CHOICE = Symbol.for('keiyaku.config.choice');

/** Marks `part` as chosen by `choice` (a part that cannot take the mark, e.g. a frozen one, is left unmarked). */
export function markChoice<T extends object>(part: T, choice: ConfigChoice): T {
  try {
    Object.defineProperty(part, CHOICE, { value: Object.freeze({ ...choice }), configurable: true, enumerable: false });
  } catch {
    // Not extensible: health reports it as built in code.
  }
  return part;
}

/** How `part` was chosen, when `configure()` built it. */
export function choiceOf(part: object): ConfigChoice | undefined {
  const mark = (part as { [CHOICE]?: unknown })[CHOICE];
  if (typeof mark !== 'object' || mark === null) return undefined;
  const { kind, source } = mark as { kind?: unknown; source?: unknown };
  return typeof kind === 'string' && typeof source === 'string' ? (mark as ConfigChoice) : undefined;
}

/** One line naming a choice: `kafka (environment: KEIYAKU_TRANSPORT)`, `memory (default)`. */
export function describeChoice(choice: ConfigChoice): string {
  return `${choice.kind} (${choice.source}${choice.from === undefined ? '' : `: ${choice.from}`})`;
}
