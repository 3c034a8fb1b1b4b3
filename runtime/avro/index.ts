/** @keiyaku/avro: the payload codec of messages whose contract schema is Avro (on avsc); docs/avro.md. */
export {
  type AvroCodecOptions,
  AvroResolutionError,
  type AvroSchema,
  AvroSchemaError,
  avroCodec,
  avroType,
  canonicalSchemaText,
} from './codec.js';
export { toJsonView as avroJsonView } from './json-view.js';
