/**
 * Findings of `keiyaku check` as data: a stable snake_case code, where (channel, message,
 * JSON pointer), before/after, severity and a one-line fix. Renderers sit on top.
 */
import type { SourceLocation } from '../diagnostics.js';
import type { FindingCode } from './codes.js';

export type { FindingCode } from './codes.js';

/**
 * `warning`: does not fail the check, but needs a look: something in the contract's settings to fix
 * (an acknowledgment that applies to nothing), or a change no reader fails on whose consumers stop
 * receiving (`parameter_value_removed`).
 */
export type CompatSeverity = 'breaking' | 'compatible' | 'info' | 'warning';
export type Direction = 'backward' | 'forward';

export interface Finding {
  /** Stable snake_case code, e.g. `property_removed_from_closed_model` (every code: `FINDING_CODES`). */
  readonly code: FindingCode;
  readonly severity: CompatSeverity;
  /** Which reading of the change this finding is about: old readers of new data (forward) or new readers of old data (backward). */
  readonly direction: Direction;
  readonly channel?: string;
  readonly message?: string;
  /** JSON pointer into the payload (or headers) schema; empty for contract-level findings. */
  readonly pointer: string;
  readonly before?: unknown;
  readonly after?: unknown;
  /** What changed, in one line. */
  readonly detail: string;
  /** How to keep compatibility, in one line. */
  readonly hint: string;
  readonly location?: SourceLocation;
  /**
   * Stable id used to acknowledge an intentional break: `<channel>/<message>/<code><pointer>`;
   * for a change inside a schema several messages share, `schemas/<Name>/<code><pointer>`
   * (the pointer inside that schema).
   */
  readonly id: string;
  /**
   * Earlier spellings of this finding's id that acknowledgments may still use: the per-message
   * ids of a shared-schema finding, the codes of forward findings before they were named
   * after the edit (`enum_value_removed` for a value that was added), and codes as spelled before
   * every code became snake_case (`maxLength_narrowed`). Accepted with a warning.
   */
  readonly legacyIds?: readonly string[];
  /** Every place a change in a shared schema shows up (`channel`, `message`, `pointer` into it). */
  readonly usages?: readonly { readonly channel: string; readonly message: string; readonly pointer: string }[];
}

export function findingId(parts: {
  channel?: string | undefined;
  message?: string | undefined;
  /** A code, or an earlier spelling of one (for legacy ids). */
  code: string;
  pointer: string;
}): string {
  return `${parts.channel ?? '*'}/${parts.message ?? '*'}/${parts.code}${parts.pointer}`;
}

/**
 * The clause a fix ends with when the step it names (keep the schema as it was) does not make
 * the change: no edit of this kind passes the gate, only an acknowledgment lets it through.
 */
export const ONLY_ACKNOWLEDGED = 'the change itself passes only when acknowledged';

/** Whether a fix says that only an acknowledgment lets the change through. */
export function onlyAcknowledgment(hint: string): boolean {
  return hint.includes(ONLY_ACKNOWLEDGED);
}

/** A fix whose only step through the gate is not to make the change: `keep …; the change itself passes only when acknowledged, <when>`. */
export function keepOrAcknowledge(keep: string, when: string): string {
  return `${keep}; ${ONLY_ACKNOWLEDGED}, ${when}`;
}
