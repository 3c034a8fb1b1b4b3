/**
 * `protobufCodec`: the PayloadCodec of one Protobuf message, built from the descriptors `generate`
 * embeds in generated code, on protobuf-es (`@bufbuild/protobuf` v2, conformance-tested).
 *
 * Payload values are protobuf-es messages (`$typeName`, bigint 64-bit integers, Uint8Array bytes,
 * `{ case, value }` oneofs; docs/protobuf.md has the table), so a service that already speaks
 * protobuf-es passes its messages as they are.
 */
import {
  create,
  createFileRegistry,
  type DescMessage,
  type FileRegistry,
  fromBinary,
  isMessage,
  type Message,
  toBinary,
  toJson,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ContractDecodeError, KeiyakuError, type PayloadCodec, type ValidationIssue } from '@keiyaku/runtime/codegen-v1';
import { validateMessage } from './validate.js';

export interface ProtobufCodecOptions {
  /**
   * The `.proto` source of the file that declares the message: the schema text a Schema Registry
   * registers (`schema.schema`). Generated code always gives it; without it the text is empty
   * and the codec cannot be registered.
   */
  readonly source?: string;
  /** The content type written on the wire; `application/x-protobuf` by default. */
  readonly contentType?: string;
}

/** The descriptors given to {@link protobufCodec} do not hold the message, or are not a FileDescriptorSet. */
export class ProtobufSchemaError extends KeiyakuError {
  override readonly name = 'ProtobufSchemaError';
  constructor(message: string, cause?: unknown) {
    super('protobuf_schema_invalid', message, { cause });
  }
}

/**
 * The codec of the message `messageName` (fully qualified, `library.v1.BookBorrowed`) of the
 * base64 binary `google.protobuf.FileDescriptorSet` `descriptorSetBase64` (the file and its imports).
 */
export function protobufCodec(descriptorSetBase64: string, messageName: string, options: ProtobufCodecOptions = {}): PayloadCodec {
  const registry = loadRegistry(descriptorSetBase64);
  const desc = registry.getMessage(messageName);
  if (desc === undefined) {
    // The contract's own messages first: the well-known types every file imports say little.
    const messages = [...registry].filter((type) => type.kind === 'message').map((type) => type.typeName);
    const known = [
      ...messages.filter((name) => !name.startsWith('google.protobuf.')),
      ...messages.filter((name) => name.startsWith('google.protobuf.')),
    ];
    throw new ProtobufSchemaError(
      `protobufCodec: the descriptors hold no message ${messageName} (they hold ${known.slice(0, 10).join(', ') || 'no messages'}); regenerate the code`,
    );
  }
  const messageValue = (value: unknown): Message => (isMessage(value, desc) ? value : create(desc, value as never));
  return Object.freeze({
    format: 'protobuf' as const,
    contentType: options.contentType ?? 'application/x-protobuf',
    schema: Object.freeze({
      schemaType: 'PROTOBUF' as const,
      schema: options.source ?? '',
      recordName: desc.typeName,
      messageIndexes: Object.freeze(messageIndexes(desc)),
    }),
    validate: (value: unknown): readonly ValidationIssue[] => validateMessage(desc, value),
    // A copy always: the contract message is frozen, and the caller's object must stay its own.
    normalize: (value: unknown): object => create(desc, (isMessage(value, desc) ? { ...value } : value) as never),
    encode: (value: unknown): Uint8Array => toBinary(desc, messageValue(value)),
    decode(bytes: Uint8Array, type: string) {
      try {
        // Unknown fields are kept (`$unknown`) and written again by encode: a relay loses nothing.
        return { ok: true as const, value: fromBinary(desc, bytes) };
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause);
        const error = new ContractDecodeError(
          'malformed',
          type,
          `${type}: payload is not a ${desc.typeName} in the Protobuf binary format (${detail})`,
          [],
          cause,
        );
        return { ok: false as const, error };
      }
    },
    toJson: (value: unknown): unknown => toJson(desc, messageValue(value), { registry }),
  });
}

function loadRegistry(descriptorSetBase64: string): FileRegistry {
  try {
    const bytes = base64Bytes(descriptorSetBase64);
    return createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
  } catch (cause) {
    if (cause instanceof ProtobufSchemaError) throw cause;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new ProtobufSchemaError(
      `protobufCodec: the descriptors are not a valid google.protobuf.FileDescriptorSet (${detail}); regenerate the code`,
      cause,
    );
  }
}

function base64Bytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text))
    throw new ProtobufSchemaError('protobufCodec: the descriptor set is not base64; regenerate the code');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The Confluent wire format's message indexes of `desc`: its index among the top-level messages
 * of its file, then among the nested messages of each enclosing message (`[1, 0]`: the first
 * message nested in the file's second).
 */
export function messageIndexes(desc: DescMessage): number[] {
  const path: number[] = [];
  let current: DescMessage = desc;
  while (current.parent !== undefined) {
    path.unshift(current.parent.nestedMessages.indexOf(current));
    current = current.parent;
  }
  path.unshift(current.file.messages.indexOf(current));
  return path;
}
