/**
 * Structural checks of a payload value against a Protobuf message descriptor, with JSON paths.
 *
 * protobuf-es trusts the TypeScript types: `create` copies whatever it is given and `toBinary`
 * coerces or throws deep inside the writer. A contract payload comes from anywhere at run time, so
 * these checks catch what protobuf-es would coerce or throw on — wrong JS types, out-of-range
 * integers, numbers for 64-bit fields, unknown values of closed enums, a malformed oneof, bad map
 * keys, unknown properties — and say where, like the JSON Schema validators do.
 */
import type { DescEnum, DescField, DescMessage, DescOneof } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import { isWrapperDesc } from '@bufbuild/protobuf/wkt';
import type { ValidationIssue } from '@keiyaku/runtime/codegen-v1';

/** Where a value sits: a JSON pointer and the same location as a JSON path. */
interface At {
  readonly pointer: string;
  readonly path: string;
}

const root: At = { pointer: '', path: '$' };

/** Stops collecting after this many issues: a payload that is wrong everywhere is reported briefly. */
const MAX_ISSUES = 20;

function child(at: At, key: string | number): At {
  const token = String(key).replace(/~/g, '~0').replace(/\//g, '~1');
  const step = typeof key === 'number' ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return { pointer: `${at.pointer}/${token}`, path: at.path + step };
}

class Issues {
  readonly list: ValidationIssue[] = [];
  add(at: At, keyword: string, message: string): void {
    if (this.list.length < MAX_ISSUES) this.list.push({ pointer: at.pointer, path: at.path, keyword, message });
  }
  get full(): boolean {
    return this.list.length >= MAX_ISSUES;
  }
}

/** The issues of `value` as a value (or the init of a value) of the message `desc`; empty when valid. */
export function validateMessage(desc: DescMessage, value: unknown): readonly ValidationIssue[] {
  const issues = new Issues();
  checkMessage(desc, value, root, issues);
  return issues.list;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value).slice(0, 40)}`;
}

function checkMessage(desc: DescMessage, value: unknown, at: At, issues: Issues): void {
  if (!isPlainObject(value)) {
    issues.add(at, 'type', `must be a ${desc.typeName} message object, not ${describe(value)}`);
    return;
  }
  const typeName = value['$typeName'];
  if (typeName !== undefined && typeName !== desc.typeName) {
    issues.add(child(at, '$typeName'), 'const', `must be "${desc.typeName}" (or absent), not ${JSON.stringify(typeName)}`);
  }
  for (const key of Object.keys(value)) {
    if (key === '$typeName' || key === '$unknown') continue;
    if (desc.field[key] === undefined && !desc.oneofs.some((oneof) => oneof.localName === key)) {
      issues.add(child(at, key), 'additionalProperties', `is not a field of ${desc.typeName}`);
    }
  }
  for (const member of desc.members) {
    if (issues.full) return;
    const fieldValue = value[member.localName];
    if (member.kind === 'oneof') checkOneof(member, fieldValue, child(at, member.localName), issues);
    else checkField(member, fieldValue, child(at, member.localName), issues);
  }
}

function checkOneof(oneof: DescOneof, value: unknown, at: At, issues: Issues): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) {
    issues.add(at, 'type', `must be a oneof object { case, value }, not ${describe(value)}`);
    return;
  }
  const selected = value['case'];
  if (selected === undefined) {
    if (value['value'] !== undefined) issues.add(child(at, 'value'), 'oneOf', 'must be undefined when case is undefined');
    return;
  }
  const field = oneof.fields.find((candidate) => candidate.localName === selected);
  if (field === undefined) {
    const cases = oneof.fields.map((candidate) => JSON.stringify(candidate.localName)).join(', ');
    issues.add(child(at, 'case'), 'oneOf', `must be one of ${cases} or undefined, not ${JSON.stringify(selected)}`);
    return;
  }
  const inner = child(at, 'value');
  if (value['value'] === undefined) issues.add(inner, 'required', `must hold the value of ${field.localName}`);
  else checkField(field, value['value'], inner, issues);
}

/** A field's value; undefined means unset, allowed unless the field is a proto2 `required` one. */
function checkField(field: DescField, value: unknown, at: At, issues: Issues): void {
  if (value === undefined) {
    // FieldPresence.LEGACY_REQUIRED: toBinary refuses a message without it.
    if (field.presence === 3) issues.add(at, 'required', `is a required field of ${field.parent.typeName}`);
    return;
  }
  if (field.fieldKind === 'scalar') checkScalar(field.scalar, field.longAsString, value, at, issues);
  else if (field.fieldKind === 'enum') checkEnum(field.enum, value, at, issues);
  else if (field.fieldKind === 'list') checkList(field, value, at, issues);
  else if (field.fieldKind === 'map') checkMap(field, value, at, issues);
  else {
    const form = usesJson(field) ? 'json' : !field.oneof && isWrapperDesc(field.message) ? 'wrapper' : 'message';
    checkMessageField(field.message, form, value, at, issues);
  }
}

/** protobuf-es holds a google.protobuf.Struct field as a JSON object (except inside google.protobuf.Value). */
function usesJson(field: DescField): boolean {
  return field.message?.typeName === 'google.protobuf.Struct' && field.parent.typeName !== 'google.protobuf.Value';
}

function checkMessageField(desc: DescMessage, form: 'json' | 'wrapper' | 'message', value: unknown, at: At, issues: Issues): void {
  if (form === 'json') checkJsonObject(value, at, issues);
  else if (form === 'wrapper') {
    const inner = desc.fields[0];
    if (inner?.fieldKind === 'scalar') checkScalar(inner.scalar, inner.longAsString, value, at, issues);
  } else checkMessage(desc, value, at, issues);
}

function checkList(field: DescField & { fieldKind: 'list' }, value: unknown, at: At, issues: Issues): void {
  if (!Array.isArray(value)) {
    issues.add(at, 'type', `must be an array (repeated ${field.name}), not ${describe(value)}`);
    return;
  }
  value.forEach((item, index) => {
    if (issues.full) return;
    const itemAt = child(at, index);
    if (field.listKind === 'scalar') checkScalar(field.scalar, field.longAsString, item, itemAt, issues);
    else if (field.listKind === 'enum') checkEnum(field.enum, item, itemAt, issues);
    else checkMessageField(field.message, usesJson(field) ? 'json' : 'message', item, itemAt, issues);
  });
}

function checkMap(field: DescField & { fieldKind: 'map' }, value: unknown, at: At, issues: Issues): void {
  if (!isPlainObject(value)) {
    issues.add(at, 'type', `must be an object (map<${ScalarType[field.mapKey].toLowerCase()}, …>), not ${describe(value)}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (issues.full) return;
    const itemAt = child(at, key);
    const keyProblem = mapKeyProblem(field.mapKey, key);
    if (keyProblem !== undefined) issues.add(itemAt, 'propertyNames', keyProblem);
    if (field.mapKind === 'scalar') checkScalar(field.scalar, false, item, itemAt, issues);
    else if (field.mapKind === 'enum') checkEnum(field.enum, item, itemAt, issues);
    else checkMessageField(field.message, usesJson(field) ? 'json' : 'message', item, itemAt, issues);
  }
}

/** Map keys are object keys, so strings: a numeric key must spell an integer in the key type's range. */
function mapKeyProblem(keyType: ScalarType, key: string): string | undefined {
  if (keyType === ScalarType.STRING) return undefined;
  if (keyType === ScalarType.BOOL)
    return key === 'true' || key === 'false' ? undefined : `key must be "true" or "false", not ${JSON.stringify(key)}`;
  if (!/^-?(0|[1-9]\d*)$/.test(key))
    return `key must be an integer (map<${ScalarType[keyType].toLowerCase()}, …>), not ${JSON.stringify(key)}`;
  const [min, max] = integerRange(keyType);
  const number = BigInt(key);
  return number < min || number > max ? `key ${key} is out of range for ${ScalarType[keyType].toLowerCase()}` : undefined;
}

const INT32: readonly [bigint, bigint] = [-(2n ** 31n), 2n ** 31n - 1n];
const UINT32: readonly [bigint, bigint] = [0n, 2n ** 32n - 1n];
const INT64: readonly [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];
const UINT64: readonly [bigint, bigint] = [0n, 2n ** 64n - 1n];
const FLOAT32_MAX = 3.4028234663852886e38;

function integerRange(type: ScalarType): readonly [bigint, bigint] {
  switch (type) {
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return UINT32;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return INT64;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return UINT64;
    default:
      return INT32;
  }
}

function checkScalar(type: ScalarType, longAsString: boolean, value: unknown, at: At, issues: Issues): void {
  const name = ScalarType[type].toLowerCase();
  switch (type) {
    case ScalarType.STRING:
      if (typeof value !== 'string') issues.add(at, 'type', `must be a string, not ${describe(value)}`);
      else if (!isWellFormed(value))
        issues.add(at, 'format', 'must be a well-formed string (no lone surrogates): Protobuf strings are UTF-8');
      return;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') issues.add(at, 'type', `must be a boolean, not ${describe(value)}`);
      return;
    case ScalarType.BYTES:
      if (!(value instanceof Uint8Array)) issues.add(at, 'type', `must be a Uint8Array (bytes), not ${describe(value)}`);
      return;
    case ScalarType.DOUBLE:
      if (typeof value !== 'number') issues.add(at, 'type', `must be a number, not ${describe(value)}`);
      return;
    case ScalarType.FLOAT:
      if (typeof value !== 'number') issues.add(at, 'type', `must be a number, not ${describe(value)}`);
      else if (Number.isFinite(value) && Math.abs(value) > FLOAT32_MAX) issues.add(at, 'maximum', `${value} is out of range for float`);
      return;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      checkLong(type, name, longAsString, value, at, issues);
      return;
    default: {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        issues.add(at, 'type', `must be an integer number (${name}), not ${describe(value)}`);
        return;
      }
      const [min, max] = integerRange(type);
      if (value < Number(min) || value > Number(max))
        issues.add(at, value < 0 ? 'minimum' : 'maximum', `${value} is out of range for ${name}`);
    }
  }
}

/** 64-bit integers are bigints in protobuf-es, or decimal strings with `[jstype = JS_STRING]`. */
function checkLong(type: ScalarType, name: string, longAsString: boolean, value: unknown, at: At, issues: Issues): void {
  let number: bigint;
  if (longAsString) {
    if (typeof value !== 'string' || !/^-?(0|[1-9]\d*)$/.test(value)) {
      issues.add(at, 'type', `must be a decimal string (${name} with jstype = JS_STRING), not ${describe(value)}`);
      return;
    }
    number = BigInt(value);
  } else {
    if (typeof value !== 'bigint') {
      issues.add(at, 'type', `must be a bigint (${name}), not ${describe(value)}`);
      return;
    }
    number = value;
  }
  const [min, max] = integerRange(type);
  if (number < min || number > max) issues.add(at, number < 0n ? 'minimum' : 'maximum', `${number} is out of range for ${name}`);
}

function checkEnum(desc: DescEnum, value: unknown, at: At, issues: Issues): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) {
    issues.add(at, 'type', `must be a number of enum ${desc.typeName}, not ${describe(value)}`);
    return;
  }
  // A closed (proto2) enum has only its declared values; an open one takes any int32.
  if (!desc.open && desc.value[value] === undefined) {
    const known = desc.values.map((entry) => entry.number).join(', ');
    issues.add(at, 'enum', `${value} is not a value of the closed enum ${desc.typeName} (${known})`);
  }
}

/** A JSON object: a plain object (a Date or a Map is not one, though typeof says object). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function checkJsonObject(value: unknown, at: At, issues: Issues): void {
  if (!isJsonObject(value)) {
    issues.add(at, 'type', `must be a JSON object (google.protobuf.Struct), not ${describe(value)}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) checkJsonValue(item, child(at, key), issues);
}

function checkJsonValue(value: unknown, at: At, issues: Issues): void {
  if (issues.full || value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.add(at, 'type', `must be a finite number (JSON), not ${value}`);
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkJsonValue(item, child(at, index), issues);
  } else if (isJsonObject(value)) checkJsonObject(value, at, issues);
  else issues.add(at, 'type', `must be a JSON value, not ${describe(value)}`);
}

const hasIsWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';

function isWellFormed(value: string): boolean {
  if (hasIsWellFormed) return (value as string & { isWellFormed(): boolean }).isWellFormed();
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);
}
