// The rule table of `keiyaku check`: for each kind of schema change, the backward verdict
// (can a reader on the new schema accept every value written under the old one?) under the
// strict and lenient policies, with the reason, written from JSON Schema semantics. A row whose
// lenient verdict differs from the schema registry's LENIENT policy says why (keiyaku's decoders
// really reject that data); docs/check.md lists those deliberate differences.
import type { ChannelModel, ContractModel } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { compareContracts, diffSchemas, type Policy } from './known-codes.js';
import { forwardRows, model, N, obj, rows, S, type Verdict, verdict } from './rule-rows.js';

describe('rule table: backward verdicts under strict and lenient', () => {
  it.each(rows)('%s: %s (%s)', (_kind, _change, _reason, before, after, strict, lenient) => {
    const A = { A: obj({ b: S }), A2: obj({ b: N }) };
    const defs = { before: { A: A.A, A2: A.A }, after: A };
    expect(verdict(before, after, 'strict', defs)).toBe(strict);
    expect(verdict(before, after, 'lenient', defs)).toBe(lenient);
  });

  it.each(forwardRows)('forward: %s: %s (%s)', (_kind, _change, _reason, before, after, strict, lenient) => {
    const forward = (policy: Policy): Verdict =>
      diffSchemas(model(before), 'Root', model(after), 'Root', policy, 'forward').some((c) => c.severity === 'breaking') ? 'no' : 'yes';
    expect(forward('strict')).toBe(strict);
    expect(forward('lenient')).toBe(lenient);
  });

  it('covers every kind the gate must reason about', () => {
    const kinds = new Set(rows.map((r) => r[0]));
    for (const kind of ['combinator', 'not', 'partially open', 'tuple', 'array', '$ref', 'dependencies', 'content model'])
      expect(kinds).toContain(kind);
  });
});

/** A contract with one channel whose address has a `region` parameter allowed the given values. */
function regions(values: string[]): ContractModel {
  const channel: ChannelModel = {
    id: 'c',
    identifier: 'C',
    address: 'c.{region}',
    parameters: [{ name: 'region', enum: values }],
    messages: [],
    bindings: {},
    roles: [],
  };
  return { ...model({ type: 'string' }), channels: [channel] };
}

/** [change, reason, before, after, backward (severity, code), forward (severity, code)]. */
const contractRows: [string, string, ContractModel, ContractModel, [string, string], [string, string]][] = [
  [
    'parameter enum value removed',
    'backward: new consumers no longer read the addresses old messages went to; forward: no reader breaks, but consumers of the value stop receiving',
    regions(['earth', 'mars']),
    regions(['earth']),
    ['breaking', 'channel_parameters_changed'],
    ['warning', 'parameter_value_removed'],
  ],
  [
    'parameter enum value added',
    'backward: new consumers read every old address; forward: old consumers do not read the new addresses',
    regions(['earth']),
    regions(['earth', 'mars']),
    ['compatible', 'channel_parameters_changed'],
    ['breaking', 'channel_parameters_changed'],
  ],
];

describe('rule table: contract-level rows, per direction', () => {
  it.each(contractRows)('%s (%s)', (_change, _reason, before, after, backward, forward) => {
    for (const [direction, want] of [
      ['backward', backward],
      ['forward', forward],
    ] as const)
      expect(compareContracts(before, after, { mode: direction, policy: 'lenient' }).map((f) => [f.severity, f.code])).toEqual([want]);
  });
});
