// The rule table of `keiyaku check`: for each kind of schema change, the backward verdict
// (can a reader on the new schema accept every value written under the old one?) under the
// strict and lenient policies, with the reason, written from JSON Schema semantics. A row whose
// lenient verdict differs from the schema registry's LENIENT policy says why (keiyaku's decoders
// really reject that data); docs/check.md lists those deliberate differences.
import { describe, expect, it } from 'vitest';
import { diffSchemas, type Policy } from './known-codes.js';
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
