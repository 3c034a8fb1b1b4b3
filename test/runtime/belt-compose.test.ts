// The composer of the belt: steps run in order around the end of the chain, empty slots cost
// nothing, and a chain whose steps all answer at once answers at once (the belt's fast path).
import { describe, expect, it } from 'vitest';
import { compose, isPromise, type Next, type Step } from '../../runtime/belt/compose.js';

type Trail = string[];

const sync =
  (name: string): Step<number, Trail, number> =>
  (n, trail, next) => {
    trail.push(`${name}>`);
    const result = next(n + 1, trail);
    if (isPromise(result))
      return result.then((r) => {
        trail.push(`<${name}`);
        return r;
      });
    trail.push(`<${name}`);
    return result;
  };

const deferred =
  (name: string): Step<number, Trail, number> =>
  async (n, trail, next) => {
    trail.push(`${name}>`);
    const result = await next(n + 1, trail);
    trail.push(`<${name}`);
    return result;
  };

const answer: Next<number, Trail, number> = (n, trail) => {
  trail.push(`end ${n}`);
  return n * 10;
};

const answerLater: Next<number, Trail, number> = async (n, trail) => {
  trail.push(`end ${n}`);
  return n * 10;
};

describe('belt composer', () => {
  const cases: readonly {
    readonly name: string;
    readonly steps: readonly (Step<number, Trail, number> | undefined)[];
    readonly end: Next<number, Trail, number>;
    readonly synchronous: boolean;
    readonly trail: readonly string[];
    readonly result: number;
  }[] = [
    { name: 'no steps: the end itself', steps: [], end: answer, synchronous: true, trail: ['end 1'], result: 10 },
    {
      name: 'steps in order, first outermost',
      steps: [sync('a'), sync('b')],
      end: answer,
      synchronous: true,
      trail: ['a>', 'b>', 'end 3', '<b', '<a'],
      result: 30,
    },
    {
      name: 'empty slots are skipped',
      steps: [undefined, sync('a'), undefined, sync('b'), undefined],
      end: answer,
      synchronous: true,
      trail: ['a>', 'b>', 'end 3', '<b', '<a'],
      result: 30,
    },
    {
      name: 'one step that waits makes the chain wait',
      steps: [sync('a'), deferred('b')],
      end: answer,
      synchronous: false,
      trail: ['a>', 'b>', 'end 3', '<b', '<a'],
      result: 30,
    },
    {
      name: 'an end that waits makes the chain wait',
      steps: [sync('a')],
      end: answerLater,
      synchronous: false,
      trail: ['a>', 'end 2', '<a'],
      result: 20,
    },
  ];

  for (const c of cases)
    it(c.name, async () => {
      const trail: Trail = [];
      const result = compose(c.steps, c.end)(1, trail);
      expect(isPromise(result)).toBe(!c.synchronous);
      expect(await result).toBe(c.result);
      expect(trail).toEqual(c.trail);
    });

  it('a step may answer without going on', () => {
    const stop: Step<number, Trail, number> = () => -1;
    const trail: Trail = [];
    expect(compose([sync('a'), stop, sync('b')], answer)(1, trail)).toBe(-1);
    expect(trail).toEqual(['a>', '<a']);
  });

  it('a failure thrown at once reaches the caller at once', () => {
    const fail: Next<number, Trail, number> = () => {
      throw new Error('boom');
    };
    expect(() => compose([sync('a')], fail)(1, [])).toThrow('boom');
  });

  it('the chain is built once and reused', () => {
    const chain = compose([sync('a')], answer);
    expect(chain(1, [])).toBe(20);
    expect(chain(5, [])).toBe(60);
  });
});
