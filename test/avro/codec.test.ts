import { AvroResolutionError, AvroSchemaError, avroCodec, avroJsonView } from '@keiyaku/avro';
import { defineMessage, isKeiyakuError } from '@keiyaku/runtime/codegen-v1';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const record = (name: string, fields: readonly object[]) => ({ type: 'record', name, fields });

const everyType = record('shop.Everything', [
  { name: 'nothing', type: 'null' },
  { name: 'flag', type: 'boolean' },
  { name: 'count', type: 'int' },
  { name: 'big', type: 'long' },
  { name: 'ratio', type: 'float' },
  { name: 'exact', type: 'double' },
  { name: 'label', type: 'string' },
  { name: 'blob', type: 'bytes' },
  { name: 'hash', type: { type: 'fixed', name: 'Hash', size: 4 } },
  { name: 'color', type: { type: 'enum', name: 'Color', symbols: ['RED', 'GREEN'] } },
  { name: 'tags', type: { type: 'array', items: 'string' } },
  { name: 'scores', type: { type: 'map', values: 'int' } },
  { name: 'line', type: record('Line', [{ name: 'sku', type: 'string' }]) },
  { name: 'maybe', type: ['null', 'string'] },
  { name: 'either', type: ['int', 'long'] },
  { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
  { name: 'atMicros', type: { type: 'long', logicalType: 'timestamp-micros' } },
  { name: 'localAt', type: { type: 'long', logicalType: 'local-timestamp-millis' } },
  { name: 'localAtMicros', type: { type: 'long', logicalType: 'local-timestamp-micros' } },
  { name: 'day', type: { type: 'int', logicalType: 'date' } },
  { name: 'time', type: { type: 'int', logicalType: 'time-millis' } },
  { name: 'timeMicros', type: { type: 'long', logicalType: 'time-micros' } },
  { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 6, scale: 2 } },
  { name: 'fixedPrice', type: { type: 'fixed', name: 'Money', size: 4, logicalType: 'decimal', precision: 8, scale: 3 } },
  { name: 'id', type: { type: 'string', logicalType: 'uuid' } },
  { name: 'odd', type: { type: 'string', logicalType: 'not-a-known-one' } },
]);

const everything = {
  nothing: null,
  flag: true,
  count: -7,
  big: 2 ** 53 - 2,
  ratio: 0.5,
  exact: Math.PI,
  label: 'Ada',
  blob: new Uint8Array([1, 2, 3]),
  hash: new Uint8Array([9, 8, 7, 6]),
  color: 'GREEN',
  tags: ['a', 'b'],
  scores: { x: 1 },
  line: { sku: 'S-1' },
  maybe: 'yes',
  either: { long: 5 },
  at: new Date('2026-12-02T09:00:00.123Z'),
  atMicros: new Date('2026-12-02T09:00:00.456Z'),
  localAt: new Date('2026-12-02T09:00:00Z'),
  localAtMicros: new Date('2026-12-02T09:00:01Z'),
  day: new Date('2026-12-02T00:00:00Z'),
  time: 3_600_000,
  timeMicros: 3_600_000_001,
  price: '-12.34',
  fixedPrice: '1234.500',
  id: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  odd: 'any text',
};

const codec = avroCodec(everyType);

describe('avroCodec: the mapping table both ways', () => {
  it('validates, encodes and decodes every type to the documented values', () => {
    expect(codec.validate(everything)).toEqual([]);
    const decoded = codec.decode(codec.encode(everything), 'Everything');
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const value = decoded.value as Record<string, unknown>;
    expect({ ...value, blob: new Uint8Array(value.blob as Uint8Array), hash: new Uint8Array(value.hash as Uint8Array) }).toEqual({
      ...everything,
      line: { sku: 'S-1' },
    });
    expect(value.blob).toBeInstanceOf(Uint8Array);
    expect(value.at).toBeInstanceOf(Date);
    expect(value.day).toEqual(new Date('2026-12-02T00:00:00Z'));
  });

  it('writes decimals as two’s-complement unscaled integers and reads them back exactly', () => {
    const price = avroCodec(record('P', [{ name: 'p', type: { type: 'bytes', logicalType: 'decimal', precision: 4, scale: 2 } }]));
    expect([...price.encode({ p: '1.00' })]).toEqual([2, 0x64]); // length 1, then 100
    expect([...price.encode({ p: '-0.01' })]).toEqual([2, 0xff]);
    for (const p of ['0', '0.5', '-99.99', '99.99', '12.3']) {
      const back = price.decode(price.encode({ p }), 'P');
      expect(back.ok && (back.value as { p: string }).p).toBe(Number(p).toFixed(2));
    }
    expect(price.validate({ p: '100.00' })[0]?.keyword).toBe('logicalType'); // 5 digits > precision 4
    expect(price.validate({ p: '1.234' })[0]?.message).toContain('scale 2');
    expect(price.validate({ p: 1.5 })).toHaveLength(1);
  });

  it('refuses a long outside ±2^53 instead of rounding it, both ways', () => {
    const long = avroCodec(record('L', [{ name: 'n', type: 'long' }]));
    expect(long.validate({ n: 2 ** 53 })[0]).toMatchObject({ path: '$.n', keyword: 'type' });
    // 2^53 as a zig-zag varint: 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x20
    const result = long.decode(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]), 'L');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.reason).toBe('malformed');
  });

  it('checks uuids, dates at midnight and times within a day', () => {
    const issues = codec.validate({ ...everything, id: 'nope', day: new Date('2026-12-02T01:00:00Z'), time: 86_400_000 });
    expect(issues.map((issue) => [issue.path, issue.keyword])).toEqual([
      ['$.day', 'logicalType'],
      ['$.time', 'logicalType'],
      ['$.id', 'logicalType'],
    ]);
  });

  it('unwraps distinguishable unions and wraps the others by branch name', () => {
    expect(codec.validate({ ...everything, maybe: null })).toEqual([]);
    expect(codec.validate({ ...everything, either: 5 })[0]).toMatchObject({ path: '$.either', keyword: 'type' });
    expect(codec.validate({ ...everything, either: { int: 5 } })).toEqual([]);
  });
});

describe('avroCodec: validation issues', () => {
  it('locates issues by JSON path and pointer', () => {
    const order = avroCodec(
      record('shop.Order', [
        { name: 'lines', type: { type: 'array', items: record('OrderLine', [{ name: 'sku', type: 'string' }]) } },
        { name: 'notes', type: { type: 'map', values: 'int' } },
      ]),
    );
    const issues = order.validate({ lines: [{ sku: 'a' }, { sku: 'b' }, { sku: 3 }], notes: { 'a b': 'x' } });
    expect(issues).toEqual([
      { path: '$.lines[2].sku', pointer: '/lines/2/sku', keyword: 'type', message: 'must be a string' },
      { path: '$.notes["a b"]', pointer: '/notes/a b', keyword: 'type', message: 'must be an int (a 32-bit integer)' },
    ]);
    expect(order.validate({ lines: [] })).toEqual([{ path: '$.notes', pointer: '/notes', keyword: 'required', message: 'is required' }]);
    expect(order.validate({ lines: [{ sku: 'a', qty: 1 }], notes: {} })).toEqual([
      { path: '$.lines[0].qty', pointer: '/lines/0/qty', keyword: 'additionalProperties', message: 'is not a field of shop.OrderLine' },
    ]);
    expect(order.validate('text')[0]).toMatchObject({ path: '$', keyword: 'type' });
  });

  it('names the symbols of an enum', () => {
    expect(codec.validate({ ...everything, color: 'BLUE' })[0]).toMatchObject({
      path: '$.color',
      keyword: 'enum',
      message: 'must be one of RED, GREEN',
    });
  });

  it('refuses a schema that is not Avro with a typed error', () => {
    expect(() => avroCodec({ type: 'record', name: 'X', fields: [{ name: 'a', type: 'Nope' }] })).toThrow(AvroSchemaError);
    expect(() => avroCodec('{ not json')).toThrow(/not a valid Avro schema/);
  });
});

describe('avroCodec: decoding bytes', () => {
  it('reports trailing and truncated bytes as malformed, naming the type', () => {
    const bytes = codec.encode(everything);
    const trailing = codec.decode(new Uint8Array([...bytes, 0]), 'Everything');
    expect(trailing.ok).toBe(false);
    if (!trailing.ok) {
      expect(trailing.error.reason).toBe('malformed');
      expect(trailing.error.message).toContain('shop.Everything');
    }
    const truncated = codec.decode(bytes.subarray(0, bytes.length - 3), 'Everything');
    expect(truncated.ok).toBe(false);
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const result = codec.decode(bytes, 'Everything');
        if (!result.ok) expect(result.error.reason).toBe('malformed');
      }),
      { numRuns: 500 },
    );
  });
});

describe('avroCodec: the registry schema and the JSON view', () => {
  it('gives the registry the schema as written (as the Confluent serdes do), the same text every time', () => {
    const again = avroCodec(JSON.stringify(everyType));
    expect(again.schema).toEqual(codec.schema);
    expect(codec.schema.schemaType).toBe('AVRO');
    expect(codec.schema.recordName).toBe('shop.Everything');
    expect(JSON.parse(codec.schema.schema)).toEqual(everyType);
    expect(codec.schema.schema).toContain('"logicalType":"decimal","precision":6,"scale":2');
    // An enum's default, which avsc's own export leaves out, is kept: readers of unknown symbols need it.
    const withDefault = {
      type: 'record',
      name: 'shop.Pick',
      fields: [{ name: 'c', type: { type: 'enum', name: 'C', symbols: ['A', 'B'], default: 'A' } }],
    };
    expect(JSON.parse(avroCodec(withDefault).schema.schema).fields[0].type.default).toBe('A');
  });

  it('shows dates as ISO text and bytes as base64', () => {
    const view = codec.toJson(everything) as Record<string, unknown>;
    expect(view.at).toBe('2026-12-02T09:00:00.123Z');
    expect(view.blob).toEqual({ $bytes: 'AQID' });
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    expect(avroJsonView({ n: Number.NaN })).toEqual({ n: 'NaN' });
  });
});

const v1 = record('shop.Order', [
  { name: 'id', type: 'string' },
  { name: 'qty', type: 'int' },
  { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
  { name: 'note', type: ['null', 'string'], default: null },
  { name: 'legacy', type: 'string' },
]);
const v2 = record('shop.Order', [
  { name: 'id', type: 'string' },
  { name: 'qty', type: 'long' },
  { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'UNKNOWN'], default: 'UNKNOWN' } },
  { name: 'note', type: ['null', 'string', 'int'], default: null },
  { name: 'channel', type: 'string', default: 'web' },
]);

describe('avroCodec: schema resolution across versions', () => {
  it('reads what an older writer wrote: promotion, added field with default, removed field, enum default', () => {
    const writer = avroCodec(v1);
    const reader = avroCodec(v2);
    const bytes = writer.encode({ id: 'o-1', qty: 3, status: 'SHIPPED', note: 'gift', legacy: 'x' });
    const read = reader.resolve?.(writer.schema.schema)(bytes, 'Order');
    expect(read?.ok && { ...read.value }).toEqual({ id: 'o-1', qty: 3, status: 'UNKNOWN', note: 'gift', channel: 'web' });
    expect(reader.resolve?.(writer.schema.schema)).toBe(reader.resolve?.(writer.schema.schema)); // cached per writer text
  });

  it('reads a union that gained a branch', () => {
    const reader = avroCodec(v2);
    const writer = avroCodec(record('shop.Order', [...v1.fields.slice(0, 3), { name: 'note', type: ['null', 'string'] }]));
    const read = reader.resolve?.(writer.schema.schema)(writer.encode({ id: 'o', qty: 1, status: 'NEW', note: null }), 'Order');
    expect(read?.ok && (read.value as { note: unknown }).note).toBe(null);
  });

  it('refuses a writer it cannot read with a typed error naming both schemas', () => {
    const reader = avroCodec(v1);
    let caught: unknown;
    try {
      reader.resolve?.(avroCodec(record('shop.Order', [{ name: 'id', type: 'int' }])).schema.schema);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AvroResolutionError);
    expect(isKeiyakuError(caught)).toBe(true);
    expect((caught as AvroResolutionError).code).toBe('avro_unresolvable');
    expect((caught as Error).message).toContain('"name":"shop.Order"');
  });
});

describe('defineMessage with an Avro codec', () => {
  it('creates frozen tagged messages and round-trips them', () => {
    const Order = defineMessage<'Order', Record<string, unknown>>({
      type: 'Order',
      id: 'Order',
      contentType: 'application/avro',
      schemaHash: 'x',
      codec: avroCodec(v1),
    });
    const input = { id: 'o', qty: 1, status: 'NEW', note: null, legacy: '' };
    const message = Order.create(input);
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    const back = Order.decode(Order.encode(message));
    expect(back.ok && Order.is(back.value)).toBe(true);
    expect(() => Order.create({ ...input, qty: 'x' })).toThrow(/Order is not valid at \$\.qty/);
  });
});
