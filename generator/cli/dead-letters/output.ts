// How set-aside items are shown: one line, a table row, JSON.
import { payloadView } from '@keiyaku/runtime';
import type { DeadItem } from './sources.js';

export function describeItem(item: DeadItem): string {
  return `${item.kind === 'parked' ? 'parked message' : 'dead outbox row'} ${item.id} (${item.type || 'no type'} on ${item.channel}${item.groupId ? `, group ${item.groupId}` : ''})`;
}

/** The payload as text when it is textual; else its bytes as base64 (all of them), whatever they would read as. */
function payloadForJson(item: DeadItem): { payload?: string; payloadBase64?: string } {
  const view = payloadView(item, { bytes: 'base64', maxBytes: Number.POSITIVE_INFINITY });
  if (view.kind === 'text' || view.kind === 'json') return { payload: new TextDecoder().decode(item.payload) };
  return { payloadBase64: Buffer.from(item.payload).toString('base64') };
}

export function toJson(item: DeadItem, full: boolean): Record<string, unknown> {
  return {
    id: item.id,
    kind: item.kind,
    channel: item.channel,
    address: item.address,
    ...(item.groupId === undefined ? {} : { groupId: item.groupId }),
    type: item.type,
    ...(item.key === undefined ? {} : { key: item.key }),
    attempts: item.attempts,
    error: item.error,
    at: item.at.toISOString(),
    ...(full ? { headers: item.headers, ...payloadForJson(item), ...item.details } : {}),
  };
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n');
}

export const oneLine = (text: string, max = 80): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
