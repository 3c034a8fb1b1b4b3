/**
 * The JSON-safe view of an Avro payload value, for logs, the dead-letter page and
 * `dead-letters show`: a Date is its ISO text, bytes are `{ "$bytes": "<base64>" }`, everything
 * else as it is (decimals and uuids are already text; wrapped unions keep their `{ "ns.Name": … }`).
 */
import { Buffer } from 'node:buffer';

export function toJsonView(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (Array.isArray(value)) return value.map(toJsonView);
  if (typeof value === 'object' && value !== null) {
    const view: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) view[key] = toJsonView(item);
    return view;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}
