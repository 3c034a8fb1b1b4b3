// The iterator behind IggyConsumer.receive(), over a poll loop of fixed batches: messages of the
// poll at hand are answered at once (a promise that is already settled), also after a poll
// boundary; calls made without waiting are served in order; stores run between messages.
import { describe, expect, it } from 'vitest';
import { type Batch, MessageIterator } from '../../runtime/iggy/message-iterator.js';

async function* polls(batches: readonly (readonly number[])[], log: string[] = []): AsyncGenerator<Batch<number>> {
  try {
    for (const messages of batches) {
      log.push(`poll ${messages.join(',')}`);
      yield { messages };
    }
  } finally {
    log.push('polls ended');
  }
}

/** Whether `promise` has settled after one turn of the microtask queue. */
async function settledWithinOneTurn(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await Promise.resolve();
  return settled;
}

describe('MessageIterator', () => {
  it('answers every message of the poll at hand at once, after a poll boundary too', async () => {
    const iterator = new MessageIterator(
      polls([
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ]),
      undefined,
      undefined,
    );
    const seen: number[] = [];
    const immediate: number[] = [];
    for (let i = 0; i < 9; i++) {
      const next = iterator.next();
      if (await settledWithinOneTurn(next)) immediate.push(i);
      const result = await next;
      if (!result.done) seen.push(result.value);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The first message of each poll waits for the poll; the others do not.
    expect(immediate).toEqual([1, 2, 4, 5, 7, 8]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('serves calls made without waiting in order, across poll boundaries and a return()', async () => {
    const log: string[] = [];
    const iterator = new MessageIterator(polls([[1, 2], [3], [4, 5, 6]], log), undefined, undefined);
    const calls = [iterator.next(), iterator.next(), iterator.next(), iterator.next()];
    expect((await Promise.all(calls)).map((r) => r.value)).toEqual([1, 2, 3, 4]);
    // After those calls settled, nothing is left pending: the next message is answered at once.
    const fifth = iterator.next();
    expect(await settledWithinOneTurn(fifth)).toBe(true);
    const rest = await Promise.all([fifth, iterator.return(undefined), iterator.next()]);
    expect(rest.map((r) => (r.done ? 'done' : r.value))).toEqual([5, 'done', 'done']);
    expect(log).toEqual(['poll 1,2', 'poll 3', 'poll 4,5,6', 'polls ended']);
  });

  it('with a store: stores each message when the next is asked for, not the last one handed out before return()', async () => {
    const log: string[] = [];
    const iterator = new MessageIterator(
      polls([[1, 2], [3]], log),
      async (message) => {
        log.push(`store ${message}`);
        return true;
      },
      undefined,
    );
    const seen: number[] = [];
    for await (const message of iterator) {
      seen.push(message);
      if (message === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(log).toEqual(['poll 1,2', 'store 1', 'store 2', 'poll 3', 'polls ended']);
  });

  it('with a store that fails and recovers: the rest of that poll is dropped', async () => {
    const iterator = new MessageIterator(polls([[1, 2, 3], [4]]), async (message) => message !== 1, undefined);
    const seen: number[] = [];
    for await (const message of iterator) seen.push(message);
    expect(seen).toEqual([1, 4]);
  });

  it('an aborted signal ends the loop at the next call, within a poll', async () => {
    const stop = new AbortController();
    const log: string[] = [];
    const iterator = new MessageIterator(polls([[1, 2, 3]], log), undefined, stop.signal);
    expect(await iterator.next()).toEqual({ done: false, value: 1 });
    stop.abort();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['poll 1,2,3', 'polls ended']);
  });
});
