import type { Diagnostic } from './diagnostics.js';

/**
 * The base of every error the generator throws: a stable `code` and whether trying again can
 * help. The same shape as `@keiyaku/runtime`'s `KeiyakuError` (the generator depends on no runtime
 * code), so {@link isKeiyakuError} recognises the errors of both.
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

/** True for any keiyaku error — the generator's, the runtime's, or one of another installed copy. */
export function isKeiyakuError(value: unknown): value is KeiyakuError {
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { retriable?: unknown }).retriable === 'boolean' &&
    /^[A-Z]\w*Error$/.test(value.name)
  );
}

/** The contract could not be loaded or is invalid; `diagnostics` says where and why. */
export class ContractError extends KeiyakuError {
  override readonly name = 'ContractError';
  readonly diagnostics: readonly Diagnostic[];

  constructor(message: string, diagnostics: readonly Diagnostic[]) {
    super('contract_invalid', message);
    this.diagnostics = diagnostics;
  }
}

/** An option (CLI flag or config file entry) is unknown or has a bad value. */
export class OptionError extends KeiyakuError {
  override readonly name = 'OptionError';
  readonly option: string;

  constructor(option: string, message: string) {
    super('option_invalid', message);
    this.option = option;
  }
}

/** Writing or comparing the output directory failed. */
export class OutputError extends KeiyakuError {
  override readonly name = 'OutputError';
  readonly path: string;

  constructor(path: string, message: string, cause?: unknown) {
    super('output_failed', message, { cause });
    this.path = path;
  }
}
