/**
 * The channels the registry tests frame, built by hand as generated code builds them: an Avro
 * record in two compatible versions (v2 adds a field with a default), and a Protobuf file with two
 * messages (message indexes [0] and [1]).
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { avroCodec } from '@keiyaku/avro';
import { protobufCodec } from '@keiyaku/protobuf';
import { type ContractMessage, defineChannel, defineMessage, type MessageRegistryBinding } from '@keiyaku/runtime/codegen-v1';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';

export const shelvedV1Schema = {
  type: 'record',
  name: 'Shelved',
  namespace: 'shelf.avro',
  fields: [
    { name: 'bookId', type: 'string' },
    { name: 'copies', type: 'int' },
  ],
};
export const shelvedV2Schema = {
  ...shelvedV1Schema,
  fields: [...shelvedV1Schema.fields, { name: 'note', type: 'string', default: '' }],
};

export interface ShelvedV1 {
  bookId: string;
  copies: number;
}
export interface ShelvedV2 extends ShelvedV1 {
  note: string;
}
export type AvroShelved = ContractMessage<'Shelved', ShelvedV1 | ShelvedV2>;

/** A channel at `address` carrying the Avro record Shelved of `version`; `registry` as a contract's Kafka binding would give it. */
export function avroChannel(address: string, version: 1 | 2, registry?: MessageRegistryBinding) {
  const codec = avroCodec(version === 1 ? shelvedV1Schema : shelvedV2Schema);
  const Shelved = defineMessage<'Shelved', ShelvedV1 | ShelvedV2>({
    type: 'Shelved',
    id: 'Shelved',
    contentType: codec.contentType,
    schemaHash: `shelved-v${version}`,
    codec,
    keyProperty: 'bookId',
    ...(registry === undefined ? {} : { registry }),
  });
  const channel = defineChannel<AvroShelved>({
    id: 'shelving',
    address,
    addressTemplate: address,
    parameters: [],
    messages: [Shelved],
    bindings: {},
  });
  return { channel, Shelved, codec };
}

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const compiled = compileProtoFile(fixtures, 'shelf.proto');
if (!compiled.ok) throw new Error(`shelf.proto does not compile: ${JSON.stringify(compiled.errors)}`);
const proto = {
  descriptorSet: Buffer.from(compiled.descriptorSet).toString('base64'),
  source: readFileSync(`${fixtures}shelf.proto`, 'utf8'),
};

export interface ProtoShelved {
  bookId: string;
  copies: number;
}
export interface ProtoUnshelved {
  bookId: string;
  reason: string;
}
export type ProtoMessage = ContractMessage<'Shelved', ProtoShelved> | ContractMessage<'Unshelved', ProtoUnshelved>;

/** A channel at `address` carrying both messages of shelf.proto (Shelved is its first message, Unshelved its second). */
export function protobufChannel(address: string) {
  const shelvedCodec = protobufCodec(proto.descriptorSet, 'shelf.v1.Shelved', { source: proto.source });
  const unshelvedCodec = protobufCodec(proto.descriptorSet, 'shelf.v1.Unshelved', { source: proto.source });
  const Shelved = defineMessage<'Shelved', ProtoShelved>({
    type: 'Shelved',
    id: 'Shelved',
    contentType: shelvedCodec.contentType,
    schemaHash: 'proto-shelved',
    codec: shelvedCodec,
  });
  const Unshelved = defineMessage<'Unshelved', ProtoUnshelved>({
    type: 'Unshelved',
    id: 'Unshelved',
    contentType: unshelvedCodec.contentType,
    schemaHash: 'proto-unshelved',
    codec: unshelvedCodec,
  });
  const channel = defineChannel<ProtoMessage>({
    id: 'shelving-proto',
    address,
    addressTemplate: address,
    parameters: [],
    messages: [Shelved, Unshelved],
    bindings: {},
  });
  return { channel, Shelved, Unshelved, shelvedCodec, unshelvedCodec };
}

/** A `fetch` that counts the requests it passes on, by method and path (after the base URL). */
export function countingFetch(base: string) {
  const requests: string[] = [];
  const counted: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    requests.push(`${init?.method ?? 'GET'} ${url.slice(base.length)}`);
    return fetch(input, init);
  };
  return { fetch: counted, requests };
}
