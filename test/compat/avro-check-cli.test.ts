// `keiyaku check` end to end on Avro payloads: the Avro fixture contract (an .avsc $ref, a named
// type from another .avsc, an inline YAML schema) in a temporary git repository, edited and
// checked against the tag of its first version — verdicts per channel direction, locations in
// the .avsc files, every output format, and an acknowledged break.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, gitIn, scratch } from '../helpers.js';
import { keiyaku } from './known-codes.js';

const dir = scratch('check-avro');
const git = gitIn(dir);
const edit = (file: string, from: string | RegExp, to: string): void => {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit did not apply to ${file}: ${String(from)}`);
  writeFileSync(path, next);
};

beforeAll(() => {
  cpSync(join(fixturesDir, 'avro', 'asyncapi.yaml'), join(dir, 'asyncapi.yaml'));
  cpSync(join(fixturesDir, 'avro', 'schemas'), join(dir, 'schemas'), { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'v1');
  git('tag', 'v1');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reset(): void {
  git('checkout', '-q', '--', '.');
  git('clean', '-qfd');
}

const check = (...args: string[]) => keiyaku(['check', '--against', 'v1', ...args], { cwd: dir });

/** `quantity` of an order line promoted int → long: orders is sent on, so old consumers break (forward). */
const promoteQuantity = (): void =>
  edit('schemas/order.avsc', '{ "name": "quantity", "type": "int" }', '{ "name": "quantity", "type": "long" }');
const QUANTITY = 'orders/OrderPlaced/avro_type_promoted/payload/fields/lines/type/items/fields/quantity/type';

describe('keiyaku check on Avro payloads', () => {
  it('passes the unchanged contract', async () => {
    reset();
    const result = await check();
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'keiyaku check: 0 breaking, 0 acknowledged, 0 compatible, 0 info against v1:asyncapi.yaml (mode per channel, policy lenient)',
    );
    expect(result.code).toBe(0);
  });

  it.each([
    [
      'a field promoted in a sent message, read by old consumers',
      promoteQuantity,
      [],
      'BREAKING avro_type_promoted (forward): type int → long (a promotion: long reads int)',
      'at /payload/fields/lines/type/items/fields/quantity/type — schemas/order.avsc:19:',
      1,
    ],
    [
      'a field added without a default to a sent message (old consumers skip it)',
      () =>
        edit(
          'schemas/order.avsc',
          '{ "name": "orderId", "type": "string" },',
          '{ "name": "orderId", "type": "string" },\n    { "name": "note", "type": "string" },',
        ),
      [],
      'compatible avro_field_added_without_default (forward): field note added without a default',
      'at /payload/fields/note — schemas/order.avsc:8:5 (#/fields/1)',
      0,
    ],
    [
      'the same field read backward (new code reading old messages)',
      () =>
        edit(
          'schemas/order.avsc',
          '{ "name": "orderId", "type": "string" },',
          '{ "name": "orderId", "type": "string" },\n    { "name": "note", "type": "string" },',
        ),
      ['--mode', 'backward'],
      'BREAKING avro_field_added_without_default (backward): field note added without a default',
      'fix: give field note a default',
      1,
    ],
    [
      'an enum symbol removed from a received message',
      () => edit('schemas/everything.avsc', '"symbols": ["ACTIVE", "RETIRED"]', '"symbols": ["ACTIVE"]'),
      [],
      'BREAKING avro_enum_symbol_removed (backward): enum shop.catalogue.Status lost RETIRED',
      'at /payload/fields/status/type/symbols — schemas/everything.avsc:36:',
      1,
    ],
    [
      'an enum symbol removed where the enum has a default, in an inline YAML schema',
      () => edit('asyncapi.yaml', 'symbols: [CHANGED_MIND, TOO_SLOW, OTHER]', 'symbols: [CHANGED_MIND, OTHER]'),
      ['--mode', 'full'],
      'compatible avro_enum_symbol_removed (backward): enum shop.CancelReason lost TOO_SLOW',
      'at /payload/fields/reason/type/symbols — asyncapi.yaml:44:',
      0,
    ],
    [
      'a timestamp read in other units',
      () =>
        edit(
          'schemas/everything.avsc',
          '"name": "at", "type": { "type": "long", "logicalType": "timestamp-millis" }',
          '"name": "at", "type": { "type": "long", "logicalType": "timestamp-micros" }',
        ),
      [],
      'BREAKING avro_logical_type_changed (backward): logicalType timestamp-millis → timestamp-micros: consumers on the new contract read the values of old messages as something else',
      'at /payload/fields/at/type — schemas/everything.avsc:',
      1,
    ],
    [
      'a record from another .avsc renamed without an alias',
      () => {
        edit('schemas/address.avsc', '"name": "Address"', '"name": "PostalAddress"');
        edit('schemas/order.avsc', '"type": "Address"', '"type": "PostalAddress"');
        edit('asyncapi.yaml', "type: ['null', Address]", "type: ['null', PostalAddress]");
      },
      [],
      'BREAKING avro_name_changed (forward): record shop.Address renamed shop.PostalAddress',
      `fix: keep the name shop.Address`,
      1,
    ],
  ])('%s', async (_what, change, args, finding, where, code) => {
    reset();
    change();
    const result = await check(...args);
    expect(result.stdout).toContain(finding);
    expect(result.stdout).toContain(where);
    expect(result.code).toBe(code);
  });

  it('prints Avro findings as JSON, GitHub annotations and JUnit', async () => {
    reset();
    promoteQuantity();
    const json = await check('--format', 'json');
    const [finding] = JSON.parse(json.stdout).findings;
    expect(finding).toMatchObject({
      code: 'avro_type_promoted',
      severity: 'breaking',
      direction: 'forward',
      pointer: '/payload/fields/lines/type/items/fields/quantity/type',
      before: 'int',
      after: 'long',
      id: QUANTITY,
      location: { file: 'schemas/order.avsc', line: 19 },
    });
    expect(json.code).toBe(1);
    const github = await check('--format', 'github');
    expect(github.stdout).toMatch(/^::error file=schemas\/order\.avsc,line=19,title=keiyaku avro_type_promoted::/m);
    const junit = await check('--format', 'junit');
    expect(junit.stdout).toContain(`<testcase classname="orders" name="${QUANTITY} (forward)"><failure message="type int → long`);
    expect(junit.stdout).toContain('type="avro_type_promoted"');
  });

  it('passes the break once acknowledged in the contract by its id', async () => {
    reset();
    promoteQuantity();
    edit(
      'asyncapi.yaml',
      'defaultContentType: application/json',
      `defaultContentType: application/json\nx-keiyaku:\n  acknowledge:\n    - id: ${QUANTITY}\n      reason: bulk orders exceed an int; every consumer reads 1.0.0\n      version: 1.0.0`,
    );
    const result = await check();
    expect(result.stdout).toContain('ACKNOWLEDGED avro_type_promoted (forward)');
    expect(result.stdout).toContain('acknowledged for 1.0.0: bulk orders exceed an int; every consumer reads 1.0.0');
    expect(result.stdout).toContain('0 breaking, 1 acknowledged');
    expect(result.code).toBe(0);
  });
});
