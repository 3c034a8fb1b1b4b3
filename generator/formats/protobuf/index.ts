/**
 * Protobuf payloads (`schemaFormat: application/vnd.google.protobuf…`): the one entry the
 * schema-format dispatch (../schema-format.ts, model/message-object.ts) calls for them.
 *
 * The schema is `.proto` text: written inline (a YAML block scalar keeps buf's line numbers
 * meaningful in the contract), or a `$ref` to a `.proto` file, which the loader reads as its text
 * (load/source-locator.ts). A file's imports resolve from the contract's folder, like `protoc -I`
 * with the contract's folder; well-known types (`google/protobuf/*.proto`) come with buf.
 */
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Diagnostic, SourceLocation } from '../../diagnostics.js';
import type { ProtobufPayloadModel } from '../../model/contract-model.js';
import { blockScalarStart, ProtobufCompilerError } from './compile.js';
import { compileProtobufPayload } from './payload.js';

/** What the dispatch hands the Protobuf path: the payload's schema node, its format, where it is. */
export interface ProtobufPayloadInput {
  /** The message type, for messages. */
  readonly type: string;
  readonly schema: unknown;
  readonly schemaFormat: string;
  readonly location: SourceLocation;
  /** The contract file as locations name it: `$ref`'d `.proto` files import from its folder. */
  readonly contract?: string;
  /** The absolute path of a file as locations name it (relative to the load's working directory). */
  readonly resolveFile?: (file: string) => string;
}

/** The Protobuf model of a payload, or the diagnostics that say why there is none. */
export function protobufPayload(input: ProtobufPayloadInput): { model?: ProtobufPayloadModel; diagnostics: readonly Diagnostic[] } {
  const { location, type } = input;
  if (typeof input.schema !== 'string') {
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'protobuf_schema_not_text',
          message: `message "${type}": a Protobuf payload's schema is the .proto source (a string), not ${input.schema === null ? 'null' : typeof input.schema}`,
          hint: 'write the .proto inline (`schema: |` and the file below it) or `$ref` a .proto file',
          location,
        },
      ],
    };
  }
  const fromFile = /\.proto$/i.test(location.file);
  const absolute = input.resolveFile ?? ((file: string) => resolve(file));
  try {
    if (fromFile) {
      const file = absolute(location.file);
      const contractDir = dirname(absolute(input.contract ?? location.file));
      const inside = !relative(contractDir, file).startsWith('..') && !isAbsolute(relative(contractDir, file));
      const root = inside ? contractDir : dirname(file);
      return compileProtobufPayload({
        schemaFormat: input.schemaFormat,
        source: input.schema,
        file: { root, path: relative(root, file), display: location.file },
        // buf names files relative to the root; diagnostics name them as the contract's locations do.
        locate: (name, line, column) => ({
          file: join(dirname(location.file), relative(dirname(file), join(root, name))),
          line,
          column,
          pointer: '',
        }),
        at: location,
      });
    }
    const block = blockScalarStart(absolute(location.file), location.line, location.column);
    return compileProtobufPayload({
      schemaFormat: input.schemaFormat,
      source: input.schema,
      inlineName: 'payload.proto',
      locate: (name, line, column) =>
        block === undefined || name !== 'payload.proto'
          ? location
          : { ...location, line: block.line + line - 1, column: block.indent + column },
      at: location,
    });
  } catch (error) {
    if (!(error instanceof ProtobufCompilerError)) throw error;
    return { diagnostics: [{ severity: 'error', code: error.code, message: `message "${type}": ${error.message}`, location }] };
  }
}
