// The fix `keiyaku check` prints with a breaking finding must be a step that passes the gate, or
// say that only an acknowledgment lets the change through. Driven from the rule table: for every
// breaking row, in its direction and under both policies, the first step each finding advises is
// applied to the contract and checked again; it must pass. A fix that keeps the schema as it was
// says that the change itself passes only when acknowledged, unless it names another way.
import type { ChannelModel, ContractModel, MessageModel, SchemaNode } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { onlyAcknowledgment } from '../../generator/compat/findings.js';
import { compareContracts, diffSchemas, type Policy } from './known-codes.js';
import { DEFS, forwardRows, model, obj, type Row, rows, S } from './rule-rows.js';

type Direction = 'backward' | 'forward';
type Json = Record<string, unknown>;

const clone = <T>(value: T): T => structuredClone(value);
const tokens = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

function get(node: unknown, path: readonly string[]): unknown {
  let current = node;
  for (const t of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, t)) return undefined;
    current = (current as Json)[t];
  }
  return current;
}

/** `root` with the value at `path` replaced by `value` (removed when undefined); undefined when its parent is missing. */
function set(root: SchemaNode, path: readonly string[], value: unknown): SchemaNode | undefined {
  if (path.length === 0) return clone(value as SchemaNode);
  const out = clone(root);
  const parent = get(out, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object') return undefined;
  const key = path.at(-1)!;
  if (value === undefined) delete (parent as Json)[key];
  else (parent as Json)[key] = clone(value);
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * "keep …" / "drop …": the schema with the node the finding points at as it was in the old one. A
 * node reached through a `$ref` is not written at that path: then its nearest written ancestor that
 * changed. A property is kept whole: its schema and whether it is required.
 */
function revert(before: SchemaNode, current: SchemaNode, pointer: string): SchemaNode {
  const path = tokens(pointer);
  for (let n = path.length; n >= 0; n--) {
    const at = path.slice(0, n);
    if (same(get(before, at), get(current, at))) continue;
    let step = set(current, at, get(before, at));
    if (step === undefined) continue;
    if (at.at(-2) === 'properties') {
      const required = [...at.slice(0, -2), 'required'];
      const was = ((get(before, required) as string[] | undefined) ?? []).includes(at.at(-1)!);
      const now = (get(step, required) as string[] | undefined) ?? [];
      const next = was ? [...new Set([...now, at.at(-1)!])] : now.filter((r) => r !== at.at(-1));
      step = set(step, required, next.length === 0 && get(before, required) === undefined ? undefined : next) ?? step;
    }
    return step;
  }
  return clone(current);
}

/** The object a finding at `pointer` is about: `/a/properties/b` → `/a`, `/a/required` → `/a`. */
function objectPath(pointer: string): string[] {
  const path = tokens(pointer);
  const i = path.lastIndexOf('properties');
  return i >= 0 && i === path.length - 2 ? path.slice(0, i) : path.slice(0, -1);
}

function sample(schema: unknown): unknown {
  const type = (schema as Json | undefined)?.['type'];
  return type === 'string' ? '' : type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : null;
}

/** The step a fix advises first, applied to the new schema; undefined when the fix names no step this test knows. */
function applyFix(hint: string, before: SchemaNode, after: SchemaNode, pointer: string): { step: SchemaNode } | undefined {
  // "the schema as it was": the schema that holds the keyword the finding points at.
  if (/^keep the schema as it was/.test(hint)) return { step: revert(before, after, pointer.replace(/\/(anyOf|oneOf|allOf|not)$/, '')) };
  if (/^(keep|drop) /.test(hint)) return { step: revert(before, after, pointer) };
  const defaulted = /^give (\S+) a default/.exec(hint);
  if (defaulted) {
    const path = [...objectPath(pointer), 'properties', defaulted[1]!];
    const property = get(after, path) as Json;
    return { step: set(after, path, { ...property, default: sample(property) })! };
  }
  if (/^open the object/.test(hint)) {
    const path = objectPath(pointer);
    const object = { ...(get(after, path) as Json) };
    delete object['additionalProperties'];
    delete object['unevaluatedProperties'];
    return { step: set(after, path, object)! };
  }
  const accepting = /^let (\S+) accept every value/.exec(hint);
  if (accepting) return { step: set(after, [...objectPath(pointer), 'properties', accepting[1]!], {})! };
  return undefined;
}

function breakingChanges(before: SchemaNode, after: SchemaNode, policy: Policy, direction: Direction) {
  return diffSchemas(model(before, DEFS.before), 'Root', model(after, DEFS.after), 'Root', policy, direction).filter(
    (c) => c.severity === 'breaking',
  );
}

/**
 * Every breaking row of the rule table in its direction, and each backward row's edit undone read
 * forward (old readers, new writers: the reverse edit meets the same pair of schemas), where that
 * breaks, so the forward fixes of every kind of change are tried too (`$ref` rows name definitions
 * that differ per side, and are not reversed).
 */
const cases = [...rows.map((row) => ['backward', row] as const), ...forwardRows.map((row) => ['forward', row] as const)].flatMap(
  ([direction, row]: readonly [Direction, Row]) =>
    (['strict', 'lenient'] as const)
      .filter((policy) => row[policy === 'strict' ? 5 : 6] === 'no')
      .map((policy) => [`${direction} ${policy}: ${row[0]}: ${row[1]}`, direction, policy, row[3], row[4]] as const),
);
const reversed = rows
  .filter((row) => row[0] !== '$ref')
  .flatMap((row) =>
    (['strict', 'lenient'] as const)
      .filter((policy) => breakingChanges(row[4], row[3], policy, 'forward').length > 0)
      .map((policy) => [`forward ${policy}: ${row[0]}: ${row[1]}, undone`, 'forward' as Direction, policy, row[4], row[3]] as const),
  );

describe('check: every fix it advises passes the gate, or says only an acknowledgment does', () => {
  it('has breaking rows in both directions under both policies to drive it', () => {
    const kinds = new Set(cases.map(([, direction, policy]) => `${direction} ${policy}`));
    expect([...kinds].sort()).toEqual(['backward lenient', 'backward strict', 'forward lenient', 'forward strict']);
    expect(cases.length).toBeGreaterThan(60);
    expect(reversed.length).toBeGreaterThan(40);
  });

  it.each([...cases, ...reversed])('%s', (_name, direction, policy, before, after) => {
    const changes = breakingChanges(before, after, policy, direction);
    expect(changes.length, 'the row is breaking').toBeGreaterThan(0);
    // The user follows every fix printed (one finding, one step), then checks again.
    let step = after;
    for (const change of changes) {
      const what = `${change.code} at ${change.pointer || '/'}: fix "${change.hint}"`;
      // No advice that sends the user round in circles: a later release does not make the same change pass.
      expect(change.hint, what).not.toMatch(/until every consumer|until they have moved|first, remove|in a later release/);
      const fix = applyFix(change.hint, before, step, change.pointer);
      expect(fix, `${what}: names no step`).toBeDefined();
      step = fix!.step;
      // Keeping the schema as it was does not make the change: say how the change itself gets through.
      if (/^(keep|drop) /.test(change.hint)) expect(onlyAcknowledgment(change.hint) || /, or /.test(change.hint), what).toBe(true);
      // Forward, nothing but not making the change keeps old consumers reading.
      if (direction === 'forward') expect(onlyAcknowledgment(change.hint), what).toBe(true);
    }
    const still = breakingChanges(before, step, policy, direction);
    expect(
      still.map((c) => `${c.code} at ${c.pointer}`),
      `the advised steps give ${JSON.stringify(step)}, which does not pass: ${changes.map((c) => c.hint).join(' | ')}`,
    ).toEqual([]);
  });

  it('does not advise making a required property optional first when that is the same break (forward)', () => {
    const before = obj({ a: S, b: S }, { required: ['a', 'b'] });
    const removed = obj({ a: S }, { required: ['a'] });
    const optional = obj({ a: S, b: S }, { required: ['a'] });
    for (const policy of ['strict', 'lenient'] as const) {
      const [change] = breakingChanges(before, removed, policy, 'forward');
      expect(change!.hint).not.toMatch(/optional first/);
      expect(change!.hint).toContain('making it optional is the same break');
      expect(onlyAcknowledgment(change!.hint)).toBe(true);
      // What it warns against: the "first step" is itself breaking.
      expect(breakingChanges(before, optional, policy, 'forward').map((c) => c.code)).toEqual(['required_attribute_removed']);
    }
  });

  it('advises a default for a required property added only where a default passes (strict open objects: keep it out)', () => {
    const before = obj({ a: S });
    const after = obj({ a: S, b: S }, { required: ['b'] });
    const [lenient] = breakingChanges(before, after, 'lenient', 'backward');
    expect(lenient!.hint).toMatch(/^give b a default/);
    expect(onlyAcknowledgment(lenient!.hint)).toBe(false);
    const [strict] = breakingChanges(before, after, 'strict', 'backward');
    expect(strict!.hint).toMatch(/^keep b out of the schema/);
    expect(onlyAcknowledgment(strict!.hint)).toBe(true);
    // The advice a strict open object used to get: a default does not pass there.
    const withDefault = obj({ a: S, b: { ...S, default: '' } }, { required: ['b'] });
    expect(breakingChanges(before, withDefault, 'strict', 'backward').length).toBeGreaterThan(0);
  });
});

// Contract-level findings: the same promise, checked on small contracts.
function contract(channel: Partial<ChannelModel>, messages: Record<string, Partial<MessageModel>> = { M: {} }): ContractModel {
  return {
    source: 'asyncapi.yaml',
    asyncapi: '3.0.0',
    info: { title: 't', version: '1.0.0' },
    channels: [
      {
        id: 'c',
        identifier: 'C',
        address: 'c.{region}',
        parameters: [],
        messages: Object.keys(messages),
        bindings: {},
        roles: [],
        ...channel,
      },
    ],
    messages: Object.fromEntries(
      Object.entries(messages).map(([type, m]) => [
        type,
        {
          type,
          id: type,
          identifier: type,
          contentType: 'application/json',
          payload: 'Root',
          boxed: false,
          examples: [],
          deprecated: false,
          ...m,
        },
      ]),
    ),
    operations: [],
    schemas: {
      Root: { name: 'Root', schema: { type: 'string' }, origin: 'component' },
      H: {
        name: 'H',
        schema: { type: 'object', properties: { tenantId: { type: 'string' } }, required: ['tenantId'] },
        origin: 'component',
      },
    },
  };
}

const region = (values?: string[]) => [{ name: 'region', ...(values === undefined ? {} : { enum: values }) }] as ChannelModel['parameters'];

/** [what, before, after, mode, the step a user takes on the fix's advice]. */
const contractCases: [string, ContractModel, ContractModel, 'backward' | 'forward' | 'full', ContractModel][] = [
  [
    'message type removed',
    contract({}, { M: {}, N: {} }),
    contract({}, { M: {} }),
    'full',
    contract({}, { M: {}, N: { deprecated: true } }),
  ],
  ['address changed', contract({}), contract({ address: 'd.{region}' }), 'full', contract({})],
  [
    'parameter value removed (backward)',
    contract({ parameters: region(['earth', 'mars']) }),
    contract({ parameters: region(['earth']) }),
    'backward',
    contract({ parameters: region(['earth', 'mars']) }),
  ],
  [
    'parameter value added (forward)',
    contract({ parameters: region(['earth']) }),
    contract({ parameters: region(['earth', 'mars']) }),
    'forward',
    contract({ parameters: region(['earth']) }),
  ],
  [
    'partitions reduced',
    contract({ bindings: { kafka: { partitions: 6 } } }),
    contract({ bindings: { kafka: { partitions: 3 } } }),
    'full',
    contract({ bindings: { kafka: { partitions: 6 } } }),
  ],
  ['headers schema added (backward)', contract({}), contract({}, { M: { headers: 'H' } }), 'backward', contract({})],
  [
    'headers schema removed (forward)',
    contract({}, { M: { headers: 'H' } }),
    contract({}),
    'forward',
    contract({}, { M: { headers: 'H' } }),
  ],
  [
    'Kafka key schema removed (forward)',
    contract({}, { M: { kafkaKey: { type: 'string', format: 'uuid' } } }),
    contract({}),
    'forward',
    contract({}, { M: { kafkaKey: { type: 'string', format: 'uuid' } } }),
  ],
  [
    'Kafka key schema narrowed (backward)',
    contract({}, { M: { kafkaKey: { type: 'string' } } }),
    contract({}, { M: { kafkaKey: { type: 'string', format: 'uuid' } } }),
    'backward',
    contract({}, { M: { kafkaKey: { type: 'string' } } }),
  ],
  [
    'parameter removed',
    contract({ parameters: region() }),
    contract({ address: 'c', parameters: [] }),
    'full',
    contract({ parameters: region() }),
  ],
  [
    'content type changed',
    contract({}),
    contract({}, { M: { contentType: 'application/avro' } }),
    'full',
    contract({}, { M: {}, MAvro: { contentType: 'application/avro' } }),
  ],
];

describe('check: contract-level fixes pass the gate, or say only an acknowledgment does', () => {
  it.each(contractCases)('%s', (_what, before, after, mode, step) => {
    const findings = compareContracts(before, after, { mode, policy: 'lenient' }).filter((f) => f.severity === 'breaking');
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.hint, f.code).not.toMatch(/until every consumer|until no retained|and migrate|can only grow$/);
      expect(onlyAcknowledgment(f.hint), `${f.code}: ${f.hint}`).toBe(true);
      expect(f.hint, f.code).toMatch(/^(keep|drop) /);
    }
    expect(compareContracts(before, step, { mode, policy: 'lenient' }).filter((f) => f.severity === 'breaking')).toEqual([]);
  });

  it('the alternatives the fixes name pass: a new channel, a new message type', () => {
    const one = contract({});
    const withChannel: ContractModel = { ...one, channels: [...one.channels, { ...one.channels[0]!, id: 'c2', address: 'c2' }] };
    expect(compareContracts(one, withChannel, { mode: 'full', policy: 'lenient' }).map((f) => [f.code, f.severity])).toEqual([
      ['channel_added', 'compatible'],
    ]);
    expect(
      compareContracts(one, contract({}, { M: {}, M2: {} }), { mode: 'full', policy: 'lenient' }).map((f) => [f.code, f.severity]),
    ).toEqual([['message_added', 'compatible']]);
  });
});
