// ContractMocks on small contracts: determinism, examples first, round-robin over a channel's
// messages, and the typed refusals that name the schema and the place inside it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractMocks, type ContractModel, compileContract, MockError } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { repoRoot, scratch } from '../helpers.js';

async function modelOf(payloads: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<ContractModel> {
  const dir = scratch('mock-contract');
  const messages = Object.fromEntries(Object.entries(payloads).map(([name, payload]) => [name, { name, payload, ...extra }]));
  writeFileSync(
    join(dir, 'asyncapi.yaml'),
    JSON.stringify({
      asyncapi: '3.0.0',
      info: { title: 'Mocks', version: '1.0.0' },
      channels: {
        things: {
          address: 'things',
          messages: Object.fromEntries(Object.keys(payloads).map((n) => [n, { $ref: `#/components/messages/${n}` }])),
        },
      },
      components: { messages },
    }),
  );
  const compiled = await compileContract('asyncapi.yaml', { cwd: dir });
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compiled.model!;
}

const refusal = (run: () => unknown): MockError => {
  try {
    run();
  } catch (error) {
    if (error instanceof MockError) return error;
    throw error;
  }
  throw new Error('expected a MockError');
};

describe('ContractMocks', () => {
  it('gives the same messages for the same seed, other ones for another seed', async () => {
    const compiled = await compileContract('asyncapi.yaml', { cwd: repoRoot });
    const a = new ContractMocks(compiled.model!).channel('bookIntegrationEvents', 12, { seed: 42 });
    const b = new ContractMocks(compiled.model!).channel('bookIntegrationEvents', 12, { seed: 42 });
    const c = new ContractMocks(compiled.model!).channel('bookIntegrationEvents', 12, { seed: 43 });
    expect(b).toEqual(a);
    expect(c.slice(1)).not.toEqual(a.slice(1));
    expect(new Set(a.map((m) => JSON.stringify(m.payload))).size).toBe(12);
  });

  it("publishes the contract's examples first, then built values one message type after the other", async () => {
    const compiled = await compileContract('asyncapi.yaml', { cwd: repoRoot });
    const messages = new ContractMocks(compiled.model!).channel('bookIntegrationEvents', 5);
    expect(messages.map((m) => [m.type, m.origin, m.example])).toEqual([
      ['BookBorrowed', 'example', 'first-loan'],
      ['BookBorrowed', 'generated', undefined],
      ['BookReturned', 'generated', undefined],
      ['BookBorrowed', 'generated', undefined],
      ['BookReturned', 'generated', undefined],
    ]);
    expect(messages[0]!.payload).toEqual(compiled.model!.messages['BookBorrowed']!.examples[0]!.payload);
    const withoutExamples = new ContractMocks(compiled.model!).channel('bookIntegrationEvents', 2, { examples: false });
    expect(withoutExamples.map((m) => m.origin)).toEqual(['generated', 'generated']);
  });

  it('builds a primitive payload bare, and the schema examples of a payload as examples', async () => {
    const model = await modelOf({ Tick: { type: 'string', format: 'date-time', examples: ['2026-01-02T03:04:05Z'] } });
    const [first, second] = new ContractMocks(model).channel('things', 2);
    expect(first).toEqual({ type: 'Tick', payload: '2026-01-02T03:04:05Z', origin: 'example', example: 'payload schema #1' });
    expect(second!.payload).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('refuses a pattern it cannot build, naming the schema, the place and the construct', async () => {
    const model = await modelOf({
      Code: { type: 'object', required: ['code'], properties: { code: { type: 'string', pattern: '^(?=a)\\w+$' } } },
    });
    const error = refusal(() => new ContractMocks(model).message('Code', 1));
    expect(error.code).toBe('mock_unsupported');
    expect(error.schema).toBe('CodePayload');
    expect(error.pointer).toBe('/properties/code/pattern');
    expect(error.message).toContain('pattern "^(?=a)\\\\w+$" has a lookahead or lookbehind assertion, which mock values cannot build');
    expect(error.message).toContain('asyncapi.yaml');
    expect(error.message).toContain('give the message an example');
  });

  it('refuses a schema no value satisfies, by name', async () => {
    const model = await modelOf({
      Bounds: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 5, maximum: 4 } } },
      Never: { type: 'object', required: ['x'], properties: { x: false } },
    });
    const mocks = new ContractMocks(model);
    expect(refusal(() => mocks.message('Bounds', 1))).toMatchObject({ code: 'mock_unsatisfiable', pointer: '/properties/n' });
    expect(refusal(() => mocks.message('Never', 1))).toMatchObject({ code: 'mock_unsatisfiable', pointer: '/properties/x' });
  });

  it('refuses an unknown channel, listing the channels', async () => {
    const model = await modelOf({ A: { type: 'string' } });
    expect(refusal(() => new ContractMocks(model).channel('nope', 1))).toMatchObject({
      code: 'mock_unknown',
      message: 'the contract has no channel "nope" (channels: things)',
    });
  });
});
