// `keiyaku check` on a temporary git repository: the direction of each channel comes from the
// contract's operations (send → forward, receive → backward), findings are worded from the reader
// that breaks, a shared schema's change is one finding, acknowledgments that do not apply are
// warnings, parameters are named, and the pull request that adds the contract passes.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, scratch } from '../helpers.js';
import { keiyaku } from './known-codes.js';

const dir = scratch('check-directions');
const git = gitIn(dir);
const edit = (file: string, from: string, to: string): void => {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit did not apply to ${file}: ${from}`);
  writeFileSync(path, next);
};

/** Orders are sent by this application (forward), payments received (backward); both use common.json#/$defs/Money. */
const contract = `asyncapi: 3.0.0
info:
  title: Shop
  version: 2.0.0
channels:
  orders:
    address: shop.orders.{region}
    parameters:
      region:
        enum: [earth, mars]
    messages:
      OrderPlaced:
        name: OrderPlaced
        payload:
          type: object
          required: [orderId, salesChannel, total]
          properties:
            orderId: { type: string }
            salesChannel: { type: string }
            total: { $ref: "./common.json#/$defs/Money" }
            shipping: { $ref: "./common.json#/$defs/Money" }
  payments:
    address: shop.payments
    messages:
      PaymentReceived:
        name: PaymentReceived
        payload:
          type: object
          required: [orderId, salesChannel, amount]
          properties:
            orderId: { type: string }
            salesChannel: { type: string }
            amount: { $ref: "./common.json#/$defs/Money" }
operations:
  publishOrders:
    action: send
    channel: { $ref: "#/channels/orders" }
  onPayment:
    action: receive
    channel: { $ref: "#/channels/payments" }
`;
const common = `{
  "$defs": {
    "Money": {
      "type": "object",
      "required": ["amount", "currency"],
      "properties": {
        "amount": { "type": "number", "maximum": 1000000 },
        "currency": { "type": "string", "enum": ["EUR", "USD"] }
      }
    }
  }
}
`;

beforeAll(() => {
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), 'shop\n');
  git('add', '.');
  git('commit', '-qm', 'before the contract');
  git('tag', 'empty');
  writeFileSync(join(dir, 'asyncapi.yaml'), contract);
  writeFileSync(join(dir, 'common.json'), common);
  git('add', '.');
  git('commit', '-qm', 'v2.0.0');
  git('tag', 'v2');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reset(): void {
  git('checkout', '-q', '--', '.');
  git('clean', '-qfd');
}

describe('keiyaku check: the direction comes from the contract', () => {
  it('fails a required field removed from a message this application sends, worded from the consumers on the old contract', async () => {
    reset();
    edit('asyncapi.yaml', 'required: [orderId, salesChannel, total]', 'required: [orderId, total]');
    edit('asyncapi.yaml', '            salesChannel: { type: string }\n            total:', '            total:');
    const result = await keiyaku(['check', '--against', 'v2'], { cwd: dir });
    expect(result.stdout).toContain('orders: forward — this application sends on it (publishOrders)');
    expect(result.stdout).toContain('payments: backward — this application receives from it (onPayment)');
    expect(result.stdout).toContain(
      'BREAKING property_removed_from_open_model (forward): required property salesChannel removed from an open object: consumers on the old contract reject messages without `salesChannel`',
    );
    // Read forward, making it optional is the same break: the fix does not send the user round in circles.
    expect(result.stdout).toContain(
      'fix: keep salesChannel, and keep it required: consumers on the old contract reject messages without it (making it optional is the same break); the change itself passes only when acknowledged, once every consumer reads the new contract; acknowledge it: {',
    );
    expect(result.stdout).not.toContain('make salesChannel optional');
    expect(result.stdout).not.toContain('optional first');
    expect(result.stdout).toContain('(mode per channel, policy lenient)');
    expect(result.code).toBe(1);
  }, 120_000);

  it('passes the same removal on a channel this application receives from (backward), and --mode overrides the contract', async () => {
    reset();
    edit('asyncapi.yaml', 'required: [orderId, salesChannel, amount]', 'required: [orderId, amount]');
    edit('asyncapi.yaml', '            salesChannel: { type: string }\n            amount:', '            amount:');
    const received = await keiyaku(['check', '--against', 'v2'], { cwd: dir });
    expect(received.stdout).toContain('compatible property_removed_from_open_model (backward)');
    expect(received.code).toBe(0);
    const forced = await keiyaku(['check', '--against', 'v2', '--mode', 'forward'], { cwd: dir });
    expect(forced.stdout).toContain('payments: forward — set by --mode');
    expect(forced.code).toBe(1);
  }, 120_000);

  it('reports a change in a shared schema once, with its usages, and accepts its id or (with a warning) an old per-message id', async () => {
    reset();
    edit('common.json', '"maximum": 1000000', '"maximum": 1000');
    edit('asyncapi.yaml', 'version: 2.0.0', 'version: 2.1.0');
    const result = await keiyaku(['check', '--against', 'v2', '--mode', 'backward', '--format', 'json'], { cwd: dir });
    const parsed = JSON.parse(result.stdout) as {
      findings: { id: string; severity: string; usages?: { channel: string; message: string; pointer: string }[] }[];
    };
    const breaking = parsed.findings.filter((f) => f.severity === 'breaking');
    expect(breaking.map((f) => f.id)).toEqual(['schemas/Money/maximum_narrowed/properties/amount/maximum']);
    expect(breaking[0]!.usages).toEqual([
      { channel: 'orders', message: 'OrderPlaced', pointer: '/payload/properties/total/properties/amount/maximum' },
      { channel: 'orders', message: 'OrderPlaced', pointer: '/payload/properties/shipping/properties/amount/maximum' },
      { channel: 'payments', message: 'PaymentReceived', pointer: '/payload/properties/amount/properties/amount/maximum' },
    ]);
    expect(result.code).toBe(1);
    edit(
      'asyncapi.yaml',
      'channels:\n',
      'x-keiyaku:\n  acknowledge:\n    - id: payments/PaymentReceived/maximum_narrowed/payload/properties/amount/properties/amount/maximum\n      reason: amounts are capped by the new payment provider\n      version: 2.1.0\nchannels:\n',
    );
    const acknowledged = await keiyaku(['check', '--against', 'v2', '--mode', 'backward'], { cwd: dir });
    expect(acknowledged.stdout).toContain('shared schema Money');
    expect(acknowledged.stdout).toContain('ACKNOWLEDGED maximum_narrowed (backward)');
    // Two messages, one of them at two places: each message counted and listed once.
    expect(acknowledged.stdout).toContain(
      '    used by 2 messages: orders/OrderPlaced /payload/properties/total/properties/amount/maximum, /payload/properties/shipping/properties/amount/maximum; payments/PaymentReceived /payload/properties/amount/properties/amount/maximum\n',
    );
    expect(acknowledged.stdout).toContain('WARNING acknowledgment_id_deprecated');
    expect(acknowledged.stdout).toContain('replace its id with schemas/Money/maximum_narrowed/properties/amount/maximum');
    expect(acknowledged.code).toBe(0);
  }, 120_000);

  it('warns about an acknowledgment for another version, naming the fix', async () => {
    reset();
    edit('common.json', '"maximum": 1000000', '"maximum": 1000');
    edit(
      'asyncapi.yaml',
      'channels:\n',
      'x-keiyaku:\n  compatibility: backward\n  acknowledge:\n    - id: schemas/Money/maximum_narrowed/properties/amount/maximum\n      reason: capped\n      version: 2.1.0\nchannels:\n',
    );
    const result = await keiyaku(['check', '--against', 'v2'], { cwd: dir });
    expect(result.stdout).toContain('payments: backward — set by x-keiyaku.compatibility of the contract');
    expect(result.stdout).toContain('WARNING acknowledgment_unused');
    expect(result.stdout).toContain('is for version 2.1.0, the contract is 2.0.0');
    expect(result.stdout).toContain('fix: bump info.version to 2.1.0');
    expect(result.stdout).toContain('1 warning');
    expect(result.code).toBe(1);
  }, 120_000);

  it('names the channel parameter and what changed', async () => {
    reset();
    edit('asyncapi.yaml', 'enum: [earth, mars]', 'enum: [earth]');
    const result = await keiyaku(['check', '--against', 'v2', '--mode', 'backward'], { cwd: dir });
    expect(result.stdout).toContain('BREAKING channel_parameters_changed (backward): `region`: enum lost `mars`');
    expect(result.code).toBe(1);
  }, 120_000);

  it('warns, on a channel this application sends on, that consumers of a parameter value removed stop receiving', async () => {
    reset();
    edit('asyncapi.yaml', 'enum: [earth, mars]', 'enum: [earth]');
    const result = await keiyaku(['check', '--against', 'v2'], { cwd: dir });
    expect(result.stdout).toContain(
      'WARNING parameter_value_removed (forward): `region`: enum lost `mars`: consumers of the addresses with `mars` stop receiving (this application no longer sends there)',
    );
    expect(result.stdout).toContain(
      'fix: make sure no consumer still waits on shop.orders.{region} with `region` `mars`, or keep the value',
    );
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^keiyaku check: 0 breaking, .*, 1 warning against v2/);
    expect(result.code).toBe(0);
  }, 120_000);

  it('prints findings only with --quiet: no directions, no notices', async () => {
    reset();
    edit('common.json', '"maximum": 1000000', '"maximum": 1000');
    const loud = await keiyaku(['check', '--against', 'v2'], { cwd: dir });
    expect(loud.stdout).toContain('directions:\n  orders: forward');
    const quiet = await keiyaku(['check', '--against', 'v2', '--quiet'], { cwd: dir });
    expect(quiet.stdout).not.toContain('directions:');
    expect(quiet.stdout).not.toContain('this application receives from it');
    expect(quiet.stdout).toContain('BREAKING maximum_narrowed (backward)');
    expect(quiet.stdout.split('\n')[0]).toBe('shared schema Money');
    expect(quiet.code).toBe(1);
    const json = JSON.parse((await keiyaku(['check', '--against', 'v2', '--quiet', '--format', 'json'], { cwd: dir })).stdout);
    expect(Object.keys(json)).not.toContain('quiet');
    reset();
    const first = await keiyaku(['check', '--against', 'empty', '--quiet'], { cwd: dir });
    expect(first.stdout).not.toContain('notice:');
    expect(first.stdout.trim()).toMatch(/^keiyaku check: 0 breaking/);
  }, 120_000);

  it('gives the acknowledgment id in GitHub annotations, and each message once', async () => {
    reset();
    edit('common.json', '"maximum": 1000000', '"maximum": 1000');
    const result = await keiyaku(['check', '--against', 'v2', '--mode', 'backward', '--format', 'github'], { cwd: dir });
    const [annotation, ...others] = result.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(others).toEqual([]);
    expect(annotation).toContain('::shared schema Money (orders/OrderPlaced, payments/PaymentReceived) number maximum 1000000 → 1000');
    expect(annotation).toContain(
      "acknowledge it: { id: 'schemas/Money/maximum_narrowed/properties/amount/maximum', reason: …, version: … }",
    );
    edit(
      'asyncapi.yaml',
      'channels:\n',
      'x-keiyaku:\n  acknowledge:\n    - id: schemas/Money/maximum_narrowed/properties/amount/maximum\n      reason: capped\n      version: 2.0.0\nchannels:\n',
    );
    const acknowledged = await keiyaku(['check', '--against', 'v2', '--mode', 'backward', '--format', 'github'], { cwd: dir });
    expect(acknowledged.stdout).toMatch(
      /^::notice .*\(acknowledged as schemas\/Money\/maximum_narrowed\/properties\/amount\/maximum for 2\.0\.0: capped\)$/m,
    );
    expect(acknowledged.code).toBe(0);
  }, 120_000);

  it('passes with a notice when the contract does not exist at the ref yet', async () => {
    reset();
    const result = await keiyaku(['check', '--against', 'empty'], { cwd: dir });
    expect(result.stdout).toContain(
      'notice: asyncapi.yaml does not exist at empty: this is the first version of the contract, so nothing can break',
    );
    expect(result.stdout).toContain('0 breaking');
    expect(result.code).toBe(0);
  }, 120_000);
});

describe('keiyaku check: AsyncAPI 2.6 operations are from the client side', () => {
  it('checks a subscribe channel forward (this application sends) and a publish channel backward', async () => {
    const v2 = join(dir, 'v2-document');
    mkdirSync(v2, { recursive: true });
    const doc = (levels: string): string => `asyncapi: 2.6.0
info: { title: Audit, version: 1.0.0 }
channels:
  audit/out:
    subscribe:
      operationId: emitAudit
      message:
        name: AuditOut
        payload: { type: object, properties: { level: { type: string, enum: [${levels}] } } }
  audit/in:
    publish:
      operationId: onAudit
      message:
        name: AuditIn
        payload: { type: object, properties: { level: { type: string, enum: [${levels}] } } }
`;
    writeFileSync(join(v2, 'old.yaml'), doc('info, warn'));
    writeFileSync(join(v2, 'asyncapi.yaml'), doc('info, warn, error'));
    const result = await keiyaku(['check', '--against', 'old.yaml'], { cwd: v2 });
    expect(result.stdout).toContain('audit/out: forward — this application sends on it (emitAudit)');
    expect(result.stdout).toContain('audit/in: backward — this application receives from it (onAudit)');
    expect(result.stdout).toMatch(/audit\/out \/ AuditOut\n {2}BREAKING enum_value_added \(forward\)/);
    expect(result.stdout).toMatch(/audit\/in \/ AuditIn\n {2}compatible enum_value_added \(backward\)/);
    expect(result.code).toBe(1);
  }, 120_000);
});
