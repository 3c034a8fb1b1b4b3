/**
 * Findings of `keiyaku check` as data: a stable snake_case code, where (channel, message,
 * JSON pointer), before/after, severity and a one-line fix. Renderers sit on top.
 */
import type { SourceLocation } from '../diagnostics.js';

export type CompatSeverity = 'breaking' | 'compatible' | 'info';
export type Direction = 'backward' | 'forward';

export interface Finding {
  /** Stable code, e.g. `property_removed_from_closed_model`. */
  readonly code: string;
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
  /** Stable id used to acknowledge an intentional break: `<channel>/<message>/<code><pointer>`. */
  readonly id: string;
}

export function findingId(parts: { channel?: string | undefined; message?: string | undefined; code: string; pointer: string }): string {
  return `${parts.channel ?? '*'}/${parts.message ?? '*'}/${parts.code}${parts.pointer}`;
}
