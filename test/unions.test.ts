// Behaviour of code generated for unions, tuples, maps, recursion and primitive payloads
// (test/fixtures/unions): the validators enforce what the types cannot.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CatalogChanged, Heartbeat, MetricsReported, PaymentRecorded, Payments } from './fixtures/unions/expected/index.js';

const encoder = new TextEncoder();
const payment = {
  paymentId: '0b8f1c7e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
  amount: { amount: 1250, currency: 'EUR' },
  method: { kind: 'card', last4: '4242' },
} as const;

describe('generated code for unions and friends', () => {
  it('narrows a discriminated union on its const property', () => {
    const message = PaymentRecorded.create(payment);
    const method = message.method;
    if (method.kind === 'card') expectTypeOf(method.last4).toEqualTypeOf<string>();
    else if (method.kind === 'sepa') expectTypeOf(method.iban).toEqualTypeOf<string>();
    expect(method.kind).toBe('card');
  });

  it('rejects a variant that matches none or several oneOf branches', () => {
    const issues = PaymentRecorded.validate({ ...payment, method: { kind: 'card' } });
    expect(issues[0]?.path).toBe('$.method.last4');
    expect(issues).toContainEqual(expect.objectContaining({ keyword: 'oneOf', path: '$.method' }));
    expect(PaymentRecorded.validate({ ...payment, method: { kind: 'cash' } })).toEqual([]);
  });

  it('enforces not, if/then/else, closed tuples and closed objects at run time', () => {
    expect(PaymentRecorded.validate({ ...payment, 'not-a-string': 'x' })[0]?.keyword).toBe('not');
    expect(PaymentRecorded.validate({ ...payment, 'not-a-string': 3 })).toEqual([]);
    expect(PaymentRecorded.validate({ ...payment, conditional: { country: 'US' } })[0]?.keyword).toBe('required');
    expect(PaymentRecorded.validate({ ...payment, conditional: { country: 'US', zip: '10001' } })).toEqual([]);
    expect(PaymentRecorded.validate({ ...payment, coordinates: [1, 2, 3] })[0]?.path).toBe('$.coordinates');
    expect(PaymentRecorded.validate({ ...payment, amount: { amount: 1, currency: 'EUR', extra: 1 } })[0]?.path).toBe('$.amount.extra');
  });

  it('validates recursive schemas to any depth and pattern-keyed maps', () => {
    const leaf = { name: 'leaf', children: [] };
    const deep = { root: { name: 'a', children: [{ name: 'b', children: [{ ...leaf, parent: null }] }] } };
    expect(CatalogChanged.validate(deep)).toEqual([]);
    expect(
      CatalogChanged.validate({ root: { name: 'a', children: [{ name: 'b', children: [{ name: 3, children: [] }] }] } })[0]?.path,
    ).toBe('$.root.children[0].children[0].name');
    expect(CatalogChanged.validate({ ...deep, labels: { en: 'x', fr: 'y' } })).toEqual([]);
    expect(CatalogChanged.validate({ ...deep, labels: { english: 'x' } })[0]?.path).toBe('$.labels.english');
    expect(CatalogChanged.validate({ ...deep, nothing: 1 })[0]?.path).toBe('$.nothing');
  });

  it('carries array payloads and checks unevaluatedProperties and multipleOf', () => {
    const metrics = MetricsReported.create([{ name: 'cpu', value: 0.5 }]);
    expect(Array.isArray(metrics)).toBe(true);
    expect(MetricsReported.validate([{ name: 'cpu', value: 0.3 }])[0]?.keyword).toBe('multipleOf');
    expect(MetricsReported.validate([{ name: 'cpu', value: 1, host: 'a' }])[0]?.keyword).toBe('unevaluatedProperties');
    const roundTrip = Payments.decode(Payments.encode(metrics), 'MetricsReported');
    expect(roundTrip.ok && MetricsReported.is(roundTrip.value) && [...roundTrip.value]).toEqual([{ name: 'cpu', value: 0.5 }]);
  });

  it('boxes a primitive payload in memory and sends the bare value on the wire', () => {
    const beat = Heartbeat.create('2026-11-30T08:00:00Z');
    expect(beat.value).toBe('2026-11-30T08:00:00Z');
    expectTypeOf(beat.value).toEqualTypeOf<string>();
    expect(new TextDecoder().decode(Payments.encode(beat))).toBe('"2026-11-30T08:00:00Z"');
    const decoded = Payments.decode(encoder.encode('"2026-11-30T09:00:00Z"'), 'Heartbeat');
    expect(decoded.ok && Heartbeat.is(decoded.value) && decoded.value.value).toBe('2026-11-30T09:00:00Z');
    const bad = Heartbeat.decode(encoder.encode('"not a time"'));
    expect(bad.ok === false && bad.error.path).toBe('$');
    expect(() => Heartbeat.create('soon')).toThrow(/Heartbeat is not valid at \$: must match format "date-time"/);
  });
});
