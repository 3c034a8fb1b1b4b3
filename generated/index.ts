/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
export type * from "./types.js";
export * from "./messages.js";
export * from "./channels/book-integration-events.js";
export * from "./channels/member-notifications.js";
export * from "./channels/copy-lookups.js";
export * from "./channels/copy-lookup-answers.js";
export * from "./request-reply.js";
import { BookIntegrationEvents } from "./channels/book-integration-events.js";
import { MemberNotifications } from "./channels/member-notifications.js";
import { CopyLookups } from "./channels/copy-lookups.js";
import { CopyLookupAnswers } from "./channels/copy-lookup-answers.js";

/** Every channel of the contract, in document order. */
export const channels = [BookIntegrationEvents, MemberNotifications, CopyLookups, CopyLookupAnswers] as const;
