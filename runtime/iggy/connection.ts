/**
 * One TCP connection to an Iggy server, in the framing of one protocol generation (0.11 by
 * default: 256-byte headers, `size` = whole frame): one request in flight (the connection is lockstep), a timeout per
 * request (silence is a failure mode: the connection is dropped so a late reply cannot
 * desync the framing), request numbering per operation kind, a stable non-zero client id
 * per session, unsolicited evictions, and heartbeat pings.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ClosedError, TransportError } from '@keiyaku/runtime/adapter';
import type { BufferPool } from './pooled-batches.js';
import { describeEviction, IggyError } from './protocol/errors.js';
import { unpackVersion } from './protocol/primitives.js';
import { DEFAULT_PROTOCOL } from './protocol/registry.js';
import type { DecodedFrame, IggyProtocol, LoginReply, RequestFrame } from './protocol/version.js';
import { Reader } from './protocol/wire.js';

/** Socket reads land in one reusable buffer per connection; frames are copied out of it as they complete (large ones are read into directly). */
const READ_BUFFER_SIZE = 64 * 1024;
/** A frame missing at least this many bytes is read into directly (a copy saved is worth a read callback of its own). */
const DIRECT_READ_MIN = 16 * 1024;
/** A request body below this many bytes is joined with its header into one buffer; a larger one is written after it, not copied. */
const JOIN_BELOW = 16 * 1024;

/**
 * A request's body: bytes, bytes in parts (written one after another, never joined), or a
 * function that encodes them when the request's turn on the connection comes — queued requests
 * then hold what they will send, not its encoded bytes.
 */
export type RequestBody = Uint8Array | readonly Uint8Array[] | (() => Uint8Array | readonly Uint8Array[]);

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
  /** Assemble the reply in a buffer rented from this pool (handed to the caller with the frame). */
  readonly pool: BufferPool | undefined;
  /** The rented buffer the reply was assembled in. */
  leased?: Uint8Array;
}

/** A reply whose bytes live in a buffer rented from a pool: the caller gives `buffer` back when done with `payload`. */
export interface PooledReply {
  readonly payload: Uint8Array;
  readonly buffer: Uint8Array;
}

/** Frames of at least this many bytes get a buffer that is not zeroed first (every byte of it is written by the read before it is used). */
const UNZEROED_FROM = 64 * 1024;

/**
 * A buffer for one received frame, owned by its reply (never pooled). A large one (a poll reply)
 * is not zeroed first, and is a plain Uint8Array over its own memory, so views of it behave as
 * any Uint8Array (`slice()` copies).
 */
function newFrameBuffer(size: number): Uint8Array {
  if (size < UNZEROED_FROM) return new Uint8Array(size);
  const memory = Buffer.allocUnsafeSlow(size);
  return new Uint8Array(memory.buffer, memory.byteOffset, size);
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
  /** The header of the frame being received, and how much of it has arrived. */
  #head: Uint8Array = new Uint8Array(0);
  #headFilled = 0;
  /** The frame being assembled (its own buffer, or one rented from the request's pool), its size and how much arrived. */
  #frame: Uint8Array | undefined;
  #frameSize = 0;
  #frameFilled = 0;
  #framePool: BufferPool | undefined;
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
    const readBuffer = Buffer.allocUnsafeSlow(READ_BUFFER_SIZE);
    await new Promise<void>((resolve, reject) => {
      this.#head = new Uint8Array(this.protocol.headerSize);
      this.#headFilled = 0;
      this.#frame = undefined;
      const socket = connect({
        host: this.options.host,
        port: this.options.port,
        // Reads go into one reusable buffer (no allocation per chunk) and frames are copied out
        // as they complete; while a large frame (a poll reply) is being filled, reads land in it
        // directly.
        onread: {
          buffer: () => this.#readTarget(readBuffer),
          callback: (length: number, buffer: Uint8Array): boolean => {
            if (buffer === readBuffer) this.#onData(buffer.subarray(0, length));
            else this.#onDirectRead(length);
            return true;
          },
        },
      });
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

  /**
   * Sends one command and returns its payload; throws {@link IggyError} or {@link TransportError}.
   * A body given in parts is written part after part, never joined.
   */
  async request(command: string, code: number, operation: number, body: RequestBody = new Uint8Array(0)): Promise<Uint8Array> {
    const request = this.protocol.requestNumber(operation, this.#counter);
    const { frame } = await this.#sendLeased(
      command,
      {
        client: this.#client,
        request,
        operation,
        session: this.#session,
        ...(operation === this.protocol.operations.nonReplicated ? { code } : {}),
      },
      body,
      undefined,
    );
    return this.protocol.payloadOf(frame, command);
  }

  /**
   * Sends one command whose reply is assembled in a buffer rented from `pool`; the caller owns
   * `buffer` and gives it back to the pool when done with `payload` (a view into it). An error
   * reply gives the buffer back at once.
   */
  async requestPooled(command: string, code: number, operation: number, body: RequestBody, pool: BufferPool): Promise<PooledReply> {
    const request = this.protocol.requestNumber(operation, this.#counter);
    const { frame, leased } = await this.#sendLeased(
      command,
      {
        client: this.#client,
        request,
        operation,
        session: this.#session,
        ...(operation === this.protocol.operations.nonReplicated ? { code } : {}),
      },
      body,
      pool,
    );
    try {
      return { payload: this.protocol.payloadOf(frame, command), buffer: leased! };
    } catch (error) {
      if (leased) pool.give(leased);
      throw error;
    }
  }

  /** Sends one command through its codec and decodes the reply. */
  async call<A extends readonly unknown[], R>(
    codec: { name: string; code: number; operation: number; encode(...args: A): Uint8Array; decode(payload: Uint8Array): R },
    ...args: A
  ): Promise<R> {
    return codec.decode(await this.request(codec.name, codec.code, codec.operation, () => codec.encode(...args)));
  }

  async ping(): Promise<void> {
    await this.call(this.protocol.commands.ping);
  }

  async #send(command: string, frame: RequestFrame): Promise<DecodedFrame> {
    return (await this.#sendLeased(command, frame, frame.body ?? new Uint8Array(0), undefined)).frame;
  }

  /**
   * Writes one request (its body may come in parts, written one after another without being
   * joined) and waits for its reply; with a pool, the reply is assembled in a rented buffer.
   */
  #sendLeased(
    command: string,
    frame: RequestFrame,
    body: RequestBody,
    pool: BufferPool | undefined,
  ): Promise<{ frame: DecodedFrame; leased: Uint8Array | undefined }> {
    const down = this.#down(command);
    if (down) return Promise.reject(down);
    return new Promise((resolve, reject) => {
      const start = (): void => {
        const error = this.#down(command);
        let bytes: readonly Uint8Array[] = [];
        try {
          if (error) throw error;
          bytes = this.#wire(frame, typeof body === 'function' ? body() : body);
        } catch (failure) {
          reject(failure);
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
        const pending: Pending = {
          command,
          resolve: (decoded) => resolve({ frame: decoded, leased: pending.leased }),
          reject,
          timer,
          pool,
        };
        this.#pending = pending;
        this.#lastActivity = Date.now();
        if (bytes.length === 1) socket.write(bytes[0]!);
        else {
          socket.cork();
          for (const part of bytes) socket.write(part);
          socket.uncork();
        }
      };
      if (this.#pending === undefined && this.#queue.length === 0) start();
      else this.#queue.push(start);
    });
  }

  /**
   * The bytes of one request: header and a small body joined in one buffer; a large body (or one
   * in parts) follows its header as is, not copied.
   */
  #wire(frame: RequestFrame, body: Uint8Array | readonly Uint8Array[]): readonly Uint8Array[] {
    if (body instanceof Uint8Array && body.length < JOIN_BELOW) return [this.protocol.encodeRequest({ ...frame, body })];
    const parts = body instanceof Uint8Array ? [body] : body;
    const length = parts.reduce((n, p) => n + p.length, 0);
    return [this.protocol.encodeRequestHead(frame, length), ...parts];
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
   * Copies received bytes into the frame being assembled: first its header (to learn the size),
   * then a buffer of exactly that size — or, for a request that asked for it, one rented from its
   * pool. Each byte is copied once; nothing is allocated per chunk. A frame that does not decode
   * drops the connection.
   */
  #onData(chunk: Uint8Array): void {
    const { headerSize } = this.protocol;
    let at = 0;
    while (at < chunk.length) {
      if (this.#frame === undefined) {
        const n = Math.min(headerSize - this.#headFilled, chunk.length - at);
        this.#head.set(chunk.subarray(at, at + n), this.#headFilled);
        this.#headFilled += n;
        at += n;
        if (this.#headFilled < headerSize) return;
        this.#headFilled = 0;
        try {
          this.#frameSize = this.protocol.frameSize(this.#head);
        } catch (error) {
          this.#fail(new TransportError('iggy', `bad frame from the server: ${(error as Error).message}`, { retriable: true }));
          return;
        }
        this.#framePool = this.#pending?.pool;
        this.#frame = this.#framePool ? this.#framePool.rent(this.#frameSize) : newFrameBuffer(this.#frameSize);
        this.#frame.set(this.#head);
        this.#frameFilled = headerSize;
      }
      const n = Math.min(this.#frameSize - this.#frameFilled, chunk.length - at);
      this.#frame.set(chunk.subarray(at, at + n), this.#frameFilled);
      this.#frameFilled += n;
      at += n;
      if (this.#frameFilled < this.#frameSize) return;
      if (!this.#frameDone()) return;
    }
  }

  /**
   * Where the socket's next read goes: the rest of the frame being filled when at least
   * {@link DIRECT_READ_MIN} bytes of it are missing (the read cannot run past its end, so no
   * byte of the next frame lands there), else the connection's read buffer.
   */
  #readTarget(readBuffer: Buffer): Uint8Array {
    const frame = this.#frame;
    if (frame === undefined || this.#frameSize - this.#frameFilled < DIRECT_READ_MIN) return readBuffer;
    return frame.subarray(this.#frameFilled, this.#frameSize);
  }

  /** `length` bytes were read straight into the frame being filled. */
  #onDirectRead(length: number): void {
    this.#frameFilled += length;
    if (this.#frameFilled === this.#frameSize) this.#frameDone();
  }

  /** Decodes the frame just filled and hands it on; false when it was bad (the connection failed). */
  #frameDone(): boolean {
    const buffer = this.#frame!;
    const pool = this.#framePool;
    this.#frame = undefined;
    this.#framePool = undefined;
    let frame: DecodedFrame;
    try {
      frame = this.protocol.decodeFrame(buffer.subarray(0, this.#frameSize));
    } catch (error) {
      pool?.give(buffer);
      this.#fail(new TransportError('iggy', `bad frame from the server: ${(error as Error).message}`, { retriable: true }));
      return false;
    }
    const pending = this.#pending;
    if (pool && pending?.pool === pool && frame.kind === 'reply') pending.leased = buffer;
    else pool?.give(buffer);
    this.#onFrame(frame);
    return true;
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
