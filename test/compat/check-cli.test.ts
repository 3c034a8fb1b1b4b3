// `keiyaku check` end to end: a temporary git repository holds the contract; edits are
// checked against a git ref, a file and a recorded history; acknowledgments and formats.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, repoRoot, scratch } from '../helpers.js';
import { keiyaku } from './known-codes.js';

const dir = scratch('check');
const git = gitIn(dir);
const edit = (file: string, from: string | RegExp, to: string): void => {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit did not apply to ${file}: ${String(from)}`);
  writeFileSync(path, next);
};

beforeAll(() => {
  cpSync(join(repoRoot, 'asyncapi.yaml'), join(dir, 'asyncapi.yaml'));
  cpSync(join(repoRoot, 'schemas'), join(dir, 'schemas'), { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'v1.2.0');
  git('tag', 'v1.2.0');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reset(): void {
  git('checkout', '-q', '--', '.');
  git('clean', '-qfd');
}

describe('keiyaku check', () => {
  it('passes an unchanged contract against a git ref, with a summary line', async () => {
    const result = await keiyaku(['check', '--against', 'v1.2.0'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'keiyaku check: 0 breaking, 0 acknowledged, 0 compatible, 0 info against v1.2.0:asyncapi.yaml (mode per channel, policy lenient)',
    );
    // With no --mode, each channel in the direction its operations imply, and why.
    expect(result.stdout).toContain(
      'bookIntegrationEvents: full — this application both sends (publishBookEvents) and receives (receiveBookEvents)',
    );
    expect(result.stdout).toContain('memberNotifications: forward — this application sends on it (sendReminder)');
  });

  it.each([
    [
      'an enum value removed in a referenced file',
      'schemas/book-returned.json',
      '"enum": ["good", "worn", "damaged"]',
      '"enum": ["good", "worn"]',
      'BREAKING enum_value_removed (backward): enum lost "damaged"',
    ],
    [
      'a shared definition narrowed',
      'schemas/common.json',
      '"maxLength": 80',
      '"maxLength": 40',
      'BREAKING max_length_narrowed (backward): string maxLength 80 → 40',
    ],
    [
      'a new required field',
      'schemas/book-borrowed.json',
      '"required": ["bookId", "copyId", "borrower", "borrowedAt", "dueAt", "channel"]',
      '"required": ["bookId", "copyId", "borrower", "borrowedAt", "dueAt", "channel", "note"]',
      'BREAKING required_attribute_added',
    ],
    [
      'a property removed from a closed object',
      'schemas/book-returned.json',
      /,\s*"currency": \{ "type": "string", "pattern": "\^\[A-Z\]\{3\}\$" \}/,
      '',
      'BREAKING property_removed_from_closed_model',
    ],
    [
      'a type changed',
      'schemas/book-borrowed.json',
      '"renewals": { "type": "integer"',
      '"renewals": { "type": "string"',
      'BREAKING type_changed',
    ],
    ['fewer partitions', 'asyncapi.yaml', 'partitions: 6', 'partitions: 3', 'BREAKING partition_count_reduced'],
    ['a Kafka key schema changed', 'asyncapi.yaml', 'format: uuid', 'format: email', 'BREAKING key_format_changed'],
    [
      'a channel parameter renamed',
      'asyncapi.yaml',
      /\{memberId\}\.notifications\n(\s+)description: (.*)\n(\s+)parameters:\n(\s+)memberId:/,
      '{cardId}.notifications\n$1description: $2\n$3parameters:\n$4cardId:',
      'BREAKING channel_parameters_changed',
    ],
    [
      'a headers schema narrowed',
      'schemas/event-headers.json',
      '"correlationId": { "type": "string",',
      '"correlationId": { "type": "string", "format": "uuid",',
      'BREAKING format_added',
    ],
    [
      'an address changed',
      'asyncapi.yaml',
      'address: library.book-integration-events',
      'address: library.books',
      'BREAKING channel_address_changed',
    ],
    [
      'a message removed from a channel',
      'asyncapi.yaml',
      /\n {6}BookReturned:\n {8}\$ref: ["']#\/components\/messages\/BookReturned["']/,
      '',
      'BREAKING message_removed',
    ],
    [
      'a content type changed',
      'asyncapi.yaml',
      '      contentType: application/json\n      correlationId',
      '      contentType: application/avro\n      correlationId',
      'BREAKING content_type_changed',
    ],
  ])('catches %s (exit 1, located, with a fix)', async (_name, file, from, to, expected) => {
    reset();
    edit(file, from, to);
    const result = await keiyaku(['check', '--against', 'v1.2.0'], { cwd: dir });
    expect(result.stdout).toContain(expected);
    expect(result.stdout).toContain('fix: ');
    expect(result.stdout).toMatch(/1 breaking|[2-9] breaking/);
    expect(result.code).toBe(1);
  });

  it.each([
    [
      'an optional field added (lenient policy: undeclared fields are ignorable)',
      'schemas/book-borrowed.json',
      '"renewals": {',
      '"shelf": { "type": "string" },\n    "renewals": {',
      'compatible optional_property_added_to_open_model',
    ],
    [
      'an enum value added',
      'schemas/book-returned.json',
      '"enum": ["good", "worn", "damaged"]',
      '"enum": ["good", "worn", "damaged", "lost"]',
      'compatible enum_value_added',
    ],
    ['a limit relaxed', 'schemas/common.json', '"maxLength": 80', '"maxLength": 120', 'compatible max_length_widened'],
    [
      'a description edited',
      'schemas/book-borrowed.json',
      '"Where the loan was made."',
      '"Where the loan was made (desk, kiosk or app)."',
      '0 breaking',
    ],
    ['more partitions', 'asyncapi.yaml', 'partitions: 6', 'partitions: 12', 'compatible partition_count_increased'],
  ])('lets %s pass in --mode backward (exit 0)', async (_name, file, from, to, expected) => {
    reset();
    edit(file, from, to);
    const result = await keiyaku(['check', '--against', 'v1.2.0', '--mode', 'backward'], { cwd: dir });
    expect(result.stdout).toContain(expected);
    expect(result.stdout).toContain('0 breaking');
    expect(result.code).toBe(0);
  });

  it('fails an optional field added to an open object under --policy strict', async () => {
    reset();
    edit('schemas/book-borrowed.json', '"renewals": {', '"shelf": { "type": "string" },\n    "renewals": {');
    const result = await keiyaku(['check', '--against', 'v1.2.0', '--policy', 'strict'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('BREAKING optional_property_added_to_open_model');
  });

  it('checks the forward direction too in --mode full', async () => {
    reset();
    edit('schemas/book-returned.json', '"enum": ["good", "worn", "damaged"]', '"enum": ["good", "worn", "damaged", "lost"]');
    const result = await keiyaku(['check', '--against', 'v1.2.0', '--mode', 'full'], { cwd: dir });
    expect(result.code).toBe(1);
    // Named after the edit, worded from the reader that breaks.
    expect(result.stdout).toContain(
      'BREAKING enum_value_added (forward): enum gained "lost": consumers on the old contract reject messages with it',
    );
    expect(result.stdout).toContain('compatible enum_value_added (backward)');
  });

  it('passes an intentional break acknowledged in the contract, shows the reason, and reports a stale acknowledgment', async () => {
    reset();
    edit('schemas/book-returned.json', '"enum": ["good", "worn", "damaged"]', '"enum": ["good", "worn"]');
    const id = 'bookIntegrationEvents/BookReturned/enum_value_removed/payload/properties/condition/enum';
    edit(
      'asyncapi.yaml',
      'defaultContentType: application/json',
      `defaultContentType: application/json\nx-keiyaku:\n  acknowledge:\n    - id: ${id}\n      reason: damaged copies are now reported as BookLost\n      version: 1.2.0\n    - id: nowhere/nothing/type_changed\n      reason: left over\n      version: 1.2.0`,
    );
    const result = await keiyaku(['check', '--against', 'v1.2.0', '--verbose'], { cwd: dir });
    expect(result.stdout).toContain('ACKNOWLEDGED enum_value_removed');
    expect(result.stdout).toContain('acknowledged for 1.2.0: damaged copies are now reported as BookLost');
    expect(result.stdout).toContain('WARNING acknowledgment_unused');
    expect(result.stdout).toContain('fix: remove it from x-keiyaku.acknowledge');
    expect(result.stdout).toContain('0 breaking, 1 acknowledged');
    expect(result.code).toBe(0);
  });

  it('accepts an acknowledgment that spells the code as before codes became snake_case, warning with the new id', async () => {
    reset();
    edit('schemas/common.json', '"maxLength": 80', '"maxLength": 40');
    const unacknowledged = await keiyaku(['check', '--against', 'v1.2.0', '--mode', 'backward'], { cwd: dir });
    expect(unacknowledged.code).toBe(1);
    const id = /acknowledge it: \{ id: '([^']+)'/.exec(unacknowledged.stdout)?.[1];
    expect(id).toMatch(/\/max_length_narrowed\//);
    const old = id!.replace('/max_length_narrowed/', '/maxLength_narrowed/');
    edit(
      'asyncapi.yaml',
      'defaultContentType: application/json',
      `defaultContentType: application/json\nx-keiyaku:\n  acknowledge:\n    - id: ${old}\n      reason: shorter titles\n      version: 1.2.0`,
    );
    const result = await keiyaku(['check', '--against', 'v1.2.0', '--mode', 'backward'], { cwd: dir });
    expect(result.stdout).toContain('ACKNOWLEDGED max_length_narrowed');
    expect(result.stdout).toContain(
      `WARNING acknowledgment_id_deprecated (backward): acknowledgment ${old} uses an earlier spelling of the finding's id (the code maxLength_narrowed is now max_length_narrowed)`,
    );
    expect(result.stdout).toContain(`fix: replace its id with ${id}; the old spelling is accepted for now`);
    expect(result.stdout).toContain('0 breaking, 1 acknowledged');
    expect(result.code).toBe(0);
  });

  it('renders JSON', async () => {
    reset();
    edit('schemas/book-returned.json', '"enum": ["good", "worn", "damaged"]', '"enum": ["good", "worn"]');
    const json = await keiyaku(['check', '--against', 'v1.2.0', '--format', 'json'], { cwd: dir });
    const parsed = JSON.parse(json.stdout) as {
      ok: boolean;
      summary: { breaking: number };
      findings: { code: string; pointer: string; channel: string; message: string; before: unknown }[];
    };
    expect(parsed.ok).toBe(false);
    expect(parsed.summary.breaking).toBe(1);
    expect(parsed.findings[0]).toMatchObject({
      code: 'enum_value_removed',
      channel: 'bookIntegrationEvents',
      message: 'BookReturned',
      pointer: '/payload/properties/condition/enum',
      before: ['damaged'],
    });
  });

  it('renders GitHub annotations, text and JUnit', async () => {
    reset();
    edit('schemas/book-returned.json', '"enum": ["good", "worn", "damaged"]', '"enum": ["good", "worn"]');
    const github = await keiyaku(['check', '--against', 'v1.2.0', '--format', 'github'], { cwd: dir });
    expect(github.stdout).toMatch(
      /^::error file=schemas\/book-returned\.json,line=10,title=keiyaku enum_value_removed::bookIntegrationEvents\/BookReturned enum lost "damaged"/m,
    );
    const text = await keiyaku(['check', '--against', 'v1.2.0'], { cwd: dir });
    expect(text.stdout).toContain('at /payload/properties/condition/enum — schemas/book-returned.json:10:46 (#/properties/condition/enum)');
    const junit = await keiyaku(['check', '--against', 'v1.2.0', '--format', 'junit'], { cwd: dir });
    // The channel is checked in full mode: the backward finding fails, the forward one passes.
    expect(junit.stdout).toContain('<testsuite name="keiyaku check against v1.2.0:asyncapi.yaml" tests="2" failures="1">');
    expect(junit.stdout).toContain(
      '<failure message="enum lost &quot;damaged&quot;: consumers on the new contract reject messages written under the old one" type="enum_value_removed">',
    );
  }, 120_000);

  it('compares with a contract on disk, and against every recorded version in a transitive mode', async () => {
    reset();
    const record = await keiyaku(['check', '--record', '--against', 'asyncapi.yaml'], { cwd: dir });
    expect(record.code).toBe(0);
    expect(record.stderr).toContain('recorded 1.2.0 in contract.history.json');
    edit('schemas/common.json', '"maxLength": 80', '"maxLength": 40');
    const transitive = await keiyaku(['check', '--mode', 'backward-transitive'], { cwd: dir });
    expect(transitive.code).toBe(1);
    expect(transitive.stdout).toContain('against contract.history.json@1.2.0');
    expect(transitive.stdout).toContain('max_length_narrowed');
    const onDisk = await keiyaku(['check', '--against', join(repoRoot, 'asyncapi.yaml')], { cwd: dir });
    expect(onDisk.code).toBe(1);
  }, 120_000);

  it('refuses an invalid baseline with its located diagnostics', async () => {
    reset();
    writeFileSync(
      join(dir, 'broken.yaml'),
      readFileSync(join(dir, 'asyncapi.yaml'), 'utf8').replace(/^info:\n/m, 'info:\n  colour: blue\n'),
    );
    const result = await keiyaku(['check', '--against', 'broken.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the baseline contract (broken.yaml) is not valid');
    expect(result.stderr).toMatch(/broken\.yaml:\d+:\d+/);
    expect(result.stderr).toContain('Property "colour" is not expected to be here');
  });

  it('reads a JSON contract and the files it references at a git ref', async () => {
    reset();
    const json = scratch('check-json');
    const run = gitIn(json);
    try {
      const { parseDocument } = await import('yaml');
      writeFileSync(join(json, 'asyncapi.json'), JSON.stringify(parseDocument(readFileSync(join(dir, 'asyncapi.yaml'), 'utf8')).toJS()));
      cpSync(join(dir, 'schemas'), join(json, 'schemas'), { recursive: true });
      run('init', '-q', '-b', 'main');
      run('add', '.');
      run('commit', '-qm', 'v1');
      const text = readFileSync(join(json, 'schemas', 'common.json'), 'utf8');
      writeFileSync(join(json, 'schemas', 'common.json'), text.replace('"maxLength": 80', '"maxLength": 40'));
      const result = await keiyaku(['check', '--spec', 'asyncapi.json', '--against', 'HEAD'], { cwd: json });
      expect(result.stdout).toContain('max_length_narrowed');
      expect(result.code).toBe(1);
    } finally {
      rmSync(json, { recursive: true, force: true });
    }
  }, 120_000);

  it.each([
    [['check'], 'keiyaku check needs --against'],
    [['check', '--against', 'no-such-ref'], 'no-such-ref is neither a file nor a git ref'],
    [['check', '--against', 'v1.2.0', '--mode', 'sideways'], '--mode sideways is not one of backward, forward, full'],
    [['check', '--against', 'v1.2.0', '--format', 'xml'], '--format xml is not one of text, json, github, junit'],
  ])('refuses %j with exit 2', async (args, message) => {
    reset();
    const result = await keiyaku(args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
