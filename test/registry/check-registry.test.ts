// `keiyaku check --against registry:<url>` against the real registry (scripts/registry): each Avro
// payload compared with the latest version of its subject by the gate's own rules, a missing
// subject a notice, a schema of another type a finding, an unreachable registry an error; subjects
// named as the runtime names them; and Protobuf payloads through the same baseline.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractModel } from 'keiyaku';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../generator/cli/main.js';
import { loadRegistryBaseline } from '../../generator/cli/registry-baseline.js';
import { compareContracts } from '../../generator/compat/contract-diff.js';
import { compileProtoFile } from '../../generator/formats/protobuf/compile.js';
import { known } from '../compat/known-codes.js';
import { scratch } from '../helpers.js';
import { freePort } from '../setup/ports.js';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;
const dir = scratch('check-registry');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bookV1 = {
  type: 'record',
  name: 'BookAdded',
  namespace: 'library',
  fields: [
    { name: 'bookId', type: 'string' },
    { name: 'copies', type: 'int' },
  ],
};

/** A contract whose channel at `address` carries BookAdded with the Avro `schema`; `action` says whether this application sends or receives it. */
function contract(
  address: string,
  schema: unknown,
  options: { action?: 'send' | 'receive'; binding?: string; acknowledge?: string } = {},
): string {
  return `asyncapi: 3.0.0
info:
  title: Library
  version: 1.1.0
${options.acknowledge === undefined ? '' : `x-keiyaku:\n  acknowledge:\n    - id: ${options.acknowledge}\n      reason: consumers upgraded first\n      version: 1.1.0\n`}channels:
  books:
    address: ${address}
    messages:
      BookAdded:
        name: BookAdded
        payload:
          schemaFormat: application/vnd.apache.avro+json;version=1.9.0
          schema: ${JSON.stringify(schema)}
${options.binding === undefined ? '' : `        bindings:\n          kafka:\n            bindingVersion: 0.5.0\n            schemaIdLocation: payload\n            schemaLookupStrategy: ${options.binding}\n`}operations:
  addBooks:
    action: ${options.action ?? 'send'}
    channel:
      $ref: '#/channels/books'
`;
}

async function register(subject: string, schema: string, schemaType?: string): Promise<number> {
  const answer = await registryCall('POST', `/subjects/${encodeURIComponent(subject)}/versions`, {
    ...(schemaType === undefined ? {} : { schemaType }),
    schema,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { id: number }).id;
}

/** `keiyaku check` in the scratch folder with `env` as its environment. */
async function check(args: readonly string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(['check', ...args], {
    cwd: dir,
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

const against = () => `registry:${registryUrl}`;

run(`keiyaku check --against registry:<url>${registrySkipNote}`, () => {
  beforeAll(() => writeFileSync(join(dir, 'asyncapi.yaml'), contract('unused', bookV1)));

  it('a subject that does not exist yet: a notice, nothing to break', async () => {
    const address = testSubject('books');
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(address, bookV1));
    const result = await check(['--against', against()]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `notice: BookAdded of channel books: subject ${address}-value does not exist in the registry yet: the first version, so nothing can break`,
    );
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      `keiyaku check: 0 breaking, 0 acknowledged, 0 compatible, 0 info against registry:${registryUrl} (mode per channel, policy lenient)`,
    );
  });

  it('compares with the latest registered version by Avro resolution, in the direction of the channel, with acknowledgments', async () => {
    const address = testSubject('books');
    await register(`${address}-value`, JSON.stringify({ ...bookV1, fields: [bookV1.fields[0]] }));
    const v2 = await register(`${address}-value`, JSON.stringify(bookV1));
    // The working contract drops `copies` (no default): old consumers (forward: this application sends) miss it.
    const v3 = { ...bookV1, fields: [bookV1.fields[0], { name: 'note', type: 'string', default: '' }] };
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(address, v3));
    const result = await check(['--against', against()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `notice: BookAdded of channel books: compared with subject ${address}-value version 2 (schema id ${v2})`,
    );
    expect(result.stdout).toMatch(/BREAKING avro_field_removed_without_default \(forward\)/);
    expect(known(JSON.parse((await check(['--against', against(), '--format', 'json'])).stdout).findings)).toContainEqual(
      expect.objectContaining({ id: 'books/BookAdded/avro_field_removed_without_default/payload/fields/copies', severity: 'breaking' }),
    );
    // Received instead: new readers of old data — a removed field is no problem for them.
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(address, v3, { action: 'receive' }));
    expect((await check(['--against', against()])).code).toBe(0);
    // Acknowledged by id, as against a git ref.
    writeFileSync(
      join(dir, 'asyncapi.yaml'),
      contract(address, v3, { acknowledge: 'books/BookAdded/avro_field_removed_without_default/payload/fields/copies' }),
    );
    const acknowledged = await check(['--against', against()]);
    expect(acknowledged.code).toBe(0);
    expect(acknowledged.stdout).toMatch(/1 acknowledged/);
  });

  it('a registered schema of another type (Protobuf, JSON Schema) is a payload_format_changed finding', async () => {
    const address = testSubject('books');
    await register(`${address}-value`, 'syntax = "proto3";\npackage library;\nmessage BookAdded { string book_id = 1; }\n', 'PROTOBUF');
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(address, bookV1));
    const result = await check(['--against', against()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('BREAKING payload_format_changed (forward): payload format protobuf → avro');
    const json = testSubject('books');
    await register(`${json}-value`, JSON.stringify({ type: 'object', properties: { bookId: { type: 'string' } } }), 'JSON');
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(json, bookV1, { action: 'receive' }));
    const fromJson = await check(['--against', against()]);
    expect(fromJson.code).toBe(1);
    expect(fromJson.stdout).toContain('BREAKING payload_format_changed (backward): payload format json-schema → avro');
  });

  it("names subjects as the runtime does: the binding's schemaLookupStrategy, else KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY, with the Kafka namespace", async () => {
    const address = testSubject('books');
    const namespace = testSubject('ns');
    const record = { ...bookV1, namespace: testSubject('library').replace(/-/g, '_') };
    await register(`${record.namespace}.BookAdded`, JSON.stringify(record));
    await register(`${namespace}.${address}-${record.namespace}.BookAdded`, JSON.stringify(record));
    writeFileSync(
      join(dir, 'asyncapi.yaml'),
      contract(address, record, { binding: 'io.confluent.kafka.serializers.subject.RecordNameStrategy' }),
    );
    expect((await check(['--against', against()])).stdout).toContain(`compared with subject ${record.namespace}.BookAdded version 1`);
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(address, record));
    const env = { KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY: 'topic-record', KEIYAKU_KAFKA_NAMESPACE: namespace };
    expect((await check(['--against', against()], env)).stdout).toContain(
      `compared with subject ${namespace}.${address}-${record.namespace}.BookAdded version 1`,
    );
    // registry: alone takes the URL from KEIYAKU_SCHEMA_REGISTRY_URL.
    const configured = await check(['--against', 'registry:'], { ...env, KEIYAKU_SCHEMA_REGISTRY_URL: registryUrl });
    expect(configured.code).toBe(0);
    expect(configured.stdout).toContain(`against registry:${registryUrl}`);
  });

  it('an unreachable registry, a missing URL and a bad setting are clear errors with exit code 2', async () => {
    writeFileSync(join(dir, 'asyncapi.yaml'), contract(testSubject('books'), bookV1));
    const port = await freePort();
    const down = await check(['--against', `registry:http://127.0.0.1:${port}/apis/ccompat/v7`]);
    expect(down.code).toBe(2);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(
      new RegExp(
        `^keiyaku: the schema registry at http://127\\.0\\.0\\.1:${port}/apis/ccompat/v7 is unavailable \\(GET /subjects/.*ECONNREFUSED\\); nothing was checked`,
      ),
    );
    const none = await check(['--against', 'registry:']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--against registry: names no registry: give its URL');
    const bad = await check(['--against', against()], { KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY: 'by-topic' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY');
  });

  it('keiyaku check compares an inline Protobuf payload of the contract with its registered .proto', async () => {
    const address = testSubject('shelf');
    const proto = (copies: number) =>
      `syntax = "proto3";\npackage shelf.v1;\nmessage Shelved {\n  string book_id = 1;\n  int32 copies = ${copies};\n}\n`;
    await register(`${address}-value`, proto(2), 'PROTOBUF');
    const yaml = (copies: number) => `asyncapi: 3.0.0
info:
  title: Shelf
  version: 1.0.0
channels:
  shelf:
    address: ${address}
    messages:
      Shelved:
        name: Shelved
        payload:
          schemaFormat: application/vnd.google.protobuf;version=3
          schema: |
${proto(copies)
  .trimEnd()
  .split('\n')
  .map((line) => `            ${line}`)
  .join('\n')}
operations:
  shelve:
    action: send
    channel:
      $ref: '#/channels/shelf'
`;
    writeFileSync(join(dir, 'asyncapi.yaml'), yaml(2));
    const same = await check(['--against', against()]);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(`compared with subject ${address}-value version 1`);
    writeFileSync(join(dir, 'asyncapi.yaml'), yaml(3));
    const renumbered = await check(['--against', against()]);
    expect(renumbered.code).toBe(1);
    expect(renumbered.stdout).toMatch(/BREAKING protobuf_field_number_changed \(forward\)/);
  });

  it('compares a Protobuf payload with its registered .proto by wire compatibility', async () => {
    const fixtures = new URL('./fixtures/', import.meta.url).pathname;
    const source = readFileSync(join(fixtures, 'shelf.proto'), 'utf8');
    const compiled = compileProtoFile(fixtures, 'shelf.proto');
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const address = testSubject('shelf');
    const model: ContractModel = {
      source: 'asyncapi.yaml',
      asyncapi: '3.0.0',
      info: { title: 't', version: '1.0.0' },
      channels: [
        {
          id: 'shelf',
          identifier: 'Shelf',
          address,
          parameters: [],
          messages: ['Shelved'],
          bindings: {},
          roles: [{ action: 'send', operation: 's' }],
        },
      ],
      messages: {
        Shelved: {
          type: 'Shelved',
          id: 'Shelved',
          identifier: 'Shelved',
          contentType: 'application/x-protobuf',
          payload: 'Shelved',
          format: {
            kind: 'protobuf',
            message: 'shelf.v1.Shelved',
            source,
            descriptorSet: Buffer.from(compiled.descriptorSet).toString('base64'),
            schemaFormat: 'application/vnd.google.protobuf;version=3',
            file: 'shelf.proto',
          },
          boxed: false,
          examples: [],
          deprecated: false,
        },
      },
      operations: [],
      schemas: {},
    };
    // The registered version numbered copies 3: a field's number changed.
    await register(`${address}-value`, source.replace('int32 copies = 2;', 'int32 copies = 3;'), 'PROTOBUF');
    const baseline = await loadRegistryBaseline(`registry:${registryUrl}`, model, { env: {} });
    expect(baseline.notices).toEqual([expect.stringMatching(new RegExp(`compared with subject ${address}-value version 1`))]);
    const findings = known(compareContracts(baseline.model, model, { policy: 'lenient' }));
    expect(findings.map((f) => `${f.severity} ${f.code}`)).toContain('breaking protobuf_field_number_changed');
    // Unchanged: nothing.
    await register(`${address}-value`, source, 'PROTOBUF');
    const same = await loadRegistryBaseline(`registry:${registryUrl}`, model, { env: {} });
    expect(compareContracts(same.model, model, { policy: 'lenient' })).toEqual([]);
  });
});
