/**
 * The Avro logical types keiyaku gives TypeScript values to (docs/avro.md): timestamps and dates
 * as `Date`, times as numbers, decimals as exact decimal text, uuids as checked text.
 *
 * Each is an avsc LogicalType. A constructor throws when the schema's attributes do not fit
 * (a timestamp on an int, a decimal without precision); avsc then falls back to the underlying
 * type, as the Avro specification asks of unknown or invalid logical types. The generator applies
 * the same rules (generator/formats/avro/logical.ts) so the generated types match these values.
 */
import avro from 'avsc';

const { LogicalType } = avro.types;
type AvroType = avro.Type;
type Schema = Record<string, unknown>;

const MS_PER_DAY = 86_400_000;

/** The underlying Avro type name each logical type needs; any other makes the logical type invalid. */
export const LOGICAL_UNDERLYING: Readonly<Record<string, readonly string[]>> = {
  'timestamp-millis': ['long'],
  'timestamp-micros': ['long'],
  'local-timestamp-millis': ['long'],
  'local-timestamp-micros': ['long'],
  date: ['int'],
  'time-millis': ['int'],
  'time-micros': ['long'],
  decimal: ['bytes', 'fixed'],
  uuid: ['string'],
};

function requireUnderlying(name: string, type: AvroType): void {
  const allowed = LOGICAL_UNDERLYING[name] ?? [];
  if (!allowed.includes(type.typeName)) throw new Error(`${name} must annotate ${allowed.join(' or ')}, not ${type.typeName}`);
}

/** A writer type this logical type reads: the same logical type (already converted), or its plain underlying type. */
function resolveFrom(self: { typeName: string; underlyingType: AvroType }, writer: AvroType, convert: (value: unknown) => unknown) {
  if (writer.typeName === self.typeName) return (value: unknown) => value;
  const under = self.underlyingType.typeName;
  const w = writer.typeName;
  if (w === under || (under === 'long' && w === 'int')) return convert;
  if (under === 'fixed' && w === 'fixed' && (writer as avro.types.FixedType).size === (self.underlyingType as avro.types.FixedType).size) {
    return convert;
  }
  return undefined;
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/** timestamp-millis, timestamp-micros and their local- forms: a `Date` (micros keep millisecond precision). */
class TimestampType extends LogicalType {
  private readonly perMs: number;
  constructor(schema: Schema, opts?: unknown) {
    super(schema as avro.Schema, opts);
    requireUnderlying(String(schema.logicalType), this.underlyingType);
    this.perMs = String(schema.logicalType).endsWith('micros') ? 1000 : 1;
  }
  protected override _fromValue(value: number): Date {
    return new Date(this.perMs === 1 ? value : Math.floor(value / this.perMs));
  }
  protected override _toValue(value: unknown): number | undefined {
    return isValidDate(value) ? value.getTime() * this.perMs : undefined;
  }
  protected override _resolve(type: AvroType) {
    return resolveFrom(this, type, (value) => this._fromValue(value as number));
  }
}

/** date: a `Date` at UTC midnight (any other time of day is refused, so the value round-trips). */
class DateType extends LogicalType {
  constructor(schema: Schema, opts?: unknown) {
    super(schema as avro.Schema, opts);
    requireUnderlying('date', this.underlyingType);
  }
  protected override _fromValue(days: number): Date {
    return new Date(days * MS_PER_DAY);
  }
  protected override _toValue(value: unknown): number | undefined {
    if (!isValidDate(value) || value.getTime() % MS_PER_DAY !== 0) return undefined;
    return value.getTime() / MS_PER_DAY;
  }
  protected override _resolve(type: AvroType) {
    return resolveFrom(this, type, (value) => this._fromValue(value as number));
  }
}

/** time-millis and time-micros: the number of the underlying type, within one day. */
class TimeType extends LogicalType {
  private readonly limit: number;
  constructor(schema: Schema, opts?: unknown) {
    super(schema as avro.Schema, opts);
    requireUnderlying(String(schema.logicalType), this.underlyingType);
    this.limit = schema.logicalType === 'time-micros' ? MS_PER_DAY * 1000 : MS_PER_DAY;
  }
  protected override _fromValue(value: number): number {
    return value;
  }
  protected override _toValue(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < this.limit ? value : undefined;
  }
  protected override _resolve(type: AvroType) {
    return resolveFrom(this, type, (value) => value);
  }
}

/**
 * True for the text form of a UUID (8-4-4-4-12 hex digits). A loop over char codes: decoding
 * checks every uuid it reads, and this is several times cheaper there than a regular expression.
 */
function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i += 1) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

/** uuid: the text form of a UUID (RFC 9562), checked. */
class UuidType extends LogicalType {
  constructor(schema: Schema, opts?: unknown) {
    super(schema as avro.Schema, opts);
    requireUnderlying('uuid', this.underlyingType);
  }
  protected override _fromValue(value: string): string {
    if (!isUuid(value)) throw new Error(`not a uuid: ${JSON.stringify(value.slice(0, 40))}`);
    return value;
  }
  protected override _toValue(value: unknown): string | undefined {
    return typeof value === 'string' && isUuid(value) ? value : undefined;
  }
  protected override _resolve(type: AvroType) {
    return resolveFrom(this, type, (value) => this._fromValue(value as string));
  }
}

/** The largest precision a two's-complement big-endian number of `size` bytes holds. */
export function maxDecimalPrecision(size: number): number {
  return Math.floor(Math.log10(2) * (8 * size - 1));
}

/** The precision and scale of a decimal schema, or the reason it is not a valid decimal. */
export function decimalAttributes(schema: Schema, fixedSize: number | undefined): { precision: number; scale: number } | string {
  const { precision } = schema;
  const scale = schema.scale ?? 0;
  if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 1) return 'precision must be a positive integer';
  if (typeof scale !== 'number' || !Number.isInteger(scale) || scale < 0 || scale > precision) {
    return `scale must be an integer from 0 to the precision (${precision})`;
  }
  if (fixedSize !== undefined && precision > maxDecimalPrecision(fixedSize)) {
    return `precision ${precision} does not fit in a fixed of ${fixedSize} bytes (at most ${maxDecimalPrecision(fixedSize)})`;
  }
  return { precision, scale };
}

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

/** decimal (bytes or fixed): the exact decimal as text, `"12.34"`; precision and scale are checked. */
class DecimalType extends LogicalType {
  readonly precision: number;
  readonly scale: number;
  private readonly size: number | undefined;
  constructor(schema: Schema, opts?: unknown) {
    super(schema as avro.Schema, opts);
    requireUnderlying('decimal', this.underlyingType);
    this.size = this.underlyingType.typeName === 'fixed' ? (this.underlyingType as avro.types.FixedType).size : undefined;
    const attributes = decimalAttributes(schema, this.size);
    if (typeof attributes === 'string') throw new Error(`decimal: ${attributes}`);
    this.precision = attributes.precision;
    this.scale = attributes.scale;
  }
  protected override _fromValue(bytes: Uint8Array): string {
    let unscaled = 0n;
    for (const byte of bytes) unscaled = (unscaled << 8n) | BigInt(byte);
    if (bytes.length > 0 && (bytes[0] as number) >= 0x80) unscaled -= 1n << BigInt(bytes.length * 8);
    const negative = unscaled < 0n;
    const digits = (negative ? -unscaled : unscaled).toString();
    if (digits.length > this.precision) throw new Error(`decimal has more than ${this.precision} digits`);
    const padded = digits.padStart(this.scale + 1, '0');
    const whole = padded.slice(0, padded.length - this.scale);
    const text = this.scale === 0 ? whole : `${whole}.${padded.slice(padded.length - this.scale)}`;
    return negative ? `-${text}` : text;
  }
  protected override _toValue(value: unknown): Buffer | undefined {
    if (typeof value !== 'string') return undefined;
    const match = DECIMAL_TEXT.exec(value);
    if (match === null) return undefined;
    const fraction = match[3] ?? '';
    if (fraction.length > this.scale) return undefined;
    const digits = `${match[2]}${fraction.padEnd(this.scale, '0')}`.replace(/^0+(?=\d)/, '');
    if (digits.length > this.precision) return undefined;
    const unscaled = BigInt(match[1] === '-' ? `-${digits}` : digits);
    return twosComplement(unscaled, this.size);
  }
  protected override _resolve(type: AvroType) {
    if (type.typeName === this.typeName) {
      const writer = type as unknown as DecimalType;
      return writer.scale === this.scale && writer.precision <= this.precision ? (value: unknown) => value : undefined;
    }
    return resolveFrom(this, type, (value) => this._fromValue(value as Uint8Array));
  }
  protected override _export(attrs: avro.Schema): void {
    (attrs as Schema).precision = this.precision;
    (attrs as Schema).scale = this.scale;
  }
}

/** Big-endian two's complement of `value`: the fewest bytes (bytes), or exactly `size` (fixed). */
function twosComplement(value: bigint, size: number | undefined): Buffer | undefined {
  let length = 1;
  while (value >= 1n << BigInt(8 * length - 1) || value < -(1n << BigInt(8 * length - 1))) length += 1;
  if (size !== undefined) {
    if (length > size) return undefined;
    length = size;
  }
  const bytes = Buffer.alloc(length);
  let rest = value < 0n ? (1n << BigInt(8 * length)) + value : value;
  for (let i = length - 1; i >= 0; i -= 1) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** The `logicalTypes` option of `Type.forSchema` that gives keiyaku's values. */
export const LOGICAL_TYPES: Readonly<Record<string, new (schema: avro.Schema, opts?: unknown) => avro.types.LogicalType>> = {
  'timestamp-millis': TimestampType,
  'timestamp-micros': TimestampType,
  'local-timestamp-millis': TimestampType,
  'local-timestamp-micros': TimestampType,
  date: DateType,
  'time-millis': TimeType,
  'time-micros': TimeType,
  decimal: DecimalType,
  uuid: UuidType,
} as never;
