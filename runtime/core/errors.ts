/**
 * The error taxonomy shared by the generator and the runtime.
 *
 * Every error carries a stable `code` and a `retriable` flag so that retry and
 * dead-letter logic decide from data, never from message text. Guards check the
 * `name` so they survive two copies of keiyaku in one process.
 */
export class KeiyakuError extends Error {
  override readonly name: string = 'KeiyakuError';
  readonly code: string;
  readonly retriable: boolean;

  constructor(code: string, message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** True for any keiyaku error, also one thrown by another installed copy of keiyaku. */
export function isKeiyakuError(value: unknown): value is KeiyakuError {
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { retriable?: unknown }).retriable === 'boolean' &&
    /^[A-Z]\w*Error$/.test(value.name)
  );
}
