/**
 * Generated code by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
import { defineRequestReply, type Responder } from "@keiyaku/runtime/codegen-v1";
import { CopyLookups } from "./channels/copy-lookups.js";
import { CopyLookupAnswers } from "./channels/copy-lookup-answers.js";
import { CopiesCounted, CopiesRequested } from "./messages.js";

/** What a request of operation "lookUpCopies" may be. */
export type LookUpCopiesRequest = CopiesRequested;

/** What a reply to operation "lookUpCopies" may be. */
export type LookUpCopiesReply = CopiesCounted;

/**
 * Implement this to answer operation "lookUpCopies": what `respond` returns is published as the reply,
 * with the request's correlation id. Requests are delivered at least once: answer idempotently.
 */
export interface LookUpCopiesResponder extends Responder<LookUpCopiesRequest, LookUpCopiesReply> {}

/**
 * The library answers what it knows of a book's copies; the answer goes where the question says.
 * Request on channel "copyLookups"; reply on channel "copyLookupAnswers", to the address in the request's header "replyTo".
 */
export const LookUpCopies = defineRequestReply<LookUpCopiesRequest, LookUpCopiesReply>({
  id: "lookUpCopies",
  request: CopyLookups,
  requestMessages: [CopiesRequested],
  reply: CopyLookupAnswers,
  replyMessages: [CopiesCounted],
  replyAddress: { header: "replyTo" },
});
