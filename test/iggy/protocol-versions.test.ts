// The versioned codec layer: the registry, and a client speaking whatever generation it is
// given (against the in-repo protocol test double, not Iggy).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IggyClient } from '../../runtime/iggy/client.js';
import { IggyError } from '../../runtime/iggy/protocol/errors.js';
import { packVersion } from '../../runtime/iggy/protocol/primitives.js';
import { DEFAULT_PROTOCOL, PROTOCOLS, protocolFor } from '../../runtime/iggy/protocol/registry.js';
import { protocol_0_11 } from '../../runtime/iggy/protocol/v0_11/index.js';
import type { IggyProtocol, RequestFrame } from '../../runtime/iggy/protocol/version.js';
import { IggyProtocolDouble } from './protocol-double.js';

describe('the protocol registry', () => {
  it('knows 0.11 by label, by version string and by any packed 0.11.x a server announces', () => {
    expect(PROTOCOLS.map((protocol) => protocol.label)).toEqual(['0.11']);
    expect(DEFAULT_PROTOCOL).toBe(protocol_0_11);
    expect(protocolFor('0.11')).toBe(protocol_0_11);
    expect(protocolFor('0.11.0')).toBe(protocol_0_11);
    expect(protocolFor(packVersion(0, 11, 7))).toBe(protocol_0_11);
    expect(protocol_0_11.version).toBe(11264);
  });

  it('names the versions it speaks when asked for one it does not', () => {
    expect(() => protocolFor('0.12')).toThrow('keiyaku does not speak Iggy protocol 0.12; it speaks 0.11');
    expect(() => protocolFor(packVersion(0, 10, 0))).toThrow('keiyaku does not speak Iggy protocol 0.10.0; it speaks 0.11');
  });

  it('every command of a generation has a distinct code, a name and both codecs', () => {
    for (const protocol of PROTOCOLS) {
      const commands = Object.values(protocol.commands);
      expect(new Set(commands.map((command) => command.code)).size).toBe(commands.length);
      for (const command of commands) {
        expect(command.name).toMatch(/^[a-z ]+$/);
        expect(typeof command.encode).toBe('function');
        expect(typeof command.decode).toBe('function');
      }
    }
  });
});

describe('a client speaks the generation it is given', () => {
  let server: IggyProtocolDouble;
  let port: number;
  beforeEach(async () => {
    server = new IggyProtocolDouble();
    port = await server.start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('the connection frames, logs in and calls commands only through the generation object', async () => {
    const sent: RequestFrame[] = [];
    const decoded: string[] = [];
    // A generation that behaves as 0.11 but records what the connection asks of it.
    const recording: IggyProtocol = {
      ...protocol_0_11,
      label: '0.11-recording',
      encodeRequest: (frame) => {
        sent.push(frame);
        return protocol_0_11.encodeRequest(frame);
      },
      commands: {
        ...protocol_0_11.commands,
        getStream: {
          ...protocol_0_11.commands.getStream,
          decode: (payload) => {
            decoded.push('get stream');
            return protocol_0_11.commands.getStream.decode(payload);
          },
        },
      },
    };
    await using client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0, protocol: recording });
    await client.connect();
    expect(client.protocol.label).toBe('0.11-recording');
    await client.createStream('versions');
    const stream = await client.getStream('versions');
    expect(stream?.name).toBe('versions');
    expect(decoded).toEqual(['get stream']);
    // login (Register, request 0), create stream (metadata op: request 1), get stream (non-replicated, code 200).
    expect(sent.map((frame) => [frame.operation, frame.request, frame.code])).toEqual([
      [1, 0n, undefined],
      [128, 1n, undefined],
      [2, 2n, 200],
    ]);
  });

  it('a server of another generation is refused at login with both versions named', async () => {
    const future: IggyProtocol = { ...protocol_0_11, label: '0.12', version: packVersion(0, 12, 0) };
    await using client = new IggyClient({ host: '127.0.0.1', port, heartbeatMs: 0, protocol: future });
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IggyError);
    expect((error as IggyError).status).toBe(14003);
    expect((error as Error).message).toContain('the server speaks protocol 0.11.0..0.11.0, keiyaku speaks 0.12.0');
  });
});
