/** Why a value is not a contract message: validation issues, the validation and decode errors, decode results. */
import { KeiyakuError } from '../errors.js';

/** One reason a value does not satisfy its schema. */
export interface ValidationIssue {
  /** JSON pointer into the value, `""` for the root. */
  readonly pointer: string;
  /** The same location as a JSON path, `$` for the root (`$.borrower.name`, `$.items[2]`). */
  readonly path: string;
  /** JSON Schema keyword that failed (`required`, `type`, `enum`, …). */
  readonly keyword: string;
  readonly message: string;
}

/** Thrown by `create` when a payload does not satisfy the contract. */
export class ContractValidationError extends KeiyakuError {
  override readonly name = 'ContractValidationError';
  readonly messageType: string;
  readonly issues: readonly ValidationIssue[];
  /** JSON path of the first failing location. */
  readonly path: string;

  constructor(messageTypeName: string, issues: readonly ValidationIssue[]) {
    const first = issues[0];
    const where = first === undefined ? '$' : first.path;
    super('contract_invalid', `${messageTypeName} is not valid at ${where}: ${first?.message ?? 'rejected by its schema'}`);
    this.messageType = messageTypeName;
    this.issues = issues;
    this.path = where;
  }
}

/** Why bytes could not be turned into a contract message. */
/**
 * `malformed`: the bytes are not an encoding of the message's Avro or Protobuf schema; `frame`: a
 * Schema Registry frame is missing, damaged or names a schema the registry does not know.
 */
export type DecodeFailure = 'unknown_type' | 'not_utf8' | 'not_json' | 'schema' | 'headers' | 'malformed' | 'frame';

/** Returned (never thrown) by `decode` when bytes are not a valid message. Not retriable: the bytes will not change. */
export class ContractDecodeError extends KeiyakuError {
  override readonly name = 'ContractDecodeError';
  readonly reason: DecodeFailure;
  readonly messageType: string;
  readonly issues: readonly ValidationIssue[];
  /** JSON path of the failing location (`$` when the whole document is at fault). */
  readonly path: string;

  constructor(reason: DecodeFailure, messageTypeName: string, message: string, issues: readonly ValidationIssue[] = [], cause?: unknown) {
    super(`decode_${reason}`, message, { cause });
    this.reason = reason;
    this.messageType = messageTypeName;
    this.issues = issues;
    this.path = issues[0]?.path ?? '$';
  }
}

export type DecodeResult<M> = { readonly ok: true; readonly value: M } | { readonly ok: false; readonly error: ContractDecodeError };

/** @internal A failed decode result. */
export function fail(reason: DecodeFailure, type: string, message: string, issues: readonly ValidationIssue[] = [], cause?: unknown) {
  return { ok: false as const, error: new ContractDecodeError(reason, type, message, issues, cause) };
}
