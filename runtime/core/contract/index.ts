/**
 * The contract as the runtime sees it: branded contract messages, message and channel
 * descriptors with their codecs, decode results and errors, and the helpers keiyaku-written
 * validators call. Generated code reaches it through the versioned `codegen-v1` facade only.
 *
 * One module per part: `brand.ts`, `errors.ts`, `issues.ts` (validate functions and their
 * issues), `utf8.ts`, `message.ts`, `headers.ts`, `channel.ts`, `dispatch.ts`, `batch.ts`,
 * `validator-runtime.ts`, and the deprecated `ajvRuntime` and `FAST_FORMATS` in `deprecated.ts`.
 */
export type { ParameterRule, ParametersOfAddress } from '../address.js';
export { ChannelAddressError } from '../address.js';
export type { MessageContext } from '../context.js';
export { isKeiyakuError, KeiyakuError } from '../errors.js';
export type { BatchContext, BatchHandler, BatchItem } from './batch.js';
export type {
  AnyContractMessage,
  Boxed,
  ContractMessage,
  HeadersOf,
  MessageHeadersTag,
  MessageOfType,
  MessageTypeOf,
  MessageTypeTag,
  messageHeaders,
} from './brand.js';
export { messageType } from './brand.js';
export type { AnyChannel, ChannelBindings, ChannelDefinition, ChannelDescriptor } from './channel.js';
export { defineChannel } from './channel.js';
export { ajvRuntime, FAST_FORMATS } from './deprecated.js';
export type { DispatchCases, MessageHandler } from './dispatch.js';
export { dispatch } from './dispatch.js';
export type { DecodeFailure, DecodeResult, ValidationIssue } from './errors.js';
export { ContractDecodeError, ContractValidationError } from './errors.js';
export type { HeadersCodec, HeadersDefinition } from './headers.js';
export type { StandaloneValidator, StandaloneValidatorError } from './issues.js';
export type { MessageDefinition, MessageDescriptor, MessageRegistryBinding } from './message.js';
export { defineMessage } from './message.js';
export type { PayloadCodec, PayloadFormat, RegistrySchema } from './payload-codec.js';
export type {
  ReplyAddressRule,
  ReplyOf,
  RequestOf,
  RequestReplyDefinition,
  RequestReplyDescriptor,
  Responder,
} from './request-reply.js';
export { defineRequestReply } from './request-reply.js';
export { utf8Bytes } from './utf8.js';
export { MAX_VALIDATION_ERRORS, validatorRuntime } from './validator-runtime.js';
