/**
 * JSON Schema compatibility: is every value valid under the old schema still valid under
 * the new one? (The backward question; the forward one is the same question with the
 * schemas swapped.) Rules follow Confluent Schema Registry's JSON Schema catalogue, with
 * the content model of each object (open, closed, partially open) deciding property
 * additions and removals, and a `strict` / `lenient` policy for undeclared properties.
 *
 * @see https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/serdes-json.html
 */
import { escapeToken as esc } from '../load/pointer.js';
import { type ContractModel, refName, SCHEMA_REF_PREFIX, type SchemaNode } from '../model/contract-model.js';
import type { CompatSeverity } from './findings.js';

export type Policy = 'strict' | 'lenient';

/** A schema-level finding before it is placed in a channel and message. */
export interface SchemaChange {
  readonly code: string;
  readonly severity: CompatSeverity;
  readonly pointer: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly detail: string;
  readonly hint: string;
}

type Schema = { readonly [keyword: string]: unknown };

interface Context {
  readonly before: ContractModel;
  readonly after: ContractModel;
  readonly policy: Policy;
  readonly seen: Set<string>;
  readonly out: SchemaChange[];
}

const METADATA = ['title', 'description', 'examples', 'default', 'deprecated', '$comment', 'readOnly', 'writeOnly'];

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `#/schemas/<Name>` references (and chains of them) in `model`. */
function resolve(model: ContractModel, node: SchemaNode): { node: SchemaNode; name?: string } {
  let current = node;
  let name: string | undefined;
  for (let hops = 0; hops < 32 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    const target = refName(current['$ref'] as string);
    const named = target === undefined ? undefined : model.schemas[target];
    if (named === undefined) break;
    name = target;
    const { $ref: _ref, ...siblings } = current;
    current = Object.keys(siblings).length === 0 ? named.schema : { allOf: [named.schema, siblings] };
  }
  return name === undefined ? { node: current } : { node: current, name };
}

function types(schema: Schema): Set<string> | undefined {
  const t = schema['type'];
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  return undefined;
}

function accepts(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

function add(ctx: Context, change: SchemaChange): void {
  ctx.out.push(change);
}

function isEmpty(schema: SchemaNode): boolean {
  return schema === true || (isObject(schema) && Object.keys(schema).filter((k) => !METADATA.includes(k)).length === 0);
}

type ContentModel = 'open' | 'closed' | 'partial';

function contentModel(schema: Schema): ContentModel {
  const additional = schema['additionalProperties'];
  const unevaluated = schema['unevaluatedProperties'];
  const patterns = isObject(schema['patternProperties']) && Object.keys(schema['patternProperties']).length > 0;
  if (additional === false || (additional === undefined && unevaluated === false && !patterns)) return 'closed';
  if (patterns || isObject(additional) || (additional === undefined && isObject(unevaluated))) return 'partial';
  return 'open';
}

function bound(
  ctx: Context,
  pointer: string,
  keyword: string,
  before: unknown,
  after: unknown,
  tighterWhen: 'lower' | 'higher',
  what: string,
): void {
  if (before === after) return;
  const p = `${pointer}/${keyword}`;
  if (typeof after !== 'number') {
    add(ctx, {
      code: `${keyword}_removed`,
      severity: 'compatible',
      pointer: p,
      before,
      detail: `${what} ${keyword} ${String(before)} removed`,
      hint: '',
    });
    return;
  }
  if (typeof before !== 'number') {
    add(ctx, {
      code: `${keyword}_added`,
      severity: 'breaking',
      pointer: p,
      after,
      detail: `${what} gained ${keyword} ${after}`,
      hint: `values valid before may now be rejected; drop ${keyword} or add it in a new message type`,
    });
    return;
  }
  const tighter = tighterWhen === 'lower' ? after < before : after > before;
  add(ctx, {
    code: `${keyword}_${tighter ? 'narrowed' : 'widened'}`,
    severity: tighter ? 'breaking' : 'compatible',
    pointer: p,
    before,
    after,
    detail: `${what} ${keyword} ${before} → ${after}`,
    hint: tighter ? `keep ${keyword} at ${before} or looser` : '',
  });
}

function valueKey(value: unknown): string {
  return JSON.stringify(value);
}

/** Compares `before` → `after` at `pointer` (backward: can readers of `after` read every `before` value?). */
export function compareSchema(ctx: Context, rawBefore: SchemaNode, rawAfter: SchemaNode, pointer: string): void {
  const b = resolve(ctx.before, rawBefore);
  const a = resolve(ctx.after, rawAfter);
  if (b.name !== undefined && a.name !== undefined) {
    const key = `${b.name}\u0000${a.name}`;
    if (ctx.seen.has(key)) return; // recursion: compared once
    ctx.seen.add(key);
  }
  const before = b.node;
  const after = a.node;
  if (isEmpty(after)) {
    if (!isEmpty(before))
      add(ctx, { code: 'schema_opened', severity: 'compatible', pointer, detail: 'the schema now accepts anything', hint: '' });
    return;
  }
  if (after === false || before === true || isEmpty(before)) {
    if (before !== false)
      add(ctx, {
        code: 'schema_restricted',
        severity: 'breaking',
        pointer,
        detail: 'a schema that accepted anything now has constraints',
        hint: 'keep accepting every value, or introduce a new message type',
      });
    return;
  }
  if (before === false || !isObject(before) || !isObject(after)) return;

  for (const keyword of METADATA) {
    if (valueKey(before[keyword]) !== valueKey(after[keyword]) && (before[keyword] !== undefined || after[keyword] !== undefined)) {
      add(ctx, {
        code: `${keyword.replace(/^\$/, '')}_changed`,
        severity: 'info',
        pointer: `${pointer}/${esc(keyword)}`,
        before: before[keyword],
        after: after[keyword],
        detail: `${keyword} edited`,
        hint: '',
      });
    }
  }

  // Types
  const tb = types(before);
  const ta = types(after);
  if (ta !== undefined) {
    if (tb === undefined) {
      add(ctx, {
        code: 'type_added',
        severity: 'breaking',
        pointer: `${pointer}/type`,
        after: after['type'],
        detail: `type restricted to ${[...ta].join(', ')}`,
        hint: 'values of other types valid before are now rejected',
      });
    } else {
      const lost = [...tb].filter((t) => !accepts(ta, t));
      const gained = [...ta].filter((t) => !accepts(tb, t));
      if (lost.length > 0) {
        const narrowed = lost.every((t) => t === 'number') && ta.has('integer');
        add(ctx, {
          code: narrowed ? 'type_narrowed' : tb.size > 1 || ta.size > 1 ? 'type_union_narrowed' : 'type_changed',
          severity: 'breaking',
          pointer: `${pointer}/type`,
          before: before['type'],
          after: after['type'],
          detail: `type ${[...tb].join('|')} → ${[...ta].join('|')}`,
          hint: `keep accepting ${lost.join(', ')}`,
        });
      } else if (gained.length > 0 || (tb.has('integer') && !ta.has('integer') && ta.has('number'))) {
        add(ctx, {
          code: 'type_widened',
          severity: 'compatible',
          pointer: `${pointer}/type`,
          before: before['type'],
          after: after['type'],
          detail: `type ${[...tb].join('|')} → ${[...ta].join('|')}`,
          hint: '',
        });
      }
    }
  }

  // const / enum
  if ('const' in after && (!('const' in before) || valueKey(before['const']) !== valueKey(after['const']))) {
    const sameAsEnum =
      Array.isArray(before['enum']) && before['enum'].length === 1 && valueKey(before['enum'][0]) === valueKey(after['const']);
    if (!sameAsEnum)
      add(ctx, {
        code: 'const' in before ? 'const_changed' : 'const_added',
        severity: 'breaking',
        pointer: `${pointer}/const`,
        before: before['const'],
        after: after['const'],
        detail: `const ${valueKey(before['const'])} → ${valueKey(after['const'])}`,
        hint: 'a fixed value cannot change without a new message type',
      });
  } else if ('const' in before && !('const' in after)) {
    add(ctx, {
      code: 'const_removed',
      severity: 'compatible',
      pointer: `${pointer}/const`,
      before: before['const'],
      detail: 'const removed',
      hint: '',
    });
  }
  const eb = Array.isArray(before['enum']) ? (before['enum'] as unknown[]) : 'const' in before ? [before['const']] : undefined;
  const ea = Array.isArray(after['enum']) ? (after['enum'] as unknown[]) : undefined;
  if (ea !== undefined) {
    if (eb === undefined) {
      add(ctx, {
        code: 'enum_added',
        severity: 'breaking',
        pointer: `${pointer}/enum`,
        after: ea,
        detail: `values restricted to ${ea.map(valueKey).join(', ')}`,
        hint: 'values outside the new list were valid before',
      });
    } else {
      const keys = new Set(ea.map(valueKey));
      const removed = eb.filter((v) => !keys.has(valueKey(v)));
      const oldKeys = new Set(eb.map(valueKey));
      const added = ea.filter((v) => !oldKeys.has(valueKey(v)));
      if (removed.length > 0)
        add(ctx, {
          code: 'enum_value_removed',
          severity: 'breaking',
          pointer: `${pointer}/enum`,
          before: removed,
          detail: `enum lost ${removed.map(valueKey).join(', ')}`,
          hint: 'keep the value; mark it deprecated in the description instead',
        });
      if (added.length > 0)
        add(ctx, {
          code: 'enum_value_added',
          severity: 'compatible',
          pointer: `${pointer}/enum`,
          after: added,
          detail: `enum gained ${added.map(valueKey).join(', ')}`,
          hint: 'readers written against the old list must tolerate new values',
        });
    }
  } else if (Array.isArray(before['enum'])) {
    add(ctx, { code: 'enum_removed', severity: 'compatible', pointer: `${pointer}/enum`, detail: 'enum removed', hint: '' });
  }

  // String, number, array, object constraints
  bound(ctx, pointer, 'maxLength', before['maxLength'], after['maxLength'], 'lower', 'string');
  bound(ctx, pointer, 'minLength', before['minLength'], after['minLength'], 'higher', 'string');
  bound(ctx, pointer, 'maximum', before['maximum'], after['maximum'], 'lower', 'number');
  bound(ctx, pointer, 'minimum', before['minimum'], after['minimum'], 'higher', 'number');
  bound(ctx, pointer, 'exclusiveMaximum', before['exclusiveMaximum'], after['exclusiveMaximum'], 'lower', 'number');
  bound(ctx, pointer, 'exclusiveMinimum', before['exclusiveMinimum'], after['exclusiveMinimum'], 'higher', 'number');
  bound(ctx, pointer, 'maxItems', before['maxItems'], after['maxItems'], 'lower', 'array');
  bound(ctx, pointer, 'minItems', before['minItems'], after['minItems'], 'higher', 'array');
  bound(ctx, pointer, 'maxProperties', before['maxProperties'], after['maxProperties'], 'lower', 'object');
  bound(ctx, pointer, 'minProperties', before['minProperties'], after['minProperties'], 'higher', 'object');
  for (const keyword of ['pattern', 'format'] as const) {
    if (before[keyword] === after[keyword]) continue;
    const p = `${pointer}/${keyword}`;
    if (after[keyword] === undefined)
      add(ctx, {
        code: `${keyword}_removed`,
        severity: 'compatible',
        pointer: p,
        before: before[keyword],
        detail: `${keyword} removed`,
        hint: '',
      });
    else
      add(ctx, {
        code: before[keyword] === undefined ? `${keyword}_added` : `${keyword}_changed`,
        severity: 'breaking',
        pointer: p,
        before: before[keyword],
        after: after[keyword],
        detail: `${keyword} ${String(before[keyword] ?? '(none)')} → ${String(after[keyword])}`,
        hint: `strings valid before may not match the new ${keyword}`,
      });
  }
  if (before['multipleOf'] !== after['multipleOf']) {
    const mb = before['multipleOf'];
    const ma = after['multipleOf'];
    const p = `${pointer}/multipleOf`;
    if (typeof ma !== 'number')
      add(ctx, { code: 'multipleOf_removed', severity: 'compatible', pointer: p, before: mb, detail: 'multipleOf removed', hint: '' });
    else if (typeof mb !== 'number')
      add(ctx, {
        code: 'multipleOf_added',
        severity: 'breaking',
        pointer: p,
        after: ma,
        detail: `multipleOf ${ma} added`,
        hint: 'numbers valid before may not be multiples',
      });
    else {
      const divides = Number.isInteger(mb / ma) || Math.abs(mb / ma - Math.round(mb / ma)) < 1e-9;
      add(ctx, {
        code: divides ? 'multipleOf_reduced' : 'multipleOf_changed',
        severity: divides ? 'compatible' : 'breaking',
        pointer: p,
        before: mb,
        after: ma,
        detail: `multipleOf ${mb} → ${ma}`,
        hint: divides ? '' : 'the new multipleOf must divide the old one',
      });
    }
  }
  if (before['uniqueItems'] !== true && after['uniqueItems'] === true)
    add(ctx, {
      code: 'uniqueItems_added',
      severity: 'breaking',
      pointer: `${pointer}/uniqueItems`,
      detail: 'array items must now be unique',
      hint: 'arrays with repeated items were valid before',
    });
  else if (before['uniqueItems'] === true && after['uniqueItems'] !== true)
    add(ctx, {
      code: 'uniqueItems_removed',
      severity: 'compatible',
      pointer: `${pointer}/uniqueItems`,
      detail: 'uniqueItems removed',
      hint: '',
    });

  compareArrays(ctx, before, after, pointer);
  compareObjects(ctx, before, after, pointer);
  compareCombinators(ctx, before, after, pointer);
}

function compareArrays(ctx: Context, before: Schema, after: Schema, pointer: string): void {
  const pb = Array.isArray(before['prefixItems']) ? (before['prefixItems'] as SchemaNode[]) : [];
  const pa = Array.isArray(after['prefixItems']) ? (after['prefixItems'] as SchemaNode[]) : [];
  const restBefore = (before['items'] as SchemaNode | undefined) ?? true;
  const restAfter = (after['items'] as SchemaNode | undefined) ?? true;
  const length = Math.max(pb.length, pa.length);
  for (let i = 0; i < length; i++) {
    const itemBefore = pb[i] ?? restBefore;
    const itemAfter = pa[i] ?? restAfter;
    compareSchema(ctx, itemBefore, itemAfter, `${pointer}/prefixItems/${i}`);
  }
  if ('items' in before || 'items' in after) compareSchema(ctx, restBefore, restAfter, `${pointer}/items`);
}

function propertiesOf(schema: Schema): Record<string, SchemaNode> {
  return isObject(schema['properties']) ? (schema['properties'] as Record<string, SchemaNode>) : {};
}

function requiredOf(schema: Schema): Set<string> {
  return new Set(
    Array.isArray(schema['required']) ? (schema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : [],
  );
}

/** What the catch-all of a partially open object accepts for an undeclared property (additionalProperties, else unevaluated, else anything). */
function catchAll(schema: Schema): SchemaNode {
  const additional = schema['additionalProperties'];
  if (additional !== undefined) return additional as SchemaNode;
  const unevaluated = schema['unevaluatedProperties'];
  return unevaluated === undefined ? true : (unevaluated as SchemaNode);
}

/** True when `narrow` accepts nothing that `wide` rejects, judged by running the diff. */
function covers(ctx: Context, wide: SchemaNode, narrow: SchemaNode): boolean {
  const probe: Context = { ...ctx, seen: new Set(ctx.seen), out: [] };
  compareSchema(probe, narrow, wide, '');
  return !probe.out.some((c) => c.severity === 'breaking');
}

function compareObjects(ctx: Context, before: Schema, after: Schema, pointer: string): void {
  const pb = propertiesOf(before);
  const pa = propertiesOf(after);
  const rb = requiredOf(before);
  const ra = requiredOf(after);
  const modelBefore = contentModel(before);
  const modelAfter = contentModel(after);
  for (const [name, schema] of Object.entries(pb)) {
    const p = `${pointer}/properties/${esc(name)}`;
    if (Object.hasOwn(pa, name)) {
      compareSchema(ctx, schema, pa[name]!, p);
      continue;
    }
    // Removed: judged by the new schema's content model.
    if (schema === false) {
      add(ctx, {
        code: 'property_with_false_removed',
        severity: 'compatible',
        pointer: p,
        detail: `property ${name} (which was forbidden) removed`,
        hint: '',
      });
    } else if (modelAfter === 'open') {
      add(ctx, {
        code: 'property_removed_from_open_model',
        severity: 'compatible',
        pointer: p,
        detail: `property ${name} removed; the object is open so old values still pass`,
        hint: 'readers must not rely on it any more',
      });
    } else if (modelAfter === 'closed') {
      add(ctx, {
        code: 'property_removed_from_closed_model',
        // Not softened by the lenient policy: keiyaku's own decoders reject undeclared fields of a closed object.
        severity: 'breaking',
        pointer: p,
        detail: `property ${name} removed from a closed object: old values that carry it are rejected`,
        hint: 'keep the property (mark it deprecated) or open the object',
      });
    } else {
      const ok = covers(ctx, catchAll(after), schema);
      add(ctx, {
        code: ok ? 'property_removed_is_covered_by_partially_open_model' : 'property_removed_not_covered_by_partially_open_model',
        severity: ok ? 'compatible' : 'breaking',
        pointer: p,
        detail: `property ${name} removed; the catch-all schema ${ok ? 'accepts' : 'does not accept'} its old values`,
        hint: ok ? '' : 'keep the property or widen additionalProperties',
      });
    }
  }
  for (const [name, schema] of Object.entries(pa)) {
    if (Object.hasOwn(pb, name)) continue;
    const p = `${pointer}/properties/${esc(name)}`;
    const required = ra.has(name);
    const hasDefault = isObject(schema) && 'default' in schema;
    if (required) {
      add(ctx, {
        code: hasDefault ? 'required_property_with_default_added' : 'required_property_added',
        severity: hasDefault && (modelBefore !== 'open' || ctx.policy === 'lenient') ? 'compatible' : 'breaking',
        pointer: p,
        after: schema,
        detail: `new required property ${name}: old values lack it`,
        hint: `make ${name} optional (readers fill a default)`,
      });
    } else if (isEmpty(schema)) {
      add(ctx, {
        code: 'property_with_empty_schema_added',
        severity: 'compatible',
        pointer: p,
        detail: `property ${name} added, accepting anything`,
        hint: '',
      });
    } else if (modelBefore === 'open') {
      add(ctx, {
        code: 'optional_property_added_to_open_model',
        severity: ctx.policy === 'strict' ? 'breaking' : 'compatible',
        pointer: p,
        after: schema,
        detail: `optional property ${name} added to an open object${ctx.policy === 'strict' ? ': an old value could carry it with another shape' : ''}`,
        hint: ctx.policy === 'strict' ? 'with the lenient policy (undeclared fields ignorable) this is compatible' : '',
      });
    } else if (modelBefore === 'closed') {
      add(ctx, {
        code: 'optional_property_added_to_closed_model',
        severity: 'compatible',
        pointer: p,
        after: schema,
        detail: `optional property ${name} added to a closed object`,
        hint: '',
      });
    } else {
      const ok = covers(ctx, schema, catchAll(before));
      add(ctx, {
        code: ok ? 'property_added_is_covered_by_partially_open_model' : 'property_added_not_covered_by_partially_open_model',
        severity: ok || ctx.policy === 'lenient' ? 'compatible' : 'breaking',
        pointer: p,
        after: schema,
        detail: `property ${name} added; it ${ok ? 'accepts' : 'does not accept'} what the catch-all accepted`,
        hint: ok ? '' : `widen ${name}'s schema to what additionalProperties allowed`,
      });
    }
  }
  for (const name of ra) {
    if (rb.has(name) || !Object.hasOwn(pb, name)) continue;
    const schema = pa[name];
    const hasDefault = isObject(schema) && 'default' in schema;
    add(ctx, {
      code: hasDefault ? 'required_attribute_with_default_added' : 'required_attribute_added',
      severity: hasDefault ? 'compatible' : 'breaking',
      pointer: `${pointer}/required`,
      after: name,
      detail: `${name} is now required`,
      hint: `old values may lack ${name}; keep it optional`,
    });
  }
  for (const name of rb) {
    if (!ra.has(name) && Object.hasOwn(pa, name))
      add(ctx, {
        code: 'required_attribute_removed',
        severity: 'compatible',
        pointer: `${pointer}/required`,
        before: name,
        detail: `${name} is no longer required`,
        hint: 'readers must handle its absence',
      });
  }
  // The catch-all itself.
  if (modelBefore !== 'closed' || modelAfter !== 'closed') {
    if (modelBefore !== 'closed' && modelAfter === 'closed') {
      add(ctx, {
        code: 'additional_properties_removed',
        severity: 'breaking',
        pointer: `${pointer}/additionalProperties`,
        detail: 'the object was closed: undeclared properties are now rejected',
        hint: 'keep additionalProperties open',
      });
    } else if (modelBefore === 'closed' && modelAfter !== 'closed') {
      add(ctx, {
        code: 'additional_properties_added',
        severity: 'compatible',
        pointer: `${pointer}/additionalProperties`,
        detail: 'the object was opened',
        hint: '',
      });
    } else if (isObject(before['additionalProperties']) || isObject(after['additionalProperties'])) {
      compareSchema(ctx, catchAll(before), catchAll(after), `${pointer}/additionalProperties`);
    }
  }
  const patternsBefore = isObject(before['patternProperties']) ? (before['patternProperties'] as Record<string, SchemaNode>) : {};
  const patternsAfter = isObject(after['patternProperties']) ? (after['patternProperties'] as Record<string, SchemaNode>) : {};
  for (const [pattern, schema] of Object.entries(patternsBefore)) {
    const p = `${pointer}/patternProperties/${esc(pattern)}`;
    if (Object.hasOwn(patternsAfter, pattern)) compareSchema(ctx, schema, patternsAfter[pattern]!, p);
    else if (modelAfter === 'closed')
      add(ctx, {
        code: 'pattern_property_removed',
        severity: 'breaking',
        pointer: p,
        detail: `keys matching ${pattern} are no longer allowed`,
        hint: 'keep the pattern',
      });
  }
  const depsBefore = isObject(before['dependentRequired']) ? (before['dependentRequired'] as Record<string, string[]>) : {};
  const depsAfter = isObject(after['dependentRequired']) ? (after['dependentRequired'] as Record<string, string[]>) : {};
  for (const [name, list] of Object.entries(depsAfter)) {
    const old = new Set(Object.hasOwn(depsBefore, name) ? depsBefore[name] : []);
    const added = list.filter((d) => !old.has(d));
    if (added.length > 0)
      add(ctx, {
        code: 'dependent_required_added',
        severity: 'breaking',
        pointer: `${pointer}/dependentRequired/${esc(name)}`,
        after: added,
        detail: `${name} now requires ${added.join(', ')}`,
        hint: 'old values with the property but not its dependents are rejected',
      });
  }
  for (const [name, list] of Object.entries(depsBefore)) {
    const now = new Set(Object.hasOwn(depsAfter, name) ? depsAfter[name] : []);
    const removed = list.filter((d) => !now.has(d));
    if (removed.length > 0)
      add(ctx, {
        code: 'dependent_required_removed',
        severity: 'compatible',
        pointer: `${pointer}/dependentRequired/${esc(name)}`,
        before: removed,
        detail: `${name} no longer requires ${removed.join(', ')}`,
        hint: '',
      });
  }
}

function compareCombinators(ctx: Context, before: Schema, after: Schema, pointer: string): void {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const b = Array.isArray(before[keyword]) ? (before[keyword] as SchemaNode[]) : undefined;
    const a = Array.isArray(after[keyword]) ? (after[keyword] as SchemaNode[]) : undefined;
    if (b === undefined && a === undefined) continue;
    const p = `${pointer}/${keyword}`;
    if (a === undefined) {
      add(ctx, { code: `${keyword}_removed`, severity: 'compatible', pointer: p, detail: `${keyword} removed`, hint: '' });
      continue;
    }
    if (b === undefined) {
      add(ctx, {
        code: `${keyword}_added`,
        severity: 'breaking',
        pointer: p,
        detail: `${keyword} added: values must now match one of ${a.length} branches`,
        hint: 'values valid before may match no branch',
      });
      continue;
    }
    // Match branches one-to-one: each old branch needs a new branch that accepts all it accepted.
    const free = new Set(a.map((_, i) => i));
    b.forEach((branch, i) => {
      const match = [...free].find((j) => covers(ctx, a[j]!, branch));
      if (match === undefined) {
        add(ctx, {
          code: `${keyword}_branch_removed_or_narrowed`,
          severity: 'breaking',
          pointer: `${p}/${i}`,
          before: branch,
          detail: `${keyword} branch ${i} has no counterpart that accepts all its values`,
          hint: 'keep the branch, or only widen it',
        });
      } else {
        free.delete(match);
        compareSchema(ctx, branch, a[match]!, `${p}/${match}`);
      }
    });
    for (const j of free)
      add(ctx, {
        code: `${keyword}_branch_added`,
        severity: 'compatible',
        pointer: `${p}/${j}`,
        after: a[j],
        detail: `${keyword} gained branch ${j}`,
        hint: 'readers must handle the new variant',
      });
  }
  const ab = Array.isArray(before['allOf']) ? (before['allOf'] as SchemaNode[]) : [];
  const aa = Array.isArray(after['allOf']) ? (after['allOf'] as SchemaNode[]) : [];
  if (ab.length > 0 || aa.length > 0) {
    const free = new Set(ab.map((_, i) => i));
    aa.forEach((branch, j) => {
      const match = [...free].find((i) => covers(ctx, branch, ab[i]!));
      if (match === undefined)
        add(ctx, {
          code: 'allOf_branch_added_or_narrowed',
          severity: 'breaking',
          pointer: `${pointer}/allOf/${j}`,
          after: branch,
          detail: `allOf gained a constraint (branch ${j})`,
          hint: 'every value must now also match it',
        });
      else {
        free.delete(match);
        compareSchema(ctx, ab[match]!, branch, `${pointer}/allOf/${j}`);
      }
    });
    for (const i of free)
      add(ctx, {
        code: 'allOf_branch_removed',
        severity: 'compatible',
        pointer: `${pointer}/allOf/${i}`,
        detail: `allOf lost branch ${i}`,
        hint: '',
      });
  }
  if (valueKey(before['not']) !== valueKey(after['not'])) {
    if (after['not'] === undefined)
      add(ctx, { code: 'not_removed', severity: 'compatible', pointer: `${pointer}/not`, detail: 'not removed', hint: '' });
    else
      add(ctx, {
        code: before['not'] === undefined ? 'not_added' : 'not_changed',
        severity: 'breaking',
        pointer: `${pointer}/not`,
        before: before['not'],
        after: after['not'],
        detail: '`not` added or changed',
        hint: 'values valid before may now be excluded',
      });
  }
}

/** Compares the named schema `beforeName` of `before` with `afterName` of `after` (backward direction). */
export function diffSchemas(
  before: ContractModel,
  beforeName: string,
  after: ContractModel,
  afterName: string,
  policy: Policy,
): SchemaChange[] {
  const ctx: Context = { before, after, policy, seen: new Set(), out: [] };
  compareSchema(ctx, { $ref: `${SCHEMA_REF_PREFIX}${beforeName}` }, { $ref: `${SCHEMA_REF_PREFIX}${afterName}` }, '');
  return ctx.out;
}

/** Compares two inline schemas (e.g. Kafka message keys) whose `$ref`s, if any, point into the given models. */
export function diffNodes(
  before: ContractModel,
  beforeNode: SchemaNode,
  after: ContractModel,
  afterNode: SchemaNode,
  policy: Policy,
): SchemaChange[] {
  const ctx: Context = { before, after, policy, seen: new Set(), out: [] };
  compareSchema(ctx, beforeNode, afterNode, '');
  return ctx.out;
}
