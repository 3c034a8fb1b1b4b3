/**
 * `keiyaku check --against registry:<url>`: the baseline of each Avro and Protobuf payload is the
 * latest version of its subject in a Schema Registry (Confluent's API; Apicurio's under
 * `/apis/ccompat/v7`), so CI gates against what production consumers actually read. The rest of
 * the contract is its own baseline (nothing else is in a registry), and the comparison is the
 * one `--against <git ref>` makes: same rules, directions, wording, acknowledgments and outputs.
 *
 * The subject of a message is the runtime's: the Kafka message binding's `schemaLookupStrategy`,
 * else the configured `schemaRegistry.subjectNameStrategy`, else TopicNameStrategy
 * (`<topic>-value`, the topic being the channel's Kafka binding `topic`, else its address, with
 * the configured Kafka namespace). The registry client is the runtime's
 * (`@keiyaku/runtime/registry`), configured as the runtime configures it (`schemaRegistry` of
 * keiyaku.config.json's `runtime`, the KEIYAKU_SCHEMA_REGISTRY_* variables over it).
 */
import { basename } from 'node:path';
import { createSchemaRegistry, resolveConfig } from '@keiyaku/runtime/config';
import {
  REGISTRY_ERROR_CODES,
  type RegisteredSchema,
  type SchemaRegistryClient,
  SchemaRegistryError,
  SchemaRegistryUnavailableError,
  type SubjectNameStrategy,
  subjectName,
} from '@keiyaku/runtime/registry';
import { compileProtobufPayload } from '../formats/protobuf/payload.js';
import type { ChannelModel, ContractModel, MessageModel, PayloadFormatModel } from '../model/contract-model.js';
import { BaselineError } from './baseline.js';

export const REGISTRY_BASELINE = 'registry:';

/** Whether `--against` names a registry (`registry:<url>`, or `registry:` for the configured one). */
export function isRegistryBaseline(against: string): boolean {
  return against.startsWith(REGISTRY_BASELINE);
}

export interface RegistryBaselineOptions {
  /** The environment: KEIYAKU_SCHEMA_REGISTRY_* (URL, credentials, strategy, timeout) and KEIYAKU_KAFKA_NAMESPACE are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** keiyaku.config.json's `runtime` object (its `schemaRegistry` and `kafka.namespace`), and the file. */
  readonly runtime?: Readonly<Record<string, unknown>>;
  readonly file?: string;
}

export interface RegistryBaseline {
  readonly label: string;
  readonly model: ContractModel;
  readonly notices: readonly string[];
}

/** The registered version a message is compared with: its subject's latest, or why there is none. */
type Registered =
  | { readonly subject: string; readonly version: number; readonly id: number; readonly format: PayloadFormatModel | undefined }
  | { readonly subject: string; readonly notice: string };

const AVRO_FORMAT = 'application/vnd.apache.avro+json;version=1.9.0';
const PROTOBUF_FORMAT = 'application/vnd.google.protobuf;version=3';

/**
 * The working contract with each Avro and Protobuf payload replaced by the latest registered
 * version of its subject. A subject that does not exist yet leaves the payload as it is (a notice:
 * nothing to break); the registry unreachable or refusing is a {@link BaselineError}.
 */
export async function loadRegistryBaseline(
  against: string,
  current: ContractModel,
  options: RegistryBaselineOptions,
): Promise<RegistryBaseline> {
  const { client, strategy } = registryClient(against.slice(REGISTRY_BASELINE.length), options);
  const label = `registry:${client.url}`;
  const namespace = kafkaNamespace(options);
  const notices: string[] = [];
  const latest = new Map<string, Promise<Registered>>();
  const replaced = new Map<string, { readonly message: MessageModel; readonly subject: string; readonly id: number }>();
  for (const channel of current.channels) {
    for (const type of channel.messages) {
      const message = current.messages[type];
      if (message?.format === undefined) continue;
      const subject = subjectOf(channel, message, strategy, namespace);
      if (typeof subject !== 'string') {
        notices.push(subject.notice);
        continue;
      }
      let pending = latest.get(subject);
      if (pending === undefined) {
        pending = registered(client, subject, message, current);
        latest.set(subject, pending);
      }
      const found = await pending;
      const where = `${type} of channel ${channel.id}`;
      if ('notice' in found) {
        notices.push(`${where}: ${found.notice}`);
        continue;
      }
      const earlier = replaced.get(type);
      if (earlier !== undefined) {
        // One message type, one baseline: a type on several topics is compared with the first one's subject.
        if (earlier.id !== found.id)
          notices.push(
            `${where}: subject ${subject} holds another schema (id ${found.id}) than ${earlier.subject} (id ${earlier.id}); ${type} is compared with ${earlier.subject} only`,
          );
        continue;
      }
      const { format: _format, ...rest } = message;
      replaced.set(type, {
        message: found.format === undefined ? rest : { ...rest, format: found.format },
        subject,
        id: found.id,
      });
      notices.push(`${where}: compared with subject ${subject} version ${found.version} (schema id ${found.id})`);
    }
  }
  if (replaced.size === 0 && notices.length === 0)
    notices.push('the contract has no Avro or Protobuf payloads: nothing in the registry to compare with');
  const messages = { ...current.messages };
  for (const [type, { message }] of replaced) messages[type] = message;
  return { label, model: { ...current, messages }, notices };
}

/** The runtime's registry client, configured from `url` (else the configuration) and the KEIYAKU_SCHEMA_REGISTRY_* variables. */
function registryClient(url: string, options: RegistryBaselineOptions): { client: SchemaRegistryClient; strategy: SubjectNameStrategy } {
  // Only the registry's variables: the service's transport settings are no business of check.
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env))
    if (name.startsWith('KEIYAKU_SCHEMA_REGISTRY_') && value !== undefined && !(url !== '' && name === 'KEIYAKU_SCHEMA_REGISTRY_URL'))
      env[name] = value;
  const configured = options.runtime?.['schemaRegistry'];
  const section = { ...(typeof configured === 'object' && configured !== null ? configured : {}), ...(url === '' ? {} : { url }) };
  if (url === '' && env['KEIYAKU_SCHEMA_REGISTRY_URL'] === undefined && !('url' in section))
    throw new BaselineError(
      '--against registry: names no registry: give its URL (--against registry:http://registry:8081; Apicurio: …/apis/ccompat/v7), or set KEIYAKU_SCHEMA_REGISTRY_URL',
    );
  let setup: ReturnType<typeof createSchemaRegistry>;
  try {
    setup = createSchemaRegistry(
      resolveConfig(
        { schemaRegistry: section },
        { env, withEnvironment: true, ...(options.file === undefined ? {} : { file: options.file }) },
      ),
    );
  } catch (error) {
    throw new BaselineError(`the schema registry settings of --against ${REGISTRY_BASELINE}${url}: ${(error as Error).message}`);
  }
  return { client: setup!.client, strategy: setup!.subjectNameStrategy ?? 'topic' };
}

/** The Kafka namespace topics are prefixed with (`<namespace>.`), as the service configures it. */
function kafkaNamespace(options: RegistryBaselineOptions): string | undefined {
  const fromEnv = options.env['KEIYAKU_KAFKA_NAMESPACE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const kafka = options.runtime?.['kafka'];
  const namespace = typeof kafka === 'object' && kafka !== null ? (kafka as Record<string, unknown>)['namespace'] : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
}

/** The subject of `message` on `channel`, as the runtime names it; a notice when it cannot be named without an address. */
function subjectOf(
  channel: ChannelModel,
  message: MessageModel,
  fallback: SubjectNameStrategy,
  namespace: string | undefined,
): string | { readonly notice: string } {
  const format = message.format!;
  const recordName = format.kind === 'avro' ? format.name : format.message;
  const strategy = strategyNamed(message.kafkaRegistry?.schemaLookupStrategy) ?? fallback;
  if (strategy === 'record') return subjectName(strategy, '', recordName);
  const bound = channel.bindings.kafka?.topic;
  const topic = bound !== undefined && bound !== '' ? bound : channel.address;
  if (topic.includes('{'))
    return {
      notice: `${message.type} of channel ${channel.id}: the channel's address ${topic} has parameters, so its subjects (${strategy === 'topic' ? '<topic>-value' : '<topic>-<record>'}) depend on the address; not compared (give the Kafka binding a topic, or use RecordNameStrategy)`,
    };
  return subjectName(strategy, namespace === undefined ? topic : `${namespace}.${topic}`, recordName);
}

/** The strategy a Kafka binding's `schemaLookupStrategy` names (as the runtime reads it; an unknown one is the runtime's error at start). */
function strategyNamed(name: string | undefined): SubjectNameStrategy | undefined {
  if (name === undefined) return undefined;
  const simple = name.slice(name.lastIndexOf('.') + 1);
  if (simple === 'TopicRecordNameStrategy' || simple === 'topic-record') return 'topic-record';
  if (simple === 'RecordNameStrategy' || simple === 'RecordIdStrategy' || simple === 'record') return 'record';
  if (simple === 'TopicNameStrategy' || simple === 'TopicIdStrategy' || simple === 'topic') return 'topic';
  return undefined;
}

/** The latest version of `subject`, as a payload model to compare `message` with. */
async function registered(
  client: SchemaRegistryClient,
  subject: string,
  message: MessageModel,
  current: ContractModel,
): Promise<Registered> {
  let latest: RegisteredSchema;
  try {
    latest = await client.latest(subject);
  } catch (error) {
    if (error instanceof SchemaRegistryUnavailableError)
      throw new BaselineError(`${error.message}; nothing was checked (is the URL right, and the registry up?)`);
    if (
      error instanceof SchemaRegistryError &&
      (error.errorCode === REGISTRY_ERROR_CODES.subjectNotFound || error.errorCode === REGISTRY_ERROR_CODES.versionNotFound)
    )
      return { subject, notice: `subject ${subject} does not exist in the registry yet: the first version, so nothing can break` };
    throw new BaselineError((error as Error).message);
  }
  const what = `subject ${subject} version ${latest.version} (schema id ${latest.id})`;
  if (latest.references !== undefined && latest.references.length > 0)
    return {
      subject,
      notice: `${what} references other subjects (${latest.references.map((r) => r.name).join(', ')}); keiyaku compares self-contained schemas only, so it is not compared`,
    };
  const found = { subject, version: latest.version, id: latest.id };
  if (latest.schemaType === 'AVRO') return { ...found, format: avroFormat(latest.schema, what) };
  if (latest.schemaType === 'PROTOBUF') return { ...found, format: protobufFormat(latest.schema, what, message, current) };
  // A JSON Schema (or any other type) where the contract has Avro or Protobuf: payload_format_changed.
  return { ...found, format: undefined };
}

function avroFormat(text: string, what: string): PayloadFormatModel {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (cause) {
    throw new BaselineError(`${what} is not an Avro schema in JSON: ${(cause as Error).message}`);
  }
  return { kind: 'avro', schema, name: avroName(schema), schemaFormat: AVRO_FORMAT };
}

/** The full name of an Avro schema's root type (a primitive's name; `union` for a union). */
function avroName(schema: unknown): string {
  if (typeof schema === 'string') return schema;
  if (Array.isArray(schema)) return 'union';
  const node = (schema ?? {}) as { name?: unknown; namespace?: unknown; type?: unknown };
  if (typeof node.name === 'string')
    return node.name.includes('.') || typeof node.namespace !== 'string' || node.namespace === ''
      ? node.name
      : `${node.namespace}.${node.name}`;
  return typeof node.type === 'string' ? node.type : 'unknown';
}

/** The registered `.proto` compiled as the contract's are; the payload message by the contract's name, else the file's root message. */
function protobufFormat(source: string, what: string, message: MessageModel, current: ContractModel): PayloadFormatModel {
  const mine = message.format;
  const at = message.location ?? { file: current.source, line: 0, column: 0, pointer: '' };
  const input = {
    schemaFormat: PROTOBUF_FORMAT,
    source,
    locate: () => at,
    at,
    inlineName: mine?.kind === 'protobuf' && mine.file !== undefined ? basename(mine.file) : 'payload.proto',
  };
  const named = mine?.kind === 'protobuf' ? compileProtobufPayload({ ...input, message: mine.message }) : undefined;
  // The registered file lacks the contract's message: Confluent's default index [0] is its first, the root rule's pick.
  const result = named?.model !== undefined ? named : compileProtobufPayload(input);
  if (result.model === undefined)
    throw new BaselineError(`${what} is not a Protobuf schema keiyaku can compare: ${result.diagnostics.map((d) => d.message).join('; ')}`);
  return result.model;
}
