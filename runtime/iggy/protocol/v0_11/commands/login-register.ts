/**
 * LOGIN_REGISTER (code 40, operation Register, session 0, request 0).
 *
 *   request  [protocol_version u32][sdk_name_len u8][sdk_name][sdk_version_len u8][sdk_version]
 *            [username_len u8][username][password_len u8][password][context_len u32][context]
 *   reply    (result-framed) [user_id u32][session u64][server_protocol_version u32]
 *            [server_version_len u8][server_version]
 */
import { readName, unpackVersion, writeName } from '../../primitives.js';
import type { LoginReply, LoginRequest } from '../../version.js';
import { Reader, Writer } from '../../wire.js';
import { VERSION } from '../header.js';

export type { LoginReply, LoginRequest };

export const LOGIN_REGISTER = { code: 40, operation: 1 } as const;

export function encodeLoginRegister(request: LoginRequest): Uint8Array {
  const w = new Writer(64);
  w.u32(request.protocolVersion ?? VERSION);
  writeName(w, request.sdkName, 'sdk name');
  writeName(w, request.sdkVersion, 'sdk version');
  writeName(w, request.username, 'username');
  writeName(w, request.password, 'password');
  const context = request.context ?? new Uint8Array(0);
  w.u32(context.length).bytes(context);
  return w.finish();
}

/** Decodes the payload (after the result section). */
export function decodeLoginRegister(payload: Uint8Array): LoginReply {
  const r = new Reader(payload);
  return {
    userId: r.u32('user_id'),
    session: r.u64('session'),
    serverProtocolVersion: unpackVersion(r.u32('server_protocol_version')),
    serverVersion: readName(r, 'server_version'),
  };
}

/** Encodes a reply payload (for the protocol test double). */
export function encodeLoginReply(reply: {
  userId: number;
  session: bigint;
  serverProtocolVersion: number;
  serverVersion: string;
}): Uint8Array {
  const w = new Writer(64);
  w.u32(0).u32(reply.userId).u64(reply.session).u32(reply.serverProtocolVersion);
  writeName(w, reply.serverVersion, 'server version');
  return w.finish();
}
