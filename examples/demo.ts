/**
 * The demo: what a service does with the code `keiyaku generate` wrote into generated/.
 * Builds contract messages through the generated factories, puts them on the wire as
 * bytes, decodes them back and hands them to a typed handler, then shows how bad input
 * is reported. Run with `npm run demo`.
 */
import type { MessageContext } from 'keiyaku/codegen-v1';
import {
  BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  BookReturned,
  channels,
  dispatchBookIntegrationEvents,
  MemberNotifications,
} from '../generated/index.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** A consumer in another bounded context: keeps a count of copies on loan per book. */
class BookAvailability implements BookIntegrationEventsHandler {
  readonly groupId = 'inventory.book-availability';
  readonly onLoan = new Map<string, number>();

  handle(message: BookIntegrationEventsMessage, context: MessageContext): void {
    const delta = dispatchBookIntegrationEvents(message, {
      BookBorrowed: () => 1,
      BookReturned: () => -1,
    });
    this.onLoan.set(message.bookId, (this.onLoan.get(message.bookId) ?? 0) + delta);
    out(
      `  ${this.groupId} handled ${context.type} #${context.offset} for book ${message.bookId}: ${this.onLoan.get(message.bookId)} on loan`,
    );
  }
}

const bookId = '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';
out(`contract channels: ${channels.map((c) => `${c.id} (${c.messageTypes.join(', ')})`).join('; ')}`);
out(`address of ${MemberNotifications.id} for M-1001: ${MemberNotifications.address({ memberId: 'M-1001' })}`);

// Producer side: factories validate and brand; the channel codec turns messages into bytes.
const wire: { type: string; bytes: Uint8Array }[] = [];
for (const message of [
  BookBorrowed.create({
    bookId,
    copyId: 'C-0042',
    borrower: { memberId: 'M-1001', displayName: 'Ada' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  }),
  BookReturned.create({
    bookId,
    copyId: 'C-0042',
    memberId: 'M-1001',
    returnedAt: '2026-11-25T09:00:00Z',
    condition: 'worn',
    lateFee: { amount: 1.5, currency: 'EUR' },
  }),
]) {
  const type = BookIntegrationEvents.typeOf(message);
  wire.push({ type, bytes: BookIntegrationEvents.encode(message) });
  out(`published ${type} to ${BookIntegrationEvents.address} (${wire.at(-1)?.bytes.byteLength} bytes)`);
}

// Consumer side: bytes + type back to typed, validated messages.
const handler = new BookAvailability();
const controller = new AbortController();
for (const [offset, record] of wire.entries()) {
  const decoded = BookIntegrationEvents.decode(record.bytes, record.type);
  if (!decoded.ok) throw decoded.error;
  handler.handle(decoded.value, {
    channel: BookIntegrationEvents.id,
    address: BookIntegrationEvents.address,
    messageId: `demo-${offset}`,
    type: record.type,
    time: new Date(),
    offset: String(offset),
    headers: {},
    attempt: 1,
    signal: controller.signal,
  });
}

// Bad input is a value, not a crash: it names the failing JSON path.
const tampered = new TextEncoder().encode(
  JSON.stringify({ bookId, copyId: 'C-1', memberId: 'nobody', returnedAt: 'later', condition: 'good' }),
);
const rejected = BookIntegrationEvents.decode(tampered, 'BookReturned');
out(
  `tampered BookReturned rejected: ${rejected.ok ? 'no' : `${rejected.error.reason} at ${rejected.error.path} (${rejected.error.issues[0]?.message})`}`,
);
try {
  BookBorrowed.create({ bookId, copyId: '', borrower: { memberId: 'M-1001' }, borrowedAt: 'now', dueAt: 'later', channel: 'desk' });
} catch (error) {
  out(`invalid BookBorrowed refused by its factory: ${(error as Error).message}`);
}
