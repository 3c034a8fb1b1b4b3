/**
 * Validation issues of a value against an Avro type, located by JSON path (`$.lines[2].sku`) and
 * JSON pointer, from avsc's errorHook. A key the record does not declare is an issue too
 * (`additionalProperties`), reported once every declared field is valid.
 */
import type { ValidationIssue } from '@keiyaku/runtime/codegen-v1';
import type avro from 'avsc';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The JSON path and pointer of `path` (avsc's list of field names, indexes and keys) inside `root`. */
function locate(root: unknown, path: readonly string[]): { path: string; pointer: string } {
  let json = '$';
  let pointer = '';
  let at: unknown = root;
  for (const step of path) {
    json += Array.isArray(at) && /^\d+$/.test(step) ? `[${step}]` : IDENTIFIER.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
    pointer += `/${step.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[step] : undefined;
  }
  return { path: json, pointer };
}

/** What a value of `type` must be, in a few words. */
function describe(type: avro.Type): { keyword: string; message: string } {
  const name = type.typeName;
  if (name === 'enum') return { keyword: 'enum', message: `must be one of ${(type as avro.types.EnumType).symbols.join(', ')}` };
  if (name === 'fixed') return { keyword: 'type', message: `must be ${(type as avro.types.FixedType).size} bytes (${type.name})` };
  if (name === 'record' || name === 'error') return { keyword: 'type', message: `must be a record ${type.name}` };
  if (name.startsWith('logical:')) {
    const logical = name.slice('logical:'.length);
    const what = /timestamp|^date$/.test(logical)
      ? logical === 'date'
        ? 'a Date at UTC midnight'
        : 'a valid Date'
      : logical === 'decimal'
        ? `decimal text within precision ${(type as unknown as { precision: number }).precision} and scale ${(type as unknown as { scale: number }).scale}`
        : logical === 'uuid'
          ? 'a uuid'
          : 'an integer within one day';
    return { keyword: 'logicalType', message: `must be ${what} (${logical})` };
  }
  if (name.startsWith('union')) {
    const branches = (type as avro.types.WrappedUnionType).types.map((branch: avro.Type) => branch.branchName ?? branch.typeName);
    const wrapped = name === 'union:wrapped' ? ', wrapped as { "<branch>": value }' : '';
    return { keyword: 'type', message: `must be one of the union's branches ${branches.join(' | ')}${wrapped}` };
  }
  if (name === 'long') return { keyword: 'type', message: 'must be a long (an integer within ±(2^53 − 2))' };
  if (name === 'int') return { keyword: 'type', message: 'must be an int (a 32-bit integer)' };
  if (name === 'bytes') return { keyword: 'type', message: 'must be bytes (a Uint8Array)' };
  return { keyword: 'type', message: `must be ${name === 'array' || name === 'map' ? 'an' : 'a'} ${name}` };
}

/** Every issue of `value` against `type`. */
export function issuesOf(type: avro.Type, value: unknown): readonly ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  type.isValid(value, {
    errorHook(path: string[], any: unknown, failing: avro.Type) {
      const where = locate(value, path);
      const { keyword, message } = any === undefined ? { keyword: 'required', message: 'is required' } : describe(failing);
      issues.push({ ...where, keyword, message });
    },
  });
  if (issues.length > 0) return issues;
  type.isValid(value, {
    noUndeclaredFields: true,
    errorHook(path: string[], any: unknown, failing: avro.Type) {
      const declared = new Set((failing as avro.types.RecordType).fields?.map((field) => field.name) ?? []);
      const extra = typeof any === 'object' && any !== null ? Object.keys(any).filter((key) => !declared.has(key)) : [];
      for (const key of extra) {
        const where = locate(value, [...path, key]);
        issues.push({ ...where, keyword: 'additionalProperties', message: `is not a field of ${failing.name ?? 'the record'}` });
      }
    },
  });
  if (issues.length === 0) issues.push({ path: '$', pointer: '', keyword: 'type', message: `must be a ${type.name ?? type.typeName}` });
  return issues;
}
