/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
import { type ContractMessage, defineMessage, type MessageDescriptor } from "@keiyaku/runtime/codegen-v1";
import type {
  BookBorrowedPayload,
  BookReturnedPayload,
  CopiesCountedPayload,
  CopiesRequestedHeaders,
  CopiesRequestedPayload,
  DueDateReminderPayload,
  EventHeaders,
} from "./types.js";
import {
  validateBookBorrowedPayload,
  validateBookReturnedPayload,
  validateCopiesCountedPayload,
  validateCopiesRequestedHeaders,
  validateCopiesRequestedPayload,
  validateDueDateReminderPayload,
  validateEventHeaders,
} from "./validators.js";

/**
 * Book borrowed
 * @generated from asyncapi.yaml#/components/messages/BookBorrowed
 */
export type BookBorrowed = ContractMessage<"BookBorrowed", BookBorrowedPayload, EventHeaders>;
/**
 * Book borrowed
 * @generated from asyncapi.yaml#/components/messages/BookBorrowed
 */
export const BookBorrowed: MessageDescriptor<"BookBorrowed", BookBorrowedPayload, BookBorrowed> = defineMessage({
  type: "BookBorrowed",
  id: "BookBorrowed",
  contentType: "application/json",
  schemaHash: "sha256:4fbfe41f5260b9ad243c93afe712c1f015f24b8f61964ba8f06688efd44589ae",
  validate: validateBookBorrowedPayload,
  headers: { names: ["correlationId"], json: [], validate: validateEventHeaders },
  keyProperty: "bookId",
});

/**
 * Book returned
 * @generated from asyncapi.yaml#/components/messages/BookReturned
 */
export type BookReturned = ContractMessage<"BookReturned", BookReturnedPayload, EventHeaders>;
/**
 * Book returned
 * @generated from asyncapi.yaml#/components/messages/BookReturned
 */
export const BookReturned: MessageDescriptor<"BookReturned", BookReturnedPayload, BookReturned> = defineMessage({
  type: "BookReturned",
  id: "BookReturned",
  contentType: "application/json",
  schemaHash: "sha256:521b68f1810754abc60623c0a6ebf1abde52c7f65f88e6f6e1274f4ccf7a803f",
  validate: validateBookReturnedPayload,
  headers: { names: ["correlationId"], json: [], validate: validateEventHeaders },
});

/**
 * Due date reminder
 * @generated from asyncapi.yaml#/components/messages/DueDateReminder
 */
export type DueDateReminder = ContractMessage<"DueDateReminder", DueDateReminderPayload>;
/**
 * Due date reminder
 * @generated from asyncapi.yaml#/components/messages/DueDateReminder
 */
export const DueDateReminder: MessageDescriptor<"DueDateReminder", DueDateReminderPayload, DueDateReminder> =
  defineMessage({
    type: "DueDateReminder",
    id: "DueDateReminder",
    contentType: "application/json",
    schemaHash: "sha256:02fe155ff5b1d89c58907a847375739b33aa73eb817248fb8266fc93afca114f",
    validate: validateDueDateReminderPayload,
  });

/**
 * Copies requested
 * @generated from asyncapi.yaml#/components/messages/CopiesRequested
 */
export type CopiesRequested = ContractMessage<"CopiesRequested", CopiesRequestedPayload, CopiesRequestedHeaders>;
/**
 * Copies requested
 * @generated from asyncapi.yaml#/components/messages/CopiesRequested
 */
export const CopiesRequested: MessageDescriptor<"CopiesRequested", CopiesRequestedPayload, CopiesRequested> =
  defineMessage({
    type: "CopiesRequested",
    id: "CopiesRequested",
    contentType: "application/json",
    schemaHash: "sha256:f1a1772ffa240da2f12139982644f33865b032c10ca9a2374e5c9d6b8daafa19",
    validate: validateCopiesRequestedPayload,
    headers: { names: ["replyTo"], json: [], validate: validateCopiesRequestedHeaders },
  });

/**
 * Copies counted
 * @generated from asyncapi.yaml#/components/messages/CopiesCounted
 */
export type CopiesCounted = ContractMessage<"CopiesCounted", CopiesCountedPayload>;
/**
 * Copies counted
 * @generated from asyncapi.yaml#/components/messages/CopiesCounted
 */
export const CopiesCounted: MessageDescriptor<"CopiesCounted", CopiesCountedPayload, CopiesCounted> = defineMessage({
  type: "CopiesCounted",
  id: "CopiesCounted",
  contentType: "application/json",
  schemaHash: "sha256:2509d035df3f146c1cdfcdc06d76c7b4066051bff581dca2d6cc26c2ebb08441",
  validate: validateCopiesCountedPayload,
});
