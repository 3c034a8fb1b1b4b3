/**
 * Protocol generation 0.11 (VSR framing, the batch message layout of 0.11.0-edge.4 and
 * later): the framing, login and command codecs of this folder, assembled behind the
 * generation-independent {@link IggyProtocol} interface.
 */
import type { IggyProtocol } from '../version.js';
import {
  CREATE_CONSUMER_GROUP,
  decodeGroupDetails,
  decodeSync,
  encodeCreateConsumerGroup,
  encodeGroupRef,
  GET_CONSUMER_GROUP,
  JOIN_CONSUMER_GROUP,
  LEAVE_CONSUMER_GROUP,
  SYNC_CONSUMER_GROUP,
} from './commands/groups.js';
import { decodeLoginRegister, encodeLoginRegister, LOGIN_REGISTER } from './commands/login-register.js';
import {
  decodePollReply,
  decodeSendReply,
  encodePollMessages,
  encodeSendMessages,
  encodeSendMessagesInPlace,
  FRAME_HEADER_SIZE,
  POLL_MESSAGES,
  SEND_MESSAGES,
  sealInPlace,
} from './commands/messages.js';
import {
  DELETE_CONSUMER_OFFSET,
  decodeConsumerOffset,
  encodeDeleteConsumerOffset,
  encodeGetConsumerOffset,
  encodeStoreConsumerOffset,
  GET_CONSUMER_OFFSET,
  STORE_CONSUMER_OFFSET,
} from './commands/offsets.js';
import { encodePing, PING } from './commands/ping.js';
import { CREATE_STREAM, decodeStream, encodeCreateStream, encodeGetStream, GET_STREAM } from './commands/streams.js';
import { CREATE_TOPIC, decodeTopic, encodeCreateTopic, encodeGetTopic, GET_TOPIC } from './commands/topics.js';
import { decodeFrame, encodeRequest, encodeRequestHead, frameSize, HEADER_SIZE, Operation, VERSION } from './header.js';
import { payloadOf } from './reply.js';

const nothing = (): void => undefined;

/** Metadata operations (128..149) and Logout carry the session's next request number; the rest repeat the current one (§1.3). */
function isMetadataOp(operation: number): boolean {
  return (operation >= 128 && operation <= 149) || operation === Operation.Logout;
}

export const protocol_0_11: IggyProtocol = {
  version: VERSION,
  label: '0.11',
  accepts: (serverVersion) => serverVersion >>> 10 === VERSION >>> 10,
  headerSize: HEADER_SIZE,
  frameSize,
  encodeRequest,
  encodeRequestHead,
  decodeFrame,
  payloadOf,
  requestNumber: (operation, counter) => (isMetadataOp(operation) ? counter.value++ : counter.value),
  operations: { register: Operation.Register, nonReplicated: Operation.NonReplicated },
  incompatibleVersionReason: 14,
  login: { name: 'login', ...LOGIN_REGISTER, encode: encodeLoginRegister, decode: decodeLoginRegister },
  sendInPlace: {
    name: 'send messages',
    ...SEND_MESSAGES,
    frameHeaderSize: FRAME_HEADER_SIZE,
    seal: sealInPlace,
    encodeParts: encodeSendMessagesInPlace,
    decode: decodeSendReply,
  },
  commands: {
    ping: { name: 'ping', ...PING, encode: encodePing, decode: nothing },
    getStream: { name: 'get stream', ...GET_STREAM, encode: encodeGetStream, decode: decodeStream },
    createStream: { name: 'create stream', ...CREATE_STREAM, encode: encodeCreateStream, decode: decodeStream },
    getTopic: { name: 'get topic', ...GET_TOPIC, encode: encodeGetTopic, decode: decodeTopic },
    createTopic: { name: 'create topic', ...CREATE_TOPIC, encode: encodeCreateTopic, decode: decodeTopic },
    sendMessages: { name: 'send messages', ...SEND_MESSAGES, encode: encodeSendMessages, decode: decodeSendReply },
    pollMessages: { name: 'poll messages', ...POLL_MESSAGES, encode: encodePollMessages, decode: decodePollReply },
    getConsumerOffset: {
      name: 'get consumer offset',
      ...GET_CONSUMER_OFFSET,
      encode: encodeGetConsumerOffset,
      decode: decodeConsumerOffset,
    },
    storeConsumerOffset: {
      name: 'store consumer offset',
      ...STORE_CONSUMER_OFFSET,
      encode: (target, offset) => encodeStoreConsumerOffset(target, offset),
      decode: nothing,
    },
    deleteConsumerOffset: {
      name: 'delete consumer offset',
      ...DELETE_CONSUMER_OFFSET,
      encode: (target) => encodeDeleteConsumerOffset(target),
      decode: nothing,
    },
    createConsumerGroup: {
      name: 'create consumer group',
      ...CREATE_CONSUMER_GROUP,
      encode: encodeCreateConsumerGroup,
      decode: decodeGroupDetails,
    },
    getConsumerGroup: { name: 'get consumer group', ...GET_CONSUMER_GROUP, encode: encodeGroupRef, decode: decodeGroupDetails },
    joinConsumerGroup: { name: 'join consumer group', ...JOIN_CONSUMER_GROUP, encode: encodeGroupRef, decode: nothing },
    leaveConsumerGroup: { name: 'leave consumer group', ...LEAVE_CONSUMER_GROUP, encode: encodeGroupRef, decode: nothing },
    syncConsumerGroup: { name: 'sync consumer group', ...SYNC_CONSUMER_GROUP, encode: encodeGroupRef, decode: decodeSync },
  },
};
