/**
 * One TCP connection to an Iggy server, in the framing of one protocol generation (0.11 by
 * default: 256-byte headers, `size` = whole frame): one request in flight (the connection is lockstep), a timeout per
 * request (silence is a failure mode: the connection is dropped so a late reply cannot
 * desync the framing), request numbering per operation kind, a stable non-zero client id
 * per session, unsolicited evictions, and heartbeat pings.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ClosedError, TransportError } from '../core/errors.js';
import { describeEviction, IggyError } from './protocol/errors.js';
import { unpackVersion } from './protocol/primitives.js';
import { DEFAULT_PROTOCOL } from './protocol/registry.js';
import type { LoginReply } from './protocol/v0_11/commands/login-register.js';
import type { DecodedFrame, IggyProtocol, RequestFrame } from './protocol/version.js';
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
  /**
   * The 128-bit client id to register with (default: a fresh random one). A reconnecting client
   * passes its previous id: the server keeps a client's session and group memberships across its
   * own restart, so registering the same id again takes them back instead of leaving them to a
   * client that will never return.
   */
  readonly clientId?: bigint;
  /** The protocol generation to speak (default: the newest keiyaku has, see `protocol/registry.ts`). */
  readonly protocol?: IggyProtocol;
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

export class IggyConnection {
  readonly options: ConnectionOptions;
  readonly protocol: IggyProtocol;
  #socket: Socket | undefined;
  /** Received bytes not yet framed, and how many a frame needs before it is worth looking again. */
  #chunks: Buffer[] = [];
  #buffered = 0;
  #awaiting = 0;
  #queue: (() => void)[] = [];
  #pending: Pending | undefined;
  #client = 0n;
  #session = 0n;
  readonly #counter = { value: 1n };
  #closed = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastActivity = 0;
  #evictionListeners = new Set<(error: IggyError) => void>();

  constructor(options: ConnectionOptions) {
    this.options = options;
    this.protocol = options.protocol ?? DEFAULT_PROTOCOL;
  }

  /** Connected and not failed or closed. */
  get alive(): boolean {
    return this.#socket !== undefined && !this.#closed;
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
    this.#client = this.options.clientId ?? newClientId();
    this.#session = 0n;
    this.#counter.value = 1n;
    this.#startHeartbeat();
  }

  /** Logs in (LOGIN_REGISTER in 0.11) with username and password, announcing our protocol version; binds the session. */
  async login(username: string, password: string): Promise<LoginReply> {
    const { login, operations, incompatibleVersionReason } = this.protocol;
    const body = login.encode({
      username,
      password,
      sdkName: this.options.sdkName ?? 'keiyaku',
      sdkVersion: this.options.sdkVersion ?? '0.1.0',
      protocolVersion: this.protocol.version,
    });
    const frame = await this.#send(login.name, { client: this.#client, request: 0n, operation: operations.register, session: 0n, body });
    if (frame.kind === 'eviction' && frame.reason === incompatibleVersionReason) {
      throw new IggyError(14003, login.name, {
        detail: `the server speaks protocol ${unpackVersion(frame.serverProtocolVersionMin)}..${unpackVersion(frame.serverProtocolVersion)}, keiyaku speaks ${unpackVersion(this.protocol.version)}`,
      });
    }
    const reply = login.decode(this.protocol.payloadOf(frame, login.name));
    this.#session = reply.session;
    this.#counter.value = 1n;
    return reply;
  }

  /** Sends one command and returns its payload; throws {@link IggyError} or {@link TransportError}. */
  async request(command: string, code: number, operation: number, body: Uint8Array = new Uint8Array(0)): Promise<Uint8Array> {
    const request = this.protocol.requestNumber(operation, this.#counter);
    const frame = await this.#send(command, {
      client: this.#client,
      request,
      operation,
      session: this.#session,
      ...(operation === this.protocol.operations.nonReplicated ? { code } : {}),
      body,
    });
    return this.protocol.payloadOf(frame, command);
  }

  /** Sends one command through its codec and decodes the reply. */
  async call<A extends readonly unknown[], R>(
    codec: { name: string; code: number; operation: number; encode(...args: A): Uint8Array; decode(payload: Uint8Array): R },
    ...args: A
  ): Promise<R> {
    return codec.decode(await this.request(codec.name, codec.code, codec.operation, codec.encode(...args)));
  }

  async ping(): Promise<void> {
    await this.call(this.protocol.commands.ping);
  }

  #send(command: string, frame: RequestFrame): Promise<DecodedFrame> {
    const down = this.#down(command);
    if (down) return Promise.reject(down);
    const bytes = this.protocol.encodeRequest(frame);
    return new Promise<DecodedFrame>((resolve, reject) => {
      const start = (): void => {
        const error = this.#down(command);
        if (error) {
          reject(error);
          this.#next();
          return;
        }
        const socket = this.#socket!;
        const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
        const timer = setTimeout(() => {
          // Silence: drop the connection, a late reply would desync the framing.
          this.#fail(
            new TransportError('iggy', `${command}: no reply within ${timeoutMs} ms; the connection was dropped`, { retriable: true }),
          );
        }, timeoutMs);
        this.#pending = { command, resolve, reject, timer };
        this.#lastActivity = Date.now();
        socket.write(bytes);
      };
      if (this.#pending === undefined && this.#queue.length === 0) start();
      else this.#queue.push(start);
    });
  }

  /** Why a request cannot go out now: closed by us (final), or the connection died (retriable: it was never sent). */
  #down(command: string): Error | undefined {
    if (this.#closed) return new ClosedError('the Iggy connection');
    if (this.#socket === undefined) return new TransportError('iggy', `${command}: the connection is down; the request was not sent`);
    return undefined;
  }

  #next(): void {
    const start = this.#queue.shift();
    if (start) start();
  }

  /**
   * Collects chunks until the awaited frame is complete, then concatenates once (not per chunk:
   * a large poll reply arrives in many chunks). A frame that does not decode drops the connection.
   */
  #onData(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#buffered < this.#awaiting) return;
    let buffer = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#buffered);
    const { headerSize } = this.protocol;
    this.#awaiting = headerSize;
    while (buffer.length >= headerSize) {
      let frame: DecodedFrame;
      try {
        const size = this.protocol.frameSize(buffer.subarray(0, headerSize));
        if (buffer.length < size) {
          this.#awaiting = size;
          break;
        }
        frame = this.protocol.decodeFrame(new Uint8Array(buffer.subarray(0, size)));
        buffer = buffer.subarray(size);
      } catch (error) {
        this.#fail(new TransportError('iggy', `bad frame from the server: ${(error as Error).message}`, { retriable: true }));
        return;
      }
      this.#onFrame(frame);
    }
    this.#chunks = buffer.length === 0 ? [] : [buffer];
    this.#buffered = buffer.length;
  }

  #onFrame(frame: DecodedFrame): void {
    const pending = this.#pending;
    if (frame.kind === 'eviction' && (pending === undefined || pending.command !== this.protocol.login.name)) {
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
