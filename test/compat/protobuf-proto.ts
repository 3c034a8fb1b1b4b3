// `.proto` text compiled to what the contract model holds (the binary FileDescriptorSet that
// `buf build` writes, base64), and `buf breaking` run on two such sets as an oracle for the
// Protobuf gate's verdicts. The buf CLI comes from the root devDependency `@bufbuild/buf`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ProtobufPayloadModel } from '../../generator/model/contract-model.js';
import { repoRoot } from '../helpers.js';

const exec = promisify(execFile);
const buf = join(repoRoot, 'node_modules', '.bin', 'buf');

export type Syntax = 'proto3' | 'proto2' | 'editions';

/** A whole `.proto` file: the syntax line, `package <pkg>;`, then `body`. */
export function protoFile(body: string, syntax: Syntax = 'proto3', pkg = 't.v1'): string {
  const head = syntax === 'editions' ? 'edition = "2023";' : `syntax = "${syntax}";`;
  return `${head}\npackage ${pkg};\n${body}\n`;
}

/** Compiled `.proto` files: the base64 descriptor set (as the contract model holds it) and the image file buf wrote. */
export interface Compiled {
  readonly descriptorSet: string;
  readonly image: string;
}

/** Compiles `files` (path → source) with `buf build`, as one module: one image for them all. */
export async function compileProtos(files: Readonly<Record<string, string>>): Promise<Compiled> {
  const dir = mkdtempSync(join(tmpdir(), 'keiyaku-proto-'));
  for (const [path, source] of Object.entries(files)) writeFileSync(join(dir, path), source);
  const image = join(dir, 'image.binpb');
  try {
    await exec(buf, ['build', dir, '-o', image, '--exclude-source-info'], { cwd: dir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`buf build failed: ${(error as { stderr?: string }).stderr ?? String(error)}`);
  }
  return { descriptorSet: readFileSync(image).toString('base64'), image };
}

/** The payload model of message `message` (a full name) of compiled files. */
export function payloadModel(compiled: Compiled, message: string, source = ''): ProtobufPayloadModel {
  return {
    kind: 'protobuf',
    message,
    source,
    descriptorSet: compiled.descriptorSet,
    schemaFormat: 'application/vnd.google.protobuf;version=3',
  };
}

/** One `.proto` file compiled (`m.proto`): the payload model of `message`. */
export async function compileProto(source: string, message = 't.v1.M'): Promise<{ model: ProtobufPayloadModel; image: string }> {
  const compiled = await compileProtos({ 'm.proto': source });
  return { model: { ...payloadModel(compiled, message, source), file: 'm.proto' }, image: compiled.image };
}

export function removeImage(image: string): void {
  rmSync(join(image, '..'), { recursive: true, force: true });
}

/**
 * What `buf breaking` reports for the image `after` against `before` under one category: the rule
 * ids per file (a file without a break is absent).
 */
export async function bufBreaking(before: string, after: string, category: 'WIRE' | 'WIRE_JSON'): Promise<Map<string, string[]>> {
  const config = JSON.stringify({ version: 'v2', breaking: { use: [category] } });
  const out = new Map<string, string[]>();
  try {
    await exec(buf, ['breaking', after, '--against', before, '--config', config, '--error-format', 'json']);
    return out;
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (e.code !== 100) throw new Error(`buf breaking failed: ${e.stderr ?? String(error)}`);
    for (const line of (e.stdout ?? '').split('\n')) {
      if (line.trim() === '') continue;
      const { path, type } = JSON.parse(line) as { path: string; type: string };
      out.set(path, [...new Set([...(out.get(path) ?? []), type])]);
    }
    return out;
  }
}
