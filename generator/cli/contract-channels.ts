/**
 * Runtime channel descriptors built from a contract model at run time, for commands that work on
 * messages of a service without its generated code (`keiyaku dead-letters redrive`): the same
 * `defineChannel` / `defineMessage` the generated code calls, with validators compiled by ajv
 * from the model's schemas instead of the ones `generate` writes. Address, parameter rules and
 * bindings are the contract's, so the runtime resolves a target exactly as a generated publisher
 * of the same contract would.
 */
import { createRequire } from 'node:module';
import {
  type AnyChannel,
  type ChannelBindings,
  defineChannel,
  defineMessage,
  type ParameterRule,
  type PayloadCodec,
  type StandaloneValidator,
} from '@keiyaku/runtime/codegen-v1';
import { headerShape } from '../emit/emit.js';
import { toAjvSchema } from '../emit/validators.js';
import type { ChannelModel, ContractModel, MessageModel } from '../model/contract-model.js';

/** The payload codec of an Avro or Protobuf message of the model; undefined when none can be built here. */
export type CodecOf = (message: MessageModel) => PayloadCodec | undefined;

const require = createRequire(import.meta.url);

interface Ajv {
  addSchema(schema: object): void;
  compile(schema: object): StandaloneValidator;
}

function compiler(model: ContractModel): (name: string) => StandaloneValidator {
  const Ajv2020 = (require('ajv/dist/2020') as { default: new (options: object) => Ajv }).default;
  const addFormats = require('ajv-formats') as (ajv: object) => void;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    logger: false,
    allowUnionTypes: true,
    validateFormats: true,
    ownProperties: true,
  });
  addFormats(ajv);
  const defs: Record<string, unknown> = {};
  for (const [name, named] of Object.entries(model.schemas)) defs[name] = toAjvSchema(named.schema);
  ajv.addSchema({ $id: 'keiyaku:contract', $defs: defs });
  const compiled = new Map<string, StandaloneValidator>();
  return (name) => {
    let validate = compiled.get(name);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `keiyaku:contract#/$defs/${name}` });
      compiled.set(name, validate);
    }
    return validate;
  };
}

function channelOf(
  model: ContractModel,
  channel: ChannelModel,
  validator: (name: string) => StandaloneValidator,
  codecOf: CodecOf,
): AnyChannel {
  const messages = channel.messages
    .map((type) => model.messages[type])
    .filter((m) => m !== undefined)
    // An Avro or Protobuf message whose codec cannot be built here is left out: the channel then
    // refuses its records as of an unknown type, and never reads them as JSON.
    .filter((m) => m.format === undefined || codecOf(m) !== undefined)
    .map((m) =>
      defineMessage({
        type: m.type,
        id: m.id,
        // An Avro or Protobuf message writes its codec's content type, as generated code does.
        contentType: m.format === undefined ? m.contentType : codecOf(m)!.contentType,
        schemaHash: '',
        boxed: m.boxed,
        ...(m.format === undefined ? { validate: validator(m.payload) } : { codec: codecOf(m)! }),
        ...(m.headers === undefined ? {} : { headers: { ...headerShape(model, m.headers), validate: validator(m.headers) } }),
        ...(m.kafkaKeyProperty === undefined || m.boxed ? {} : { keyProperty: m.kafkaKeyProperty }),
        // Where the Kafka binding puts the Schema Registry id, as generated code declares it (a host frames by it).
        ...(m.kafkaRegistry === undefined ? {} : { registry: m.kafkaRegistry }),
      }),
    );
  const parameterRules: Record<string, ParameterRule> = {};
  for (const p of channel.parameters)
    parameterRules[p.name] = {
      ...(p.enum === undefined ? {} : { enum: p.enum }),
      ...(p.pattern === undefined ? {} : { pattern: p.pattern }),
    };
  const template = channel.address;
  const address =
    channel.parameters.length === 0
      ? template
      : (params: Readonly<Record<string, string>>) => template.replace(/\{([^}]*)\}/g, (_, name: string) => String(params[name]));
  return defineChannel({
    id: channel.id,
    address: address as string | ((params: never) => string),
    addressTemplate: template,
    parameters: channel.parameters.map((p) => p.name),
    parameterRules,
    messages,
    bindings: channel.bindings as ChannelBindings,
  });
}

/**
 * Every channel of `model` as a runtime descriptor, by channel id. `codecOf` builds the codecs of
 * its Avro and Protobuf messages (see payload-codecs.ts); without it they are left out.
 */
export function contractChannels(model: ContractModel, codecOf: CodecOf = () => undefined): ReadonlyMap<string, AnyChannel> {
  const validator = compiler(model);
  const codecs = new Map<string, PayloadCodec | undefined>();
  const cached: CodecOf = (m) => {
    if (!codecs.has(m.type)) codecs.set(m.type, codecOf(m));
    return codecs.get(m.type);
  };
  return new Map(model.channels.map((c) => [c.id, channelOf(model, c, validator, cached)]));
}
