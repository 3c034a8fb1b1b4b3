/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
/*
 * Channels left out of this file:
 * - MemberNotifications (memberNotifications): no x-iggy binding
 * - CopyLookups (copyLookups): no x-iggy binding
 * - CopyLookupAnswers (copyLookupAnswers): no x-iggy binding
 */
import { iggyChannel } from "@keiyaku/iggy/codegen-v1";
import { BookIntegrationEvents, type BookIntegrationEventsMessage } from "./channels/book-integration-events.js";

/**
 * Channel "bookIntegrationEvents" on Apache Iggy: stream "library", topic "book-integration-events".
 * `BookIntegrationEventsIggy.publisher(client)` / `.consumer(client, consumer)` build the high-level SDK's
 * publisher and consumer; `.serde` is the typed serializer/deserializer pair.
 */
export const BookIntegrationEventsIggy = iggyChannel<BookIntegrationEventsMessage>(BookIntegrationEvents, {
  stream: "library",
  topic: "book-integration-events",
  partitions: 3,
});
