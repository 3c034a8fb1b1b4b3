/**
 * Kafka bindings: a channel's topic, partitions, replicas and topic configuration; a message's key
 * schema and the payload property it stands for; an operation's `groupId`, which keiyaku does not
 * use (each handler declares its consumer group).
 *
 * @see https://github.com/asyncapi/bindings/blob/master/kafka/README.md
 */
import type { Diagnostic } from '../../diagnostics.js';
import type { ContractChannel, ContractMessage, ContractOperation } from '../../load/document.js';
import { type ModelContext, optional, type Part, pointerOf, positiveInt } from '../context.js';
import type { KafkaChannelBinding, KafkaRegistryBinding, SchemaNode } from '../contract-model.js';

function bindingOf(node: { bindings(): { get(name: string): { value(): unknown } | undefined } }): unknown {
  return node.bindings().get('kafka')?.value();
}

/** A Kafka binding's `topicConfiguration` as topic configs: values as strings, lists comma-joined. */
export function topicConfigs(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, v]) => !key.startsWith('x-') && v !== undefined && v !== null)
    .map(([key, v]) => [key, Array.isArray(v) ? v.map(String).join(',') : String(v)] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/**
 * The Kafka binding of a channel whose pointer is `pointer`, or undefined when it has none. A
 * `topic` is not used when the channel has parameters (each address is its own topic): a warning.
 */
export function kafkaChannelBinding(
  channel: ContractChannel,
  pointer: string,
  context: ModelContext,
): Part<KafkaChannelBinding | undefined> {
  const kafka = bindingOf(channel) as Record<string, unknown> | undefined;
  if (!kafka) return { part: undefined, diagnostics: [] };
  const part: KafkaChannelBinding = {
    ...optional('topic', typeof kafka['topic'] === 'string' ? kafka['topic'] : undefined),
    ...optional('partitions', positiveInt(kafka['partitions'])),
    ...optional('replicas', positiveInt(kafka['replicas'])),
    ...optional('configs', topicConfigs(kafka['topicConfiguration'])),
  };
  const diagnostics: Diagnostic[] = [];
  if (typeof kafka['topic'] === 'string' && channel.parameters().length > 0) {
    diagnostics.push({
      severity: 'warning',
      code: 'kafka_topic_ignored',
      message: `channel "${channel.id()}" has parameters, so its Kafka binding's topic "${kafka['topic']}" is not used: each address is its own topic`,
      hint: 'remove `topic` from the binding, or give the channel a fixed address',
      location: context.locate(pointer, ['bindings', 'kafka', 'topic']),
    });
  }
  return { part, diagnostics };
}

function stripParserKeys(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key.startsWith('x-parser-') ? undefined : v)));
}

/**
 * The payload property a message binding's key schema stands for: the one required, top-level
 * property of the same `type` and `format` (and `pattern`, `enum` when the key has them).
 */
export function keyProperty(key: unknown, payload: unknown): string | undefined {
  if (typeof key !== 'object' || key === null || typeof payload !== 'object' || payload === null) return undefined;
  const k = key as Record<string, unknown>;
  const p = payload as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  if (k['type'] !== 'string' && k['type'] !== 'integer' && k['type'] !== 'number') return undefined;
  const required = Array.isArray(p.required) ? (p.required as unknown[]) : [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const matches = Object.entries(p.properties ?? {}).filter(
    ([name, schema]) =>
      required.includes(name) &&
      typeof schema === 'object' &&
      schema !== null &&
      schema['type'] === k['type'] &&
      schema['format'] === k['format'] &&
      (k['pattern'] === undefined || schema['pattern'] === k['pattern']) &&
      (k['enum'] === undefined || same(schema['enum'], k['enum'])),
  );
  return matches.length === 1 ? matches[0]![0] : undefined;
}

/** What a message's Kafka binding gives its model: the key schema and the payload property it stands for, and its Schema Registry fields. */
export interface KafkaMessageKey {
  readonly kafkaKey?: SchemaNode;
  readonly kafkaKeyProperty?: string;
  readonly kafkaRegistry?: KafkaRegistryBinding;
}

/**
 * The Schema Registry fields of a Kafka message binding (0.4.0/0.5.0): `schemaIdLocation`
 * (`payload` or `header`), `schemaIdPayloadEncoding`, `schemaLookupStrategy`. Without
 * `schemaIdLocation` (or with `none`, which some documents write) the message is not framed.
 */
export function kafkaRegistryBinding(kafka: Record<string, unknown> | undefined): KafkaRegistryBinding | undefined {
  const location = kafka?.['schemaIdLocation'];
  if (location !== 'payload' && location !== 'header') return undefined;
  const encoding = kafka?.['schemaIdPayloadEncoding'];
  const strategy = kafka?.['schemaLookupStrategy'];
  return {
    schemaIdLocation: location,
    ...optional('schemaIdPayloadEncoding', typeof encoding === 'string' || typeof encoding === 'number' ? String(encoding) : undefined),
    ...optional('schemaLookupStrategy', typeof strategy === 'string' ? strategy : undefined),
  };
}

/**
 * The key of a message's Kafka binding (`message` of contract type `type`, written at `pointer`,
 * with the raw `payload` schema). A key that matches no single required payload property is a
 * warning: generated code has no default key for the message then.
 */
export function kafkaMessageBinding(
  message: ContractMessage,
  at: { readonly type: string; readonly pointer: string; readonly payload: unknown },
  context: ModelContext,
): Part<KafkaMessageKey> {
  const binding = bindingOf(message) as Record<string, unknown> | undefined;
  const kafkaKey = binding?.['key'];
  const kafkaKeyProperty = kafkaKey === undefined ? undefined : keyProperty(kafkaKey, at.payload);
  const diagnostics: Diagnostic[] = [];
  if (kafkaKey !== undefined && kafkaKeyProperty === undefined) {
    diagnostics.push({
      severity: 'warning',
      code: 'kafka_key_not_derived',
      message: `message "${at.type}": its Kafka binding's key schema matches no single required payload property, so generated code has no default key for it`,
      hint: 'give the publisher a `key` option (or each publish a `key`); a key schema of the same type and format as exactly one required property makes that property the default key',
      location: context.locate(at.pointer, ['bindings', 'kafka', 'key']),
    });
  }
  const part = {
    ...optional('kafkaKey', kafkaKey === undefined ? undefined : (stripParserKeys(kafkaKey) as SchemaNode)),
    ...optional('kafkaKeyProperty', kafkaKeyProperty),
    ...optional('kafkaRegistry', kafkaRegistryBinding(binding)),
  };
  return { part, diagnostics };
}

/**
 * A Kafka operation binding's `groupId` is not used: keiyaku takes a subscription's consumer group
 * from its handler (`groupId` on the handler, one group per capability), so one receive operation
 * can serve several handlers, each in its own group. A located warning says so, with the group to
 * declare on the handler when the binding names one value.
 */
export function kafkaOperationBinding(op: ContractOperation, context: ModelContext): Part<undefined> {
  const kafka = bindingOf(op);
  if (typeof kafka !== 'object' || kafka === null || !('groupId' in kafka)) return { part: undefined, diagnostics: [] };
  const groupId = (kafka as { groupId?: unknown }).groupId;
  const schema = typeof groupId === 'object' && groupId !== null ? (groupId as { const?: unknown; enum?: unknown }) : {};
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
  const named = values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
  const name = op.id() ? `operation "${op.id()}"` : 'an operation';
  const diagnostic: Diagnostic = {
    severity: 'warning',
    code: 'kafka_group_id_ignored',
    message: `${name} sets a Kafka binding groupId${named === undefined ? '' : ` (${JSON.stringify(named)})`}, which keiyaku does not use: each handler declares its consumer group (\`groupId\` on the handler)`,
    hint:
      named === undefined
        ? 'remove `groupId` from the binding and declare the group on the handler that receives these messages'
        : `declare \`groupId: ${JSON.stringify(named)}\` on the handler that receives these messages, and remove \`groupId\` from the binding`,
    location: context.locate(pointerOf(op), ['bindings', 'kafka', 'groupId']),
  };
  return { part: undefined, diagnostics: [diagnostic] };
}
