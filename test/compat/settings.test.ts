// `x-keiyaku` compatibility settings in the contract: a channel's or a message's own mode
// changes the verdict, and a mode or policy that does not exist is a located contract error.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ContractModel, compileContract } from 'keiyaku';
import { afterAll, describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';
import { compareContracts, keiyaku } from './known-codes.js';

const dir = scratch('settings');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A one-channel contract; `levels` are the allowed values of the payload's `level`. */
function contractText(levels: readonly string[], extensions: { root?: string; channel?: string; message?: string } = {}): string {
  return `asyncapi: 3.0.0
info:
  title: Audit
  version: 1.0.0
${extensions.root ? `x-keiyaku: ${extensions.root}\n` : ''}channels:
  audit:
    address: audit
${extensions.channel ? `    x-keiyaku: ${extensions.channel}\n` : ''}    messages:
      Entry:
        name: Entry
${extensions.message ? `        x-keiyaku: ${extensions.message}\n` : ''}        payload:
          type: object
          properties:
            level:
              type: string
              enum: [${levels.join(', ')}]
`;
}

let written = 0;
async function compile(text: string): Promise<Awaited<ReturnType<typeof compileContract>>> {
  const file = `asyncapi-${++written}.yaml`;
  writeFileSync(join(dir, file), text);
  return compileContract(file, { cwd: dir });
}

async function model(text: string): Promise<ContractModel> {
  const compiled = await compile(text);
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compiled.model!;
}

/** The verdict, under the default (backward) mode, of adding the level `c`. */
async function addingALevel(extensions: { channel?: string; message?: string }): Promise<string[]> {
  const before = await model(contractText(['a', 'b']));
  const after = await model(contractText(['a', 'b', 'c'], extensions));
  return compareContracts(before, after, { mode: 'backward', policy: 'lenient' }).map(
    (f) => `${f.severity}:${f.code}(${f.direction})@${f.pointer}`,
  );
}

describe('x-keiyaku compatibility of a channel or message', () => {
  it('reads a channel-level mode into the model', async () => {
    const m = await model(contractText(['a'], { channel: '{ compatibility: forward }', message: '{ compatibility: full }' }));
    expect(m.channels[0]!.compatibility).toBe('forward');
    expect(m.messages['Entry']!.compatibility).toBe('full');
  });

  it("a channel's own mode changes the verdict for the messages it carries", async () => {
    expect(await addingALevel({})).toEqual(['compatible:enum_value_added(backward)@/payload/properties/level/enum']);
    expect(await addingALevel({ channel: '{ compatibility: forward }' })).toEqual([
      'breaking:enum_value_added(forward)@/payload/properties/level/enum',
    ]);
    expect(await addingALevel({ channel: '{ compatibility: none }' })).toEqual([]);
  });

  it("a message's own mode wins over its channel's", async () => {
    expect(await addingALevel({ channel: '{ compatibility: forward }', message: '{ compatibility: backward }' })).toEqual([
      'compatible:enum_value_added(backward)@/payload/properties/level/enum',
    ]);
  });
});

describe('mode none means no gate, wherever it is set', () => {
  /** The findings of moving the channel to another address and the message to another content type. */
  async function movingEverything(
    extensions: { root?: string; channel?: string; message?: string },
    mode: 'backward' | 'none',
  ): Promise<string[]> {
    const before = await model(contractText(['a'], extensions));
    const moved = contractText(['a'], extensions)
      .replace('address: audit', 'address: audit.v2')
      .replace('        payload:', '        contentType: application/xml\n        payload:');
    const after = await model(moved);
    return compareContracts(before, after, { mode, policy: 'lenient' }).map((f) => `${f.severity}:${f.code}`);
  }

  it('a channel with mode none reports neither channel nor message changes', async () => {
    expect(await movingEverything({}, 'backward')).toEqual(['breaking:channel_address_changed', 'breaking:content_type_changed']);
    expect(await movingEverything({ channel: '{ compatibility: none }' }, 'backward')).toEqual([]);
  });

  it('a message with mode none reports nothing about the message; its channel is still checked', async () => {
    expect(await movingEverything({ message: '{ compatibility: none }' }, 'backward')).toEqual(['breaking:channel_address_changed']);
  });

  it('a run with mode none still checks a channel that sets its own mode', async () => {
    expect(await movingEverything({}, 'none')).toEqual([]);
    expect(await movingEverything({ channel: '{ compatibility: backward }' }, 'none')).toEqual([
      'breaking:channel_address_changed',
      'breaking:content_type_changed',
    ]);
  });
});

describe('x-keiyaku values that do not exist', () => {
  it.each([
    [{ root: '{ compatibility: sideways }' }, '/x-keiyaku/compatibility', 'x-keiyaku.compatibility is "sideways"'],
    [{ root: '{ policy: loose }' }, '/x-keiyaku/policy', 'x-keiyaku.policy is "loose"'],
    [{ channel: '{ compatibility: backwards }' }, '/channels/audit/x-keiyaku/compatibility', 'of channel "audit" is "backwards"'],
    [{ message: '{ compatibility: 3 }' }, '/channels/audit/messages/Entry/x-keiyaku/compatibility', 'of message "Entry" is 3'],
    [{ channel: 'forward' }, '/channels/audit/x-keiyaku', 'x-keiyaku of channel "audit" must be an object'],
  ])('%j is a located error', async (extensions, pointer, message) => {
    const compiled = await compile(contractText(['a'], extensions));
    expect(compiled.model).toBeUndefined();
    const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'keiyaku_extension_invalid', location: { pointer } });
    expect(errors[0]!.message).toContain(message);
    expect(errors[0]!.location!.line).toBeGreaterThan(0);
    expect(errors[0]!.hint).toBeTruthy();
  });

  it('makes keiyaku check exit 2 with the location and a fix', async () => {
    writeFileSync(join(dir, 'asyncapi.yaml'), contractText(['a'], { root: '{ compatibility: sideways }' }));
    const result = await keiyaku(['check', '--against', 'asyncapi.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^asyncapi\.yaml:5:\d+ error keiyaku_extension_invalid: x-keiyaku\.compatibility is "sideways"/m);
    expect(result.stderr).toContain('fix: write one of backward, forward, full');
    expect(result.stderr).toContain('is not valid; nothing to check');
    expect(result.stdout).toBe('');
  });
});
