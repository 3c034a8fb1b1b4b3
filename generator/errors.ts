import { KeiyakuError } from '../runtime/core/errors.js';
import type { Diagnostic } from './diagnostics.js';

export { isKeiyakuError, KeiyakuError } from '../runtime/core/errors.js';

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
