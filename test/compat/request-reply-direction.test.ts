// `check` and request-reply: the reply's messages travel the other way from the request, so the
// reply channel is checked in the reverse direction of the request's operation. The requester
// (`action: send` with a reply) receives the replies: a reply change is a receive-side change,
// judged backward; the responder (`action: receive` with a reply) sends them: judged forward.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ContractModel, compileContract } from 'keiyaku';
import { afterAll, describe, expect, it } from 'vitest';
import { impliedMode } from '../../generator/compat/contract-diff.js';
import { scratch } from '../helpers.js';
import { compareContracts } from './known-codes.js';

const dir = scratch('request-reply-direction');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Book lookups: this application `action`s the request; the reply's `status` allows `statuses`. */
function contractText(action: 'send' | 'receive', statuses: readonly string[]): string {
  return `asyncapi: 3.0.0
info:
  title: Lookups
  version: 1.0.0
channels:
  lookups:
    address: lookups
    messages:
      BookRequested:
        name: BookRequested
        payload: { type: object, properties: { isbn: { type: string } } }
  lookupReplies:
    address: lookups.replies
    messages:
      BookFound:
        name: BookFound
        payload:
          type: object
          properties:
            status: { type: string, enum: [${statuses.join(', ')}] }
operations:
  getBook:
    action: ${action}
    channel: { $ref: "#/channels/lookups" }
    reply:
      address: { location: "$message.header#/replyTo" }
      channel: { $ref: "#/channels/lookupReplies" }
`;
}

let written = 0;
async function model(text: string): Promise<ContractModel> {
  const file = `asyncapi-${++written}.yaml`;
  writeFileSync(join(dir, file), text);
  const compiled = await compileContract(file, { cwd: dir });
  expect(compiled.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  return compiled.model!;
}

/** The findings on the reply channel when the reply gains the status `lent` (the run's mode left to the operations). */
async function addingAStatus(action: 'send' | 'receive'): Promise<string[]> {
  const before = await model(contractText(action, ['available', 'missing']));
  const after = await model(contractText(action, ['available', 'missing', 'lent']));
  return compareContracts(before, after, { policy: 'lenient' })
    .filter((f) => f.channel === 'lookupReplies')
    .map((f) => `${f.severity}:${f.code}(${f.direction})`);
}

describe('check: the reply channel of a request-reply', () => {
  it("the requester receives the replies: the reply channel is judged backward (a receive-side change); the request's, forward", async () => {
    const m = await model(contractText('send', ['available']));
    const [request, reply] = m.channels;
    expect(reply!.roles).toEqual([{ action: 'receive', operation: 'getBook (reply)' }]);
    expect(impliedMode(reply!).mode).toBe('backward');
    expect(impliedMode(request!).mode).toBe('forward');
    // A reply that may carry a new value: the requester's new code reads old replies, fine; no breaking finding.
    expect((await addingAStatus('send')).filter((f) => f.startsWith('breaking'))).toEqual([]);
  });

  it('the responder sends the replies: the reply channel is judged forward, so a new reply value breaks requesters still on the old contract', async () => {
    const m = await model(contractText('receive', ['available']));
    expect(m.channels[1]!.roles).toEqual([{ action: 'send', operation: 'getBook (reply)' }]);
    expect(impliedMode(m.channels[1]!).mode).toBe('forward');
    const findings = await addingAStatus('receive');
    expect(findings.some((f) => f.startsWith('breaking:') && f.endsWith('(forward)'))).toBe(true);
    expect(findings.some((f) => f.endsWith('(backward)'))).toBe(false);
  });

  it('a reply value removed is a receive-side change for the requester: breaking backward only where old replies are still read', async () => {
    const before = await model(contractText('send', ['available', 'missing']));
    const after = await model(contractText('send', ['available']));
    const findings = compareContracts(before, after, { policy: 'lenient' }).filter((f) => f.channel === 'lookupReplies');
    expect(findings.map((f) => f.direction)).toEqual(findings.map(() => 'backward'));
    expect(findings.some((f) => f.severity === 'breaking')).toBe(true);
  });
});
