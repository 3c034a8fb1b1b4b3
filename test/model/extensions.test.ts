// x-keiyaku of the root, a channel or a message (generator/model/extensions.ts): given the
// extension's value, want the settings and the located errors.
import { describe, expect, it } from 'vitest';
import { ownCompatibility, rootCompatibility } from '../../generator/model/extensions.js';
import { at, found } from './nodes.js';

const under =
  (base: string) =>
  (...path: string[]) =>
    at([base, ...path].join('/'));

describe('ownCompatibility (a channel or a message)', () => {
  const cases: { name: string; given: unknown; want: unknown; errors: { message: string; pointer: string }[] }[] = [
    { name: 'absent', given: undefined, want: undefined, errors: [] },
    { name: 'a mode', given: { compatibility: 'forward' }, want: 'forward', errors: [] },
    { name: 'no mode', given: {}, want: undefined, errors: [] },
    {
      name: 'an unknown mode',
      given: { compatibility: 'sideways' },
      want: undefined,
      errors: [
        {
          message:
            'x-keiyaku.compatibility of channel "c" is "sideways", which is not one of backward, forward, full, backward-transitive, forward-transitive, full-transitive, none',
          pointer: '/x/compatibility',
        },
      ],
    },
    {
      name: 'not an object',
      given: 'full',
      want: undefined,
      errors: [{ message: 'x-keiyaku of channel "c" must be an object', pointer: '/x' }],
    },
    {
      name: 'a list',
      given: ['full'],
      want: undefined,
      errors: [{ message: 'x-keiyaku of channel "c" must be an object', pointer: '/x' }],
    },
  ];
  it.each(cases)('$name', ({ given, want, errors }) => {
    const { part, diagnostics } = ownCompatibility(given, 'channel "c"', under('/x'));
    expect(part).toEqual(want);
    expect(found(diagnostics)).toEqual(errors.map((e) => ({ code: 'keiyaku_extension_invalid', severity: 'error', ...e })));
  });
});

describe('rootCompatibility (the document)', () => {
  const cases: { name: string; given: unknown; want: unknown; codes: string[] }[] = [
    { name: 'absent', given: undefined, want: undefined, codes: [] },
    { name: 'empty', given: {}, want: {}, codes: [] },
    {
      name: 'mode, policy and an acknowledgment (a numeric version as text)',
      given: { compatibility: 'full', policy: 'strict', acknowledge: [{ id: 'f1', reason: 'renamed on purpose', version: 2 }] },
      want: { mode: 'full', policy: 'strict', acknowledge: [{ id: 'f1', reason: 'renamed on purpose', version: '2' }] },
      codes: [],
    },
    { name: 'not an object', given: 'full', want: undefined, codes: ['keiyaku_extension_invalid'] },
    { name: 'an unknown policy', given: { policy: 'loose' }, want: {}, codes: ['keiyaku_extension_invalid'] },
    { name: 'acknowledge not a list', given: { acknowledge: { id: 'f1' } }, want: {}, codes: ['keiyaku_extension_invalid'] },
    {
      name: 'an acknowledgment without a reason is left out',
      given: {
        acknowledge: [
          { id: 'f1', reason: ' ', version: '1' },
          { id: 'f2', reason: 'why', version: '1' },
        ],
      },
      want: { acknowledge: [{ id: 'f2', reason: 'why', version: '1' }] },
      codes: ['keiyaku_acknowledgment_invalid'],
    },
    {
      name: 'errors in the order acknowledge, mode, policy',
      given: { compatibility: 'x', policy: 'y', acknowledge: [null] },
      want: {},
      codes: ['keiyaku_acknowledgment_invalid', 'keiyaku_extension_invalid', 'keiyaku_extension_invalid'],
    },
  ];
  it.each(cases)('$name', ({ given, want, codes }) => {
    const { part, diagnostics } = rootCompatibility(given, under('/x-keiyaku'));
    expect(part).toEqual(want);
    expect(diagnostics.map((d) => d.code)).toEqual(codes);
    expect(diagnostics.every((d) => d.severity === 'error')).toBe(true);
  });

  it('locates a bad mode at its key and a bad acknowledgment at the extension', () => {
    const { diagnostics } = rootCompatibility({ compatibility: 'x', acknowledge: [{ id: 1 }] }, under('/x-keiyaku'));
    expect(diagnostics.map((d) => d.location?.pointer)).toEqual(['/x-keiyaku', '/x-keiyaku/compatibility']);
  });
});
