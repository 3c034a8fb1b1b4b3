// How a parked payload is shown (the operations page, `keiyaku dead-letters show`): an Avro payload
// decoded by its channel's codec when the channel is known; otherwise its bytes as hex or base64,
// labelled, even when they happen to be valid UTF-8 (never mojibake); textual payloads as before.
import { payloadView } from '@keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { ReadingMessage, reading, readingChannel, ScanMessage, scan } from './binary-contract.js';

const avroHeaders = { ce_type: 'Reading', 'content-type': 'application/avro' };

describe('payloadView', () => {
  it('decodes an Avro or Protobuf payload with the codec of its channel and shows its JSON view', () => {
    const avro = payloadView(
      { payload: ReadingMessage.encode(reading(4)), type: 'Reading', headers: avroHeaders },
      { channel: readingChannel() },
    );
    expect(avro.kind).toBe('decoded');
    expect(avro.format).toBe('avro');
    expect(JSON.parse(avro.text)).toEqual({
      sensor: 's-1',
      seq: 4,
      blob: { $bytes: Buffer.from([0, 0xff, 0xfe, 0xc3, 0x28, 0, 0x80, 4]).toString('base64') },
    });
    const protobuf = payloadView(
      { payload: ScanMessage.encode(scan(5)), type: 'Scan', headers: { 'content-type': 'application/x-protobuf' } },
      { channel: readingChannel() },
    );
    expect(protobuf).toMatchObject({ kind: 'decoded', format: 'protobuf' });
    expect(JSON.parse(protobuf.text)).toEqual({
      sensor: 's-2',
      seq: 5,
      blob: Buffer.from([0, 0xff, 0xfe, 0xc3, 0x28, 0, 0x80, 5]).toString('base64'),
    });
  });

  it('shows bytes the codec cannot decode as hex, saying why', () => {
    const payload = Uint8Array.from([0x02, 0xff, 0x00]);
    const view = payloadView({ payload, type: 'Reading', headers: avroHeaders }, { channel: readingChannel() });
    expect(view).toMatchObject({ kind: 'hex', text: '02 ff 00' });
    expect(view.note).toMatch(/^avro bytes that do not decode: Reading: payload is not an Avro keiyaku.test.Reading/);
  });

  it('never shows the bytes of a binary content type as text, even when they are valid UTF-8', () => {
    // Avro of { sensor: "s", seq: 1, blob: "abc" }: valid UTF-8 with control characters.
    const payload = ReadingMessage.encode(ReadingMessage.create({ sensor: 's', seq: 1, blob: new TextEncoder().encode('abc') }));
    expect(new TextDecoder('utf-8', { fatal: true }).decode(payload)).toBe('\u0002s\u0002\u0006abc');
    const hex = payloadView({ payload, type: 'Reading', headers: avroHeaders });
    expect(hex).toMatchObject({ kind: 'hex', text: '02 73 02 06 61 62 63' });
    expect(hex.note).toBe('application/avro bytes; their channel is not known here, so they are not decoded');
    const base64 = payloadView({ payload, type: 'Reading', headers: avroHeaders }, { bytes: 'base64' });
    expect(base64).toMatchObject({ kind: 'base64', text: Buffer.from(payload).toString('base64') });
  });

  it('shows textual payloads as JSON or text, and bytes that are not UTF-8 as hex', () => {
    const json = new TextEncoder().encode('{"copyId":"C-1"}');
    expect(payloadView({ payload: json, headers: { 'content-type': 'application/json' } })).toEqual({
      kind: 'json',
      text: '{\n  "copyId": "C-1"\n}',
    });
    expect(payloadView({ payload: new TextEncoder().encode('plain words') })).toEqual({ kind: 'text', text: 'plain words' });
    expect(payloadView({ payload: Uint8Array.from([0xff, 0x00]) })).toEqual({ kind: 'hex', text: 'ff 00', note: 'not UTF-8' });
    expect(payloadView({ payload: new Uint8Array(5000).fill(0xff) }).text.endsWith(' …')).toBe(true);
  });
});
