/**
 * Iggy status codes and eviction reasons, in one table with a `retriable` flag, and the
 * typed error the client throws. Retry logic reads `retriable`, never the message text.
 * Source: the fact sheet §1.4–1.5 (protocol 0.11).
 */
import { isRetriable, KeiyakuError } from '@keiyaku/runtime/adapter';

export interface IggyCode {
  readonly code: number;
  readonly name: string;
  readonly retriable: boolean;
}

const TABLE: readonly IggyCode[] = [
  { code: 1, name: 'Error', retriable: false },
  { code: 3, name: 'InvalidCommand', retriable: false },
  { code: 4, name: 'InvalidFormat', retriable: false },
  { code: 5, name: 'FeatureUnavailable', retriable: false },
  { code: 6, name: 'InvalidIdentifier', retriable: false },
  { code: 20, name: 'ResourceNotFound', retriable: false },
  { code: 30, name: 'StaleClient', retriable: true },
  { code: 40, name: 'Unauthenticated', retriable: true },
  { code: 41, name: 'Unauthorized', retriable: false },
  { code: 42, name: 'InvalidCredentials', retriable: false },
  { code: 43, name: 'InvalidUsername', retriable: false },
  { code: 46, name: 'UserAlreadyExists', retriable: false },
  { code: 53, name: 'InvalidPersonalAccessToken', retriable: false },
  { code: 57, name: 'TransientNotCommitted', retriable: true },
  { code: 58, name: 'TransientNotAccepted', retriable: true },
  { code: 1009, name: 'StreamIdNotFound', retriable: false },
  { code: 1012, name: 'StreamNameAlreadyExists', retriable: false },
  { code: 1019, name: 'InvalidTopicSize', retriable: false },
  { code: 1020, name: 'TooManyStreams', retriable: false },
  { code: 2010, name: 'TopicIdNotFound', retriable: false },
  { code: 2013, name: 'TopicNameAlreadyExists', retriable: false },
  { code: 2015, name: 'TooManyPartitions', retriable: false },
  { code: 2019, name: 'InvalidPartitionsCount', retriable: false },
  { code: 2021, name: 'TooManyTopics', retriable: false },
  { code: 3007, name: 'PartitionNotFound', retriable: false },
  { code: 3021, name: 'ConsumerOffsetNotFound', retriable: false },
  { code: 4017, name: 'TooBigUserHeaders', retriable: false },
  { code: 4027, name: 'InvalidMessageChecksum', retriable: false },
  { code: 4038, name: 'InvalidMessageTimestampDelta', retriable: false },
  { code: 4039, name: 'InvalidBatchChecksum', retriable: false },
  { code: 4041, name: 'UnsupportedOptionKey', retriable: false },
  { code: 4042, name: 'InvalidOptionValue', retriable: false },
  { code: 4043, name: 'OptionsBlockTooLarge', retriable: false },
  { code: 4100, name: 'InvalidOffset', retriable: false },
  { code: 5000, name: 'ConsumerGroupIdNotFound', retriable: false },
  { code: 5004, name: 'ConsumerGroupNameAlreadyExists', retriable: false },
  { code: 5006, name: 'ConsumerGroupMemberNotFound', retriable: true },
  { code: 5009, name: 'ConsumerGroupPartitionNotOwned', retriable: true },
  { code: 14003, name: 'IncompatibleProtocolVersion', retriable: false },
];

const BY_CODE = new Map(TABLE.map((entry) => [entry.code, entry]));

export function describeCode(code: number): IggyCode {
  return BY_CODE.get(code) ?? { code, name: `Unknown(${code})`, retriable: false };
}

/** Eviction reason → the error code the SDKs map it to (§1.4). */
const EVICTION: Readonly<Record<number, { readonly name: string; readonly code: number }>> = {
  0: { name: 'Reserved', code: 3 },
  1: { name: 'NoSession', code: 40 },
  2: { name: 'ClientReleaseTooLow', code: 3 },
  3: { name: 'ClientReleaseTooHigh', code: 3 },
  4: { name: 'InvalidRequestOperation', code: 3 },
  5: { name: 'InvalidRequestBody', code: 3 },
  6: { name: 'InvalidRequestBodySize', code: 3 },
  7: { name: 'SessionTooLow', code: 40 },
  8: { name: 'SessionReleaseMismatch', code: 40 },
  9: { name: 'InvalidCredentials', code: 42 },
  10: { name: 'InvalidToken', code: 53 },
  11: { name: 'UserInactive', code: 40 },
  12: { name: 'SessionError', code: 40 },
  13: { name: 'StaleClient', code: 30 },
  14: { name: 'IncompatibleProtocol', code: 14003 },
  15: { name: 'MalformedLogin', code: 4 },
};

export function describeEviction(reason: number): { readonly name: string; readonly code: number } {
  return EVICTION[reason] ?? { name: `Unknown(${reason})`, code: 3 };
}

/** An error the server reported (status, result code or eviction), with its context. */
export class IggyError extends KeiyakuError {
  override readonly name = 'IggyError';
  readonly status: number;
  readonly statusName: string;
  readonly command: string;
  readonly stream?: string;
  readonly topic?: string;
  readonly partition?: number;

  constructor(status: number, command: string, context: { stream?: string; topic?: string; partition?: number; detail?: string } = {}) {
    const described = describeCode(status);
    const where = [
      context.stream && `stream ${context.stream}`,
      context.topic && `topic ${context.topic}`,
      context.partition !== undefined && `partition ${context.partition}`,
    ]
      .filter(Boolean)
      .join(', ');
    super(
      `iggy_${described.name}`,
      `${command} failed: ${described.name} (${status})${where ? ` on ${where}` : ''}${context.detail ? `: ${context.detail}` : ''}`,
      {
        retriable: described.retriable,
      },
    );
    this.status = status;
    this.statusName = described.name;
    this.command = command;
    if (context.stream !== undefined) this.stream = context.stream;
    if (context.topic !== undefined) this.topic = context.topic;
    if (context.partition !== undefined) this.partition = context.partition;
  }
}

/**
 * Whether reconnecting (and rejoining) may help: a server error marked not retriable is final;
 * a dead connection, a timeout or an eviction is not.
 */
export function isRecoverable(error: unknown): boolean {
  return isRetriable(error) || (error as { name?: unknown } | null | undefined)?.name === 'ClosedError';
}
