/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
/**
 * A member borrowed a copy of a book.
 * Payload of message BookBorrowed.
 * @generated from schemas/book-borrowed.json#
 */
export interface BookBorrowedPayload {
  readonly bookId: BookId;
  readonly copyId: string;
  readonly borrower: Member;
  /** @format date-time */
  readonly borrowedAt: string;
  /** @format date-time */
  readonly dueAt: string;
  /** Where the loan was made. */
  readonly channel: "desk" | "self-service" | "app";
  /** @default 0 */
  readonly renewals?: number;
  /** Free text from the librarian, if any. */
  readonly note?: string | null;
}

/**
 * Aggregate id of the book.
 * @format uuid
 * @generated from schemas/common.json#/$defs/BookId
 */
export type BookId = string;

/**
 * The member, as other contexts may show them.
 * @generated from schemas/common.json#/$defs/Member
 */
export interface Member {
  readonly memberId: MemberId;
  readonly displayName?: string;
}

/**
 * Library card number.
 * @pattern ^M-[0-9]{4,}$
 * @generated from schemas/common.json#/$defs/MemberId
 */
export type MemberId = string;

/**
 * Headers of message BookBorrowed.
 * Headers of message BookReturned.
 * @generated from schemas/event-headers.json#
 */
export interface EventHeaders {
  /** Id of the request that caused the event. */
  readonly correlationId?: string;
}

/**
 * Payload of message BookReturned.
 * @generated from schemas/book-returned.json#
 */
export interface BookReturnedPayload {
  readonly bookId: BookId;
  readonly copyId: string;
  readonly memberId: MemberId;
  /** @format date-time */
  readonly returnedAt: string;
  readonly condition: "good" | "worn" | "damaged";
  readonly lateFee?: BookReturnedPayloadLateFee;
}

/**
 * Present when the copy came back late.
 * @generated from schemas/book-returned.json#/properties/lateFee
 */
export interface BookReturnedPayloadLateFee {
  readonly amount: number;
  /** @pattern ^[A-Z]{3}$ */
  readonly currency: string;
}

/**
 * Payload of message DueDateReminder.
 * @generated from schemas/due-date-reminder.json#
 */
export interface DueDateReminderPayload {
  readonly memberId: MemberId;
  readonly loans: readonly DueDateReminderPayloadLoansItem[];
}

/** @generated from schemas/due-date-reminder.json#/properties/loans/items */
export interface DueDateReminderPayloadLoansItem {
  readonly bookId: BookId;
  readonly title?: string;
  /** @format date-time */
  readonly dueAt: string;
}

/**
 * Payload of message CopiesRequested.
 * @generated from schemas/copies-requested.json#
 */
export interface CopiesRequestedPayload {
  readonly bookId: BookId;
}

/**
 * Headers of message CopiesRequested.
 * @generated from asyncapi.yaml#/components/messages/CopiesRequested/headers
 */
export interface CopiesRequestedHeaders {
  /** The address the answer goes to. */
  readonly replyTo: string;
}

/**
 * Payload of message CopiesCounted.
 * @generated from schemas/copies-counted.json#
 */
export interface CopiesCountedPayload {
  readonly bookId: BookId;
  readonly title: string;
  /** Copies lent and not yet returned. */
  readonly onLoan: number;
}
