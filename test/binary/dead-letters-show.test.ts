// A parked Avro message in a real SQLite dead-letter store: the store keeps its bytes exactly, and
// `keiyaku dead-letters show` never prints them as text — base64, labelled with the content type
// and how to decode them — while a textual payload still prints as it is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParkRequest } from '@keiyaku/runtime';
import { migrateSqlite, SqliteDeadLetterStore, SqliteOutbox } from '@keiyaku/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runDeadLetters } from '../../generator/cli/dead-letters.js';
import { hex, ReadingMessage, reading, readingChannel, ScanMessage, scan } from './binary-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'keiyaku-binary-show-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function show(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runDeadLetters(['show', ...args], {
    cwd: dir,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** The contract of the readings channel: an Avro message and a Protobuf one, inline. */
const CONTRACT = `asyncapi: 3.0.0
info:
  title: Readings
  version: 1.0.0
channels:
  readings:
    address: test.readings
    messages:
      Reading:
        $ref: "#/components/messages/Reading"
      Scan:
        $ref: "#/components/messages/Scan"
operations:
  sendReadings:
    action: send
    channel:
      $ref: "#/channels/readings"
components:
  messages:
    Reading:
      name: Reading
      contentType: application/avro
      payload:
        schemaFormat: application/vnd.apache.avro;version=1.9.0
        schema:
          type: record
          name: Reading
          namespace: keiyaku.test
          fields:
            - { name: sensor, type: string }
            - { name: seq, type: int }
            - { name: blob, type: bytes }
    Scan:
      name: Scan
      contentType: application/x-protobuf
      payload:
        schemaFormat: application/vnd.google.protobuf;version=3
        schema: |
          syntax = "proto3";
          package keiyaku.test.v1;
          message Scan {
            string sensor = 1;
            int32 seq = 2;
            bytes blob = 3;
          }
`;

function parkRequest(payload: Uint8Array, contentType: string, type = 'Reading'): ParkRequest {
  return {
    channel: 'readings',
    address: 'test.readings',
    groupId: 'readers',
    type,
    payload,
    headers: { ce_type: type, ce_id: 'r-1', 'content-type': contentType },
    key: 's-1',
    error: { name: 'Error', message: 'downstream refused it' },
    attempts: 1,
    firstFailureAt: new Date(0),
    lastFailureAt: new Date(1),
  };
}

describe('keiyaku dead-letters show of a binary payload', () => {
  const file = join(dir, 'service.db');
  const db = new Database(file);
  migrateSqlite(db);
  const store = new SqliteDeadLetterStore(db);
  afterAll(() => db.close());

  it('keeps the bytes exactly and shows them as labelled base64 when no contract decodes them', async () => {
    const bytes = ReadingMessage.encode(reading(4));
    const parked = await store.park(parkRequest(bytes, 'application/avro'), new Date());
    expect(hex((await store.get(parked.id))!.payload)).toBe(hex(bytes));
    const text = await show([parked.id, '--store', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `payload (base64, application/avro bytes; their channel is not known here, so they are not decoded; pass the contract with --spec to decode them): ${Buffer.from(bytes).toString('base64')}`,
    );
    const json = JSON.parse((await show([parked.id, '--store', file, '--json'])).stdout) as { item: Record<string, unknown> };
    expect(json.item['payloadBase64']).toBe(Buffer.from(bytes).toString('base64'));
    expect(json.item['payload']).toBeUndefined();
    expect(json.item['payloadNote']).toMatch(/^application\/avro bytes/);
  });

  it('shows Avro bytes that happen to be valid UTF-8 as base64 too, and a JSON payload as it is', async () => {
    const ascii = ReadingMessage.encode(ReadingMessage.create({ sensor: 's', seq: 1, blob: new TextEncoder().encode('abc') }));
    const avro = await store.park(parkRequest(ascii, 'application/avro'), new Date());
    const shown = await show([avro.id, '--store', file, '--json']);
    expect(JSON.parse(shown.stdout).item).toMatchObject({ payloadBase64: Buffer.from(ascii).toString('base64') });
    const json = await store.park(parkRequest(new TextEncoder().encode('{"a":1}'), 'application/json'), new Date());
    expect((await show([json.id, '--store', file])).stdout).toContain('payload: {"a":1}');
  });

  it('decodes Avro and Protobuf payloads with the codecs of the contract given with --spec', async () => {
    writeFileSync(join(dir, 'readings.yaml'), CONTRACT);
    const avro = await store.park(parkRequest(ReadingMessage.encode(reading(4)), 'application/avro'), new Date());
    const protobuf = await store.park(parkRequest(ScanMessage.encode(scan(5)), 'application/x-protobuf', 'Scan'), new Date());
    const text = await show([avro.id, '--store', file, '--spec', 'readings.yaml']);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain('payload (avro, decoded):\n{\n  "sensor": "s-1",\n  "seq": 4,');
    const json = JSON.parse((await show([protobuf.id, '--store', file, '--spec', 'readings.yaml', '--json'])).stdout) as {
      item: Record<string, unknown>;
    };
    expect(json.item).toMatchObject({
      payloadFormat: 'protobuf',
      payloadDecoded: { sensor: 's-2', seq: 5, blob: Buffer.from(scan(5).blob).toString('base64') },
      payloadBase64: Buffer.from(ScanMessage.encode(scan(5))).toString('base64'),
    });
    // Bytes that are not a Reading: labelled base64 with the reason, not text.
    const bad = await store.park(parkRequest(Uint8Array.from([0x02, 0xff]), 'application/avro'), new Date());
    expect((await show([bad.id, '--store', file, '--spec', 'readings.yaml'])).stdout).toMatch(
      /payload \(base64, avro bytes that do not decode: Reading: payload is not an Avro keiyaku.test.Reading.*\): Av8=/,
    );
  });

  it('shows a dead outbox row of a binary message decoded the same way', async () => {
    writeFileSync(join(dir, 'readings.yaml'), CONTRACT);
    const outbox = new SqliteOutbox(db);
    outbox.migrate();
    const writer = outbox.channel(readingChannel());
    db.transaction(() => writer.write(db, scan(8), { key: 's-2' }))();
    const [row] = await outbox.list({ state: 'pending' });
    expect(hex(row!.payload)).toBe(hex(ScanMessage.encode(scan(8))));
    await outbox.failed(row!.id, { attempts: 1, error: 'broker refused it', next: 'dead', now: Date.now() });
    const json = JSON.parse((await show([`outbox:${row!.id}`, '--store', file, '--spec', 'readings.yaml', '--json'])).stdout) as {
      item: Record<string, unknown>;
    };
    expect(json.item).toMatchObject({ kind: 'outbox', payloadFormat: 'protobuf', payloadDecoded: { sensor: 's-2', seq: 8 } });
  });
});
