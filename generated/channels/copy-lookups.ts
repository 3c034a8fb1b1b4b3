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
import { CopiesRequested } from "../messages.js";

/** Every message type that travels on channel "copyLookups". */
export type CopyLookupsMessage = CopiesRequested;

/** Type names of CopyLookupsMessage. */
export type CopyLookupsMessageType = MessageTypeOf<CopyLookupsMessage>;

/**
 * Copy lookups
 * Questions to the library about one book's copies; each names where its answer goes.
 * Address: library.copy-lookups
 * @generated from asyncapi.yaml#/channels/copyLookups
 */
export const CopyLookups = defineChannel<CopyLookupsMessage, string>({
  id: "copyLookups",
  address: "library.copy-lookups",
  addressTemplate: "library.copy-lookups",
  parameters: [],
  messages: [CopiesRequested],
  bindings: {},
});

/**
 * Implement this to consume channel "copyLookups". `groupId` names the consumer group
 * (one per capability, named like `<service>.<capability>`); handlers must be idempotent.
 */
export interface CopyLookupsHandler extends MessageHandler<CopyLookupsMessage> {}

/**
 * Implement this to consume channel "copyLookups" in batches (`messaging.subscribeBatch`): up to
 * `batch.maxSize` messages of one partition per call, in order, acknowledged together.
 */
export interface CopyLookupsBatchHandler extends BatchHandler<CopyLookupsMessage> {}

/** One function per message type of CopyLookupsMessage; the compiler insists on all of them. */
export type CopyLookupsCases<R> = DispatchCases<CopyLookupsMessage, R>;

/** Calls the case of `message`'s type. */
export function dispatchCopyLookups<R>(message: CopyLookupsMessage, cases: CopyLookupsCases<R>): R {
  return dispatch(message, cases);
}
