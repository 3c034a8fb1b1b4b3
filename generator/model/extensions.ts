/**
 * keiyaku's own specification extension, `x-keiyaku`: on the document root the contract-wide
 * compatibility mode, schema policy, Protobuf rules and acknowledged breaks; on a channel or a message its own
 * compatibility mode. Values outside the vocabulary (generator/model/vocabulary.ts) are located
 * errors.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#specificationExtensions
 */
import type { Diagnostic, SourceLocation } from '../diagnostics.js';
import { optional, type Part } from './context.js';
import type { CompatibilitySettings } from './contract-model.js';
import { MODES, type Mode, POLICIES, PROTOBUF_RULES } from './vocabulary.js';

/** Where a key of an `x-keiyaku` extension was written (no path: the extension itself). */
export type ExtensionLocator = (...path: string[]) => SourceLocation;

/** `value` when it is one of `allowed`; else an error diagnostic at `location` (absent: undefined, no diagnostic). */
function choice<T extends string>(
  value: unknown,
  allowed: readonly T[],
  what: string,
  diagnostics: Diagnostic[],
  location: SourceLocation,
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  diagnostics.push({
    severity: 'error',
    code: 'keiyaku_extension_invalid',
    message: `${what} is ${JSON.stringify(value)}, which is not one of ${allowed.join(', ')}`,
    hint: `write one of ${allowed.join(', ')}`,
    location,
  });
  return undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `x-keiyaku` of a channel or message (`owner`: `channel "…"`, `message "…"`): its own compatibility mode. */
export function ownCompatibility(value: unknown, owner: string, at: ExtensionLocator): Part<Mode | undefined> {
  const diagnostics: Diagnostic[] = [];
  if (value === undefined) return { part: undefined, diagnostics };
  if (!isObject(value)) {
    diagnostics.push({
      severity: 'error',
      code: 'keiyaku_extension_invalid',
      message: `x-keiyaku of ${owner} must be an object`,
      hint: 'write `x-keiyaku: { compatibility: <mode> }`',
      location: at(),
    });
    return { part: undefined, diagnostics };
  }
  const mode = (value as { compatibility?: unknown }).compatibility;
  return { part: choice(mode, MODES, `x-keiyaku.compatibility of ${owner}`, diagnostics, at('compatibility')), diagnostics };
}

type Acknowledgment = NonNullable<CompatibilitySettings['acknowledge']>[number];

/** The `acknowledge` list of the root `x-keiyaku`: each entry with an id, a non-empty reason and a version. */
function acknowledgments(value: unknown, diagnostics: Diagnostic[], location: SourceLocation): Acknowledgment[] {
  const acknowledge: Acknowledgment[] = [];
  if (value === undefined) return acknowledge;
  if (!Array.isArray(value)) {
    diagnostics.push({
      severity: 'error',
      code: 'keiyaku_extension_invalid',
      message: 'x-keiyaku.acknowledge must be a list',
      hint: 'each entry: { id: <finding id>, reason: <why>, version: <info.version it applies to> }',
      location,
    });
    return acknowledge;
  }
  for (const entry of value as unknown[]) {
    const e = entry as { id?: unknown; reason?: unknown; version?: unknown };
    if (
      typeof e?.id !== 'string' ||
      typeof e.reason !== 'string' ||
      e.reason.trim() === '' ||
      (typeof e.version !== 'string' && typeof e.version !== 'number')
    ) {
      diagnostics.push({
        severity: 'error',
        code: 'keiyaku_acknowledgment_invalid',
        message: `an acknowledgment needs id, a non-empty reason and version: ${JSON.stringify(entry)}`,
        hint: 'copy the id from `keiyaku check` output and say why the break is intended',
        location,
      });
      continue;
    }
    acknowledge.push({ id: e.id, reason: e.reason, version: String(e.version) });
  }
  return acknowledge;
}

/** `x-keiyaku` of the document root: the contract-wide mode and policy, and the acknowledged breaks. */
export function rootCompatibility(value: unknown, at: ExtensionLocator): Part<CompatibilitySettings | undefined> {
  const diagnostics: Diagnostic[] = [];
  if (value === undefined) return { part: undefined, diagnostics };
  const location = at();
  if (!isObject(value)) {
    diagnostics.push({
      severity: 'error',
      code: 'keiyaku_extension_invalid',
      message: 'x-keiyaku must be an object',
      hint: 'write `x-keiyaku: { compatibility: backward, policy: lenient, acknowledge: [...] }`',
      location,
    });
    return { part: undefined, diagnostics };
  }
  const raw = value as { compatibility?: unknown; policy?: unknown; protobuf?: unknown; acknowledge?: unknown };
  const acknowledge = acknowledgments(raw.acknowledge, diagnostics, location);
  const part: CompatibilitySettings = {
    ...optional('mode', choice(raw.compatibility, MODES, 'x-keiyaku.compatibility', diagnostics, at('compatibility'))),
    ...optional('policy', choice(raw.policy, POLICIES, 'x-keiyaku.policy', diagnostics, at('policy'))),
    ...optional('protobuf', choice(raw.protobuf, PROTOBUF_RULES, 'x-keiyaku.protobuf', diagnostics, at('protobuf'))),
    ...(acknowledge.length > 0 ? { acknowledge } : {}),
  };
  return { part, diagnostics };
}
