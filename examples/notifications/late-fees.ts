/**
 * The notifications context: emails members about late fees. It only wants returns
 * (`accepts`), so borrowings are skipped by routing, not treated as failures.
 */
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import type { BookIntegrationEventsHandler, BookIntegrationEventsMessage } from '../../generated/index.js';

const RATES: Readonly<Record<string, number>> = { EUR: 1, GBP: 1.17, USD: 0.92 };

export class LateFeeNotices implements BookIntegrationEventsHandler {
  readonly groupId = 'notifications.late-fees';
  readonly accepts = ['BookReturned'] as const;
  readonly sent: string[] = [];

  handle(message: BookIntegrationEventsMessage, _context: MessageContext): void {
    if (!('lateFee' in message) || message.lateFee === undefined) return;
    const rate = RATES[message.lateFee.currency];
    if (rate === undefined) throw new Error(`no exchange rate for ${message.lateFee.currency}`);
    this.sent.push(`${message.memberId}: late fee EUR ${(message.lateFee.amount * rate).toFixed(2)} for copy ${message.copyId}`);
  }
}
