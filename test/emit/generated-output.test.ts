// What generate writes for contracts a team writes on its first day: generated/iggy.ts only on
// request and saying what it leaves out, names for titled variants and inline objects, name
// clashes as warnings naming both sources, Kafka bindings honoured or warned about.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { repoRoot, scratch } from '../helpers.js';

async function generateYaml(yaml: string) {
  const dir = scratch('output');
  writeFileSync(join(dir, 'asyncapi.yaml'), yaml);
  const result = await generateFromFile('asyncapi.yaml', { cwd: dir });
  const file = (path: string) => result.files.find((f) => f.path === path)?.content;
  return { result, file, warnings: result.diagnostics.filter((d) => d.severity === 'warning') };
}

const header = `asyncapi: 3.0.0
info: { title: Orders, version: 1.0.0 }
defaultContentType: application/json
`;

const order = `        payload:
          type: object
          required: [orderId]
          properties:
            orderId: { type: string, format: uuid }
`;

describe('generated/iggy.ts', () => {
  it('is not written when the contract does not ask for Iggy', async () => {
    const { result, file } = await generateYaml(`${header}channels:
  orders:
    address: orders
    messages:
      OrderPlaced:
        name: OrderPlaced
${order}`);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(file('iggy.ts')).toBeUndefined();
    expect(result.files.map((f) => f.path)).toContain('channels/orders.ts');
  });

  it('says what it leaves out and why, warns about a parameterized channel, and imports only a versioned facade', async () => {
    const { file, warnings } = await generateYaml(`${header}channels:
  orders:
    address: orders
    x-iggy: { stream: shop, topic: orders }
    messages:
      OrderPlaced:
        name: OrderPlaced
${order}  regionOrders:
    address: orders.{region}
    parameters:
      region: {}
    x-iggy: { stream: shop }
    messages:
      RegionOrderPlaced:
        name: RegionOrderPlaced
${order}  audit:
    address: audit
    messages:
      Audited:
        name: Audited
${order}`);
    const iggy = file('iggy.ts')!;
    expect(iggy).toContain('import { iggyChannel } from "@keiyaku/iggy/codegen-v1";');
    expect(iggy).not.toMatch(/from "@keiyaku\/iggy"/);
    expect(iggy).toContain('export const OrdersIggy');
    expect(iggy).toContain('RegionOrders (regionOrders): its address has parameters');
    expect(iggy).toContain('Audit (audit): no x-iggy binding');
    expect(iggy).not.toContain('"keiyaku"');
    expect(warnings).toEqual([
      expect.objectContaining({
        code: 'iggy_parameterized_channel',
        message: expect.stringContaining('channel "regionOrders" has parameters (orders.{region}), so generated/iggy.ts leaves it out'),
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 16, column: 3 }), // at the channel's key
      }),
    ]);
  });
});

describe('names in generated code', () => {
  it('gives titled oneOf variants and inline nested objects exported names', async () => {
    const types = readFileSync(join(repoRoot, 'test/fixtures/payments/expected/types.ts'), 'utf8');
    expect(types).toContain('readonly method: CardPayment | BankTransfer;');
    expect(types).toContain('export interface CardPayment {');
    expect(types).toContain('readonly amount: PaymentRequestedPayloadAmount;');
    expect(types).toContain('export interface PaymentRequestedPayloadAmount {');
  });

  it('warns about a clash, naming both sources, and keeps Headers for the global', async () => {
    const { file, warnings } = await generateYaml(`${header}channels:
  orders:
    address: orders
    messages:
      OrderPlaced:
        name: OrderPlaced
        payload:
          type: object
          properties:
            shipTo: { title: Address, type: object, properties: { street: { type: string } } }
            billTo: { title: Address, type: object, properties: { iban: { type: string } } }
      Headers:
        name: Headers
${order}`);
    const clashes = warnings.filter((w) => w.code === 'name_clash');
    expect(clashes).toEqual([
      expect.objectContaining({
        message:
          'the schema at asyncapi.yaml#/channels/orders/messages/OrderPlaced/payload/properties/billTo is named Address2: ' +
          'Address is taken by the schema at asyncapi.yaml#/channels/orders/messages/OrderPlaced/payload/properties/shipTo',
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 14 }),
      }),
    ]);
    const messages = file('messages.ts')!;
    expect(messages).not.toMatch(/export const Headers\b/);
    expect(messages).toMatch(/export const Headers_\b/);
  });

  it('handler doc comments use a neutral example group, and channel files are kebab-case as docs/generate.md says', async () => {
    const { file } = await generateYaml(`${header}channels:
  orderEvents:
    address: orders
    messages:
      OrderPlaced:
        name: OrderPlaced
${order}`);
    const channel = file('channels/order-events.ts')!;
    expect(channel).not.toContain('inventory.book-availability');
    expect(channel).toContain('`<service>.<capability>`');
    const generateDoc = readFileSync(join(repoRoot, 'docs', 'generate.md'), 'utf8');
    expect(generateDoc).not.toContain('channels/<channel>.ts');
    expect(generateDoc).toContain('channels/<channel-id-in-kebab-case>.ts');
  });
});

describe('Kafka bindings', () => {
  it('carries topic, partitions, replicas and topicConfiguration to the runtime, and a key property as the default key', () => {
    const results = readFileSync(join(repoRoot, 'test/fixtures/payments/expected/channels/payment-results.ts'), 'utf8');
    expect(results.replace(/\s+/g, ' ')).toContain(
      'kafka: { topic: "payments-results-v1", partitions: 4, replicas: 1, configs: { "cleanup.policy": "delete", "retention.ms": "604800000" },',
    );
    const messages = readFileSync(join(repoRoot, 'test/fixtures/payments/expected/messages.ts'), 'utf8');
    expect(messages).toContain('keyProperty: "paymentId"');
  });

  it('warns about a topic it cannot use and a key schema that matches no single property', async () => {
    const { warnings } = await generateYaml(`${header}channels:
  regionOrders:
    address: orders.{region}
    parameters:
      region: {}
    bindings:
      kafka: { topic: orders-v1 }
    messages:
      OrderPlaced:
        name: OrderPlaced
        bindings:
          kafka:
            key: { type: integer }
${order}`);
    expect(warnings.map((w) => [w.code, w.location?.line]).sort()).toEqual([
      ['kafka_key_not_derived', 16],
      ['kafka_topic_ignored', 10],
    ]);
  });
});
