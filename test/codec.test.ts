import { ContractDecodeError, ContractValidationError, messageType } from '@keiyaku/runtime/codegen-v1';
import { describe, expect, it } from 'vitest';
import { BookBorrowed, BookIntegrationEvents, BookReturned, DueDateReminder, dispatchBookIntegrationEvents } from '../generated/index.js';

const encoder = new TextEncoder();
const bytes = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

const borrowed = {
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-0042',
  borrower: { memberId: 'M-1001', displayName: 'Ada' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk',
} as const;

describe('generated codecs (repo contract)', () => {
  it('round-trips a message through encode and decode', () => {
    const message = BookBorrowed.create(borrowed);
    const decoded = BookIntegrationEvents.decode(BookIntegrationEvents.encode(message), 'BookBorrowed');
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value).toEqual(message);
    expect(decoded.value[messageType]).toBe('BookBorrowed');
    expect(BookBorrowed.is(decoded.value)).toBe(true);
    expect(BookReturned.is(decoded.value)).toBe(false);
    expect(Object.isFrozen(decoded.value)).toBe(true);
  });

  it('encodes to plain UTF-8 JSON without the type tag', () => {
    const message = BookBorrowed.create({ ...borrowed, note: 'Ünïcödé ✓' });
    const text = new TextDecoder().decode(BookBorrowed.encode(message));
    expect(JSON.parse(text)).toEqual({ ...borrowed, note: 'Ünïcödé ✓' });
  });

  it('tolerates unknown fields on open objects', () => {
    const decoded = BookBorrowed.decode(bytes({ ...borrowed, addedInV2: true }));
    expect(decoded.ok).toBe(true);
  });

  it('rejects unknown fields where the schema closes the object, naming the path', () => {
    const returned = { bookId: borrowed.bookId, copyId: 'C-1', memberId: 'M-1001', returnedAt: '2026-11-20T09:00:00Z', condition: 'good' };
    expect(BookReturned.decode(bytes({ ...returned, lateFee: { amount: 2, currency: 'EUR' } })).ok).toBe(true);
    const decoded = BookReturned.decode(bytes({ ...returned, lateFee: { amount: 2, currency: 'EUR', waived: true } }));
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error.reason).toBe('schema');
    expect(decoded.error.path).toBe('$.lateFee.waived');
  });

  it.each([
    ['a missing required field', { ...borrowed, copyId: undefined }, '$.copyId', 'required'],
    ['a value outside the enum', { ...borrowed, channel: 'carrier-pigeon' }, '$.channel', 'enum'],
    ['a bad format', { ...borrowed, borrowedAt: 'yesterday' }, '$.borrowedAt', 'format'],
    ['a pattern mismatch in a shared definition', { ...borrowed, borrower: { memberId: 'x' } }, '$.borrower.memberId', 'pattern'],
    ['a number above its maximum', { ...borrowed, renewals: 4 }, '$.renewals', 'maximum'],
    ['a wrong type', { ...borrowed, renewals: '1' }, '$.renewals', 'type'],
  ])('rejects %s with the failing JSON path', (_name, payload, path, keyword) => {
    const decoded = BookBorrowed.decode(bytes(payload));
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error).toBeInstanceOf(ContractDecodeError);
    expect(decoded.error.path).toBe(path);
    expect(decoded.error.issues[0]?.keyword).toBe(keyword);
    expect(decoded.error.retriable).toBe(false);
  });

  it('reports bytes that are not UTF-8 or not JSON without throwing', () => {
    const notUtf8 = BookBorrowed.decode(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(notUtf8.ok === false && notUtf8.error.reason).toBe('not_utf8');
    const notJson = BookBorrowed.decode(encoder.encode('{"bookId": '));
    expect(notJson.ok === false && notJson.error.reason).toBe('not_json');
    const unknownType = BookIntegrationEvents.decode(bytes(borrowed), 'BookBurned');
    expect(unknownType.ok === false && unknownType.error.reason).toBe('unknown_type');
    expect(unknownType.ok === false && unknownType.error.message).toContain('BookBurned');
  });

  it('create() validates and throws a typed error naming the path', () => {
    expect(() => BookBorrowed.create({ ...borrowed, dueAt: 'soon' })).toThrow(ContractValidationError);
    try {
      BookBorrowed.create({ ...borrowed, dueAt: 'soon' });
    } catch (error) {
      expect((error as ContractValidationError).path).toBe('$.dueAt');
      expect((error as ContractValidationError).message).toContain('$.dueAt');
    }
  });

  it('create() copies: the caller keeps a mutable object, the message is frozen', () => {
    const input = { ...borrowed };
    const message = BookBorrowed.create(input);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(message)).toBe(true);
    expect(message).not.toBe(input);
  });

  it('dispatches on the message type', () => {
    const message = BookBorrowed.create(borrowed);
    const seen = dispatchBookIntegrationEvents(message, {
      BookBorrowed: (m) => `borrowed ${m.copyId}`,
      BookReturned: (m) => `returned ${m.copyId}`,
    });
    expect(seen).toBe('borrowed C-0042');
  });

  it('builds parameterised addresses and exposes the registry', async () => {
    const { MemberNotifications } = await import('../generated/index.js');
    expect(MemberNotifications.address({ memberId: 'M-1001' })).toBe('library.members.M-1001.notifications');
    expect(MemberNotifications.messageTypes).toEqual(['DueDateReminder']);
    expect(BookIntegrationEvents.messageTypes).toEqual(['BookBorrowed', 'BookReturned']);
    expect(BookIntegrationEvents.bindings.kafka?.partitions).toBe(6);
    expect(BookIntegrationEvents.bindings.iggy).toEqual({ stream: 'library', topic: 'book-integration-events', partitions: 3 });
    expect(BookIntegrationEvents.message('BookReturned')).toBe(BookReturned);
    expect(
      BookIntegrationEvents.accepts(
        DueDateReminder.create({ memberId: 'M-1001', loans: [{ bookId: borrowed.bookId, dueAt: borrowed.dueAt }] }),
      ),
    ).toBe(false);
  });
});
