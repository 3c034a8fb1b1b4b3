/**
 * The notifications side of the service: a late-fee letter for every book returned late, kept in
 * the service's own database. Delivery is at least once, so the handler is idempotent: the
 * message id is the letter's primary key, and a redelivery inserts nothing.
 *
 * A fee in a currency without an exchange rate can never succeed: the subscription's dead-letter
 * policy parks that message in PostgreSQL after a few retries and the belt moves on.
 */
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import type pg from 'pg';
import {
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  dispatchBookIntegrationEvents,
} from '../../generated/index.js';

export const LATE_FEE_LETTERS_SCHEMA = `
CREATE TABLE IF NOT EXISTS library_late_fee_letters (
  message_id text PRIMARY KEY,
  member_id text NOT NULL,
  copy_id text NOT NULL,
  amount_eur numeric(12, 2) NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
`;

/** Exchange rates as decimal text: the amount is converted and rounded by PostgreSQL's numeric, not in floating point. */
const EURO_PER_UNIT: Readonly<Record<string, string>> = { EUR: '1', GBP: '1.17', USD: '0.92' };

export class UnknownCurrencyError extends Error {
  override readonly name = 'UnknownCurrencyError';
}

export interface LateFeeLetter {
  readonly memberId: string;
  readonly copyId: string;
  readonly amountEur: string;
}

export class LateFeeLetters implements BookIntegrationEventsHandler {
  /** The consumer group, named after the capability: its position moves with the handler. */
  readonly groupId = 'notifications.late-fees';
  /** Borrowings are skipped by routing, not treated as failures. */
  readonly accepts = ['BookReturned'] as const;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async handle(message: BookIntegrationEventsMessage, context: MessageContext): Promise<void> {
    const returned = dispatchBookIntegrationEvents(message, { BookBorrowed: () => undefined, BookReturned: (m) => m });
    const fee = returned?.lateFee;
    if (returned === undefined || fee === undefined) return; // returned on time
    const rate = EURO_PER_UNIT[fee.currency];
    if (rate === undefined) throw new UnknownCurrencyError(`no exchange rate for ${fee.currency}`);
    await this.#pool.query(
      `INSERT INTO library_late_fee_letters (message_id, member_id, copy_id, amount_eur)
       VALUES ($1, $2, $3, round($4::numeric * $5::numeric, 2))
       ON CONFLICT (message_id) DO NOTHING`,
      [context.messageId, returned.memberId, returned.copyId, String(fee.amount), rate],
    );
  }

  /** The letters written so far, oldest first. */
  async letters(): Promise<readonly LateFeeLetter[]> {
    const { rows } = await this.#pool.query<{ member_id: string; copy_id: string; amount_eur: string }>(
      'SELECT member_id, copy_id, amount_eur FROM library_late_fee_letters ORDER BY written_at, message_id',
    );
    return rows.map((row) => ({ memberId: row.member_id, copyId: row.copy_id, amountEur: row.amount_eur }));
  }
}
