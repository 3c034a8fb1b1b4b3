// The contract chooses the wire format: a Kafka message binding's schemaIdLocation,
// schemaIdPayloadEncoding and schemaLookupStrategy reach the generated message descriptor.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const contract = (binding: string) =>
  [
    'asyncapi: 3.0.0',
    'info: { title: T, version: 1.0.0 }',
    'channels:',
    '  shelving:',
    '    address: shelving',
    '    messages:',
    '      Shelved:',
    '        name: Shelved',
    '        payload:',
    '          schemaFormat: application/vnd.apache.avro;version=1.9.0',
    '          schema:',
    '            type: record',
    '            name: Shelved',
    '            namespace: shelf.avro',
    '            fields:',
    '              - { name: bookId, type: string }',
    binding,
  ].join('\n');

async function messagesOf(binding: string): Promise<string> {
  const dir = scratch('registry-binding');
  writeFileSync(join(dir, 'asyncapi.yaml'), contract(binding));
  const result = await generateFromFile('asyncapi.yaml', { cwd: dir });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const file = result.files.find((f) => f.path.endsWith('messages.ts'));
  return file!.content;
}

describe('the Schema Registry fields of a Kafka message binding in generated code', () => {
  it('puts them on the message descriptor', async () => {
    const messages = await messagesOf(
      [
        '        bindings:',
        '          kafka:',
        '            schemaIdLocation: payload',
        '            schemaIdPayloadEncoding: confluent',
        '            schemaLookupStrategy: RecordNameStrategy',
        "            bindingVersion: '0.5.0'",
      ].join('\n'),
    );
    // Laid out as prettier lays it out (on one line or several): compare without the spacing.
    expect(messages.replace(/\s+/g, '')).toContain(
      'registry:{schemaIdLocation:"payload",schemaIdPayloadEncoding:"confluent",schemaLookupStrategy:"RecordNameStrategy",},',
    );
  });

  it('writes nothing of the kind for a message without them', async () => {
    expect(await messagesOf('')).not.toContain('registry:');
  });
});
