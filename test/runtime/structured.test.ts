// CloudEvents structured content mode: the writer turns a binary-mode record into a JSON event
// format value, every reader turns it back; events written by other producers (any member order,
// escapes, data_base64, nested "data" keys) read the same, and what is not a JSON event object is
// left as it came (it then fails to decode with a typed error).
import { openEnvelope } from 'keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents } from '../../generated/index.js';
import { encodeEnvelope } from '../../runtime/core/envelope.js';
import { binaryRecord, fromStructured, isStructured, STRUCTURED_CONTENT_TYPE, toStructured } from '../../runtime/core/structured.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (value: Uint8Array): string => new TextDecoder().decode(value);

const message = BookBorrowed.create({
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-"1"\\ü',
  borrower: { memberId: 'M-1001', displayName: 'Ada {Lovelace} "data":[' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
});

describe('structured content mode', () => {
  it('round-trips a keiyaku record: same ce_ headers, contract headers and payload bytes', () => {
    const record = encodeEnvelope(
      BookIntegrationEvents,
      message,
      'library.book-integration-events',
      'svc "a"',
      {
        correlationId: 'corr-ü',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        headers: { correlationId: 'x-1' },
      },
      Date.UTC(2026, 10, 2),
    );
    const structured = toStructured(record.headers, record.value);
    expect(structured.headers).toEqual({ correlationId: 'x-1', 'content-type': STRUCTURED_CONTENT_TYPE });
    const event = JSON.parse(text(structured.value)) as Record<string, unknown>;
    expect(event).toMatchObject({
      specversion: '1.0',
      type: 'BookBorrowed',
      source: 'svc "a"',
      id: record.headers['ce_id'],
      time: '2026-11-02T00:00:00.000Z',
      correlationid: 'corr-ü',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      data: JSON.parse(text(record.value)),
    });
    expect(event).not.toHaveProperty('datacontenttype'); // application/json is the JSON format's default
    const back = fromStructured(structured.headers, structured.value)!;
    expect(back.headers).toEqual(record.headers);
    expect(text(back.value)).toBe(text(record.value));
    const opened = openEnvelope(BookIntegrationEvents, { ...record, ...structured, partition: 0, offset: '7', timestamp: 0 });
    expect(opened.decoded.ok && opened.decoded.value).toEqual(message);
    expect(opened.correlationId).toBe('corr-ü');
  });

  it('reads events of other producers: any member order, whitespace, escapes, numbers, null, data_base64', () => {
    const data = '{ "data": {"x": "}]\\"{"}, "list": [1, {"data": 2}] }';
    const event = ` { "data" : ${data} ,\n "id":"a\\u00fcb", "specversion":"1.0","type":"T","source":"/s","seq": 12, "ok": true, "gone": null, "datacontenttype":"application/json" } `;
    const read = fromStructured({ 'content-type': 'application/cloudevents+json', tenant: 't' }, bytes(event))!;
    expect(read.headers).toEqual({
      tenant: 't',
      ce_id: 'aüb',
      ce_specversion: '1.0',
      ce_type: 'T',
      ce_source: '/s',
      ce_seq: '12',
      ce_ok: 'true',
      'content-type': 'application/json',
    });
    expect(JSON.parse(text(read.value))).toEqual(JSON.parse(data));
    const base64 = fromStructured(
      { 'content-type': 'application/cloudevents+json' },
      bytes(
        `{"specversion":"1.0","type":"B","id":"1","source":"s","datacontenttype":"application/octet-stream","data_base64":"${Buffer.from([0, 1, 255]).toString('base64')}"}`,
      ),
    )!;
    expect([...base64.value]).toEqual([0, 1, 255]);
    expect(base64.headers['content-type']).toBe('application/octet-stream');
    expect(text(toStructured(base64.headers, base64.value).value)).toContain('"data_base64":"AAH/"');
  });

  it('writes a payload that is not UTF-8 JSON as data_base64, so the event stays readable and the bytes come back as they were', () => {
    for (const payload of [new Uint8Array([0xff, 0xfe, 0x00]), bytes('not json'), bytes('{"open": ')]) {
      const structured = toStructured({ ce_type: 'T', 'content-type': 'application/json' }, payload);
      const event = JSON.parse(text(structured.value)) as Record<string, unknown>;
      expect(event['data_base64']).toBe(Buffer.from(payload).toString('base64'));
      const back = fromStructured(structured.headers, structured.value)!;
      expect([...back.value]).toEqual([...payload]);
      expect(back.headers).toEqual({ ce_type: 'T', 'content-type': 'application/json' });
    }
  });

  it('leaves what is not a JSON event object as it came, and decoding it names the problem', () => {
    for (const bad of [
      '',
      '[]',
      '{',
      '{"a"}',
      '{"a":1,}',
      '{"a":tru}',
      '{"a":"x',
      '{"data":{"a":1}',
      '{"a":1} x',
      '{"a":{"b":1}}',
      '{"a":"\\q"}',
    ]) {
      expect(fromStructured({ 'content-type': 'application/cloudevents+json' }, bytes(bad)), bad).toBeUndefined();
    }
    const record = {
      address: 'a',
      partition: 1,
      offset: '2',
      timestamp: 0,
      headers: { 'content-type': 'application/cloudevents+json; charset=UTF-8' },
      value: bytes('{"type":'),
    };
    expect(binaryRecord(record)).toBe(record);
    const opened = openEnvelope(BookIntegrationEvents, record);
    expect(opened.decoded.ok).toBe(false);
    expect(!opened.decoded.ok && opened.decoded.error.message).toMatch(/structured CloudEvent .* not a JSON event format object/);
  });

  it('tells the modes apart by content type only', () => {
    expect(isStructured({ 'content-type': 'application/cloudevents+json; charset=UTF-8' })).toBe(true);
    expect(isStructured({ 'content-type': 'Application/CloudEvents+JSON' })).toBe(true);
    expect(isStructured({ 'content-type': 'application/json' })).toBe(false);
    expect(isStructured({ 'content-type': 'application/cloudevents-batch+json' })).toBe(false);
    expect(isStructured({})).toBe(false);
    const binary = { address: 'a', partition: 0, offset: '0', timestamp: 0, headers: { ce_type: 'T' }, value: bytes('{}') };
    expect(binaryRecord(binary)).toBe(binary);
  });
});
