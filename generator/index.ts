/**
 * keiyaku's generator API: load → model → emit. The CLI is a thin layer over this.
 */
import { relative, resolve } from 'node:path';
import type { Diagnostic, SourceLocation } from './diagnostics.js';
import type { GeneratedFile, GenerateOptions, GenerateResult } from './emit/emit.js';
import { type LoadOptions, readContract, sortDiagnostics } from './load/load-contract.js';
import { tokensFromPointer } from './load/source-locator.js';
import { buildModel } from './model/build-model.js';
import type { ContractModel } from './model/contract-model.js';

export {
  FINDING_CODES,
  type FindingCode,
  isFindingCode,
  RENAMED_CODES,
  type SchemaFindingCode,
} from './compat/codes.js';
export type { CompatSeverity, Direction, Finding } from './compat/findings.js';
export type { Diagnostic, Severity, SourceLocation } from './diagnostics.js';
export { formatDiagnostic, formatLocation, hasErrors } from './diagnostics.js';
export type { GeneratedFile, GenerateOptions, GenerateResult } from './emit/emit.js';

/** Emits the files of `model` (see generator/emit/emit.ts); the emitter and its formatter load on first use. */
export async function generate(model: ContractModel, options: GenerateOptions): Promise<GenerateResult> {
  return (await import('./emit/emit.js')).generate(model, options);
}
export { ContractError, isKeiyakuError, KeiyakuError, OptionError, OutputError } from './errors.js';
export { type LoadedContract, type LoadOptions, loadContract, type ReadContract, readContract } from './load/load-contract.js';
export { MockError, type MockErrorCode } from './mock/mock-error.js';
export { ContractMocks, findChannel, type MockChannelOptions, type MockMessage, messageExamples } from './mock/mock-messages.js';
export type { Seed } from './mock/random.js';
export type { SchemaValueOptions } from './mock/schema-value.js';
export { buildModel } from './model/build-model.js';
export type * from './model/contract-model.js';

export interface CompiledContract {
  /** Undefined when the contract has errors. */
  readonly model: ContractModel | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** Every file the contract is made of (absolute paths), for watch mode. */
  readonly files: readonly string[];
  /** File, line and column of a node of the resolved document (following `$ref`s across files). */
  readonly locate?: (pointer: string) => SourceLocation;
}

/** Load and model a contract file. Contract problems come back as diagnostics. */
export async function compileContract(spec: string, options: LoadOptions = {}): Promise<CompiledContract> {
  const cwd = options.cwd ?? process.cwd();
  const source = relative(cwd, resolve(cwd, spec)) || spec;
  const loaded = await readContract(spec, { ...options, cwd });
  if (loaded.contract === undefined) return { model: undefined, diagnostics: loaded.diagnostics, files: loaded.locator.files() };
  const built = buildModel(loaded.contract, loaded.locator, source);
  return {
    model: built.model,
    diagnostics: sortDiagnostics([...loaded.diagnostics, ...built.diagnostics]),
    files: loaded.locator.files(),
    locate: (pointer: string) => loaded.locator.locate(tokensFromPointer(pointer)),
  };
}

export interface GenerateFromFileResult {
  readonly model: ContractModel | undefined;
  readonly files: readonly GeneratedFile[];
  readonly diagnostics: readonly Diagnostic[];
  readonly inputs: readonly string[];
}

/** Load, model and emit. Files are empty when there are errors. Writes nothing. */
export async function generateFromFile(spec: string, options: LoadOptions = {}): Promise<GenerateFromFileResult> {
  const cwd = options.cwd ?? process.cwd();
  const compiled = await compileContract(spec, { ...options, cwd });
  if (compiled.model === undefined) return { model: undefined, files: [], diagnostics: compiled.diagnostics, inputs: compiled.files };
  const emitted = await generate(compiled.model, { source: compiled.model.source });
  const diagnostics = sortDiagnostics([...compiled.diagnostics, ...emitted.diagnostics]);
  const failed = diagnostics.some((d) => d.severity === 'error');
  return { model: compiled.model, files: failed ? [] : emitted.files, diagnostics, inputs: compiled.files };
}

/**
 * Load and model a contract and check what generate would refuse (schemas that cannot become
 * validators), without emitting or formatting anything: `keiyaku validate`.
 */
export async function validateFile(spec: string, options: LoadOptions = {}): Promise<GenerateFromFileResult> {
  const cwd = options.cwd ?? process.cwd();
  const compiled = await compileContract(spec, { ...options, cwd });
  if (compiled.model === undefined) return { model: undefined, files: [], diagnostics: compiled.diagnostics, inputs: compiled.files };
  const { validatorDiagnostics } = await import('./emit/validators.js'); // validate only: check never loads it
  const diagnostics = sortDiagnostics([...compiled.diagnostics, ...validatorDiagnostics(compiled.model)]);
  return { model: compiled.model, files: [], diagnostics, inputs: compiled.files };
}
