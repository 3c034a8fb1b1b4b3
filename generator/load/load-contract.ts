/**
 * Loading a contract: read, parse and validate an AsyncAPI 2.6 / 3.x document (YAML or JSON,
 * multi-file `$ref`) with `@asyncapi/parser`, and turn its findings into located diagnostics.
 *
 * @see https://github.com/asyncapi/parser-js
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { AsyncAPIDocumentInterface } from '@asyncapi/parser';
import type { Diagnostic, Severity } from '../diagnostics.js';
import { checkDocument } from './asyncapi-schema.js';
import { guardContract } from './contract-guard.js';
import type { ContractDocument } from './document.js';
import { readPlainDocument } from './plain-document.js';
import { refineDiagnostics } from './refine-diagnostics.js';
import { isProtoFile, pointerFromTokens, readContractFile, SourceLocator } from './source-locator.js';

const require = createRequire(import.meta.url);
type ParserModule = typeof import('@asyncapi/parser');
let parserModule: ParserModule | undefined;
/** The parser loads on first use (it is most of a command's start-up). Its ESM build does not load under Node's resolver; its CommonJS build does. */
function asyncapiParser(): ParserModule {
  parserModule ??= require('@asyncapi/parser') as ParserModule;
  return parserModule;
}

/** A contract read by {@link readContract}: what keiyaku reads of it, its diagnostics and where each node was written. */
export interface ReadContract {
  /**
   * The document, or undefined when it has errors: the parser's (with `lint`, or when the fast
   * reader stepped aside) or the fast reader's, which offers the same methods the model builder
   * reads.
   */
  readonly contract: ContractDocument | undefined;
  readonly diagnostics: readonly Diagnostic[];
  readonly locator: SourceLocator;
}

/** What {@link loadContract} returns: its shape of keiyaku 0.1, plus `contract`. */
export interface LoadedContract extends ReadContract {
  /**
   * `@asyncapi/parser`'s document, or undefined when the contract has errors.
   * @deprecated keiyaku reads contracts without the parser: use {@link readContract} and its
   * `contract` (a {@link ContractDocument}). `loadContract()` goes away in keiyaku 1.0.
   */
  readonly document: AsyncAPIDocumentInterface | undefined;
}

interface ParserDiagnostic {
  readonly code: string | number;
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly severity: number;
  readonly source?: string;
  readonly range?: { readonly start: { readonly line: number; readonly character: number } };
}

const SEVERITY: Record<number, Severity> = { 0: 'error', 1: 'warning', 2: 'info', 3: 'info' };

/**
 * The full parser (core and recommended Spectral rulesets) or the fast one: no rulesets but the
 * parser's internal rule, which hands the resolved document's inventory to the parser so it
 * links circular `$ref`s exactly as the full parser does. A new instance per load: the
 * resolver caches the files it read, and watch mode must see them change.
 */
function parserFor(full: boolean): InstanceType<ParserModule['Parser']> {
  const { Parser } = asyncapiParser();
  const resolver = { resolvers: [PROTO_FILES] };
  if (full) return new Parser({ __unstable: { resolver } });
  const { internal } = require('@asyncapi/parser/cjs/ruleset/functions/internal') as { internal: unknown };
  const { AsyncAPIFormats } = require('@asyncapi/parser/cjs/ruleset/formats') as { AsyncAPIFormats: { formats(): unknown } };
  // biome-ignore lint/suspicious/noThenProperty: a Spectral rule's `then` is its action, not a promise
  const rule = { given: '$', recommended: true, then: { function: internal } };
  const internalOnly = { formats: AsyncAPIFormats.formats(), rules: { 'asyncapi-internal': rule } };
  return new Parser({ ruleset: { core: false, recommended: false, extends: [internalOnly] } as never, __unstable: { resolver } });
}

/** The parser reads a `$ref`'d `.proto` file as one string, its text, as the source locator does (isProtoFile). */
const PROTO_FILES = {
  schema: 'file',
  order: 1,
  canRead: (uri: { href(): string }) => isProtoFile(uri.href()),
  read: (uri: { href(): string }) => JSON.stringify(readContractFile(uri.href())),
};

/** Documentation-style lint rules of the parser: shown with --verbose, never fail --strict. */
const STYLE_RULES = new Set([
  'asyncapi-id',
  'asyncapi2-tags',
  'asyncapi-tags',
  'asyncapi-info-contact',
  'asyncapi-info-license',
  'asyncapi-info-description',
  'asyncapi2-message-messageId',
  'asyncapi2-operation-operationId',
  'asyncapi-operation-description',
  'asyncapi-latest-version',
]);

/** Advice for the parser's diagnostic codes and messages. */
function hintFor(code: string, message: string): string | undefined {
  if (code === 'parser') return 'fix the YAML/JSON syntax at this position';
  if (code === 'invalid-ref') return 'make the $ref point at an existing file (relative to the file that contains it) and pointer';
  if (code === 'asyncapi-latest-version') return 'set `asyncapi:` to the latest version when you can; 2.6 and 3.x are supported';
  if (/is not expected to be here/.test(message))
    return 'remove or rename the property; check its spelling against the AsyncAPI specification';
  if (/must have required property/.test(message)) return 'add the missing property';
  if (/Did you mean/.test(message)) return 'use the suggested value';
  if (/must be equal to one of the allowed values/.test(message)) return 'use one of the allowed values';
  if (/type must be/.test(message)) return 'change the value to the expected type (quote numbers that are meant as strings)';
  if (/unused/i.test(code)) return 'remove it or reference it';
  return undefined;
}

export interface LoadOptions {
  readonly cwd?: string;
  /**
   * Run the parser's full Spectral rulesets (core and recommended: style and best-practice
   * rules), which take seconds. Without it the document is checked against the official
   * AsyncAPI JSON Schema of its version with a validator compiled at build time, plus
   * keiyaku's own model checks: every error the rulesets report is still reported.
   */
  readonly lint?: boolean;
  /**
   * Let `$ref`s read files outside the folder tree of the contract file (`--allow-ref-outside`,
   * `"allowRefOutside": true` in keiyaku.config.json). Off: such a `$ref` is an error.
   */
  readonly allowRefOutside?: boolean;
}

let warnedLoadContract = false;

/**
 * Loads and validates `specPath` through `@asyncapi/parser` (seconds) and returns the parser's
 * document, as keiyaku 0.1 did. Never throws for contract problems: they come back as diagnostics.
 * @deprecated use {@link readContract}, which reads contracts without the parser; this emits one
 * `DeprecationWarning` (code `KEIYAKU_LOAD_CONTRACT`) and goes away in keiyaku 1.0.
 */
export async function loadContract(specPath: string, options: LoadOptions = {}): Promise<LoadedContract> {
  if (!warnedLoadContract) {
    warnedLoadContract = true;
    process.emitWarning(
      "loadContract() is deprecated: use readContract() (its `contract` is keiyaku's ContractDocument, read without @asyncapi/parser); loadContract() goes away in keiyaku 1.0",
      { type: 'DeprecationWarning', code: 'KEIYAKU_LOAD_CONTRACT' },
    );
  }
  const loaded = await load(specPath, options, false);
  return { ...loaded, document: loaded.contract as AsyncAPIDocumentInterface | undefined };
}

/**
 * Reads and validates `specPath`: without `@asyncapi/parser` when the contract is valid and plain
 * (milliseconds), through it otherwise (every problem reported and located as the parser does).
 * Never throws for contract problems: they come back as diagnostics.
 */
export function readContract(specPath: string, options: LoadOptions = {}): Promise<ReadContract> {
  return load(specPath, options, options.lint !== true);
}

async function load(specPath: string, options: LoadOptions, fast: boolean): Promise<ReadContract> {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, specPath);
  const locator = new SourceLocator(absolute, cwd);
  const failed = (...diagnostics: Diagnostic[]): ReadContract => ({ contract: undefined, locator, diagnostics });
  const display = locator.displayPath(absolute);
  if (!existsSync(absolute)) {
    return failed({
      severity: 'error',
      code: 'spec_not_found',
      message: `contract file ${display} does not exist`,
      hint: 'pass the contract with --spec <file> or set "spec" in keiyaku.config.json',
    });
  }
  let text: string;
  try {
    text = readContractFile(absolute);
  } catch (error) {
    return failed({
      severity: 'error',
      code: 'spec_unreadable',
      message: `contract file ${display} cannot be read: ${(error instanceof Error ? error.message : String(error)).replace(absolute, display)}`,
      hint: 'pass a regular YAML or JSON file of at most 16 MiB with --spec <file>',
      location: { file: display, line: 0, column: 0, pointer: '' },
    });
  }
  if (text.trim() === '') {
    return failed({
      severity: 'error',
      code: 'spec_empty',
      message: `contract file ${display} is empty`,
      hint: 'write an AsyncAPI document (it starts with `asyncapi: 3.0.0`)',
      location: { file: display, line: 1, column: 1, pointer: '' },
    });
  }
  // Nothing reads the contract before it passed the guard: cycles, bombs, devices, files
  // outside the contract's folder and runaway nesting stop here.
  const refused = guardContract(absolute, locator, options);
  if (refused.length > 0) return failed(...refused);
  if (fast) {
    const plain = readPlainDocument(absolute, locator);
    if (plain !== undefined) return { contract: plain, diagnostics: [], locator };
  }
  const { fromFile } = asyncapiParser();
  type ParseResult = Awaited<ReturnType<ReturnType<typeof fromFile>['parse']>>;
  const parse = (full: boolean): Promise<ParseResult> =>
    fromFile(parserFor(full), absolute).parse({
      validateOptions: { allowedSeverity: { warning: true, info: true, hint: true } },
    });
  let result: ParseResult;
  let schemaDiagnostics: Diagnostic[] = [];
  try {
    result = await parse(options.lint === true);
    // The parser's models crash on some invalid documents (a null where a schema belongs) that its
    // rulesets would have rejected first: let the full rulesets report them, located.
    if (options.lint !== true && (result.diagnostics as readonly ParserDiagnostic[]).some((d) => d.code === 'uncaught-error'))
      result = await parse(true);
    if (options.lint !== true && result.document !== undefined) {
      const problems = checkDocument(result.document.json(), result.document.version());
      if (problems === undefined) result = await parse(true);
      else if (problems.length > 0) {
        schemaDiagnostics = problems.map((problem) => schemaDiagnostic(problem, locator));
        result = { ...result, document: undefined };
      }
    }
  } catch (cause) {
    const message = withoutStack(cause instanceof Error ? cause.message : String(cause));
    return failed({
      severity: 'error',
      code: 'parser_crash',
      message: `the AsyncAPI parser failed: ${message}`,
      hint: 'check the document is AsyncAPI 2.6 or 3.x',
    });
  }
  const diagnostics = (result.diagnostics as readonly ParserDiagnostic[]).map((d) => parserDiagnostic(d, cwd, absolute, locator));
  return {
    contract: result.document ?? undefined,
    diagnostics: sortDiagnostics(refineDiagnostics([...diagnostics, ...schemaDiagnostics], locator, cwd)),
    locator,
  };
}

/** A problem of the document checker (`checkDocument`), located in the contract's files. */
function schemaDiagnostic(
  problem: { readonly path: readonly (string | number)[]; readonly message: string },
  locator: SourceLocator,
): Diagnostic {
  const location = locator.locate(problem.path);
  return {
    severity: 'error',
    code: 'asyncapi-document-resolved',
    message: problem.message,
    ...(hintFor('asyncapi-document-resolved', problem.message) ? { hint: hintFor('asyncapi-document-resolved', problem.message)! } : {}),
    location,
  };
}

/** A diagnostic of the AsyncAPI parser in keiyaku's terms: located, with a hint, style rules as info. */
function parserDiagnostic(d: ParserDiagnostic, cwd: string, absolute: string, locator: SourceLocator): Diagnostic {
  const code = String(d.code);
  const file = d.source ? resolve(cwd, d.source) : absolute;
  const path = d.path ?? [];
  const location =
    d.range !== undefined
      ? {
          file: locator.displayPath(file),
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          pointer: pointerFromTokens(path),
        }
      : locator.locateInFile(file, path);
  const hint = hintFor(code, d.message);
  const severity = STYLE_RULES.has(code) && d.severity > 0 ? 'info' : (SEVERITY[d.severity] ?? 'info');
  const missing = /ENOENT: no such file or directory, open '([^']+)'/.exec(d.message);
  const message = missing ? `referenced file ${locator.displayPath(missing[1]!)} does not exist` : withoutStack(d.message);
  return { severity, code, message, ...(hint ? { hint } : {}), location };
}

/** A message without the stack trace the parser appends to an error it caught (`…, stack: TypeError: … at …`). */
function withoutStack(message: string): string {
  const cut = message.search(/,? stack: |\n\s+at /);
  return cut === -1 ? message : message.slice(0, cut);
}

export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  return [...diagnostics].sort(
    (a, b) =>
      rank[a.severity] - rank[b.severity] ||
      Number(b.code === 'parser') - Number(a.code === 'parser') ||
      (a.location?.file ?? '').localeCompare(b.location?.file ?? '') ||
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      (a.location?.column ?? 0) - (b.location?.column ?? 0),
  );
}
