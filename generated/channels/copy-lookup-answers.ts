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
import { CopiesCounted } from "../messages.js";

/** Every message type that travels on channel "copyLookupAnswers". */
export type CopyLookupAnswersMessage = CopiesCounted;

/** Type names of CopyLookupAnswersMessage. */
export type CopyLookupAnswersMessageType = MessageTypeOf<CopyLookupAnswersMessage>;

/**
 * Answers to copy lookups, sent to the address each question names.
 * Address: library.copy-lookups.answers
 * @generated from asyncapi.yaml#/channels/copyLookupAnswers
 */
export const CopyLookupAnswers = defineChannel<CopyLookupAnswersMessage, string>({
  id: "copyLookupAnswers",
  address: "library.copy-lookups.answers",
  addressTemplate: "library.copy-lookups.answers",
  parameters: [],
  messages: [CopiesCounted],
  bindings: {},
});

/**
 * Implement this to consume channel "copyLookupAnswers". `groupId` names the consumer group
 * (one per capability, named like `<service>.<capability>`); handlers must be idempotent.
 */
export interface CopyLookupAnswersHandler extends MessageHandler<CopyLookupAnswersMessage> {}

/**
 * Implement this to consume channel "copyLookupAnswers" in batches (`messaging.subscribeBatch`): up to
 * `batch.maxSize` messages of one partition per call, in order, acknowledged together.
 */
export interface CopyLookupAnswersBatchHandler extends BatchHandler<CopyLookupAnswersMessage> {}

/** One function per message type of CopyLookupAnswersMessage; the compiler insists on all of them. */
export type CopyLookupAnswersCases<R> = DispatchCases<CopyLookupAnswersMessage, R>;

/** Calls the case of `message`'s type. */
export function dispatchCopyLookupAnswers<R>(message: CopyLookupAnswersMessage, cases: CopyLookupAnswersCases<R>): R {
  return dispatch(message, cases);
}
