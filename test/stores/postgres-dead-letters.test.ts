// The PostgreSQL dead-letter store beyond the conformance suite: close() is idempotent, damaged
// rows are DeadLetterRecordErrors (the SQLite reader's checks), hostile text is stored in the
// documented escaped form, and summaries read neither payloads nor headers.
import { DeadLetterRecordError, migratePostgres, openDeadLetterStore, PostgresDeadLetterStore } from '@keiyaku/postgres';
import { hostileParkRequest, sampleParkRequest } from '@keiyaku/runtime/testing';
import { DeadLetterRecordError as SqliteDeadLetterRecordError } from '@keiyaku/sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase, postgresSkipNote, postgresUrl } from '../postgres/postgres-env.js';

(postgresUrl === '' ? describe.skip : describe)(`PostgresDeadLetterStore${postgresSkipNote}`, () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('dead_letters');
    await migratePostgres(database.pool, { components: ['dead-letters'] });
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('close()', () => {
    it('ends its own pool once; a second or concurrent close does nothing', async () => {
      const pool = new pg.Pool({ connectionString: database.url, max: 1 });
      const store = new PostgresDeadLetterStore(pool, { closeOnClose: true });
      await store.count();
      await Promise.all([store.close(), store.close()]);
      await store.close();
      expect(pool.ended).toBe(true);
    });

    it('leaves a pool it does not own open, however often it is called', async () => {
      const store = new PostgresDeadLetterStore(database.pool);
      await store.close();
      await store.close();
      expect(await store.count({ channel: 'none' })).toBe(0);
    });

    it('closes the store openDeadLetterStore built, twice without throwing', async () => {
      const store = await openDeadLetterStore({ connectionString: database.url, migrate: true });
      expect(await store.count({ channel: 'none' })).toBe(0);
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });
  });

  describe('damaged rows', () => {
    const store = () => new PostgresDeadLetterStore(database.pool);
    const insert = async (id: string, values: Record<string, string>) => {
      const row: Record<string, string> = {
        id: `'${id}'`,
        channel: `'damaged'`,
        address: `'a'`,
        group_id: `'g'`,
        type: `'T'`,
        payload: `'\\x7b7d'::bytea`,
        headers: `'{"ce_type":"T"}'::jsonb`,
        error_name: `'Error'`,
        error_message: `'m'`,
        attempts: '1',
        first_failure_at: 'now()',
        last_failure_at: 'now()',
        parked_at: 'now()',
        ...values,
      };
      await database.pool.query(
        `INSERT INTO keiyaku_dead_letters (${Object.keys(row).join(', ')}) VALUES (${Object.values(row).join(', ')})`,
      );
    };

    it('reads back a well-formed row written by hand, as an older keiyaku wrote it', async () => {
      await insert('well-formed', {});
      expect(await store().get('well-formed')).toMatchObject({
        id: 'well-formed',
        headers: { ce_type: 'T' },
        payload: new Uint8Array([0x7b, 0x7d]),
      });
      await database.pool.query("DELETE FROM keiyaku_dead_letters WHERE id = 'well-formed'");
    });

    it.each([
      ['headers that are a JSON array', { headers: `'[1]'::jsonb` }, /column headers is not a JSON object/],
      ['headers that are JSON null', { headers: `'null'::jsonb` }, /column headers is not a JSON object/],
      ['a header that is not a string', { headers: `'{"ce_type":7}'::jsonb` }, /header "ce_type" is not a string/],
      [
        'a time of infinity (was an Infinity where a Date belongs)',
        { parked_at: `'infinity'` },
        /column parked_at is number, expected a time/,
      ],
      [
        'a row marked escaped whose text is not an escape',
        { escaped: 'true', type: `'bad \\x escape'` },
        /column type is not escaped text/,
      ],
      ['a header marked escaped that is not an escape', { escaped: 'true', headers: `'{"ce_type":"\\\\q"}'::jsonb` }, /column headers \(/],
    ])('a damaged row is a DeadLetterRecordError: %s', async (_what, values, message) => {
      const id = `damaged-${Math.random().toString(36).slice(2)}`;
      await insert(id, values);
      try {
        await expect(store().get(id)).rejects.toThrow(message);
        await expect(store().get(id)).rejects.toMatchObject({ code: 'dead_letter_record_invalid', retriable: false });
        await expect(store().list({ channel: 'damaged' })).rejects.toThrow(DeadLetterRecordError);
        await expect(store().claim(id, 60_000)).rejects.toThrow(DeadLetterRecordError);
      } finally {
        await database.pool.query('DELETE FROM keiyaku_dead_letters WHERE id = $1', [id]);
      }
    });

    it('is the same error class the SQLite store throws', () => {
      expect(DeadLetterRecordError).toBe(SqliteDeadLetterRecordError);
    });

    it('lists summaries of rows whose headers are damaged: summaries read neither headers nor payloads', async () => {
      await insert('summary-damaged', { channel: `'summary-damaged'`, headers: `'[1]'::jsonb` });
      const [summary] = await store().summaries({ channel: 'summary-damaged' });
      expect(summary).toMatchObject({ id: 'summary-damaged', payloadBytes: 2, error: { name: 'Error', message: 'm' } });
      await expect(store().list({ channel: 'summary-damaged' })).rejects.toThrow(/column headers is not a JSON object/);
    });
  });

  describe('what the table holds', () => {
    it('keeps plain rows as plain text and jsonb, and escapes every text of a hostile row (docs/stores.md)', async () => {
      const store = new PostgresDeadLetterStore(database.pool);
      const plain = await store.park(sampleParkRequest('stored-plain', 1, { type: 'Ping "quoted" \\ é' }), new Date());
      const hostile = await store.park(hostileParkRequest('stored-hostile', 1), new Date());
      const { rows } = await database.pool.query<{ id: string; escaped: boolean; type: string; ce_type: string; channel: string }>(
        "SELECT id, escaped, type, headers->>'ce_type' AS ce_type, channel FROM keiyaku_dead_letters WHERE id = ANY($1) ORDER BY seq",
        [[plain.id, hostile.id]],
      );
      expect(rows[0]).toEqual({ id: plain.id, escaped: false, type: 'Ping "quoted" \\ é', ce_type: 'Ping', channel: 'stored-plain' });
      expect(rows[1]).toMatchObject({ id: hostile.id, escaped: true, channel: 'stored-hostile' });
      expect(rows[1]!.type).toBe(JSON.stringify(hostile.type).slice(1, -1));
      expect(rows[1]!.type).toContain('Type\\u0000');
      expect(rows[1]!.ce_type).toBe(JSON.stringify(hostile.headers['ce_type']).slice(1, -1));
    });
  });
});
