// Iggy protocol 0.11 codecs against the exact bytes of the protocol fact sheet's examples.
import { describe, expect, it } from 'vitest';
import { describeCode, IggyError } from '../../runtime/iggy/protocol/errors.js';
import {
  packVersion,
  readIdentifier,
  readTlv,
  tlv,
  unpackVersion,
  writeIdentifier,
  writePartitioning,
  writePollingStrategy,
  writeTlv,
} from '../../runtime/iggy/protocol/primitives.js';
import {
  decodeLoginRegister,
  encodeLoginRegister,
  encodeLoginReply,
  LOGIN_REGISTER,
} from '../../runtime/iggy/protocol/v0_11/commands/login-register.js';
import { PING } from '../../runtime/iggy/protocol/v0_11/commands/ping.js';
import {
  CREATE_STREAM,
  decodeStream,
  encodeCreateStream,
  encodeGetStream,
  encodeStreamInfo,
} from '../../runtime/iggy/protocol/v0_11/commands/streams.js';
import {
  decodeFrame,
  encodeEviction,
  encodeReply,
  encodeRequest,
  frameSize,
  HEADER_SIZE,
  Operation,
  VERSION as PROTOCOL_VERSION,
} from '../../runtime/iggy/protocol/v0_11/header.js';
import { payloadOf } from '../../runtime/iggy/protocol/v0_11/reply.js';
import { IggyDecodeError, Reader, Writer } from '../../runtime/iggy/protocol/wire.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/[^0-9a-fA-F]/g, ''), 'hex'));
const ascii = (text: string): string => Buffer.from(text, 'utf8').toString('hex');
const write = (f: (w: Writer) => void): string => {
  const w = new Writer();
  f(w);
  return hex(w.finish());
};

describe('Iggy shared encodings (§2)', () => {
  it('identifiers: numeric id 1 and the name "orders"', () => {
    expect(write((w) => writeIdentifier(w, 1))).toBe('010401000000');
    expect(write((w) => writeIdentifier(w, 'orders'))).toBe(`0206${ascii('orders')}`);
    expect(readIdentifier(new Reader(fromHex('010401000000')))).toBe(1);
    expect(readIdentifier(new Reader(fromHex(`0206${ascii('orders')}`)))).toBe('orders');
    expect(() => readIdentifier(new Reader(fromHex('010201000000')))).toThrow(IggyDecodeError);
  });

  it('partitioning: balanced, partition 3, key "user-1"', () => {
    expect(write((w) => writePartitioning(w, { kind: 'balanced' }))).toBe('0100');
    expect(write((w) => writePartitioning(w, { kind: 'partition', id: 3 }))).toBe('020403000000');
    expect(write((w) => writePartitioning(w, { kind: 'key', key: 'user-1' }))).toBe(`0306${ascii('user-1')}`);
  });

  it('polling strategies are always 9 bytes', () => {
    expect(write((w) => writePollingStrategy(w, { kind: 'offset', value: 42n }))).toBe('012a00000000000000');
    expect(write((w) => writePollingStrategy(w, { kind: 'next' }))).toBe('050000000000000000');
  });

  it('the golden options block {enforce_fsync: true, segment_size: 1 GiB}', () => {
    const golden = `02 0D000000 ${ascii('enforce_fsync')} 03 01000000 01 02 0C000000 ${ascii('segment_size')} 0C 08000000 0000004000000000`;
    const encoded = write((w) =>
      writeTlv(w, [
        [tlv.string('enforce_fsync'), tlv.bool(true)],
        [tlv.string('segment_size'), tlv.u64(1n << 30n)],
      ]),
    );
    expect(encoded).toBe(hex(fromHex(golden)));
    const decoded = readTlv(new Reader(fromHex(golden)), fromHex(golden).length);
    expect(decoded.map(([k]) => Buffer.from(k.value).toString())).toEqual(['enforce_fsync', 'segment_size']);
  });

  it('the packed protocol version 0.11.0 = 11264 = 00 2C 00 00', () => {
    expect(PROTOCOL_VERSION).toBe(11264);
    expect(packVersion(0, 11, 0)).toBe(11264);
    expect(write((w) => w.u32(PROTOCOL_VERSION))).toBe('002c0000');
    expect(unpackVersion(11264)).toBe('0.11.0');
  });
});

describe('Iggy frames (§1)', () => {
  it('PING request: all zero except size, command, client, request 1, NonReplicated, code 1 (§3.1)', () => {
    const client = 0x0102030405060708090a0b0c0d0e0f10n;
    const frame = encodeRequest({ client, request: 1n, operation: PING.operation, session: 0n, code: PING.code });
    expect(frame.length).toBe(HEADER_SIZE);
    const expected = new Uint8Array(256);
    expected.set([0x00, 0x01, 0x00, 0x00], 48);
    expected[60] = 5;
    const clientBytes = new Writer().u128(client).finish();
    expected.set(clientBytes, 128);
    expected[168] = 1;
    expected[176] = 2;
    expected.set([1, 0, 0, 0], 196);
    expect(hex(frame)).toBe(hex(expected));
    expect(frameSize(frame)).toBe(256);
  });

  it('refuses a zero client id (the server would drop the request silently)', () => {
    expect(() => encodeRequest({ client: 0n, request: 1n, operation: 2, session: 0n, code: 1 })).toThrow(/non-zero/);
  });

  it('LOGIN_REGISTER body: the worked example (§3.2)', () => {
    const body = encodeLoginRegister({ username: 'iggy', password: 'iggy', sdkName: 'ts-contract', sdkVersion: '0.1.0' });
    expect(hex(body)).toBe(
      hex(fromHex(`00 2C 00 00 0B ${ascii('ts-contract')} 05 ${ascii('0.1.0')} 04 ${ascii('iggy')} 04 ${ascii('iggy')} 00 00 00 00`)),
    );
    const frame = encodeRequest({ client: 7n, request: 0n, operation: LOGIN_REGISTER.operation, session: 0n, body });
    const decoded = decodeFrame(frame);
    expect(decoded.kind).toBe('request');
    if (decoded.kind === 'request')
      expect(decoded.frame).toMatchObject({ client: 7n, request: 0n, operation: Operation.Register, session: 0n });
  });

  it('decodes a login reply through its result section', () => {
    const reply = encodeReply({
      client: 7n,
      request: 0n,
      operation: Operation.Register,
      status: 0,
      body: encodeLoginReply({ userId: 0, session: 99n, serverProtocolVersion: 11264, serverVersion: '0.9.0-edge.5' }),
    });
    expect(decodeLoginRegister(payloadOf(decodeFrame(reply), 'login'))).toEqual({
      userId: 0,
      session: 99n,
      serverProtocolVersion: '0.11.0',
      serverVersion: '0.9.0-edge.5',
    });
  });

  it('a committed rejection: CreateStream with an existing name replies 01000000 00000000 F4030000 = error 1012 (§1.4)', () => {
    const reply = encodeReply({
      client: 7n,
      request: 3n,
      operation: CREATE_STREAM.operation,
      status: 0,
      body: fromHex('01000000 00000000 F4030000'),
    });
    expect(() => payloadOf(decodeFrame(reply), 'create stream')).toThrow(IggyError);
    try {
      payloadOf(decodeFrame(reply), 'create stream');
    } catch (error) {
      expect(error).toMatchObject({ status: 1012, statusName: 'StreamNameAlreadyExists', retriable: false });
    }
  });

  it('a CreateTopic answered with the internal operation 64 (CreateTopicWithAssignments) is result-framed too', () => {
    // Seen from iggy-server 0.9.0-edge.5: the reply's operation byte is the rewritten internal op, not 132.
    const payload = fromHex('00000000 12da6bc1 7c610600');
    const reply = encodeReply({ client: 7n, request: 4n, operation: 64, status: 0, body: fromHex('00000000 00000000 12da6bc1 7c610600') });
    expect(Buffer.from(payloadOf(decodeFrame(reply), 'create topic'))).toEqual(Buffer.from(payload));
    const rejected = encodeReply({ client: 7n, request: 4n, operation: 64, status: 0, body: fromHex('01000000 00000000 DD070000') });
    expect(() => payloadOf(decodeFrame(rejected), 'create topic')).toThrow(expect.objectContaining({ status: 2013 }));
  });

  it('a non-zero status is an error with its table entry; transient ones are retriable', () => {
    const reply = encodeReply({ client: 7n, request: 3n, operation: 160, status: 58 });
    expect(() => payloadOf(decodeFrame(reply), 'send messages')).toThrow(expect.objectContaining({ status: 58, retriable: true }));
    expect(describeCode(1009)).toMatchObject({ name: 'StreamIdNotFound', retriable: false });
    expect(describeCode(99999).name).toBe('Unknown(99999)');
  });

  it('an eviction maps its reason to the error code (bad credentials → 42; incompatible protocol → 14003)', () => {
    expect(() => payloadOf(decodeFrame(encodeEviction({ client: 7n, reason: 9 })), 'login')).toThrow(
      expect.objectContaining({ status: 42 }),
    );
    const incompatible = decodeFrame(
      encodeEviction({
        client: 7n,
        reason: 14,
        serverProtocolVersion: packVersion(0, 12, 0),
        serverProtocolVersionMin: packVersion(0, 12, 0),
      }),
    );
    expect(incompatible).toMatchObject({ kind: 'eviction', reason: 14 });
    if (incompatible.kind === 'eviction') expect(unpackVersion(incompatible.serverProtocolVersion)).toBe('0.12.0');
  });

  it('rejects frames whose size field lies', () => {
    const frame = encodeRequest({ client: 1n, request: 1n, operation: 2, session: 0n, code: 1 });
    frame.set([0xff, 0xff, 0xff, 0x7f], 48);
    expect(() => frameSize(frame)).toThrow(/outside 256..64 MiB/);
    expect(() => decodeFrame(new Uint8Array(10))).toThrow(IggyDecodeError);
  });

  it('streams: get by name, create with options, decode a StreamResponse and the empty body of a missing stream', () => {
    expect(hex(encodeGetStream('library'))).toBe(`0207${ascii('library')}`);
    expect(hex(encodeCreateStream('library'))).toBe(`07${ascii('library')}`);
    const info = encodeStreamInfo({
      id: 0,
      createdAt: 1_700_000_000_000_000n,
      topicsCount: 2,
      sizeBytes: 10n,
      messagesCount: 3n,
      name: 'library',
    });
    expect(decodeStream(info)).toMatchObject({ id: 0, topicsCount: 2, name: 'library', options: [] });
    expect(decodeStream(new Uint8Array(0))).toBeUndefined();
  });
});
