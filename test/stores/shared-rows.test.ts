// The row scaffolding the SQLite and PostgreSQL stores share (runtime/outbox/store-base.ts,
// runtime/stores/event-store/rows.ts, runtime/stores/dead-letter/table.ts): one table of each engine's row
// shapes, read back to the same value.
import {
  DEAD_LETTER_INSERT_COLUMNS,
  deadLetterInsert,
  deadLetterSummaryColumns,
  jsonSerializer,
  outboxCountsFrom,
  outboxRowFrom,
  recordedEventFrom,
} from '@keiyaku/runtime/adapter';
import { describe, expect, it } from 'vitest';

const payload = Buffer.from('{"seq":1}');

describe('outboxRowFrom', () => {
  const expected = {
    id: '42',
    messageId: 'm-1',
    channel: 'pings',
    address: 'pings.v1',
    key: 'k',
    type: 'Ping',
    payload: new Uint8Array(payload),
    headers: { ce_id: 'm-1' },
    createdAt: 1_000,
    state: 'dead',
    attempts: 3,
    nextAttemptAt: 2_000,
    lastError: 'refused',
    finishedAt: 3_000,
  };
  const common = { message_id: 'm-1', channel: 'pings', address: 'pings.v1', partition_key: 'k', type: 'Ping', payload } as const;
  it.each([
    ['sqlite', { ...common, seq: 42, headers: '{"ce_id":"m-1"}', created_at: 1_000, next_attempt_at: 2_000, finished_at: 3_000 }],
    ['postgres', { ...common, seq: '42', headers: { ce_id: 'm-1' }, created_at: '1000', next_attempt_at: '2000', finished_at: '3000' }],
  ])('reads a %s row', (_engine, row) => {
    const read = outboxRowFrom({ ...row, state: 'dead', attempts: 3, last_error: 'refused' });
    expect(read).toEqual(expected);
    expect(Object.isFrozen(read)).toBe(true);
  });

  it('leaves absent optional columns out', () => {
    const read = outboxRowFrom({
      ...common,
      partition_key: null,
      seq: 1,
      headers: '{}',
      created_at: 1,
      state: 'pending',
      attempts: 0,
      next_attempt_at: 0,
      last_error: null,
      finished_at: null,
    });
    expect(Object.keys(read)).not.toContain('key');
    expect(Object.keys(read)).not.toContain('lastError');
    expect(Object.keys(read)).not.toContain('finishedAt');
  });
});

describe('outboxCountsFrom', () => {
  it.each([
    ['no rows', [], { pending: 0, dead: 0, published: 0 }],
    [
      'numbers (sqlite)',
      [
        { state: 'pending', n: 2, oldest: 5 },
        { state: 'dead', n: 1, oldest: 1 },
      ],
      { pending: 2, dead: 1, published: 0, oldestPendingAt: 5 },
    ],
    [
      'strings (postgres)',
      [
        { state: 'published', n: '7', oldest: '1' },
        { state: 'pending', n: '3', oldest: '9' },
      ],
      { pending: 3, dead: 0, published: 7, oldestPendingAt: 9 },
    ],
  ])('%s', (_name, rows, expected) => {
    expect(outboxCountsFrom(rows)).toEqual(expected);
  });
});

describe('recordedEventFrom', () => {
  const common = { stream_id: 's-1', version: 2, event_id: 'e-1', data: '{"n":1}', correlation_id: 'c', causation_id: null };
  it.each([
    ['sqlite', { ...common, position: 7, metadata: '{"a":"b"}', recorded_at: 1_700_000_000_000 }],
    ['postgres', { ...common, position: '7', metadata: { a: 'b' }, recorded_at: new Date(1_700_000_000_000) }],
  ])('reads a %s row', (_engine, row) => {
    expect(recordedEventFrom(row, jsonSerializer)).toEqual({
      event: { n: 1 },
      aggregateId: 's-1',
      version: 2,
      position: 7,
      timestamp: new Date(1_700_000_000_000),
      eventId: 'e-1',
      correlationId: 'c',
      metadata: { a: 'b' },
    });
  });
});

describe('deadLetterInsert', () => {
  const request = {
    channel: 'pings',
    address: 'pings.v1',
    groupId: 'g',
    type: 'Ping',
    payload: new Uint8Array([1, 2, 3]),
    headers: { h: 'v' },
    attempts: 2,
    firstFailureAt: new Date(1),
    lastFailureAt: new Date(2),
    error: { name: 'Error', message: 'no' },
  };

  it('gives one value per inserted column, in the columns’ order', () => {
    const row = deadLetterInsert('id-1', request, new Date(3));
    const columns = DEAD_LETTER_INSERT_COLUMNS.split(',').map((c) => c.trim());
    expect(Object.keys(row)).toHaveLength(columns.length);
    const named = Object.fromEntries(columns.map((c, i) => [c, Object.values(row)[i]]));
    expect(named).toMatchObject({
      id: 'id-1',
      channel: 'pings',
      group_id: 'g',
      headers: '{"h":"v"}',
      record_key: null,
      partition: null,
      error_stack: null,
      attempts: 2,
      parked_at: new Date(3),
      escaped: false,
    });
    expect([...(named.payload as Buffer)]).toEqual([1, 2, 3]);
  });

  it('escapes every text when one needs it', () => {
    const row = deadLetterInsert('id-2', { ...request, headers: { h: 'a\u0000b' } }, new Date(3));
    expect(row.escaped).toBe(true);
    expect(row.headers).toBe('{"h":"a\\\\u0000b"}');
  });

  it.each(['length', 'octet_length'])('summary columns measure the payload with %s', (fn) => {
    expect(deadLetterSummaryColumns(fn)).toMatch(new RegExp(`, ${fn}\\(payload\\) AS payload_bytes$`));
  });
});
