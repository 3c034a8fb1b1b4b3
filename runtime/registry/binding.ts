/**
 * The registry wire format chosen by the contract: a message whose Kafka binding says
 * `schemaIdLocation: payload` is framed once the host is given a registry
 * (`schemaRegistry` in the configuration). What the binding asks for that keiyaku does not write
 * (the id in a header, Apicurio's 8-byte ids, an unknown lookup strategy) is refused by name.
 */
import type { AnyChannel, MessageRegistryBinding } from '../core/contract.js';
import { KeiyakuError } from '../core/errors.js';
import type { Transport } from '../core/transport.js';
import { type SchemaRegistryChannelOptions, schemaRegistryOf, withSchemaRegistry } from './channel.js';
import type { SchemaRegistryClient } from './client.js';
import type { SubjectNameStrategy } from './subject.js';

/** A registry given to a host: the client and the defaults for channels the contract frames. */
export interface SchemaRegistrySetup {
  readonly client: SchemaRegistryClient;
  /** The subject name strategy of messages whose binding names none (default `topic`). */
  readonly subjectNameStrategy?: SubjectNameStrategy;
  /** Register a writer schema the subject lacks, on first publish (default false). */
  readonly autoRegister?: boolean;
}

/** The message types of `channel` whose binding puts the schema id in the payload, with their strategies (undefined: the default). */
export function framedByContract(channel: AnyChannel): Map<string, SubjectNameStrategy | undefined> {
  const framed = new Map<string, SubjectNameStrategy | undefined>();
  for (const type of channel.messageTypes) {
    const binding = channel.message(type)?.registry;
    if (binding === undefined) continue;
    const what = `message ${type} of channel ${channel.id}`;
    if (binding.schemaIdLocation !== 'payload')
      throw new KeiyakuError(
        'schema_registry_unsupported',
        `${what}: its Kafka binding puts the schema id in a ${binding.schemaIdLocation}; keiyaku writes it in the payload (schemaIdLocation: payload, the Confluent wire format)`,
      );
    checkEncoding(what, binding);
    framed.set(type, strategyOf(what, binding.schemaLookupStrategy));
  }
  return framed;
}

function checkEncoding(what: string, binding: MessageRegistryBinding): void {
  const encoding = binding.schemaIdPayloadEncoding;
  if (encoding === undefined || encoding === 'confluent' || encoding === '4') return;
  throw new KeiyakuError(
    'schema_registry_unsupported',
    `${what}: schemaIdPayloadEncoding ${JSON.stringify(encoding)} is not one keiyaku writes; use confluent (magic byte 0 and a 4-byte id)`,
  );
}

/** The strategy a binding's `schemaLookupStrategy` names (Confluent's class names, Apicurio's TopicIdStrategy, or keiyaku's own names). */
function strategyOf(what: string, name: string | undefined): SubjectNameStrategy | undefined {
  if (name === undefined) return undefined;
  const simple = name.slice(name.lastIndexOf('.') + 1);
  if (simple === 'TopicRecordNameStrategy' || simple === 'topic-record') return 'topic-record';
  if (simple === 'RecordNameStrategy' || simple === 'RecordIdStrategy' || simple === 'record') return 'record';
  if (simple === 'TopicNameStrategy' || simple === 'TopicIdStrategy' || simple === 'topic') return 'topic';
  throw new KeiyakuError(
    'schema_registry_unsupported',
    `${what}: schemaLookupStrategy ${JSON.stringify(name)} is not one keiyaku knows; use TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy`,
  );
}

/**
 * `channel` as a host uses it: framed through the registry when the contract frames any of its
 * messages (and it is not framed already), else itself. A contract that frames a channel while
 * the host has no registry is an error naming the channel and the setting.
 */
export function frameByContract<C extends AnyChannel>(channel: C, setup: SchemaRegistrySetup | undefined, transport?: Transport): C {
  if (schemaRegistryOf(channel) !== undefined) return channel;
  const framed = framedByContract(channel);
  if (framed.size === 0) return channel;
  if (setup === undefined)
    throw new KeiyakuError(
      'schema_registry_required',
      `channel ${channel.id} carries ${[...framed.keys()].join(', ')} in the Schema Registry wire format (its Kafka message binding says schemaIdLocation: payload), but no registry is configured: set schemaRegistry.url in the configuration (KEIYAKU_SCHEMA_REGISTRY_URL), or give createMessaging a schemaRegistry`,
    );
  const strategies: Record<string, SubjectNameStrategy> = {};
  for (const [type, strategy] of framed) if (strategy !== undefined) strategies[type] = strategy;
  const options: SchemaRegistryChannelOptions = {
    types: [...framed.keys()],
    strategies,
    ...(setup.subjectNameStrategy === undefined ? {} : { subjectNameStrategy: setup.subjectNameStrategy }),
    ...(setup.autoRegister === undefined ? {} : { autoRegister: setup.autoRegister }),
    ...(transport?.destination === undefined ? {} : { transport }),
  };
  return withSchemaRegistry(channel, setup.client, options);
}
