/** `dependentRequired` and `dependentSchemas` (draft-07 `dependencies` arrive in these spellings). */

import type { SchemaNode } from '../../model/contract-model.js';
import { escapeToken as esc } from '../../pointer.js';
import { type Context, compareSchema, type Edit, type Schema } from './context.js';
import { fix, record } from './record.js';
import { isEmpty, isObject } from './resolve.js';
import { covers } from './sets.js';

export function compareDependencies(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const list = (s: Schema): Record<string, string[]> =>
    isObject(s['dependentRequired']) ? (s['dependentRequired'] as Record<string, string[]>) : {};
  const dw = list(writer);
  const dr = list(reader);
  for (const name of new Set([...Object.keys(dw), ...Object.keys(dr)])) {
    const fromW = new Set(Object.hasOwn(dw, name) ? dw[name] : []);
    const fromR = new Set(Object.hasOwn(dr, name) ? dr[name] : []);
    const demanded = [...fromR].filter((d) => !fromW.has(d));
    const dropped = [...fromW].filter((d) => !fromR.has(d));
    if (demanded.length === 0 && dropped.length === 0) continue;
    const at = `${pointer}/dependentRequired/${esc(name)}`;
    const describe = (o: Schema, n: Schema): Edit => {
      const lo = new Set(Object.hasOwn(list(o), name) ? list(o)[name] : []);
      const ln = new Set(Object.hasOwn(list(n), name) ? list(n)[name] : []);
      const add = [...ln].filter((d) => !lo.has(d));
      const rem = [...lo].filter((d) => !ln.has(d));
      if (add.length > 0 && rem.length === 0) return { code: 'dependent_required_added', facts: { name, values: add } };
      if (rem.length > 0 && add.length === 0) return { code: 'dependent_required_removed', facts: { name, values: rem } };
      return { code: 'dependent_required_changed', facts: { name, from: [...lo], to: [...ln] } };
    };
    record(
      ctx,
      at,
      writer,
      reader,
      demanded.length === 0,
      describe,
      fix(
        ctx,
        'drop the new dependency: old values with the property but not its dependents are rejected',
        `keep ${name} requiring ${demanded.join(', ')}: consumers on the old contract require them`,
      ),
      { earlier: 'dependent_required_added' },
    );
  }
  const schemas = (s: Schema): Record<string, SchemaNode> =>
    isObject(s['dependentSchemas']) ? (s['dependentSchemas'] as Record<string, SchemaNode>) : {};
  const sw = schemas(writer);
  const sr = schemas(reader);
  for (const name of new Set([...Object.keys(sw), ...Object.keys(sr)])) {
    const at = `${pointer}/dependentSchemas/${esc(name)}`;
    const inW = Object.hasOwn(sw, name);
    const inR = Object.hasOwn(sr, name);
    if (inW && inR) {
      compareSchema(ctx, sw[name]!, sr[name]!, at);
      continue;
    }
    if (inR && isEmpty(sr[name]!)) continue;
    if (inW && !inR) {
      record(
        ctx,
        at,
        writer,
        reader,
        true,
        (o) =>
          Object.hasOwn(schemas(o), name)
            ? { code: 'dependent_schema_removed', facts: { name } }
            : { code: 'dependent_schema_added', facts: { name } },
        '',
      );
      continue;
    }
    // Only the reader constrains objects that carry `name`: judged by whether the writer already satisfies it.
    const ok = covers(ctx, writer, sr[name]!);
    record(
      ctx,
      at,
      writer,
      reader,
      ok,
      (o) =>
        Object.hasOwn(schemas(o), name)
          ? { code: 'dependent_schema_removed', facts: { name } }
          : { code: 'dependent_schema_added', facts: { name } },
      fix(
        ctx,
        `drop the dependent schema of ${name}: old values carrying ${name} may not match it`,
        `keep the dependent schema of ${name}: consumers on the old contract check it`,
      ),
    );
  }
}
