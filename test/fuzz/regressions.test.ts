// One test per crash the fuzz harness (or reading the decoders for it) found.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeadLetterRecordError, SqliteDeadLetterStore } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { readIdentifier, readName } from '../../runtime/iggy/protocol/primitives.js';
import { decodeGroupDetails, decodeSync } from '../../runtime/iggy/protocol/v0_11/commands/groups.js';
import { decodeSendReply } from '../../runtime/iggy/protocol/v0_11/commands/messages.js';
import { decodeTopic } from '../../runtime/iggy/protocol/v0_11/commands/topics.js';
import { IggyDecodeError, Reader } from '../../runtime/iggy/protocol/wire.js';
import { recordFromIggy } from '../../runtime/iggy/transport.js';
import { recordFromKafka } from '../../runtime/kafka/transport.js';

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

describe('Iggy decoders', () => {
  it('a name or identifier that is not UTF-8 is an IggyDecodeError (was a TypeError)', () => {
    expect(() => readName(new Reader(hex('02c328')))).toThrow(IggyDecodeError);
    expect(() => readName(new Reader(hex('02c328')), 'stream name')).toThrow('stream name is not valid UTF-8');
    expect(() => readIdentifier(new Reader(hex('0202c328')))).toThrow(IggyDecodeError);
  });

  it('a count larger than the payload is refused before allocating (was seconds of CPU per reply)', () => {
    // fuzz input: a sync reply announcing 0xbff601f6 partitions in a few bytes
    const sync = hex('01000000f601bff601bff601bff601bff6010001000000');
    let started = performance.now();
    expect(() => decodeSync(sync)).toThrow(IggyDecodeError);
    expect(performance.now() - started).toBeLessThan(100);
    // group details: id, partitions, members = 0x01000003 (16 M), name "g"
    started = performance.now();
    expect(() => decodeGroupDetails(hex('0100000003000000030000010167'))).toThrow(/announce 16777219 members/);
    expect(() => decodeGroupDetails(hex('01000000030000000100000001670100000000ffffff'))).toThrow(/announces 4294967040 partitions/);
    expect(() => decodeSendReply(hex('ffffffff'))).toThrow(/4294967295 confirmations/);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('a topic announcing more partitions than its payload holds is refused', () => {
    const topic = new Uint8Array(4 + 8 + 4 + 8 + 1 + 8 + 8 + 8 + 1 + 1 + 8);
    const view = new DataView(topic.buffer);
    view.setUint32(12, 0xffff_fff0, true); // partitions_count
    topic[4 + 8 + 4 + 8 + 1 + 8 + 8 + 8] = 1; // name length
    topic[4 + 8 + 4 + 8 + 1 + 8 + 8 + 8 + 1] = 0x74; // "t"
    expect(() => decodeTopic(topic)).toThrow(IggyDecodeError);
  });

  it('a polled message whose user headers are malformed becomes a record without headers (it used to fail the whole poll)', () => {
    const record = recordFromIggy({ offset: 3n, timestamp: 5_000n, payload: new Uint8Array([1]), headers: hex('01ffffffff') }, 'a', 0);
    expect(record).toMatchObject({ offset: '3', timestamp: 5, headers: {} });
  });
});

describe('Kafka records', () => {
  it('a header named __proto__ is kept as a header, not set as the prototype', () => {
    const headers = JSON.parse('{"__proto__":"x","ce_type":"T"}') as Record<string, string>;
    const record = recordFromKafka({ offset: '1', timestamp: '2', key: null, value: null, headers }, 'a', 0);
    expect(Object.getPrototypeOf(record.headers)).toBe(Object.prototype);
    expect(Object.entries(record.headers)).toEqual([
      ['__proto__', 'x'],
      ['ce_type', 'T'],
    ]);
  });
});

describe('the SQLite dead-letter store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-dlq-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function storeWithRow(values: Record<string, unknown>) {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.db`);
    const store = new SqliteDeadLetterStore(path);
    const db = new Database(path);
    const row = {
      id: 'r-1',
      channel: 'c',
      address: 'a',
      group_id: 'g',
      type: 'T',
      payload: Buffer.from('{}'),
      headers: '{"ce_type":"T"}',
      error_name: 'Error',
      error_message: 'm',
      attempts: 1,
      first_failure_at: 0,
      last_failure_at: 0,
      parked_at: 0,
      ...values,
    };
    const columns = Object.keys(row);
    db.prepare(`INSERT INTO keiyaku_dead_letters (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
    db.close();
    return store;
  }

  it('reads back a well-formed row', async () => {
    const store = await storeWithRow({});
    expect((await store.get('r-1'))?.headers).toEqual({ ce_type: 'T' });
    await store.close();
  });

  it.each([
    [
      'a payload stored as text (a number-like text allocated that many bytes)',
      { payload: '1000000000' },
      /column payload is string, expected blob/,
    ],
    ['headers that are not JSON (was a SyntaxError)', { headers: '{not json' }, /column headers is not JSON/],
    ['headers that are not an object of strings', { headers: '{"ce_type":7}' }, /header "ce_type" is not a string/],
    ['a time out of range (was an Invalid Date)', { parked_at: 1e300 }, /column parked_at is number, expected a time/],
  ])('a damaged row is a DeadLetterRecordError: %s', async (_what, values, message) => {
    const store = await storeWithRow(values);
    await expect(store.list()).rejects.toThrow(DeadLetterRecordError);
    await expect(store.get('r-1')).rejects.toThrow(message);
    await store.close();
  });
});
