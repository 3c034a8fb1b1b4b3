// Interop with @kafkajs/confluent-schema-registry on the real registry: what keiyaku frames, its
// decoder reads, and what it encodes, keiyaku reads. Protobuf one way only: that library writes
// Protobuf payloads without the message indexes the wire format puts after the id (and reads them
// by skipping leading zero bytes), so its Protobuf bytes are not the Confluent wire format.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { SchemaRegistryClient, withSchemaRegistry } from '@keiyaku/runtime/registry';
import { describe, expect, it } from 'vitest';
import { avroChannel, protobufChannel, shelvedV2Schema } from './contract.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
const fields = (value: object): Record<string, unknown> => Object.fromEntries(Object.entries(value));

run(`interop with @kafkajs/confluent-schema-registry${registrySkipNote}`, () => {
  const theirs = new SchemaRegistry({ host: registryUrl });

  it('Avro: each reads what the other writes, across schema versions', async () => {
    const topic = testSubject('interop');
    const v1 = avroChannel(topic, 1);
    const ours = withSchemaRegistry(v1.channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true });
    await ours.prepare?.(topic, 'Shelved');
    const bytes = ours.encodeFor!(v1.Shelved.create({ bookId: 'I-1', copies: 4 }), topic);
    expect(await theirs.decode(Buffer.from(bytes))).toEqual({ bookId: 'I-1', copies: 4 });

    // They write with v2 (a field with a default added); our v1 reader resolves it. (Their
    // register wants the subject's level to be BACKWARD, Apicurio's default is NONE.)
    await registryCall('PUT', `/config/${topic}-value`, { compatibility: 'BACKWARD' });
    const { id } = await theirs.register({ type: SchemaType.AVRO, schema: JSON.stringify(shelvedV2Schema) }, { subject: `${topic}-value` });
    const written = await theirs.encode(id, { bookId: 'I-2', copies: 5, note: 'theirs' });
    const reader = withSchemaRegistry(v1.channel, new SchemaRegistryClient({ url: registryUrl }));
    await reader.prepareRecord?.(written, 'Shelved');
    const decoded = reader.decode(written, 'Shelved');
    expect(decoded.ok && fields(decoded.value)).toEqual({ bookId: 'I-2', copies: 5 });
  });

  it('Protobuf: it reads what keiyaku frames (the first message of the file)', async () => {
    const topic = testSubject('interop-proto');
    const { channel, Shelved } = protobufChannel(topic);
    const ours = withSchemaRegistry(channel, new SchemaRegistryClient({ url: registryUrl }), { autoRegister: true });
    await ours.prepare?.(topic, 'Shelved');
    const bytes = ours.encodeFor!(Shelved.create({ bookId: 'I-3', copies: 6 }), topic);
    expect(bytes[5]).toBe(0); // message indexes [0]
    expect((await theirs.decode(Buffer.from(bytes))).toJSON()).toEqual({ bookId: 'I-3', copies: 6 });
  });
});
