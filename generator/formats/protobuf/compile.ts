/**
 * Compiles `.proto` files to a `google.protobuf.FileDescriptorSet` with the buf CLI
 * (`@bufbuild/buf`, an optional peer of the generator). buf is a full Protobuf compiler that
 * knows the well-known types; its JSON errors become located diagnostics.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { KeiyakuError } from '../../errors.js';

/** One error of buf: where in which `.proto` file, and what. */
export interface ProtoCompileError {
  /** The file as buf names it: relative to the root given to {@link compileProtoFile}. */
  readonly file: string;
  /** 1-based; 0 when buf gave no position. */
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type ProtoCompileResult =
  | { readonly ok: true; readonly descriptorSet: Uint8Array }
  | { readonly ok: false; readonly errors: readonly ProtoCompileError[] };

/** The buf CLI could not be found or run (`protobuf_compiler_missing`, `protobuf_compiler_failed`). */
export class ProtobufCompilerError extends KeiyakuError {
  override readonly name: string = 'ProtobufCompilerError';
}

/** The buf CLI is not installed where the generator can resolve it. */
export class BufMissingError extends ProtobufCompilerError {
  constructor(cause?: unknown) {
    super(
      'protobuf_compiler_missing',
      'the contract has Protobuf payloads, and compiling them needs the buf CLI (@bufbuild/buf), which is not installed: run `npm i -D @bufbuild/buf`',
      { cause },
    );
  }
}

let resolvedBuf: string | undefined;

/** The path of the buf binary of the installed `@bufbuild/buf`; throws {@link BufMissingError}. */
export function bufBinary(): string {
  if (process.env['KEIYAKU_BUF'] !== undefined && process.env['KEIYAKU_BUF'] !== '') return process.env['KEIYAKU_BUF'];
  if (resolvedBuf !== undefined) return resolvedBuf;
  let packageJson: string;
  try {
    packageJson = createRequire(import.meta.url).resolve('@bufbuild/buf/package.json');
  } catch (cause) {
    throw new BufMissingError(cause);
  }
  resolvedBuf = join(dirname(packageJson), 'bin', process.platform === 'win32' ? 'buf.exe' : 'buf');
  return resolvedBuf;
}

/**
 * Compiles `file` (a path relative to `root`, its imports resolved from `root` like `-I root`)
 * with its imports to a binary FileDescriptorSet; `sourceInfo` keeps source locations.
 */
export function compileProtoFile(root: string, file: string, options: { sourceInfo?: boolean } = {}): ProtoCompileResult {
  const binary = bufBinary();
  const target = file.split(sep).join('/');
  const args = ['build', root, '--path', join(root, file), '--error-format=json', '-o', '-#format=binpb'];
  if (options.sourceInfo !== true) args.push('--exclude-source-info');
  const run = spawnSync(binary, args, { maxBuffer: 64 * 1024 * 1024, windowsHide: true });
  if (run.error !== undefined) {
    if ((run.error as NodeJS.ErrnoException).code === 'ENOENT') throw new BufMissingError(run.error);
    throw new ProtobufCompilerError('protobuf_compiler_failed', `buf could not be run for ${target}: ${run.error.message}`);
  }
  if (run.status === 0) return { ok: true, descriptorSet: new Uint8Array(run.stdout) };
  const errors = parseBufErrors(run.stderr.toString('utf8'), root);
  if (errors.length === 0) {
    throw new ProtobufCompilerError(
      'protobuf_compiler_failed',
      `buf failed on ${target} (exit ${run.status}): ${run.stderr.toString('utf8').trim() || 'no output'}`,
    );
  }
  return { ok: false, errors };
}

/** Compiles `.proto` source text written inline in a contract, as the file `name` in a temporary directory. */
export function compileProtoSource(source: string, name = 'inline.proto', options: { sourceInfo?: boolean } = {}): ProtoCompileResult {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-proto-'));
  try {
    writeFileSync(join(dir, name), source);
    return compileProtoFile(dir, name, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** buf's `--error-format=json` lines (one object a line); other lines become position-less errors. */
function parseBufErrors(stderr: string, root: string): ProtoCompileError[] {
  const errors: ProtoCompileError[] = [];
  for (const line of stderr.split('\n')) {
    const text = line.trim();
    if (text === '') continue;
    try {
      const entry = JSON.parse(text) as { path?: string; start_line?: number; start_column?: number; message?: string };
      const path = entry.path ?? '';
      errors.push({
        file: path.startsWith(root) ? relative(root, path) : path,
        line: entry.start_line ?? 0,
        column: entry.start_column ?? 0,
        message: entry.message ?? text,
      });
    } catch {
      errors.push({ file: '', line: 0, column: 0, message: text });
    }
  }
  return errors;
}

/**
 * Where line 1 of an inline schema's text is written, when the schema is a YAML block scalar
 * (`schema: |`) starting at `line`/`column` of `file` (both 1-based): its lines are the file's
 * lines below, indented by the returned `indent`. Undefined for any other form (a quoted string),
 * whose lines cannot be told apart in the file.
 */
export function blockScalarStart(
  file: string,
  line: number,
  column: number,
): { readonly line: number; readonly indent: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split(/\r?\n/);
  const head = lines[line - 1]?.slice(column - 1) ?? '';
  if (!/^[|>]/.test(head)) return undefined;
  for (let index = line; index < lines.length; index++) {
    const content = lines[index] ?? '';
    if (content.trim() !== '') return { line: line + 1, indent: content.length - content.trimStart().length };
  }
  return undefined;
}

/** The text of a `$ref`'d `.proto` file, or undefined when it cannot be read. */
export function readProtoFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
