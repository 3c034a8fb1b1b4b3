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
import { DueDateReminder } from "../messages.js";

/** Every message type that travels on channel "memberNotifications". */
export type MemberNotificationsMessage = DueDateReminder;

/** Type names of MemberNotificationsMessage. */
export type MemberNotificationsMessageType = MessageTypeOf<MemberNotificationsMessage>;

/** Values of the parameters in the address "library.members.{memberId}.notifications". */
export interface MemberNotificationsParameters {
  /** The member the notifications are for. */
  readonly memberId: string;
}

/**
 * Reminders sent to one member.
 * Address: library.members.{memberId}.notifications
 * @generated from asyncapi.yaml#/channels/memberNotifications
 */
export const MemberNotifications = defineChannel<
  MemberNotificationsMessage,
  (params: MemberNotificationsParameters) => string
>({
  id: "memberNotifications",
  address: (params: MemberNotificationsParameters): string =>
    "library.members." + String(params["memberId"]) + ".notifications",
  addressTemplate: "library.members.{memberId}.notifications",
  parameters: ["memberId"],
  messages: [DueDateReminder],
  bindings: {},
});

/**
 * Implement this to consume channel "memberNotifications". `groupId` names the consumer group
 * (one per capability, named like `<service>.<capability>`); handlers must be idempotent.
 */
export interface MemberNotificationsHandler extends MessageHandler<MemberNotificationsMessage> {}

/**
 * Implement this to consume channel "memberNotifications" in batches (`messaging.subscribeBatch`): up to
 * `batch.maxSize` messages of one partition per call, in order, acknowledged together.
 */
export interface MemberNotificationsBatchHandler extends BatchHandler<MemberNotificationsMessage> {}

/** One function per message type of MemberNotificationsMessage; the compiler insists on all of them. */
export type MemberNotificationsCases<R> = DispatchCases<MemberNotificationsMessage, R>;

/** Calls the case of `message`'s type. */
export function dispatchMemberNotifications<R>(
  message: MemberNotificationsMessage,
  cases: MemberNotificationsCases<R>,
): R {
  return dispatch(message, cases);
}
