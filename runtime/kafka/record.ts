/** Fetched Kafka messages as transport records. */
import type { IncomingRecord } from '@keiyaku/runtime/adapter';

/** A kafkajs message as it arrives: headers and key may be missing, header values arrays. */
export interface KafkaMessageIn {
  readonly offset: string;
  readonly timestamp: string;
  readonly key?: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, Buffer | string | readonly (Buffer | string)[] | undefined>>;
}

/**
 * @internal A fetched Kafka message as a transport record: headers decoded as UTF-8 (a
 * repeated header joined with commas), the value a view on kafkajs' buffer (no copy).
 * `dropHeaders` (a record over the header limit) leaves the record without headers: undecodable.
 */
export function recordFromKafka(message: KafkaMessageIn, address: string, partition: number, dropHeaders = false): IncomingRecord {
  const headers: Record<string, string> = {};
  const raw = dropHeaders ? undefined : message.headers;
  if (raw !== undefined) {
    for (const name in raw) {
      if (!Object.hasOwn(raw, name)) continue;
      const value = raw[name];
      if (value === undefined) continue;
      const text =
        typeof value === 'string'
          ? value
          : Buffer.isBuffer(value)
            ? value.toString('utf8')
            : (value as readonly unknown[]).map(String).join(',');
      // A header named __proto__ is kept as a plain property (an assignment would set the prototype).
      if (name === '__proto__') Object.defineProperty(headers, name, { value: text, enumerable: true, writable: true, configurable: true });
      else headers[name] = text;
    }
  }
  const value = message.value ?? EMPTY;
  const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const key = message.key;
  const offset = message.offset;
  const timestamp = Number(message.timestamp);
  return key === null || key === undefined
    ? { address, partition, offset, timestamp, headers, value: bytes }
    : { address, partition, offset, timestamp, headers, value: bytes, key: key.toString('utf8') };
}

const EMPTY = Buffer.alloc(0);
