/**
 * Validators compiled at `generate` time: ajv standalone code for every payload and
 * headers schema, so no schema is compiled when a service starts.
 *
 * @see https://ajv.js.org/standalone.html
 */
import { createRequire } from 'node:module';
import type { Diagnostic } from '../diagnostics.js';
import { KeiyakuError } from '../errors.js';
import { type ContractModel, SCHEMA_REF_PREFIX, type SchemaNode } from '../model/contract-model.js';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as { default: new (options: object) => AjvInstance }).default;
const standaloneCode = (require('ajv/dist/standalone') as { default: (ajv: AjvInstance, refs: Record<string, string>) => string }).default;
const addFormats = require('ajv-formats') as (ajv: AjvInstance, options?: object) => void;

interface AjvInstance {
  addSchema(schema: object, key?: string): AjvInstance;
  compile(schema: object): unknown;
}

const CONTRACT_ID = 'keiyaku:contract';

/** Rewrites `#/schemas/<Name>` into `#/$defs/<Name>` of the combined contract schema. */
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
  /** JavaScript (ESM) module text; imports `ajvRuntime` from `keiyaku/codegen-v1`. */
  readonly code: string;
  /** Export name per schema name. */
  readonly exports: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function validatorExportName(schemaName: string): string {
  return `validate${schemaName}`;
}

/** Compiles validators for `roots` (schema names) of `model`. */
export function buildValidators(model: ContractModel, roots: readonly string[]): ValidatorModule {
  const diagnostics: Diagnostic[] = [];
  const defs: Record<string, unknown> = {};
  for (const [name, named] of Object.entries(model.schemas)) defs[name] = toAjvSchema(named.schema);
  // Unknown formats are reported where they are written, by the schema registry (generator/model/schema-object.ts).
  const ajv = new Ajv2020({
    code: { source: true, esm: true, lines: true },
    strict: false,
    allErrors: false,
    logger: false,
    allowUnionTypes: true,
    validateFormats: true,
    // `constructor`, `valueOf`, `__proto__` … are property names in contracts, not inherited members.
    ownProperties: true,
    inlineRefs: false,
  });
  addFormats(ajv);
  const exports = new Map<string, string>();
  const refs: Record<string, string> = {};
  for (const root of [...new Set(roots)].sort()) {
    exports.set(root, validatorExportName(root));
    refs[validatorExportName(root)] = `${CONTRACT_ID}#/$defs/${root}`;
  }
  let code = '';
  try {
    ajv.addSchema({ $id: CONTRACT_ID, $defs: defs });
    code = standaloneCode(ajv, refs);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const culprit = Object.keys(defs).find((name) => {
      try {
        const probe = new Ajv2020({ strict: false, logger: false, allowUnionTypes: true });
        addFormats(probe);
        probe.addSchema({ $id: CONTRACT_ID, $defs: defs });
        probe.compile({ $ref: `${CONTRACT_ID}#/$defs/${name}` });
        return false;
      } catch {
        return true;
      }
    });
    const location = culprit ? model.schemas[culprit]?.location : undefined;
    diagnostics.push({
      severity: 'error',
      code: 'schema-not-compilable',
      message: `schema${culprit ? ` ${culprit}` : ''} cannot be compiled into a validator: ${message}`,
      hint: 'fix the schema (an invalid regular expression in "pattern" is the usual cause)',
      ...(location ? { location } : {}),
    });
    return { code: '', exports, diagnostics };
  }
  return { code: rewriteRuntimeImports(code), exports, diagnostics };
}

/** ajv emits `require("ajv/dist/runtime/…")`; generated code may import only keiyaku. */
function rewriteRuntimeImports(code: string): string {
  const rewritten = code
    .replace(/^"use strict";?\s*/, '')
    .replace(/require\("ajv-formats\/dist\/formats"\)\.fullFormats/g, 'ajvRuntime.formats')
    .replace(/require\("ajv\/dist\/runtime\/(\w+)"\)\.default/g, (_m, name: string) => `ajvRuntime.${name}`)
    .replace(/\/\*# sourceURL=[^*]*\*\/;?/g, '');
  const leftover = /require\("([^"]+)"\)/.exec(rewritten);
  if (leftover)
    throw new KeiyakuError(
      'generator_bug',
      `ajv standalone code needs ${leftover[1]}, which keiyaku/codegen-v1 does not provide; please report it`,
    );
  return `import { ajvRuntime } from "keiyaku/codegen-v1";\n\n${rewritten}`;
}
