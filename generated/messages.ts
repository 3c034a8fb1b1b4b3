/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
import { type ContractMessage, defineMessage, type MessageDescriptor } from "keiyaku/codegen-v1";
import type { BookBorrowedPayload, BookReturnedPayload, DueDateReminderPayload, EventHeaders } from "./types.js";
import {
  validateBookBorrowedPayload,
  validateBookReturnedPayload,
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
  schemaHash: "sha256:cdfd6b3cc5e8102e317797412ae379947a0f341f9e35637fc60d74789d3455bf",
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
    schemaHash: "sha256:cf171649156ccafb8c23d93816c2b545d089ce7039933780e1b67a52c47b48dc",
    validate: validateDueDateReminderPayload,
  });
