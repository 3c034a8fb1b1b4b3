/**
 * Mock messages of a contract, for a consumer team to exercise its service before the producer
 * exists (`keiyaku mock`): the contract's own examples first — each message's `examples`, then the
 * `examples` of its payload schema — then values built from the schemas' constraints
 * (schema-value.ts), round-robin over the channel's messages, deterministic for a seed.
 *
 * Payloads are as they travel (a primitive payload bare, not boxed), or as @keiyaku/avro and
 * @keiyaku/protobuf take them; headers are the message's contract headers in their typed form.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#messageExampleObject
 */
import type { ChannelModel, ContractModel, MessageModel } from '../model/contract-model.js';
import { avroType, avroValue } from './avro-value.js';
import { MockError } from './mock-error.js';
import { protobufMessage, protobufValue } from './protobuf-value.js';
import { Random, type Seed } from './random.js';
import { type SchemaValueOptions, SchemaValues } from './schema-value.js';

export interface MockChannelOptions {
  /** The seed of every random choice (default 1): the same seed, the same messages. */
  readonly seed?: Seed;
  /** Publish the contract's examples before built values (default true). */
  readonly examples?: boolean;
  /** Values of the channel's address parameters; the others are chosen (see {@link ContractMocks.channel}). */
  readonly parameters?: Readonly<Record<string, string>>;
}

export interface MockMessage {
  /** The message type (`ce_type`). */
  readonly type: string;
  /** The payload as it travels: JSON, a primitive payload bare. */
  readonly payload: unknown;
  /** The contract headers of the message, typed (absent when it declares none and the example gives none). */
  readonly headers?: Readonly<Record<string, unknown>>;
  /** Where the message came from: an example of the contract, or built from the schemas. */
  readonly origin: 'example' | 'generated';
  /** The example's name (`#<n>` when it has none; `payload schema #<n>` for the payload schema's `examples`). */
  readonly example?: string;
  /** The values of the channel's address parameters, when it has any. */
  readonly parameters?: Readonly<Record<string, string>>;
}

/** The channel `id` names: its id in the contract, or its identifier in generated code. */
export function findChannel(model: ContractModel, id: string): ChannelModel {
  const channel = model.channels.find((c) => c.id === id) ?? model.channels.find((c) => c.identifier === id);
  if (channel === undefined)
    throw new MockError('mock_unknown', `the contract has no channel "${id}" (channels: ${model.channels.map((c) => c.id).join(', ')})`);
  return channel;
}

function messageOf(model: ContractModel, type: string): MessageModel {
  const message = Object.hasOwn(model.messages, type) ? model.messages[type] : undefined;
  if (message === undefined) throw new MockError('mock_unknown', `the contract has no message "${type}"`);
  return message;
}

/** The examples of message `type`, as mock messages: the message's `examples` with a payload, then its payload schema's `examples`. */
export function messageExamples(model: ContractModel, type: string): MockMessage[] {
  const message = messageOf(model, type);
  const out: MockMessage[] = [];
  message.examples.forEach((example, i) => {
    if (example.payload === undefined) return;
    const headers = example.headers;
    out.push({
      type,
      payload: structuredClone(example.payload),
      ...(typeof headers === 'object' && headers !== null ? { headers: structuredClone(headers) as Record<string, unknown> } : {}),
      origin: 'example',
      example: example.name ?? `#${i + 1}`,
    });
  });
  const schema = message.format === undefined ? model.schemas[message.payload]?.schema : undefined;
  const schemaExamples = typeof schema === 'object' && Array.isArray(schema['examples']) ? (schema['examples'] as unknown[]) : [];
  schemaExamples.forEach((payload, i) => {
    out.push({ type, payload: structuredClone(payload), origin: 'example', example: `payload schema #${i + 1}` });
  });
  return out;
}

/** Builds mock messages of one contract; one instance per run (it caches compiled patterns). */
export class ContractMocks {
  readonly #model: ContractModel;
  readonly #payloads: SchemaValues;
  readonly #headers: SchemaValues;
  readonly #avroTypes = new Map<string, ReturnType<typeof avroType>>();
  readonly #protobufMessages = new Map<string, ReturnType<typeof protobufMessage>>();

  constructor(model: ContractModel, options: SchemaValueOptions = {}) {
    this.#model = model;
    this.#payloads = new SchemaValues(model, options);
    // Headers travel as strings: no undeclared ones.
    this.#headers = new SchemaValues(model, { extraProperties: false });
  }

  /** One message of `type` built from its schemas, for `seed` (the contract's examples are not used). */
  message(type: string, seed: Seed): MockMessage {
    return this.#generated(type, new Random(seed));
  }

  #generated(type: string, random: Random): MockMessage {
    const message = messageOf(this.#model, type);
    const payload = this.#payload(message, random);
    return { type, payload, ...this.#headersOf(message, random), origin: 'generated' };
  }

  #payload(message: MessageModel, random: Random): unknown {
    const format = message.format;
    if (format === undefined) return this.#payloads.named(message.payload, random);
    if (format.kind === 'protobuf') {
      let desc = this.#protobufMessages.get(message.type);
      if (desc === undefined) {
        desc = protobufMessage(format);
        this.#protobufMessages.set(message.type, desc);
      }
      return protobufValue(desc, message.type, random);
    }
    let type = this.#avroTypes.get(message.type);
    if (type === undefined) {
      type = avroType(format);
      this.#avroTypes.set(message.type, type);
    }
    return avroValue(type, message.type, random);
  }

  /** The headers of a message that has none of its own: built from the headers schema, when the message declares one. */
  #headersOf(message: MessageModel, random: Random): { headers?: Readonly<Record<string, unknown>> } {
    if (message.headers === undefined) return {};
    const headers = this.#headers.named(message.headers, random);
    return typeof headers === 'object' && headers !== null && !Array.isArray(headers) && Object.keys(headers).length > 0
      ? { headers: headers as Record<string, unknown> }
      : {};
  }

  /**
   * `count` messages for `channel`: the examples of its messages in channel order (unless
   * `examples: false`), then built ones, one message type after the other. On a channel with
   * address parameters each message carries their values: the ones given, else the parameter's
   * `default`, else one of its `enum` per message, else one value for the run (built from its
   * `pattern`, or a word), so a run does not spread over addresses without end.
   */
  channel(channelId: string, count: number, options: MockChannelOptions = {}): MockMessage[] {
    const channel = findChannel(this.#model, channelId);
    const types = channel.messages.filter((type) => Object.hasOwn(this.#model.messages, type));
    if (types.length === 0) throw new MockError('mock_unknown', `channel "${channel.id}" carries no messages`);
    const random = new Random(options.seed ?? 1);
    const parameters = this.#parameters(channel, options.parameters ?? {}, random.fork());
    const out: MockMessage[] = [];
    if (options.examples !== false)
      for (const type of types)
        for (const example of messageExamples(this.#model, type)) {
          if (out.length >= count) return out;
          const message = messageOf(this.#model, type);
          const withHeaders = example.headers === undefined ? { ...example, ...this.#headersOf(message, random.fork()) } : example;
          out.push({ ...withHeaders, ...parameters(random) });
        }
    for (let i = 0; out.length < count; i++)
      out.push({ ...this.#generated(types[i % types.length]!, random.fork()), ...parameters(random) });
    return out;
  }

  /** The parameter values of each message of `channel` (see {@link channel}). */
  #parameters(
    channel: ChannelModel,
    given: Readonly<Record<string, string>>,
    random: Random,
  ): (random: Random) => { parameters?: Readonly<Record<string, string>> } {
    if (channel.parameters.length === 0) return () => ({});
    const unknown = Object.keys(given).filter((name) => !channel.parameters.some((p) => p.name === name));
    if (unknown.length > 0)
      throw new MockError(
        'mock_unknown',
        `channel "${channel.id}" has no parameter ${unknown.map((n) => `"${n}"`).join(', ')} (parameters: ${channel.parameters.map((p) => p.name).join(', ')})`,
      );
    const fixed: Record<string, string> = {};
    for (const p of channel.parameters) {
      if (Object.hasOwn(given, p.name)) fixed[p.name] = given[p.name]!;
      else if (p.default !== undefined) fixed[p.name] = p.default;
      else if (p.enum === undefined || p.enum.length === 0)
        fixed[p.name] = String(
          this.#payloads.value({ type: 'string', minLength: 1, ...(p.pattern === undefined ? {} : { pattern: p.pattern }) }, random),
        );
    }
    return (r) => {
      const values: Record<string, string> = {};
      for (const p of channel.parameters) values[p.name] = Object.hasOwn(fixed, p.name) ? fixed[p.name]! : r.pick(p.enum!);
      return { parameters: values };
    };
  }
}
