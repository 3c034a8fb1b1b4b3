/**
 * Protobuf payloads (`schemaFormat: application/vnd.google.protobuf…`): the one entry the
 * schema-format dispatch (../schema-format.ts, model/message-object.ts) calls for them.
 */
import type { Diagnostic, SourceLocation } from '../../diagnostics.js';
import type { ProtobufPayloadModel } from '../../model/contract-model.js';

/** What the dispatch hands the Protobuf path: the payload's schema node, its format, where it is. */
export interface ProtobufPayloadInput {
  /** The message type, for messages. */
  readonly type: string;
  readonly schema: unknown;
  readonly schemaFormat: string;
  readonly location: SourceLocation;
}

/** The Protobuf model of a payload, or the diagnostics that say why there is none. */
export function protobufPayload(input: ProtobufPayloadInput): { model?: ProtobufPayloadModel; diagnostics: readonly Diagnostic[] } {
  return {
    diagnostics: [
      {
        severity: 'error',
        code: 'schema_format_unsupported',
        message: `message "${input.type}": Protobuf payloads (${input.schemaFormat}) are not supported yet`,
        hint: 'give the payload as JSON Schema or Avro until Protobuf support lands',
        location: input.location,
      },
    ],
  };
}
