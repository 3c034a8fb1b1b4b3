import { formatLocation, type SourceLocation } from '../diagnostics.js';
import { KeiyakuError } from '../errors.js';

/** Why no mock value could be built. */
export type MockErrorCode =
  /** The schema uses something mock values are not built for (a lookahead in a pattern, a `not` that cannot be decided, an Avro payload). */
  | 'mock_unsupported'
  /** No value satisfies the schema (`false`, bounds that exclude each other, a required value nested without end). */
  | 'mock_unsatisfiable'
  /** The channel or message is not in the contract. */
  | 'mock_unknown';

/**
 * No mock value could be built for a schema: `schema` names the named schema and `pointer` the
 * node inside it; `location` is where the named schema is written in the contract.
 */
export class MockError extends KeiyakuError {
  override readonly name = 'MockError';
  override readonly code: MockErrorCode;
  readonly schema: string | undefined;
  readonly pointer: string;
  readonly location: SourceLocation | undefined;

  constructor(
    code: MockErrorCode,
    reason: string,
    where: { readonly schema?: string; readonly pointer?: string; readonly location?: SourceLocation; readonly hint?: string } = {},
  ) {
    const at =
      where.schema === undefined
        ? ''
        : ` (schema ${where.schema}${where.pointer ? ` at #${where.pointer}` : ''}${where.location ? `, ${formatLocation(where.location)}` : ''})`;
    super(code, `${reason}${at}${where.hint ? `; ${where.hint}` : ''}`);
    this.code = code;
    this.schema = where.schema;
    this.pointer = where.pointer ?? '';
    this.location = where.location;
  }
}
