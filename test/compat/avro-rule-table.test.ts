// The rule table of `keiyaku check` for Avro payloads: for each kind of change, the backward and
// forward verdicts and the finding's code and pointer; each verdict cross-checked against avsc's
// resolver (`reader.createResolver(writer)` succeeds exactly when the reader reads every datum of
// the writer), except where a row says why keiyaku decides otherwise — and against keiyaku's own
// Avro decoder (@keiyaku/avro, avsc with keiyaku's logical types), which consumers resolve with.
import { avroType } from '@keiyaku/avro';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { diffAvro } from '../../generator/compat/avro/index.js';
import type { AvroPayloadModel } from '../../generator/model/contract-model.js';
import { avroRows, book, status, type Verdict, x } from './avro-rows.js';
import { known } from './known-codes.js';

const payload = (schema: unknown): AvroPayloadModel => ({
  kind: 'avro',
  schema,
  name: 'library.Book',
  schemaFormat: 'application/vnd.apache.avro+json;version=1.9.0',
});

const diff = (before: unknown, after: unknown, direction: 'backward' | 'forward') =>
  known(diffAvro(payload(before), payload(after), direction));

const verdict = (before: unknown, after: unknown, direction: 'backward' | 'forward'): Verdict =>
  diff(before, after, direction).some((c) => c.severity === 'breaking') ? 'no' : 'yes';

/** avsc's verdict: the reader resolves the writer. */
function avsc(reader: unknown, writer: unknown): Verdict {
  const r = avro.Type.forSchema(reader as avro.Schema);
  const w = avro.Type.forSchema(writer as avro.Schema);
  try {
    r.createResolver(w);
    return 'yes';
  } catch {
    return 'no';
  }
}

const table = avroRows.map((r) => [r.kind, r.change, r] as const);

describe('Avro rule table', () => {
  it.each(table)('%s: %s', (_kind, _change, row) => {
    expect(verdict(row.before, row.after, 'backward'), 'backward').toBe(row.backward);
    expect(verdict(row.before, row.after, 'forward'), 'forward').toBe(row.forward);
    // The same edit has the same code in both directions, except a state only one reader meets (an ambiguous alias).
    const directions = row.code === 'avro_field_alias_ambiguous' ? (['backward'] as const) : (['backward', 'forward'] as const);
    for (const direction of directions) {
      const changes = diff(row.before, row.after, direction);
      if (row.code === '') expect(changes, direction).toEqual([]);
      else
        expect(
          changes.map((c) => `${c.code} ${c.pointer}`),
          direction,
        ).toContain(`${row.code} ${row.pointer}`);
    }
  });

  it.each(table)('avsc agrees: %s: %s', (_kind, _change, row) => {
    const expected = row.avsc ?? row;
    expect(avsc(row.after, row.before), 'backward: the new schema reads the old').toBe(expected.backward);
    expect(avsc(row.before, row.after), 'forward: the old schema reads the new').toBe(expected.forward);
    if (row.avsc) expect([row.backward, row.forward]).not.toEqual([row.avsc.backward, row.avsc.forward]);
  });

  it.each(table)("keiyaku's Avro decoder agrees: %s: %s", (_kind, _change, row) => {
    const reads = (reader: unknown, writer: unknown): Verdict => {
      try {
        avroType(reader as never).createResolver(avroType(writer as never));
        return 'yes';
      } catch {
        return 'no';
      }
    };
    const expected = row.decoder ?? row;
    expect(reads(row.after, row.before), 'backward').toBe(expected.backward);
    expect(reads(row.before, row.after), 'forward').toBe(expected.forward);
  });

  it("rejects, in keiyaku's decoder, old strings that are not uuids once uuid is added", () => {
    const row = avroRows.find((r) => r.change === 'uuid added to a string')!;
    const old = avro.Type.forSchema(row.before as avro.Schema);
    const reader = avroType(row.after as never);
    const resolver = reader.createResolver(avroType(row.before as never));
    const uuid = '5f0c1a52-8d4e-4b59-9a3e-2f1c7a9b0d61';
    expect(reader.fromBuffer(old.toBuffer({ id: 'b-1', x: uuid }), resolver)).toMatchObject({ x: uuid });
    expect(() => reader.fromBuffer(old.toBuffer({ id: 'b-1', x: 'not-a-uuid' }), resolver)).toThrow('not a uuid');
  });

  it.each([
    ['a field added without a default', book([]), x('string'), x('string', { default: '' })],
    [
      'a field renamed',
      book([{ name: 'title', type: 'string', aliases: ['name'] }]),
      book([{ name: 'name', type: 'string' }]),
      book([{ name: 'name', type: 'string', aliases: ['title'] }]),
    ],
    ['a record renamed', book([]), { ...book([]), name: 'Volume' }, { ...book([]), name: 'Volume', aliases: ['library.Book'] }],
    ['an enum symbol removed', x(status(['A', 'B'])), x(status(['A'])), x(status(['A'], { default: 'A' }))],
  ])('advises a step that passes backward: %s', (_what, before, after, fixed) => {
    const breaking = diff(before, after, 'backward').filter((c) => c.severity === 'breaking');
    expect(breaking).toHaveLength(1);
    expect(breaking[0]!.hint).not.toContain('only when acknowledged');
    expect(diff(before, fixed, 'backward').filter((c) => c.severity === 'breaking')).toEqual([]);
  });

  it('covers every Avro code', async () => {
    const { AVRO_CODES } = await import('../../generator/compat/codes.js');
    const met = new Set(
      avroRows.flatMap((r) => [...diff(r.before, r.after, 'backward'), ...diff(r.before, r.after, 'forward')].map((c) => c.code)),
    );
    expect(AVRO_CODES.filter((code) => !met.has(code))).toEqual([]);
  });
});
