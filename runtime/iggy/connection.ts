/**
 * One TCP connection to an Iggy server speaking protocol 0.11: framing (256-byte headers,
 * `size` = whole frame), one request in flight (the connection is lockstep), a timeout per
 * request (silence is a failure mode: the connection is dropped so a late reply cannot
 * desync the framing), request numbering per operation kind, a stable non-zero client id
 * per session, unsolicited evictions, and heartbeat pings.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ClosedError, TransportError } from '../core/errors.js';
import { decodeLoginRegister, encodeLoginRegister, LOGIN_REGISTER, type LoginReply } from './protocol/commands/login-register.js';
import { PING } from './protocol/commands/ping.js';
import { describeEviction, IggyError } from './protocol/errors.js';
import { type DecodedFrame, decodeFrame, encodeRequest, frameSize, HEADER_SIZE, Operation } from './protocol/header.js';
import { PROTOCOL_VERSION, unpackVersion } from './protocol/primitives.js';
import { payloadOf } from './protocol/reply.js';
import { Reader } from './protocol/wire.js';

export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  /** A request without a reply for this long fails and drops the connection (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Ping an idle connection this often so a group member is not evicted (default 5 s; 0 disables). */
  readonly heartbeatMs?: number;
  readonly sdkName?: string;
  readonly sdkVersion?: string;
}

interface Pending {
  readonly command: string;
  readonly resolve: (frame: DecodedFrame) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

function newClientId(): bigint {
  for (;;) {
    const id = new Reader(randomBytes(16)).u128();
    if (id !== 0n) return id;
  }
}

/** Which request number an operation carries (fact sheet §1.3). */
function isMetadataOp(operation: number): boolean {
  return (operation >= 128 && operation <= 149) || operation === Operation.Logout;
}

export class IggyConnection {
  readonly options: ConnectionOptions;
  #socket: Socket | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #queue: (() => void)[] = [];
  #pending: Pending | undefined;
  #client = 0n;
  #session = 0n;
  #counter = 1n;
  #closed = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastActivity = 0;
  #evictionListeners = new Set<(error: IggyError) => void>();

  constructor(options: ConnectionOptions) {
    this.options = options;
  }

  get session(): bigint {
    return this.#session;
  }

  get clientId(): bigint {
    return this.#client;
  }

  /** Called when the server evicts this session unsolicited (heartbeat eviction of a stale member). */
  onEviction(listener: (error: IggyError) => void): () => void {
    this.#evictionListeners.add(listener);
    return () => this.#evictionListeners.delete(listener);
  }

  async connect(): Promise<void> {
    if (this.#closed) throw new ClosedError('the Iggy connection');
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: this.options.host, port: this.options.port });
      socket.setNoDelay(true);
      const fail = (error: Error): void =>
        reject(
          new TransportError('iggy', `cannot connect to ${this.options.host}:${this.options.port}: ${error.message}`, { cause: error }),
        );
      socket.once('error', fail);
      socket.once('connect', () => {
        socket.off('error', fail);
        socket.on('error', (error) => this.#fail(new TransportError('iggy', `connection error: ${error.message}`, { cause: error })));
        socket.on('close', () => this.#fail(new TransportError('iggy', 'connection closed by the server')));
        socket.on('data', (chunk: Buffer) => this.#onData(chunk));
        this.#socket = socket;
        resolve();
      });
    });
    this.#client = newClientId();
    this.#session = 0n;
    this.#counter = 1n;
    this.#startHeartbeat();
  }

  /** LOGIN_REGISTER with username and password; binds the session. */
  async login(username: string, password: string): Promise<LoginReply> {
    const body = encodeLoginRegister({
      username,
      password,
      sdkName: this.options.sdkName ?? 'keiyaku',
      sdkVersion: this.options.sdkVersion ?? '0.1.0',
    });
    const frame = await this.#send('login', { client: this.#client, request: 0n, operation: LOGIN_REGISTER.operation, session: 0n, body });
    if (frame.kind === 'eviction' && frame.reason === 14) {
      throw new IggyError(14003, 'login', {
        detail: `the server speaks protocol ${unpackVersion(frame.serverProtocolVersionMin)}..${unpackVersion(frame.serverProtocolVersion)}, keiyaku speaks ${unpackVersion(PROTOCOL_VERSION)}`,
      });
    }
    const reply = decodeLoginRegister(payloadOf(frame, 'login'));
    this.#session = reply.session;
    this.#counter = 1n;
    return reply;
  }

  /** Sends one command and returns its payload; throws {@link IggyError} or {@link TransportError}. */
  async request(command: string, code: number, operation: number, body: Uint8Array = new Uint8Array(0)): Promise<Uint8Array> {
    const request = isMetadataOp(operation) ? this.#counter++ : this.#counter;
    const frame = await this.#send(command, {
      client: this.#client,
      request,
      operation,
      session: this.#session,
      ...(operation === Operation.NonReplicated ? { code } : {}),
      body,
    });
    return payloadOf(frame, command);
  }

  async ping(): Promise<void> {
    await this.request('ping', PING.code, PING.operation);
  }

  #send(command: string, frame: Parameters<typeof encodeRequest>[0]): Promise<DecodedFrame> {
    if (this.#closed || this.#socket === undefined) return Promise.reject(new ClosedError('the Iggy connection'));
    const bytes = encodeRequest(frame);
    return new Promise<DecodedFrame>((resolve, reject) => {
      const start = (): void => {
        if (this.#socket === undefined || this.#closed) {
          reject(new ClosedError('the Iggy connection'));
          this.#next();
          return;
        }
        const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
        const timer = setTimeout(() => {
          // Silence: drop the connection, a late reply would desync the framing.
          this.#fail(
            new TransportError('iggy', `${command}: no reply within ${timeoutMs} ms; the connection was dropped`, { retriable: true }),
          );
        }, timeoutMs);
        this.#pending = { command, resolve, reject, timer };
        this.#lastActivity = Date.now();
        this.#socket.write(bytes);
      };
      if (this.#pending === undefined && this.#queue.length === 0) start();
      else this.#queue.push(start);
    });
  }

  #next(): void {
    const start = this.#queue.shift();
    if (start) start();
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length >= HEADER_SIZE) {
      let size: number;
      try {
        size = frameSize(this.#buffer.subarray(0, HEADER_SIZE));
      } catch (error) {
        this.#fail(new TransportError('iggy', `bad frame from the server: ${(error as Error).message}`, { retriable: true }));
        return;
      }
      if (this.#buffer.length < size) return;
      const bytes = new Uint8Array(this.#buffer.subarray(0, size));
      this.#buffer = this.#buffer.subarray(size);
      this.#onFrame(decodeFrame(bytes));
    }
  }

  #onFrame(frame: DecodedFrame): void {
    const pending = this.#pending;
    if (frame.kind === 'eviction' && (pending === undefined || pending.command !== 'login')) {
      // Unsolicited (or in place of an unrelated reply): the session is dead.
      const reason = describeEviction(frame.reason);
      const error = new IggyError(reason.code, pending?.command ?? 'session', { detail: `evicted by the server (${reason.name})` });
      for (const listener of this.#evictionListeners) listener(error);
      this.#fail(error);
      return;
    }
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.#pending = undefined;
    pending.resolve(frame);
    this.#next();
  }

  #fail(error: unknown): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    const queued = this.#queue.splice(0);
    this.#socket?.destroy();
    this.#socket = undefined;
    this.#stopHeartbeat();
    for (const start of queued) start();
  }

  #startHeartbeat(): void {
    const every = this.options.heartbeatMs ?? 5_000;
    if (every <= 0) return;
    this.#heartbeat = setInterval(() => {
      if (this.#pending === undefined && Date.now() - this.#lastActivity >= every) void this.ping().catch(() => undefined);
    }, every);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopHeartbeat();
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.end(() => resolve()));
  }
}
