/**
 * The payload codecs of a contract's Avro and Protobuf messages, for commands that read or send
 * their bytes without the service's generated code (`keiyaku dead-letters show` and `redrive`):
 * built with the same format packages generated code imports (`@keiyaku/avro`, `@keiyaku/protobuf`),
 * loaded only when the contract has such messages. A package that is not installed leaves its
 * messages without a codec, and says how to install it.
 */
import type { PayloadCodec } from '@keiyaku/runtime/codegen-v1';
import type { ContractModel, MessageModel } from '../model/contract-model.js';
import type { CodecOf } from './contract-channels.js';

interface AvroModule {
  readonly avroCodec?: (schema: object, options?: { contentType?: string }) => PayloadCodec;
}
interface ProtobufModule {
  readonly protobufCodec?: (descriptorSet: string, message: string, options?: { source?: string; contentType?: string }) => PayloadCodec;
}

/** The contract's content type of `m`, when it names a binary one (not the JSON default); the codec's own otherwise. */
function contentTypeOf(m: MessageModel): { contentType?: string } {
  const type = m.contentType.toLowerCase();
  return type === '' || type.startsWith('application/json') || type.includes('+json') ? {} : { contentType: m.contentType };
}

export interface ContractCodecs {
  readonly codecOf: CodecOf;
  /** Why some messages have no codec here (a format package not installed), one line each. */
  readonly missing: readonly string[];
}

async function load<T>(name: string): Promise<T | undefined> {
  try {
    return (await import(name)) as T;
  } catch {
    return undefined;
  }
}

/** The codecs of `model`'s Avro and Protobuf messages. */
export async function contractCodecs(model: ContractModel): Promise<ContractCodecs> {
  const formats = new Set(Object.values(model.messages).map((m) => m.format?.kind));
  const avro = formats.has('avro') ? await load<AvroModule>('@keiyaku/avro') : undefined;
  const protobuf = formats.has('protobuf') ? await load<ProtobufModule>('@keiyaku/protobuf') : undefined;
  const missing: string[] = [];
  if (formats.has('avro') && avro?.avroCodec === undefined)
    missing.push('the contract has Avro messages: install @keiyaku/avro (npm install @keiyaku/avro) to decode them');
  if (formats.has('protobuf') && protobuf?.protobufCodec === undefined)
    missing.push('the contract has Protobuf messages: install @keiyaku/protobuf (npm install @keiyaku/protobuf) to decode them');
  const codecOf = (m: MessageModel): PayloadCodec | undefined => {
    const format = m.format;
    if (format?.kind === 'avro') return avro?.avroCodec?.(format.schema as object, contentTypeOf(m));
    if (format?.kind === 'protobuf')
      return protobuf?.protobufCodec?.(format.descriptorSet, format.message, { source: format.source, ...contentTypeOf(m) });
    return undefined;
  };
  return { codecOf, missing };
}
