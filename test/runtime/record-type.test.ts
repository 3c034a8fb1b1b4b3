// A record's message type: its `ce_type` header; on a channel of one message type, a record without
// one (the bytes alone, as the Confluent serdes' producers write them) is of that type; on a channel
// of several types it is not guessed, and a structured CloudEvent is read by its own rules.
import { describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, DueDateReminder, MemberNotifications } from '../../generated/index.js';
import { openEnvelope, recordType } from '../../runtime/core/envelope.js';
import { STRUCTURED_CONTENT_TYPE } from '../../runtime/core/structured.js';
import type { IncomingRecord } from '../../runtime/core/transport.js';

const reminder = DueDateReminder.create({
  memberId: 'M-1001',
  loans: [{ bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b', dueAt: '2026-11-23T10:15:00Z' }],
});
const borrowed = BookBorrowed.create({
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-1',
  borrower: { memberId: 'M-1001' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
});

const bare = (value: Uint8Array, headers: Record<string, string> = {}): IncomingRecord => ({
  address: 'members.notifications',
  partition: 0,
  offset: '7',
  timestamp: Date.UTC(2026, 10, 2),
  value,
  headers,
});

describe('the message type of a record', () => {
  it('is its ce_type header when it has one, on any channel', () => {
    const record = bare(DueDateReminder.encode(reminder), { ce_type: 'Elsewhere' });
    expect(recordType(record, MemberNotifications)).toBe('Elsewhere');
    expect(recordType(record)).toBe('Elsewhere');
  });

  it("is the channel's only type for a record without headers, which then decodes", () => {
    const record = bare(DueDateReminder.encode(reminder));
    expect(recordType(record, MemberNotifications)).toBe('DueDateReminder');
    const opened = openEnvelope(MemberNotifications, record);
    expect(opened.type).toBe('DueDateReminder');
    expect(opened.id).toBe('members.notifications/0/7');
    expect(opened.decoded.ok && opened.decoded.value).toEqual(reminder);
  });

  it('is not guessed on a channel of several types: the record fails as unknown_type', () => {
    const record = bare(BookBorrowed.encode(borrowed));
    expect(BookIntegrationEvents.messageTypes.length).toBeGreaterThan(1);
    expect(recordType(record, BookIntegrationEvents)).toBeUndefined();
    const opened = openEnvelope(BookIntegrationEvents, record);
    expect(opened.decoded.ok).toBe(false);
    expect(!opened.decoded.ok && opened.decoded.error.reason).toBe('unknown_type');
  });

  it('is not guessed for a structured CloudEvent that names no type', () => {
    const record = bare(new TextEncoder().encode('{"specversion":"1.0","id":"x"}'), { 'content-type': STRUCTURED_CONTENT_TYPE });
    expect(recordType(record, MemberNotifications)).toBeUndefined();
    const opened = openEnvelope(MemberNotifications, record);
    expect(!opened.decoded.ok && opened.decoded.error.reason).toBe('unknown_type');
  });
});
