// The `@generated from` notes of generated code name the contract's files as the file header
// names the contract: relative to the project root, also when the contract lives in a subfolder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const contract = `asyncapi: 3.0.0
info: { title: Parcels, version: 1.0.0 }
channels:
  pings:
    address: courier.pings
    messages:
      LocationPinged:
        $ref: "#/components/messages/LocationPinged"
components:
  messages:
    LocationPinged:
      name: LocationPinged
      payload:
        $ref: "./schemas/ping.json"
`;

const ping = JSON.stringify({
  type: 'object',
  required: ['courierId'],
  properties: { courierId: { type: 'string' }, at: { $ref: './common.json#/$defs/Instant' } },
});
const common = JSON.stringify({ $defs: { Instant: { type: 'string', format: 'date-time' } } });

describe('generated origin notes', () => {
  it('name files relative to the project root when the contract is in a subfolder', async () => {
    const dir = scratch('origin-paths');
    mkdirSync(join(dir, 'contract', 'schemas'), { recursive: true });
    writeFileSync(join(dir, 'contract', 'asyncapi.yaml'), contract);
    writeFileSync(join(dir, 'contract', 'schemas', 'ping.json'), ping);
    writeFileSync(join(dir, 'contract', 'schemas', 'common.json'), common);
    const result = await generateFromFile('contract/asyncapi.yaml', { cwd: dir });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const all = result.files.map((f) => f.content).join('\n');
    const notes = [...new Set([...all.matchAll(/@generated from (\S+)#/g)].map((m) => m[1]))].sort();
    expect(notes).toEqual(['contract/asyncapi.yaml', 'contract/schemas/common.json', 'contract/schemas/ping.json']);
    const messages = result.files.find((f) => f.path === 'messages.ts')!.content;
    expect(messages).toContain('by keiyaku from contract/asyncapi.yaml:');
    expect(messages).toContain('@generated from contract/asyncapi.yaml#/components/messages/LocationPinged');
    expect(all).not.toContain(dir);
  });
});
