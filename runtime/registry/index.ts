/**
 * `@keiyaku/runtime/registry`: the Schema Registry wire format. A client of the registry's REST
 * API (Confluent's, which Apicurio Registry serves too), subject name strategies, the frame, and
 * {@link withSchemaRegistry}, which frames a channel's Avro and Protobuf payloads.
 */
export { frameByContract, framedByContract, type SchemaRegistrySetup } from './binding.js';
export { type SchemaRegistryChannelOptions, schemaRegistryOf, withSchemaRegistry } from './channel.js';
export {
  type RegisteredSchema,
  type SchemaIdOptions,
  type SchemaInput,
  type SchemaReference,
  SchemaRegistryClient,
  type SchemaRegistryClientOptions,
  type SchemaType,
} from './client.js';
export { REGISTRY_ERROR_CODES, SchemaRegistryError, SchemaRegistryUnavailableError } from './errors.js';
export { type Frame, framed, frameHead, MAGIC_BYTE, readFrame } from './frame.js';
export { SUBJECT_NAME_STRATEGIES, type SubjectNameStrategy, subjectName } from './subject.js';
