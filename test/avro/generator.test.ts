// The generator's Avro path: schemaFormat dispatch, located diagnostics for bad Avro and for
// formats keiyaku does not read, the generated descriptors over the memory transport, and the
// generator's logical-type rules agreeing with @keiyaku/avro's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { avroType } from '@keiyaku/avro';
import { createMessaging, InMemoryDeadLetterStore, type Messaging, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { generateFromFile } from 'keiyaku';
import { afterEach, describe, expect, it } from 'vitest';
import { avroTypeOf } from '../../generator/formats/avro/build.js';
import { classifySchemaFormat } from '../../generator/formats/schema-format.js';
import { Catalogue, Everything, OrderCancelled, OrderPlaced, Orders } from '../fixtures/avro/expected/index.js';
import { scratch, waitFor } from '../helpers.js';

/** Generates a contract written as `files` (the contract is asyncapi.yaml) in a fresh folder. */
async function generateFiles(files: Record<string, string>) {
  const dir = scratch('avro-gen');
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return generateFromFile('asyncapi.yaml', { cwd: dir });
}

/** An AsyncAPI 3 contract with one message whose payload is `payload` (YAML, indented for its place). */
const v3 = (payload: string, extra = '') =>
  [
    'asyncapi: 3.0.0',
    'info: { title: T, version: 1.0.0 }',
    'channels:',
    '  orders:',
    '    address: orders',
    '    messages:',
    '      Placed:',
    '        name: Placed',
    '        payload:',
    payload,
    extra,
  ].join('\n');

const errorsOf = (result: Awaited<ReturnType<typeof generateFiles>>) => result.diagnostics.filter((d) => d.severity === 'error');

describe('schemaFormat dispatch', () => {
  it('classifies the media types of the AsyncAPI specification', () => {
    expect(classifySchemaFormat(undefined).kind).toBe('json-schema');
    expect(classifySchemaFormat('application/vnd.aai.asyncapi+yaml;version=3.0.0').kind).toBe('json-schema');
    expect(classifySchemaFormat('application/schema+json;version=draft-07').kind).toBe('json-schema');
    for (const avro of [
      'application/vnd.apache.avro;version=1.9.0',
      'application/vnd.apache.avro+json;version=1.10.2',
      'application/vnd.apache.avro+yaml;version=1.12.0',
    ]) {
      expect(classifySchemaFormat(avro).kind).toBe('avro');
    }
    expect(classifySchemaFormat('application/vnd.apache.avro;version=1.8.2').kind).toBe('unsupported');
    expect(classifySchemaFormat('application/vnd.google.protobuf;version=3').kind).toBe('protobuf');
    expect(classifySchemaFormat('application/raml+yaml;version=1.0').kind).toBe('unsupported');
    expect(classifySchemaFormat('application/vnd.oai.openapi;version=3.0.0').kind).toBe('unsupported');
  });

  it('reads a JSON Schema multi-format payload as JSON Schema, without unknown-keyword warnings', async () => {
    const result = await generateFiles({
      'asyncapi.yaml': v3(
        [
          '          schemaFormat: application/schema+json;version=draft-07',
          '          schema: { type: object, required: [id], properties: { id: { type: string } } }',
        ].join('\n'),
      ),
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.files.find((f) => f.path === 'types.ts')?.content).toContain('readonly id: string;');
  });

  it.each([
    ['RAML', 'application/raml+yaml;version=1.0', /RAML data types are not supported/],
    ['OpenAPI', 'application/vnd.oai.openapi;version=3.0.0', /OpenAPI schema objects/],
    ['an Avro version before 1.9', 'application/vnd.apache.avro;version=1.8.2', /keiyaku reads Avro 1\.9 to 1\.12/],
    ['an unknown format', 'application/x-thrift', /does not know this schema format/],
  ])('refuses %s with an error at its schemaFormat that lists the supported formats', async (_, format, reason) => {
    const result = await generateFiles({
      'asyncapi.yaml': v3([`          schemaFormat: ${format}`, '          schema: { type: string }'].join('\n')),
    });
    expect(result.files).toEqual([]);
    const [error] = errorsOf(result);
    expect(error).toMatchObject({ code: 'schema_format_unsupported', location: { file: 'asyncapi.yaml', line: 10 } });
    expect(error?.message).toMatch(reason);
    expect(error?.hint).toContain('application/vnd.apache.avro;version=1.9.0');
  });

  it('sends Protobuf payloads to the Protobuf path', async () => {
    const result = await generateFiles({
      'asyncapi.yaml': v3(
        ['          schemaFormat: application/vnd.google.protobuf;version=3', '          schema: "syntax = \\"proto3\\";"'].join('\n'),
      ),
    });
    // The Protobuf path compiles the .proto: this one declares no message to be the payload.
    expect(errorsOf(result).map((d) => d.code)).toEqual(['protobuf_payload_message']);
  });

  it('reads AsyncAPI 2.x message.schemaFormat with an Avro payload', async () => {
    const result = await generateFiles({
      'asyncapi.yaml': [
        'asyncapi: 2.6.0',
        'info: { title: T, version: 1.0.0 }',
        'channels:',
        '  orders:',
        '    subscribe:',
        '      message:',
        '        name: Placed',
        '        schemaFormat: application/vnd.apache.avro;version=1.9.0',
        '        payload: { type: record, name: Placed, namespace: shop, fields: [{ name: id, type: string }] }',
      ].join('\n'),
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.files.find((f) => f.path === 'messages.ts')?.content).toContain('codec: avroCodec(');
    expect(result.files.find((f) => f.path === 'types.ts')?.content).toContain(
      'export interface PlacedPayload {\n  readonly id: string;\n}',
    );
  });
});

describe('bad Avro: errors located in the .avsc', () => {
  const avsc = (fields: string) =>
    `{\n  "type": "record",\n  "name": "Placed",\n  "namespace": "shop",\n  "fields": [\n${fields}\n  ]\n}\n`;
  const withAvsc = (text: string) => ({
    'asyncapi.yaml': v3(
      ['          schemaFormat: application/vnd.apache.avro;version=1.9.0', "          schema: { $ref: './placed.avsc' }"].join('\n'),
    ),
    'placed.avsc': text,
  });

  it('an unknown type name, at its reference', async () => {
    const result = await generateFiles(withAvsc(avsc('    { "name": "id", "type": "string" },\n    { "name": "at", "type": "Instant" }')));
    expect(errorsOf(result)).toEqual([
      expect.objectContaining({
        code: 'avro_schema_invalid',
        message: expect.stringContaining('undefined type name: shop.Instant'),
        location: expect.objectContaining({ file: 'placed.avsc', line: 7, pointer: '/fields/1/type' }),
      }),
    ]);
  });

  it('a default that is not a value of its type, at the default', async () => {
    const result = await generateFiles(withAvsc(avsc('    { "name": "qty", "type": "int", "default": "many" }')));
    expect(errorsOf(result)[0]).toMatchObject({
      code: 'avro_schema_invalid',
      location: { file: 'placed.avsc', line: 6, pointer: '/fields/0/default' },
    });
  });

  it('a name defined twice, at the second definition', async () => {
    const twice = [
      '    { "name": "a", "type": { "type": "enum", "name": "Kind", "symbols": ["A"] } },',
      '    { "name": "b", "type": { "type": "enum", "name": "Kind", "symbols": ["B"] } }',
    ].join('\n');
    const result = await generateFiles(withAvsc(avsc(twice)));
    expect(errorsOf(result)[0]).toMatchObject({
      message: expect.stringContaining('duplicate type name: shop.Kind'),
      location: { file: 'placed.avsc', line: 7, pointer: '/fields/1/type' },
    });
  });

  it('a syntax error in the .avsc, located in it', async () => {
    const result = await generateFiles(withAvsc('{\n  "type": "record",\n  "name": "Placed"\n  "fields": []\n}\n'));
    expect(result.files).toEqual([]);
    expect(errorsOf(result).some((d) => d.location?.file === 'placed.avsc' && d.location.line > 0)).toBe(true);
  });

  it('a payload that is not a record', async () => {
    const result = await generateFiles({
      'asyncapi.yaml': v3(['          schemaFormat: application/vnd.apache.avro;version=1.9.0', '          schema: string'].join('\n')),
    });
    expect(errorsOf(result)[0]).toMatchObject({ code: 'avro_payload_not_record', location: { file: 'asyncapi.yaml', line: 11 } });
  });

  it('two different definitions of one full name across payloads', async () => {
    const other = [
      '      Other:',
      '        name: Other',
      '        payload:',
      '          schemaFormat: application/vnd.apache.avro;version=1.9.0',
      '          schema: { type: record, name: Placed, namespace: shop, fields: [{ name: x, type: int }] }',
    ].join('\n');
    const files = withAvsc(avsc('    { "name": "id", "type": "string" }'));
    const result = await generateFiles({ ...files, 'asyncapi.yaml': `${files['asyncapi.yaml']}\n${other}\n` });
    expect(errorsOf(result)[0]).toMatchObject({ code: 'avro_name_conflict', location: { file: 'asyncapi.yaml', line: 17 } });
  });
});

describe('the logical-type rules of the generator and of @keiyaku/avro', () => {
  const cases: unknown[] = [
    { type: 'long', logicalType: 'timestamp-millis' },
    { type: 'int', logicalType: 'timestamp-millis' },
    { type: 'int', logicalType: 'date' },
    { type: 'long', logicalType: 'date' },
    { type: 'int', logicalType: 'time-millis' },
    { type: 'long', logicalType: 'time-micros' },
    { type: 'string', logicalType: 'uuid' },
    { type: 'bytes', logicalType: 'uuid' },
    { type: 'bytes', logicalType: 'decimal', precision: 4, scale: 2 },
    { type: 'bytes', logicalType: 'decimal', precision: 4, scale: 5 },
    { type: 'bytes', logicalType: 'decimal' },
    { type: 'fixed', name: 'F', size: 2, logicalType: 'decimal', precision: 4 },
    { type: 'fixed', name: 'G', size: 2, logicalType: 'decimal', precision: 5 },
    ['string', { type: 'long', logicalType: 'timestamp-millis' }, 'int'],
    ['null', { type: 'string', logicalType: 'uuid' }, 'int'],
    { type: 'string', logicalType: 'color' },
  ];
  it.each(cases.map((c) => [JSON.stringify(c), c]))('%s: the same logical type or fallback, the same union wrapping', (_, schema) => {
    const root = { type: 'record', name: 'R', fields: [{ name: 'f', type: schema }] };
    expect(JSON.stringify(avroTypeOf(root).schema({ exportAttrs: true }))).toBe(
      JSON.stringify(avroType(root).schema({ exportAttrs: true })),
    );
    const field = (type: { getField(name: string): { type: { typeName: string } } }) => type.getField('f').type.typeName;
    expect(field(avroTypeOf(root) as never)).toBe(field(avroType(root) as never));
  });
});

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

describe('generated Avro descriptors (test/fixtures/avro)', () => {
  const placed = {
    orderId: 'o-1',
    customer: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    placedAt: new Date('2026-12-02T09:30:00.000Z'),
    lines: [{ sku: 'S-1', quantity: 2, unitPrice: '19.99' }],
    shipTo: { street: '1 Main St', city: 'Lyon', country: new Uint8Array([70, 82]) },
  };

  it('create, encode and decode through the codec, with the Avro content type', () => {
    const message = OrderPlaced.create(placed);
    expect(OrderPlaced.format).toBe('avro');
    expect(OrderPlaced.contentType).toBe('application/avro');
    expect(OrderPlaced.key(message)).toBe('o-1');
    const back = Orders.decode(Orders.encode(message), 'OrderPlaced');
    expect(back.ok && OrderPlaced.is(back.value)).toBe(true);
    if (!back.ok || !OrderPlaced.is(back.value)) return;
    expect(back.value.placedAt).toEqual(placed.placedAt);
    expect(back.value.channel).toBe('WEB'); // the default the encoder wrote
    expect(back.value.lines[0]?.unitPrice).toBe('19.99');
    expect(() => OrderPlaced.create({ ...placed, customer: 'not-a-uuid' })).toThrow(/at \$\.customer/);
    expect(OrderCancelled.contentType).toBe('application/vnd.apache.avro+binary');
  });

  it('round-trips every type over the memory transport', async () => {
    const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
    const host = createMessaging({ logger: silentLogger, transport, deadLetters: new InMemoryDeadLetterStore(), shutdownBudgetMs: 1_000 });
    hosts.push(host);
    const received: unknown[] = [];
    host.subscribe(Catalogue, { groupId: 'test.catalogue', handle: (message) => void received.push(message) });
    host.subscribe(Orders, { groupId: 'test.orders', handle: (message) => void received.push(message) });
    await host.start();
    const everything = Everything.create({
      nothing: null,
      flag: false,
      count: 3,
      big: 2 ** 40,
      ratio: 0.25,
      exact: 1e-9,
      label: 'x',
      blob: new Uint8Array([0, 255]),
      hash: new Uint8Array(16).fill(7),
      tags: ['a'],
      stock: { s1: 4 },
      either: { long: 9 },
      shape: { 'shop.catalogue.Circle': { radius: 2 } },
      maybeCount: 'many',
      at: new Date('2026-01-01T00:00:00.001Z'),
      atMicros: new Date('2026-01-01T00:00:00.002Z'),
      localAt: new Date('2026-01-01T00:00:00.003Z'),
      localAtMicros: new Date('2026-01-01T00:00:00.004Z'),
      day: new Date('2026-01-01T00:00:00Z'),
      time: 1,
      timeMicros: 2,
      price: '1234.56',
      fixedPrice: '-0.0001',
      id: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
      custom: 'teal',
      badDecimal: new Uint8Array([1]),
      status: 'ACTIVE',
    });
    await host.publisher(Catalogue, { lingerMs: 0 }).publish(everything);
    await host.publisher(Orders, { lingerMs: 0 }).publish(OrderPlaced.create(placed));
    await waitFor(() => received.length === 2, 'both messages arrive');
    const [gotEverything, gotPlaced] = received as [Record<string, unknown>, Record<string, unknown>];
    expect({
      ...gotEverything,
      blob: [...(gotEverything.blob as Uint8Array)],
      hash: [...(gotEverything.hash as Uint8Array)],
      badDecimal: [1],
    }).toEqual({
      ...everything,
      blob: [0, 255],
      hash: new Array(16).fill(7),
      badDecimal: [1],
      when: null,
    });
    expect(Everything.is(gotEverything)).toBe(true);
    expect(gotPlaced.shipTo).toEqual({ ...placed.shipTo, country: Buffer.from([70, 82]) });
  });
});
