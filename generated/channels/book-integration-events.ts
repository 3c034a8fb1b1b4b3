/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
import {
  type BatchHandler,
  defineChannel,
  dispatch,
  type DispatchCases,
  type MessageHandler,
  type MessageTypeOf,
} from "@keiyaku/runtime/codegen-v1";
import { BookBorrowed, BookReturned } from "../messages.js";

/** Every message type that travels on channel "bookIntegrationEvents". */
export type BookIntegrationEventsMessage = BookBorrowed | BookReturned;

/** Type names of BookIntegrationEventsMessage. */
export type BookIntegrationEventsMessageType = MessageTypeOf<BookIntegrationEventsMessage>;

/**
 * Book integration events
 * Every change to a book's lending state, keyed by book id so one book's events stay in order.
 * Address: library.book-integration-events
 * @generated from asyncapi.yaml#/channels/bookIntegrationEvents
 */
export const BookIntegrationEvents = defineChannel<BookIntegrationEventsMessage, string>({
  id: "bookIntegrationEvents",
  address: "library.book-integration-events",
  addressTemplate: "library.book-integration-events",
  parameters: [],
  messages: [BookBorrowed, BookReturned],
  bindings: {
    kafka: { partitions: 6, replicas: 1 },
    iggy: { stream: "library", topic: "book-integration-events", partitions: 3 },
  },
});

/**
 * Implement this to consume channel "bookIntegrationEvents". `groupId` names the consumer group
 * (one per capability, named like `<service>.<capability>`); handlers must be idempotent.
 */
export interface BookIntegrationEventsHandler extends MessageHandler<BookIntegrationEventsMessage> {}

/**
 * Implement this to consume channel "bookIntegrationEvents" in batches (`messaging.subscribeBatch`): up to
 * `batch.maxSize` messages of one partition per call, in order, acknowledged together.
 */
export interface BookIntegrationEventsBatchHandler extends BatchHandler<BookIntegrationEventsMessage> {}

/** One function per message type of BookIntegrationEventsMessage; the compiler insists on all of them. */
export type BookIntegrationEventsCases<R> = DispatchCases<BookIntegrationEventsMessage, R>;

/** Calls the case of `message`'s type. */
export function dispatchBookIntegrationEvents<R>(
  message: BookIntegrationEventsMessage,
  cases: BookIntegrationEventsCases<R>,
): R {
  return dispatch(message, cases);
}
