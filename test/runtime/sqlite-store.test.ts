// The SQLite dead-letter store on a real database file: park, list, get, remove, and durability across a restart.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { payloadText } from '@keiyaku/runtime';
import { SqliteDeadLetterStore } from '@keiyaku/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const dir = scratch('sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (n: number) => ({
  channel: 'bookIntegrationEvents',
  address: 'library.book-integration-events',
  groupId: n % 2 === 0 ? 'inventory.book-availability' : 'notifications.returns',
  type: 'BookBorrowed',
  payload: n === 3 ? new Uint8Array([0xff, 0x00, 0xfe]) : new TextEncoder().encode(JSON.stringify({ copyId: `C-${n}` })),
  headers: { ce_type: 'BookBorrowed', ce_id: `id-${n}` },
  key: `book-${n}`,
  partition: n,
  offset: String(10_000_000_000_000_000n + BigInt(n)),
  error: { name: 'Error', message: `failure ${n}`, stack: `Error: failure ${n}\n    at handler` },
  attempts: n + 1,
  firstFailureAt: new Date(Date.UTC(2026, 10, 30, 8, 0, n)),
  lastFailureAt: new Date(Date.UTC(2026, 10, 30, 9, 0, n)),
});

describe('SqliteDeadLetterStore', () => {
  it('parks with every field and keeps it across a restart of the process', async () => {
    const file = join(dir, 'dead-letters.db');
    const first = new SqliteDeadLetterStore(file);
    const parked = await Promise.all([1, 2, 3].map((n) => first.park(request(n), new Date(Date.UTC(2026, 10, 30, 10, 0, n)))));
    // What park returns is what get reads back: same fields, same values, frozen.
    for (const p of parked) {
      expect(Object.isFrozen(p)).toBe(true);
      expect(p).toStrictEqual(await first.get(p.id));
    }
    expect(parked[0]).toEqual({ ...request(1), id: parked[0]!.id, parkedAt: new Date(Date.UTC(2026, 10, 30, 10, 0, 1)) });
    await first.close();

    const second = new SqliteDeadLetterStore(file);
    const all = await second.list();
    expect(all.map((p) => p.id)).toEqual(parked.map((p) => p.id));
    const one = await second.get(parked[0]!.id);
    expect(one).toEqual({ ...request(1), id: parked[0]!.id, parkedAt: new Date(Date.UTC(2026, 10, 30, 10, 0, 1)) });
    expect(payloadText(one!)).toBe('{"copyId":"C-1"}');
    expect(payloadText(all[2]!)).toBeUndefined();
    expect([...all[2]!.payload]).toEqual([0xff, 0x00, 0xfe]);
    expect(all[2]!.offset).toBe('10000000000000003');
    expect(await second.count({ groupId: 'notifications.returns' })).toBe(2);
    expect((await second.list({ groupId: 'inventory.book-availability' })).map((p) => p.partition)).toEqual([2]);
    expect(await second.remove(parked[1]!.id)).toBe(true);
    expect(await second.remove(parked[1]!.id)).toBe(false);
    expect(await second.get(parked[1]!.id)).toBeUndefined();
    await second.close();

    const third = new SqliteDeadLetterStore(file);
    expect(await third.count()).toBe(2);
    await third.close();
  });
});
