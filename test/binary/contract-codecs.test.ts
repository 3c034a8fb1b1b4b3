// The channels `keiyaku dead-letters show` and `redrive` build from a contract model (no generated
// code): an Avro or Protobuf message gets the codec of its format package, so a parked binary
// payload decodes (and redrives) as the service's own code would decode it; a JSON message keeps
// its ajv validator.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { payloadView } from '@keiyaku/runtime';
import { describe, expect, it } from 'vitest';
import { contractChannels } from '../../generator/cli/contract-channels.js';
import { contractCodecs } from '../../generator/cli/payload-codecs.js';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';
import { compileContract } from '../../generator/index.js';
import type { ContractModel, MessageModel } from '../../generator/model/contract-model.js';
import { READING_SCHEMA, ReadingMessage, reading, ScanMessage, scan } from './binary-contract.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The repository's contract with two binary messages added to its first channel, as the model holds them. */
async function modelWithBinaryMessages(): Promise<ContractModel> {
  const compiled = await compileContract('asyncapi.yaml', { cwd: fileURLToPath(new URL('../../', import.meta.url)) });
  const model = compiled.model!;
  const compiledProto = compileProtoFile(fixtures, 'scans.proto');
  if (!compiledProto.ok) throw new Error('scans.proto does not compile');
  const base = Object.values(model.messages)[0]!;
  const reading: MessageModel = {
    ...base,
    type: 'Reading',
    id: 'Reading',
    identifier: 'Reading',
    contentType: 'application/avro',
    payload: 'Reading',
    format: {
      kind: 'avro',
      schema: READING_SCHEMA,
      name: 'keiyaku.test.Reading',
      schemaFormat: 'application/vnd.apache.avro;version=1.9.0',
    },
  };
  const scanMessage: MessageModel = {
    ...base,
    type: 'Scan',
    id: 'Scan',
    identifier: 'Scan',
    contentType: 'application/x-protobuf',
    payload: 'Scan',
    format: {
      kind: 'protobuf',
      message: 'keiyaku.test.v1.Scan',
      source: readFileSync(`${fixtures}scans.proto`, 'utf8'),
      descriptorSet: Buffer.from(compiledProto.descriptorSet).toString('base64'),
      schemaFormat: 'application/vnd.google.protobuf;version=3',
    },
  };
  const [first, ...rest] = model.channels;
  return {
    ...model,
    messages: { ...model.messages, Reading: reading, Scan: scanMessage },
    channels: [{ ...first!, messages: [...first!.messages, 'Reading', 'Scan'] }, ...rest],
  };
}

describe('channels from a contract model with Avro and Protobuf messages', () => {
  it('decode a parked binary payload with the format packages, and JSON messages as before', async () => {
    const model = await modelWithBinaryMessages();
    const codecs = await contractCodecs(model);
    expect(codecs.missing).toEqual([]);
    const channel = contractChannels(model, codecs.codecOf).get(model.channels[0]!.id)!;
    expect(channel.message('Reading')).toMatchObject({ format: 'avro', contentType: 'application/avro' });
    expect(channel.message('Scan')).toMatchObject({ format: 'protobuf', contentType: 'application/x-protobuf' });
    const avro = payloadView({ payload: ReadingMessage.encode(reading(2)), type: 'Reading', headers: {} }, { channel, bytes: 'base64' });
    expect(avro.kind).toBe('decoded');
    expect(JSON.parse(avro.text)).toMatchObject({ sensor: 's-2', seq: 2 });
    const protobuf = payloadView({ payload: ScanMessage.encode(scan(3)), type: 'Scan', headers: {} }, { channel, bytes: 'base64' });
    expect(protobuf.kind).toBe('decoded');
    expect(JSON.parse(protobuf.text)).toMatchObject({ sensor: 's-0', seq: 3 });
    // The JSON messages of the channel keep their validators.
    const json = model.channels[0]!.messages[0]!;
    expect(channel.message(json)?.format).toBe('json');
  });

  it('leave a binary message out when no codec can be built for it, never reading its bytes as JSON', async () => {
    const model = await modelWithBinaryMessages();
    const channel = contractChannels(model).get(model.channels[0]!.id)!;
    expect(channel.message('Reading')).toBeUndefined();
    const decoded = channel.decode(ReadingMessage.encode(reading(2)), 'Reading');
    expect(decoded.ok).toBe(false);
  });
});
