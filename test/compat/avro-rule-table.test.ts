// The rule table of `keiyaku check` for Avro payloads: for each kind of change, the backward and
// forward verdicts and the finding's code and pointer; each verdict cross-checked against avsc's
// resolver (`reader.createResolver(writer)` succeeds exactly when the reader reads every datum of
// the writer), except where a row says why keiyaku decides otherwise.
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { diffAvro } from '../../generator/compat/avro/index.js';
import type { AvroPayloadModel } from '../../generator/model/contract-model.js';
import { avroRows, type Verdict } from './avro-rows.js';
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
    for (const direction of ['backward', 'forward'] as const) {
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

  it('covers every Avro code', async () => {
    const { AVRO_CODES } = await import('../../generator/compat/codes.js');
    const met = new Set(
      avroRows.flatMap((r) => [...diff(r.before, r.after, 'backward'), ...diff(r.before, r.after, 'forward')].map((c) => c.code)),
    );
    expect(AVRO_CODES.filter((code) => !met.has(code))).toEqual([]);
  });
});
