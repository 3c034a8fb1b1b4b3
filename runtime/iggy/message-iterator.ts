/**
 * The iterator behind `IggyConsumer.receive()`: the messages of one poll handed out as settled
 * promises, the polls pulled from the consumer's poll loop (an async generator per message costs
 * several times more).
 */
/** What the poll loop yields: the messages of one poll. */
export interface Batch<T> {
  readonly messages: readonly T[];
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The iterator `receive()` returns, with an async generator's contract (`next`, `return`,
 * `throw`; calls are served in order): it hands out the messages of one poll at a time, pulled
 * from the poll loop. With `store`, the offset of each message is stored when the next one is
 * asked for (after the loop handled it); a failed store drops the rest of that poll.
 */
export class MessageIterator<T> implements AsyncGenerator<T, undefined> {
  readonly #polls: AsyncGenerator<Batch<T>>;
  readonly #store: ((message: T) => Promise<boolean>) | undefined;
  readonly #signal: AbortSignal | undefined;
  #messages: readonly T[] = [];
  #next = 0;
  /** The message handed out last, whose offset is stored when the next is asked for. */
  #handed: T | undefined;
  #done = false;
  /** Calls that could not be answered at once and have not finished; while there are any, later calls queue behind them. */
  #pending = 0;
  /** Settles when the last queued call has finished (never rejects). */
  #tail: Promise<unknown> | undefined;

  constructor(polls: AsyncGenerator<Batch<T>>, store: ((message: T) => Promise<boolean>) | undefined, signal: AbortSignal | undefined) {
    this.#polls = polls;
    this.#store = store;
    this.#signal = signal;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#pending === 0 && this.#handed === undefined && this.#next < this.#messages.length && !this.#signal?.aborted) {
      const message = this.#messages[this.#next++]!;
      if (this.#store) this.#handed = message;
      return Promise.resolve({ value: message, done: false });
    }
    return this.#serialized(() => this.#slowNext());
  }

  return(value?: undefined | PromiseLike<undefined>): Promise<IteratorResult<T, undefined>> {
    return this.#serialized(async () => {
      await this.#close();
      await value;
      return DONE;
    });
  }

  throw(error: unknown): Promise<IteratorResult<T, undefined>> {
    return this.#serialized(async () => {
      await this.#close();
      throw error;
    });
  }

  /**
   * Runs `call` after the calls before it settled. The count of pending calls drops before the
   * call's promise settles, so the call after it takes the fast path again at once.
   */
  #serialized<R>(call: () => Promise<R>): Promise<R> {
    const before = this.#pending === 0 ? undefined : this.#tail;
    this.#pending++;
    const run = this.#after(before, call);
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #after<R>(before: Promise<unknown> | undefined, call: () => Promise<R>): Promise<R> {
    try {
      if (before !== undefined) await before;
      return await call();
    } finally {
      this.#pending--;
    }
  }

  async #slowNext(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (this.#done) return DONE;
      const handed = this.#handed;
      if (handed !== undefined) {
        this.#handed = undefined;
        // The store failed and the consumer recovered: the rest of this poll comes again.
        if (!(await this.#store!(handed))) this.#next = this.#messages.length;
      }
      if (this.#signal?.aborted) {
        await this.#close();
        return DONE;
      }
      if (this.#next < this.#messages.length) {
        const message = this.#messages[this.#next++]!;
        if (this.#store) this.#handed = message;
        return { value: message, done: false };
      }
      let polled: IteratorResult<Batch<T>>;
      try {
        polled = await this.#polls.next();
      } catch (error) {
        this.#done = true;
        throw error;
      }
      if (polled.done) {
        this.#done = true;
        return DONE;
      }
      this.#messages = polled.value.messages;
      this.#next = 0;
    }
  }

  /** Ends the poll loop (a poll sent ahead is dropped there); the message handed out last is not stored. */
  async #close(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    this.#handed = undefined;
    this.#messages = [];
    await this.#polls.return(undefined);
  }
}
