/** The test `.proto` files compiled with buf, as generated code embeds them (base64 FileDescriptorSet). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';

export const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The base64 descriptor set of `file` under test/protobuf/fixtures (with its imports) and its source text. */
export function compiledFixture(file: string): { readonly descriptorSet: string; readonly source: string } {
  const result = compileProtoFile(fixturesDir, file);
  if (!result.ok)
    throw new Error(
      `${file} does not compile: ${result.errors.map((error) => `${error.file}:${error.line}:${error.column} ${error.message}`).join('; ')}`,
    );
  return { descriptorSet: Buffer.from(result.descriptorSet).toString('base64'), source: readFileSync(`${fixturesDir}${file}`, 'utf8') };
}

/** A protobuf-es registry of the same descriptors: what a service using protobuf-es directly has. */
export function registryOf(descriptorSet: string) {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorSet, 'base64')));
}
