/**
 * Validators compiled at `generate` time, written by keiyaku itself from the schema model:
 * one plain JavaScript function per named schema (shared definitions compiled once and
 * called, never inlined into every message), named after the schema (`v_BookId`), with
 * every constant it needs declared next to it. Adding a message adds its own functions
 * and changes no other line.
 *
 * Validation reports every error of a value (bounded by `MAX_ERRORS` in
 * `@keiyaku/runtime/codegen-v1`) in the shape ajv uses (`instancePath`, `keyword`, `params`,
 * `message`); the success path allocates nothing but the error list.
 *
 * Supported keywords are those the model keeps (see generator/model/schema-object.ts):
 * draft 2020-12 validation and applicators, `unevaluatedProperties`/`unevaluatedItems`
 * included; `format` for the formats of ajv-formats, checked at run time by
 * `@keiyaku/runtime`'s own implementation of them (docs/formats.md).
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */
import type { Diagnostic } from '../diagnostics.js';
import { type ContractModel, SCHEMA_REF_PREFIX, type SchemaNode } from '../model/contract-model.js';
import { writeStatements } from './validator-code.js';
import { FORMATS, FunctionWriter, type ValidatorModuleScope } from './validator-function.js';
import { ROOT_PATH } from './validator-path.js';
import { CodeWriter } from './writer.js';

/** Rewrites `#/schemas/<Name>` into `#/$defs/<Name>` (for tools that compile the model's schemas with ajv). */
export function toAjvSchema(node: SchemaNode): unknown {
  return JSON.parse(
    JSON.stringify(node, (key, value) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF_PREFIX)
        ? `#/$defs/${value.slice(SCHEMA_REF_PREFIX.length)}`
        : value,
    ),
  );
}

export interface ValidatorModule {
  /** JavaScript (ESM) module text; imports `validatorRuntime` from `@keiyaku/runtime/codegen-v1`. */
  readonly code: string;
  /** Export name per schema name. */
  readonly exports: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function validatorExportName(schemaName: string): string {
  return `validate${schemaName}`;
}

function functionName(schemaName: string, tracking = false): string {
  return `v_${schemaName}${tracking ? '$t' : ''}`;
}

type Schema = Record<string, unknown>;

class ValidatorWriter implements ValidatorModuleScope {
  readonly #model: ContractModel;
  readonly #wanted = new Map<string, boolean>();
  readonly #queue: [string, boolean][] = [];
  readonly #formats = new Map<string, string>();
  readonly #formatConstants = new Map<string, string>();

  constructor(model: ContractModel) {
    this.#model = model;
  }

  /** The function that validates named schema `name` (tracking variants report what they evaluated). */
  require(name: string, tracking = false): string {
    const key = `${name}${tracking ? '$t' : ''}`;
    if (!this.#wanted.has(key)) {
      this.#wanted.set(key, tracking);
      this.#queue.push([name, tracking]);
    }
    return functionName(name, tracking);
  }

  /** A JS expression callable on the value, or undefined for annotation-only formats. */
  format(format: string): string | undefined {
    const known = this.#formats.get(format);
    if (known !== undefined) return known;
    const def = FORMATS[format];
    if (def === undefined || typeof def === 'boolean') return undefined;
    const name = `$f_${format.replace(/[^A-Za-z0-9]/g, '_')}`;
    this.#formatConstants.set(format, `const ${name}=$format(${JSON.stringify(format)});`);
    this.#formats.set(format, name);
    return name;
  }

  write(roots: readonly string[]): { code: string; exports: Map<string, string> } {
    const exports = new Map<string, string>();
    for (const root of roots) {
      exports.set(root, validatorExportName(root));
      this.require(root);
    }
    const functions = new Map<string, string>();
    for (let next = 0; next < this.#queue.length; next++) {
      const [name, tracking] = this.#queue[next]!;
      const schema = this.#model.schemas[name]?.schema ?? true;
      const fn = functionName(name, tracking);
      const writer = new FunctionWriter(this, fn);
      const params = tracking ? 'd,E,tp,ti' : 'd,E';
      const body = writer.node(schema, 'd', ROOT_PATH, 'ok', tracking ? { props: 'tp', items: 'ti' } : {});
      const code = new CodeWriter('\t');
      for (const constant of writer.constants) code.line(constant);
      code.block(
        `function ${fn}(${params}){const s=E.length;let ok=true;`,
        () => {
          writeStatements(code, body);
          code.line('return ok||$s(E,s);');
        },
        '}',
      );
      if (exports.has(name) && !tracking) code.line(`export const ${validatorExportName(name)}=$root(${fn});`);
      functions.set(`${name}${tracking ? '$t' : ''}`, code.text().slice(0, -1));
    }
    const header = [
      'import { validatorRuntime } from "@keiyaku/runtime/codegen-v1";',
      '',
      'const { report: $r, type: $t, required: $q, formatError: $f, prefix: $x, failed: $s, escape: $esc, length: $len, equal: $eq, unique: $uniq, mergeItems: $mi, root: $root, format: $format, isObject: $o } = validatorRuntime;',
      ...[...this.#formatConstants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line),
    ];
    const sorted = [...functions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, text]) => text);
    return { code: `${[...header, '', sorted.join('\n\n')].join('\n')}\n`, exports };
  }
}

/** Compiles validators for `roots` (schema names) of `model`. */
export function buildValidators(model: ContractModel, roots: readonly string[]): ValidatorModule {
  const diagnostics = validatorDiagnostics(model);
  const exports = new Map<string, string>();
  if (diagnostics.some((d) => d.severity === 'error')) return { code: '', exports, diagnostics };
  const written = new ValidatorWriter(model).write([...new Set(roots)].sort());
  return { code: written.code, exports: written.exports, diagnostics };
}

/** What keeps schemas of `model` from becoming validators (unknown formats are reported by the schema registry, generator/model/schema-object.ts). */
export function validatorDiagnostics(model: ContractModel): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [name, named] of Object.entries(model.schemas)) {
    walk(named.schema, (node) => {
      const patterns = [
        ...(typeof node['pattern'] === 'string' ? [node['pattern']] : []),
        ...Object.keys((node['patternProperties'] ?? {}) as object),
      ];
      for (const pattern of patterns) {
        try {
          new RegExp(pattern, 'u');
        } catch (cause) {
          diagnostics.push({
            severity: 'error',
            code: 'schema_not_compilable',
            message: `schema ${name} cannot be compiled into a validator: ${cause instanceof Error ? cause.message : String(cause)}`,
            hint: 'fix the schema (an invalid regular expression in "pattern" is the usual cause)',
            ...(named.location ? { location: named.location } : {}),
          });
        }
      }
    });
  }
  return diagnostics;
}

function walk(schema: unknown, visit: (node: Schema) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) walk(item, visit);
    return;
  }
  visit(schema as Schema);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key.startsWith('x-')) continue;
    walk(value, visit);
  }
}
