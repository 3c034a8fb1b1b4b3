/**
 * The library's lending desk: its own table of loans in PostgreSQL, and the contract messages each
 * change causes written to the outbox in the same transaction (`BEGIN … COMMIT` on one `pg` client).
 * Either both the loan and its messages are stored, or neither is; the outbox dispatcher that the
 * service hosts publishes the messages after the commit.
 */
import type { PostgresOutbox, PostgresOutboxChannel } from '@keiyaku/postgres';
import type pg from 'pg';
import { BookIntegrationEvents, type BookIntegrationEventsMessage } from '../../generated/index.js';
import type { BookEvent } from '../library/book.js';
import { bookMapper } from '../library/book-mapper.js';

const LOAN_DAYS = 21;

/** The service's own table: which copy is lent to whom. One open loan per copy. */
export const LENDING_DESK_SCHEMA = `
CREATE TABLE IF NOT EXISTS library_loans (
  book_id uuid NOT NULL,
  copy_id text NOT NULL,
  member_id text NOT NULL,
  borrowed_at timestamptz NOT NULL,
  returned_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS library_loans_open ON library_loans (book_id, copy_id) WHERE returned_at IS NULL;
`;

/** A request the desk refuses: the copy is already on loan, or not on loan. */
export class LoanConflict extends Error {
  override readonly name = 'LoanConflict';
}

export interface Borrowing {
  readonly bookId: string;
  readonly copyId: string;
  readonly memberId: string;
  readonly via: 'desk' | 'kiosk' | 'app';
}

export interface Return {
  readonly bookId: string;
  readonly copyId: string;
  readonly condition: 'good' | 'worn' | 'damaged';
  /** A late fee, in cents of `currency`. */
  readonly lateFee?: { readonly cents: number; readonly currency: string };
}

export class LendingDesk {
  readonly #pool: pg.Pool;
  readonly #books: PostgresOutboxChannel<BookIntegrationEventsMessage>;

  constructor(pool: pg.Pool, outbox: PostgresOutbox) {
    this.#pool = pool;
    this.#books = outbox.channel(BookIntegrationEvents);
  }

  /** Lends a copy: the loan row and a BookBorrowed message, in one transaction. */
  async borrow(request: Borrowing, correlationId: string): Promise<void> {
    const at = new Date();
    await this.#transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `INSERT INTO library_loans (book_id, copy_id, member_id, borrowed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (book_id, copy_id) WHERE returned_at IS NULL DO NOTHING`,
        [request.bookId, request.copyId, request.memberId, at],
      );
      if (rowCount === 0) throw new LoanConflict(`copy ${request.copyId} of book ${request.bookId} is already on loan`);
      const event: BookEvent = {
        type: 'BookBorrowed',
        copyId: request.copyId,
        borrowerId: request.memberId,
        at: at.toISOString(),
        loanDays: LOAN_DAYS,
        via: request.via,
      };
      // The mapper turns the domain event into the contract message; the codec validates it here.
      await this.#books.writeEvents(tx, bookMapper, [event], { aggregateId: request.bookId, correlationId });
    });
  }

  /** Takes a copy back: closes the loan and writes a BookReturned message, in one transaction. */
  async giveBack(request: Return, correlationId: string): Promise<void> {
    const at = new Date();
    await this.#transaction(async (tx) => {
      const { rows } = await tx.query<{ member_id: string }>(
        'UPDATE library_loans SET returned_at = $3 WHERE book_id = $1 AND copy_id = $2 AND returned_at IS NULL RETURNING member_id',
        [request.bookId, request.copyId, at],
      );
      const loan = rows[0];
      if (loan === undefined) throw new LoanConflict(`copy ${request.copyId} of book ${request.bookId} is not on loan`);
      const event: BookEvent = {
        type: 'BookReturned',
        copyId: request.copyId,
        borrowerId: loan.member_id,
        at: at.toISOString(),
        condition: request.condition,
        ...(request.lateFee ? { lateFeeCents: request.lateFee.cents, currency: request.lateFee.currency } : {}),
      };
      await this.#books.writeEvents(tx, bookMapper, [event], { aggregateId: request.bookId, correlationId });
    });
  }

  /** `work` inside `BEGIN … COMMIT` on one client of the pool; any error rolls everything back. */
  async #transaction(work: (tx: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
