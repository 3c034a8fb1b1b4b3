/**
 * The header limit of the Kafka transport. kafkajs decodes a record's headers with one object spread
 * per header (quadratic in their count: 2,000 headers block the event loop for seconds, 8,000 for
 * most of a minute), inside its fetch, before any code of ours sees the record: a record with absurd
 * header counts is a denial of service against a kafkajs consumer. So publishers refuse to write
 * one, and a kafkajs consumer hands one over as undecodable (see docs/kafka.md, "Header limits").
 */
import { KeiyakuError, TransportError } from '@keiyaku/runtime/adapter';

/** The default of `maxHeaders`: far above any contract's headers (CloudEvents binary mode uses about ten). */
export const DEFAULT_MAX_HEADERS = 1_000;

/** A record carries more headers than the transport's `maxHeaders`; it was not written (not retriable: the same record fails again). */
export class TooManyHeadersError extends TransportError {
  override readonly code: string = 'too_many_headers';
  readonly count: number;
  readonly limit: number;

  constructor(count: number, limit: number, address: string | undefined) {
    super(
      'kafka',
      `a record${address ? ` for ${address}` : ''} has ${count} headers, over the limit of ${limit} (the Kafka transport's maxHeaders option); it was not written`,
      { ...(address === undefined ? {} : { address }), retriable: false },
    );
    this.count = count;
    this.limit = limit;
  }
}

/** @internal Refuses a `maxHeaders` that is not a positive whole number. */
export function checkMaxHeadersOption(options: { readonly maxHeaders?: number }): void {
  const limit = options.maxHeaders;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new KeiyakuError(
      'invalid_max_headers',
      `maxHeaders must be a positive whole number (default ${DEFAULT_MAX_HEADERS}); got ${limit}`,
    );
}

/** @internal The transport's header limit: `maxHeaders`, else the default. */
export function maxHeaders(options: { readonly maxHeaders?: number }): number {
  return options.maxHeaders ?? DEFAULT_MAX_HEADERS;
}

/** @internal How many headers a header object carries (a repeated header, as kafkajs decodes it, counts each value). */
export function headerCount(headers: Readonly<Record<string, unknown>> | undefined): number {
  if (headers === undefined) return 0;
  let count = 0;
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    count += Array.isArray(value) ? value.length : 1;
  }
  return count;
}

/** @internal Throws {@link TooManyHeadersError} when `headers` (as written to the wire) exceed `limit`. */
export function checkHeaderCount(headers: Readonly<Record<string, unknown>>, limit: number, address: string | undefined): void {
  const count = headerCount(headers);
  if (count > limit) throw new TooManyHeadersError(count, limit, address);
}
