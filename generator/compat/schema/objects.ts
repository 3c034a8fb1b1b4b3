/**
 * Objects: declared properties, `required`, the catch-all (`additionalProperties` /
 * `unevaluatedProperties`) and `patternProperties`, judged by each side's content model (open,
 * closed, partially open) and the policy.
 */

import type { SchemaNode } from '../../model/contract-model.js';
import { escapeToken as esc } from '../../pointer.js';
import { type Context, compareSchema, type Edit, type Schema } from './context.js';
import { compareDependencies } from './dependencies.js';
import { fix, record } from './record.js';
import { isEmpty, isObject } from './resolve.js';
import { covers } from './sets.js';

export type ContentModel = 'open' | 'closed' | 'partial';

export function contentModel(schema: Schema): ContentModel {
  const additional = schema['additionalProperties'];
  const unevaluated = schema['unevaluatedProperties'];
  const patterns = isObject(schema['patternProperties']) && Object.keys(schema['patternProperties']).length > 0;
  if (additional === false || (additional === undefined && unevaluated === false && !patterns)) return 'closed';
  if (
    patterns ||
    (isObject(additional) && !isEmpty(additional)) ||
    (additional === undefined && isObject(unevaluated) && !isEmpty(unevaluated))
  )
    return 'partial';
  return 'open';
}

/** The `patternProperties` schemas whose pattern matches `name`. */
export function matchingPatterns(schema: Schema, name: string): SchemaNode[] {
  const patterns = isObject(schema['patternProperties']) ? (schema['patternProperties'] as Record<string, SchemaNode>) : {};
  return Object.entries(patterns)
    .filter(([pattern]) => {
      try {
        return new RegExp(pattern, 'u').test(name);
      } catch {
        return false;
      }
    })
    .map(([, s]) => s);
}

/** What an object accepts for a property `name` it does not declare: matching patterns, else its catch-all, else anything. */
export function undeclared(schema: Schema, name: string): SchemaNode {
  const matching = matchingPatterns(schema, name);
  if (matching.length === 1) return matching[0]!;
  if (matching.length > 1) return { allOf: matching };
  const additional = schema['additionalProperties'];
  if (additional !== undefined) return additional as SchemaNode;
  const unevaluated = schema['unevaluatedProperties'];
  return unevaluated === undefined ? true : (unevaluated as SchemaNode);
}

export function propertiesOf(schema: Schema): Record<string, SchemaNode> {
  return isObject(schema['properties']) ? (schema['properties'] as Record<string, SchemaNode>) : {};
}

export function requiredOf(schema: Schema): Set<string> {
  return new Set(
    Array.isArray(schema['required']) ? (schema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : [],
  );
}

export const MODEL_WORDS: Record<ContentModel, string> = { open: 'open', closed: 'closed', partial: 'partially open' };

/** The code of a property removed from `neu` (judged by the new content model), as earlier versions named it. */
export function removedCode(name: string, old: Schema, neu: Schema, covered: boolean): Edit {
  const model = contentModel(neu);
  const wasRequired = requiredOf(old).has(name);
  if (propertiesOf(old)[name] === false) return { code: 'property_with_false_removed', facts: { name } };
  if (model === 'partial') {
    return {
      code: covered ? 'property_removed_is_covered_by_partially_open_model' : 'property_removed_not_covered_by_partially_open_model',
      facts: { name, required: wasRequired, accepted: covered },
    };
  }
  return {
    code: `property_removed_from_${model}_model`,
    facts: { name, required: wasRequired },
  };
}

/** The code of a property added in `neu` (judged by the old content model), as earlier versions named it. */
export function addedCode(name: string, old: Schema, neu: Schema, covered: boolean): Edit {
  const schema = propertiesOf(neu)[name]!;
  const required = requiredOf(neu).has(name);
  const hasDefault = isObject(schema) && 'default' in schema;
  const model = contentModel(old);
  if (required)
    return {
      code: hasDefault ? 'required_property_with_default_added' : 'required_property_added',
      facts: { name },
    };
  if (isEmpty(schema)) return { code: 'property_with_empty_schema_added', facts: { name } };
  if (model === 'open') return { code: 'optional_property_added_to_open_model', facts: { name } };
  if (model === 'closed') return { code: 'optional_property_added_to_closed_model', facts: { name } };
  return {
    code: covered ? 'property_added_is_covered_by_partially_open_model' : 'property_added_not_covered_by_partially_open_model',
    facts: { name, accepted: covered },
  };
}

export function compareObjects(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  compareWriterProperties(ctx, writer, reader, pointer);
  compareReaderProperties(ctx, writer, reader, pointer);
  compareRequired(ctx, writer, reader, pointer);
  compareCatchAll(ctx, writer, reader, pointer);
  comparePatterns(ctx, writer, reader, pointer);
  compareDependencies(ctx, writer, reader, pointer);
}

/** Properties the writer declares: compared with the reader's, or read through the reader's catch-all. */
function compareWriterProperties(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = propertiesOf(writer);
  const pr = propertiesOf(reader);
  for (const [name, schema] of Object.entries(pw)) {
    const p = `${pointer}/properties/${esc(name)}`;
    if (Object.hasOwn(pr, name)) {
      compareSchema(ctx, schema, pr[name]!, p);
      continue;
    }
    // The writer declares it, the reader does not: read through the reader's catch-all.
    const model = contentModel(reader);
    const open = undeclared(reader, name);
    const covered = schema === false || isEmpty(open) || covers(ctx, schema, open);
    // Lenient softens nothing here: keiyaku's decoders reject undeclared fields of a closed object.
    const breaking = !covered;
    const describe = (o: Schema, n: Schema): Edit =>
      Object.hasOwn(propertiesOf(n), name) ? addedCode(name, o, n, covered) : removedCode(name, o, n, covered);
    record(
      ctx,
      p,
      writer,
      reader,
      !breaking,
      describe,
      fix(
        ctx,
        model === 'closed' && matchingPatterns(reader, name).length === 0
          ? `open the object (drop additionalProperties: false) as you remove ${name}, or keep ${name} (mark it deprecated)`
          : `keep ${name}, or let ${matchingPatterns(reader, name).length > 0 ? 'the patternProperties schema its name matches' : 'additionalProperties'} accept its values`,
        `keep ${name} out of the schema: consumers on the old contract reject it (${MODEL_WORDS[model]} object)`,
        'step',
      ),
      ctx.forward ? { after: schema } : { before: schema },
    );
  }
}

/** Properties only the reader declares: what the writer produced under that name (if anything) must be read. */
function compareReaderProperties(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = propertiesOf(writer);
  const pr = propertiesOf(reader);
  const rr = requiredOf(reader);
  const [old, neu] = ctx.forward ? [reader, writer] : [writer, reader];
  const lenient = ctx.policy === 'lenient';
  for (const [name, schema] of Object.entries(pr)) {
    if (Object.hasOwn(pw, name)) continue;
    const p = `${pointer}/properties/${esc(name)}`;
    // The reader declares it, the writer does not: what the writer produced under that name (if anything) must be read.
    const required = rr.has(name);
    const hasDefault = isObject(schema) && 'default' in schema;
    const model = contentModel(writer);
    const produced = undeclared(writer, name);
    const covered = produced === false || isEmpty(schema) || covers(ctx, produced, schema);
    let ok: boolean;
    if (required) ok = hasDefault && (model !== 'open' || lenient);
    else if (covered) ok = true;
    else if (model === 'closed') ok = true;
    else ok = lenient; // an undeclared property of the writer is ignorable under the lenient policy
    const describe = (o: Schema, n: Schema): Edit =>
      Object.hasOwn(propertiesOf(n), name) ? addedCode(name, o, n, covered) : removedCode(name, o, n, covered);
    const edit = describe(old, neu);
    // A required property added (backward) passes with a default when undeclared properties cannot
    // clash with it (a closed object, or lenient); in a strict open object nothing but keeping it out does.
    const defaultPasses = model !== 'open' || lenient;
    const hint = required
      ? fix(
          ctx,
          defaultPasses
            ? `give ${name} a default (readers fill it in), or make it optional`
            : `keep ${name} out of the schema (strict: old messages may carry it with another shape; add it in a new message type)`,
          `keep ${name}, and keep it required: consumers on the old contract reject messages without it (making it optional is the same break)`,
          defaultPasses ? 'step' : 'keep',
        )
      : fix(
          ctx,
          `let ${name} accept every value the object allowed before (the empty schema), or use the lenient policy`,
          `keep ${name} in the schema: consumers on the old contract check it`,
          'step',
        );
    record(
      ctx,
      p,
      writer,
      reader,
      ok,
      (o, n) => {
        const e = describe(o, n);
        // Required by the reader and breaking: the messages rejected are those without it.
        return e.code === edit.code && required && !ok ? { code: e.code, facts: { ...e.facts, name, missing: true } } : e;
      },
      hint,
      ctx.forward ? { before: schema } : { after: schema },
    );
  }
}

/** `required` of properties both sides declare: newly required, or no longer required. */
function compareRequired(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const pw = propertiesOf(writer);
  const pr = propertiesOf(reader);
  const rw = requiredOf(writer);
  const rr = requiredOf(reader);
  for (const name of rr) {
    // Newly required (a property the reader alone declares is judged above, as an added property).
    if (rw.has(name) || (Object.hasOwn(pr, name) && !Object.hasOwn(pw, name))) continue;
    const schema = pr[name];
    const hasDefault = isObject(schema) && 'default' in schema;
    // A name the reader requires but does not declare: under strict, declaring it (with a default)
    // in an open object is itself a breaking addition, so the fix is not to require it.
    const declared = Object.hasOwn(pr, name);
    const backward =
      declared || ctx.policy === 'lenient'
        ? `give ${name} a default${declared ? '' : ' in properties'} (readers fill it in), or keep it optional: old values may lack it`
        : `keep ${name} optional: old values need not carry it`;
    record(
      ctx,
      `${pointer}/required`,
      writer,
      reader,
      hasDefault,
      (o, n) =>
        requiredOf(n).has(name) && !requiredOf(o).has(name)
          ? { code: hasDefault ? 'required_attribute_with_default_added' : 'required_attribute_added', facts: { name } }
          : {
              code: 'required_attribute_removed',
              facts: { name },
            },
      fix(
        ctx,
        backward,
        `keep ${name} required: consumers on the old contract reject messages without it`,
        declared || ctx.policy === 'lenient' ? 'step' : 'keep',
      ),
      ctx.forward ? { before: name } : { after: name },
    );
  }
  for (const name of rw) {
    if (rr.has(name) || !Object.hasOwn(pr, name) || !Object.hasOwn(pw, name)) continue;
    record(
      ctx,
      `${pointer}/required`,
      writer,
      reader,
      true,
      (o, n) =>
        requiredOf(o).has(name) && !requiredOf(n).has(name)
          ? { code: 'required_attribute_removed', facts: { name } }
          : { code: 'required_attribute_added', facts: { name } },
      '',
      ctx.forward ? { after: name } : { before: name },
    );
  }
}

/** additionalProperties / unevaluatedProperties / patternProperties of an object. */
export function compareCatchAll(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const mw = contentModel(writer);
  const mr = contentModel(reader);
  const lenient = ctx.policy === 'lenient';
  const keyword = (s: Schema): string =>
    s['additionalProperties'] === undefined && s['unevaluatedProperties'] !== undefined ? 'unevaluatedProperties' : 'additionalProperties';
  // additionalProperties and unevaluatedProperties share codes and the pointer /additionalProperties (ids stay as they were).
  const p = `${pointer}/additionalProperties`;
  const name = (o: Schema, n: Schema): Edit => {
    const mo = contentModel(o);
    const mn = contentModel(n);
    const prefix = 'additional_properties';
    if (mo !== 'closed' && mn === 'closed') return { code: `${prefix}_removed` };
    if (mo === 'closed' && mn !== 'closed') return { code: `${prefix}_added` };
    if (mo === 'open' && mn === 'partial') return { code: `${prefix}_narrowed` };
    if (mo === 'partial' && mn === 'open') return { code: `${prefix}_extended` };
    return { code: `${prefix}_changed` };
  };
  if (mw === 'closed' && mr === 'closed') return;
  const catchW = writer['additionalProperties'] ?? writer['unevaluatedProperties'];
  const catchR = reader['additionalProperties'] ?? reader['unevaluatedProperties'];
  if (mw !== 'closed' && mr === 'closed') {
    // The writer may produce undeclared properties; the reader rejects them. keiyaku's decoders
    // really do, so lenient keeps this breaking when the writer is the other side (backward). A new
    // writer (forward) is this application's generated code, which sends declared properties only.
    const ok = lenient && ctx.forward && mw === 'open';
    record(
      ctx,
      p,
      writer,
      reader,
      ok,
      name,
      fix(ctx, 'keep additionalProperties open', 'keep the object closed: consumers on the old contract reject undeclared properties'),
    );
    return;
  }
  if (mw === 'closed' && mr !== 'closed') {
    record(ctx, p, writer, reader, true, name, '');
    return;
  }
  if (isObject(catchR) && !isEmpty(catchR)) {
    if (catchW === undefined || catchW === true || isEmpty(catchW as SchemaNode)) {
      const ok = lenient && ctx.forward;
      record(
        ctx,
        p,
        writer,
        reader,
        ok,
        name,
        fix(
          ctx,
          'keep additionalProperties open (no schema)',
          'keep the additionalProperties schema: consumers on the old contract check undeclared properties against it',
        ),
        { earlier: 'schema_restricted' },
      );
    } else compareSchema(ctx, catchW as SchemaNode, catchR, `${pointer}/${keyword(reader)}`);
  } else if (isObject(catchW) && !isEmpty(catchW) && mr === 'open') {
    record(ctx, p, writer, reader, true, name, '');
  }
}

/** patternProperties: a pattern on both sides is compared; on one side, judged by what the other side accepts there. */
export function comparePatterns(ctx: Context, writer: Schema, reader: Schema, pointer: string): void {
  const mw = contentModel(writer);
  const mr = contentModel(reader);
  const lenient = ctx.policy === 'lenient';
  const catchW = writer['additionalProperties'] ?? writer['unevaluatedProperties'];
  const catchR = reader['additionalProperties'] ?? reader['unevaluatedProperties'];
  const patternsW = isObject(writer['patternProperties']) ? (writer['patternProperties'] as Record<string, SchemaNode>) : {};
  const patternsR = isObject(reader['patternProperties']) ? (reader['patternProperties'] as Record<string, SchemaNode>) : {};
  for (const [pattern, schema] of Object.entries(patternsW)) {
    const at = `${pointer}/patternProperties/${esc(pattern)}`;
    if (Object.hasOwn(patternsR, pattern)) compareSchema(ctx, schema, patternsR[pattern]!, at);
    else if (mr === 'closed' || (catchR !== undefined && catchR !== true && !covers(ctx, schema, catchR as SchemaNode)))
      record(
        ctx,
        at,
        writer,
        reader,
        false,
        (_o, n) =>
          Object.hasOwn(isObject(n['patternProperties']) ? n['patternProperties'] : {}, pattern)
            ? { code: 'pattern_property_added', facts: { name: pattern } }
            : { code: 'pattern_property_removed', facts: { name: pattern } },
        fix(ctx, 'keep the pattern', 'keep the pattern: consumers on the old contract check it'),
      );
  }
  for (const [pattern, schema] of Object.entries(patternsR)) {
    if (Object.hasOwn(patternsW, pattern)) continue;
    const produced = mw === 'closed' ? false : ((catchW as SchemaNode | undefined) ?? true);
    if (produced === false || covers(ctx, produced, schema)) continue;
    const ok = lenient && !(isObject(produced) && !isEmpty(produced));
    record(
      ctx,
      `${pointer}/patternProperties/${esc(pattern)}`,
      writer,
      reader,
      ok,
      (_o, n) =>
        Object.hasOwn(isObject(n['patternProperties']) ? n['patternProperties'] : {}, pattern)
          ? { code: 'pattern_property_added', facts: { name: pattern } }
          : { code: 'pattern_property_removed', facts: { name: pattern } },
      fix(
        ctx,
        `keep keys matching ${pattern} unconstrained (as before), or use the lenient policy`,
        'keep the pattern constraint: consumers on the old contract check it',
      ),
    );
  }
}
