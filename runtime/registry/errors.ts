/**
 * The typed failures of the Schema Registry client. A registry that cannot be reached, answers
 * 5xx or does not answer in time is a transient condition: {@link SchemaRegistryUnavailableError}
 * is retriable, so the publisher and the belt retry it as they retry a broker that is away. A 4xx
 * answer is the registry's verdict on what was asked: {@link SchemaRegistryError}, not retriable.
 */
import { KeiyakuError } from '../core/errors.js';

/** The registry's error codes keiyaku names (Confluent's REST API; Apicurio's ccompat API uses the same). */
export const REGISTRY_ERROR_CODES = Object.freeze({
  subjectNotFound: 40401,
  versionNotFound: 40402,
  schemaNotFound: 40403,
  incompatible: 409,
  invalidSchema: 42201,
  invalidVersion: 42202,
});

/** The registry refused a request (a 4xx answer): the subject, version or schema id is unknown, or the schema is invalid or incompatible. */
export class SchemaRegistryError extends KeiyakuError {
  override readonly name: string = 'SchemaRegistryError';
  /** The registry's `error_code` (40401 subject not found, 409 incompatible, 42201 invalid schema, …), else the HTTP status. */
  readonly errorCode: number;
  /** The HTTP status of the answer (0 when the request never got one). */
  readonly status: number;
  /** The subject the request was about, when it was about one. */
  readonly subject: string | undefined;

  constructor(message: string, options: { errorCode: number; status: number; subject?: string; cause?: unknown; code?: string }) {
    super(options.code ?? 'schema_registry_error', message, { cause: options.cause, retriable: false });
    this.errorCode = options.errorCode;
    this.status = options.status;
    this.subject = options.subject;
  }
}

/** The registry could not be reached, answered 5xx (or 429), or did not answer within the timeout. Retriable. */
export class SchemaRegistryUnavailableError extends KeiyakuError {
  override readonly name: string = 'SchemaRegistryUnavailableError';
  /** The URL of the request that failed. */
  readonly url: string;
  /** The HTTP status, or 0 when there was no answer (refused, reset, timed out). */
  readonly status: number;

  constructor(url: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super('schema_registry_unavailable', message, { cause: options.cause, retriable: true });
    this.url = url;
    this.status = options.status ?? 0;
  }
}
