/**
 * Avro logical types as the generator sees them: the same validity rules as @keiyaku/avro's
 * (runtime/avro/logical-types.ts; test/avro/generator.test.ts holds them to agreeing), so the
 * generator knows exactly where the runtime's values are logical (a `Date`, decimal text) and
 * where an invalid logical type falls back to its underlying type, and unions wrap the same way.
 * The markers convert nothing: the generator only builds types, it never reads or writes values.
 */
import avro from 'avsc';

type Schema = Record<string, unknown>;

/** The underlying Avro type each logical type needs; any other makes it invalid. */
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

/** The TypeScript type of each logical type's values. */
export const LOGICAL_TS: Readonly<Record<string, string>> = {
  'timestamp-millis': 'Date',
  'timestamp-micros': 'Date',
  'local-timestamp-millis': 'Date',
  'local-timestamp-micros': 'Date',
  date: 'Date',
  'time-millis': 'number',
  'time-micros': 'number',
  decimal: 'string',
  uuid: 'string',
};

function maxDecimalPrecision(size: number): number {
  return Math.floor(Math.log10(2) * (8 * size - 1));
}

/** Why a decimal schema is invalid, or undefined when it is valid. */
export function decimalProblem(schema: Schema, fixedSize: number | undefined): string | undefined {
  const { precision } = schema;
  const scale = schema.scale ?? 0;
  if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 1) return 'precision must be a positive integer';
  if (typeof scale !== 'number' || !Number.isInteger(scale) || scale < 0 || scale > precision) {
    return `scale must be an integer from 0 to the precision (${precision})`;
  }
  if (fixedSize !== undefined && precision > maxDecimalPrecision(fixedSize)) {
    return `precision ${precision} does not fit in a fixed of ${fixedSize} bytes (at most ${maxDecimalPrecision(fixedSize)})`;
  }
  return undefined;
}

/** Logical types the last build found invalid (they fall back to their underlying type), with the reason. */
export interface FallbackNote {
  readonly logicalType: string;
  readonly reason: string;
  readonly schema: unknown;
}

/** The `logicalTypes` option of avsc's Type.forSchema for the generator; `notes` collects the fallbacks. */
export function markerLogicalTypes(
  notes: FallbackNote[],
): Record<string, new (schema: avro.Schema, opts?: unknown) => avro.types.LogicalType> {
  class Marker extends avro.types.LogicalType {
    readonly logicalType: string;
    readonly precision: number | undefined;
    readonly scale: number | undefined;
    constructor(schema: avro.Schema, opts?: unknown) {
      super(schema, opts);
      const raw = schema as unknown as Schema;
      const name = String(raw.logicalType);
      const under = this.underlyingType;
      const allowed = LOGICAL_UNDERLYING[name] ?? [];
      let problem = allowed.includes(under.typeName) ? undefined : `${name} must annotate ${allowed.join(' or ')}, not ${under.typeName}`;
      if (problem === undefined && name === 'decimal') {
        problem = decimalProblem(raw, under.typeName === 'fixed' ? (under as avro.types.FixedType).size : undefined);
      }
      if (problem !== undefined) {
        notes.push({ logicalType: name, reason: problem, schema });
        throw new Error(problem);
      }
      this.logicalType = name;
      this.precision = name === 'decimal' ? (raw.precision as number) : undefined;
      this.scale = name === 'decimal' ? ((raw.scale as number | undefined) ?? 0) : undefined;
    }
    protected override _fromValue(value: unknown): unknown {
      return value;
    }
    protected override _toValue(value: unknown): unknown {
      return value;
    }
    protected override _resolve(type: avro.Type) {
      return type.typeName === this.typeName ? (value: unknown) => value : undefined;
    }
    protected override _export(attrs: avro.Schema): void {
      if (this.precision === undefined) return;
      (attrs as unknown as Schema).precision = this.precision;
      (attrs as unknown as Schema).scale = this.scale;
    }
  }
  return Object.fromEntries(Object.keys(LOGICAL_UNDERLYING).map((name) => [name, Marker]));
}
