/** @keiyaku/protobuf: the payload codec of messages whose contract schema is Protobuf (docs/protobuf.md). */
export { messageIndexes, type ProtobufCodecOptions, ProtobufSchemaError, protobufCodec } from './codec.js';
