// The keiyaku binary, end to end: exit codes, messages, atomic output, --check, config, watch.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binPath, fixturesDir, keiyaku, repoRoot, run, scratch, waitFor } from './helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A scratch copy of a fixture contract. */
function project(fixture: string): string {
  const dir = scratch(fixture);
  dirs.push(dir);
  cpSync(join(fixturesDir, fixture), dir, { recursive: true, filter: (src) => !src.includes(`${fixture}/expected`) });
  return dir;
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

describe('keiyaku CLI', () => {
  it('generates, then --check passes, then a hand edit makes --check fail with exit 1', async () => {
    const dir = project('streetlights-v3');
    const first = await keiyaku(['generate'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/4 channels, 3 messages, 0 warnings; wrote 9 files to generated\//);
    expect((await keiyaku(['generate', '--check'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'generated', 'types.ts'), '// edited\n');
    writeFileSync(join(dir, 'generated', 'extra.ts'), '// stray\n');
    rmSync(join(dir, 'generated', 'manifest.json'));
    const check = await keiyaku(['generate', '--check'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('stale:   generated/types.ts');
    expect(check.stderr).toContain('missing: generated/manifest.json');
    expect(check.stderr).toContain('extra:   generated/extra.ts');
    expect(check.stderr).toContain('run `keiyaku generate`');
  });

  it('--check fails when the output directory does not exist', async () => {
    const dir = project('unions');
    const check = await keiyaku(['generate', '--check', '--out', 'nowhere'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('missing: nowhere/index.ts');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it.each([
    ['invalid-yaml', /asyncapi\.yaml:9:1 error parser: Unexpected end of the stream/, 'fix: close the [ or { opened above'],
    [
      'invalid-asyncapi',
      /asyncapi\.yaml:7:13 error asyncapi-document-resolved: Property "adress" is not expected to be here \(at #\/channels\/orders\/adress\)/,
      'fix: remove or rename the property',
    ],
    [
      'invalid-ref',
      /asyncapi\.yaml:12:17 error invalid-ref: referenced file schemas\/order-placed\.json does not exist/,
      'fix: make the $ref point at an existing file',
    ],
    [
      'invalid-pattern',
      /asyncapi\.yaml:16:24 error invalid_pattern: pattern "\(\[A-Z" is not a valid regular expression/,
      'fix: fix the expression',
    ],
  ])('%s: located error, exit 2, previous output untouched', async (fixture, located, fix) => {
    const dir = project(fixture);
    mkdirSync(join(dir, 'generated'));
    writeFileSync(join(dir, 'generated', 'manifest.json'), '{"generator":"keiyaku"}\n');
    writeFileSync(join(dir, 'generated', 'index.ts'), 'export const previous = true;\n');
    const before = snapshot(dir);
    const result = await keiyaku(['generate'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(located);
    expect(result.stderr).toContain(fix);
    expect(result.stderr).toContain('nothing written');
    expect(snapshot(dir)).toEqual(before);
    expect(readdirSync(dir).filter((f) => f.startsWith('.generated'))).toEqual([]);
  });

  it('shows warnings without failing, and fails on them under --strict', async () => {
    const dir = project('invalid-strict');
    const lenient = await keiyaku(['generate'], { cwd: dir });
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toMatch(/asyncapi\.yaml:16:26 warning unknown_keyword: "minLenght" is not a JSON Schema keyword/);
    rmSync(join(dir, 'generated'), { recursive: true });
    const strict = await keiyaku(['generate', '--strict'], { cwd: dir });
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('1 warning (--strict); nothing written');
    expect(existsSync(join(dir, 'generated'))).toBe(false);
  });

  it.each([
    [['generate', '--chek'], 'unknown option "--chek"; did you mean --check?'],
    [['generate', '--bogus'], 'unknown option "--bogus"'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['generate', '--spec'], 'option --spec needs a value'],
    [['validate', '--out', 'x'], 'option --out does not apply to "keiyaku validate"'],
    [['generate', '--check', '--watch'], 'cannot be combined'],
    [['generate', '--quiet=yes'], 'option --quiet takes no value'],
  ])('rejects bad usage %j with exit 2', async (args, message) => {
    const result = await keiyaku(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('reports a missing contract file with the fix', async () => {
    const dir = scratch('empty');
    dirs.push(dir);
    const result = await keiyaku(['validate'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('contract file asyncapi.yaml does not exist');
    expect(result.stderr).toContain('fix: pass the contract with --spec');
    writeFileSync(join(dir, 'asyncapi.yaml'), '\n  \n');
    const empty = await keiyaku(['generate'], { cwd: dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('asyncapi.yaml:1:1 error spec_empty: contract file asyncapi.yaml is empty');
    expect(existsSync(join(dir, 'generated'))).toBe(false);
  });

  it('refuses to replace a directory it did not generate', async () => {
    const dir = project('unions');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'app.ts'), 'user code\n');
    const result = await keiyaku(['generate', '--out', 'src'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('was not generated by keiyaku');
    expect(readFileSync(join(dir, 'src', 'app.ts'), 'utf8')).toBe('user code\n');
  });

  it('replaces its own output whole: files of removed channels disappear', async () => {
    const dir = project('streetlights-v3');
    expect((await keiyaku(['generate'], { cwd: dir })).code).toBe(0);
    expect(existsSync(join(dir, 'generated', 'channels', 'lights-dimmed.ts'))).toBe(true);
    const spec = readFileSync(join(dir, 'asyncapi.yaml'), 'utf8');
    const channel = spec.slice(spec.indexOf('  lightsDimmed:'), spec.indexOf('operations:'));
    const start = spec.indexOf('  dimLight:\n    action: send');
    const operation = spec.slice(start, spec.indexOf('components:', start));
    expect(operation).toContain('#/channels/lightsDimmed');
    writeFileSync(join(dir, 'asyncapi.yaml'), spec.replace(channel, '').replace(operation, ''));
    const second = await keiyaku(['generate'], { cwd: dir });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(existsSync(join(dir, 'generated', 'channels', 'lights-dimmed.ts'))).toBe(false);
    expect(existsSync(join(dir, 'generated', 'channels', 'light-turn-on.ts'))).toBe(true);
  });

  it('prints a machine-readable result with --json and nothing else with --quiet', async () => {
    const dir = project('streetlights-v2');
    const json = await keiyaku(['validate', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; channels: number; messages: number; diagnostics: unknown[] };
    expect(parsed).toMatchObject({ ok: true, channels: 2, messages: 3 });
    const quiet = await keiyaku(['generate', '--quiet'], { cwd: dir });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const failed = await keiyaku(['validate', '--json', '--spec', join(fixturesDir, 'invalid-asyncapi', 'asyncapi.yaml')]);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, errors: 1 });
  });

  it('reads defaults from keiyaku.config.json and rejects unknown keys by name', async () => {
    const dir = project('unions');
    writeFileSync(join(dir, 'keiyaku.config.json'), JSON.stringify({ spec: 'asyncapi.yaml', out: 'src/contract' }));
    const ok = await keiyaku(['generate'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(existsSync(join(dir, 'src', 'contract', 'index.ts'))).toBe(true);
    writeFileSync(join(dir, 'keiyaku.config.json'), JSON.stringify({ output: 'x' }));
    const bad = await keiyaku(['generate'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown option "output"');
  });

  it('works through npx inside the repository', async () => {
    const result = await run('npx', ['--no-install', 'keiyaku', '--version'], { cwd: repoRoot });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  });

  it('--watch regenerates when a referenced file changes, and stops on SIGINT', async () => {
    const dir = project('streetlights-v3');
    const child = spawn(process.execPath, [binPath, 'generate', '--watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const soFar = (what: string) => (): string => `${what}; output so far:\n${stdout}`;
    try {
      await waitFor(() => stdout.includes('watching'), soFar('the first run is done'), 20_000);
      expect(stdout).toMatch(/watching 4 files/);
      const schemas = join(dir, 'common', 'schemas.yaml');
      writeFileSync(schemas, readFileSync(schemas, 'utf8').replace('Light intensity measured in lumens.', 'Brightness in lumens.'));
      const typesFile = join(dir, 'generated', 'types.ts');
      const regenerated = (): boolean => {
        try {
          return readFileSync(typesFile, 'utf8').includes('Brightness in lumens.');
        } catch {
          return false; // between the two renames of the atomic swap
        }
      };
      await waitFor(regenerated, soFar('types.ts is regenerated'), 20_000);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});

/** The CLI's process entry from the TypeScript sources (the cases above run the built binary). */
function keiyakuFromSources(args: readonly string[], cwd: string) {
  const entry = join(repoRoot, 'generator', 'cli', 'run.ts');
  return run(process.execPath, ['--import', 'tsx/esm', '--conditions=keiyaku-source', entry, ...args], { cwd });
}

describe('keiyaku CLI output (process entry, from the sources)', () => {
  it('check --quiet prints findings only, and --format github carries the acknowledgment id', async () => {
    const dir = scratch('cli-check');
    dirs.push(dir);
    cpSync(join(repoRoot, 'asyncapi.yaml'), join(dir, 'asyncapi.yaml'));
    cpSync(join(repoRoot, 'schemas'), join(dir, 'schemas'), { recursive: true });
    const git = (...args: string[]) =>
      run('git', args, {
        cwd: dir,
        env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
      });
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', '.'],
      ['commit', '-qm', 'v1'],
      ['tag', 'v1'],
    ])
      expect((await git(...args)).code).toBe(0);
    const common = join(dir, 'schemas', 'common.json');
    writeFileSync(common, readFileSync(common, 'utf8').replace('"maxLength": 80', '"maxLength": 40'));
    const quiet = await keiyakuFromSources(['check', '--against', 'v1', '--quiet'], dir);
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).not.toContain('directions:');
    expect(quiet.stdout).toContain('BREAKING max_length_narrowed (backward)');
    expect(quiet.stdout).toContain('fix: keep maxLength at 80 or looser; the change itself passes only when acknowledged');
    const github = await keiyakuFromSources(['check', '--against', 'v1', '--format', 'github'], dir);
    expect(github.stdout).toMatch(
      /^::error file=schemas\/common\.json,line=\d+,title=keiyaku max_length_narrowed::.*acknowledge it: \{ id: 'bookIntegrationEvents\/BookBorrowed\/max_length_narrowed\/payload\/properties\/borrower\/properties\/displayName\/maxLength', reason: …, version: … \}$/m,
    );
  });

  it('validate reports an OpenAPI discriminator object in a shared schema once, and warns about a Kafka binding groupId', async () => {
    const dir = scratch('cli-validate');
    dirs.push(dir);
    writeFileSync(
      join(dir, 'asyncapi.yaml'),
      `asyncapi: 3.0.0
info: { title: Orders, version: 1.0.0 }
channels:
  orders:
    address: orders
    messages:
      OrderPaid:
        $ref: "#/components/messages/OrderPaid"
operations:
  onOrder:
    action: receive
    channel: { $ref: "#/channels/orders" }
    messages:
      - $ref: "#/channels/orders/messages/OrderPaid"
    bindings:
      kafka:
        groupId: { type: string, enum: [billing.order-payments] }
components:
  messages:
    OrderPaid:
      name: OrderPaid
      payload:
        $ref: "#/components/schemas/Order"
  schemas:
    Order:
      type: object
      discriminator:
        propertyName: kind
      properties:
        kind: { type: string }
`,
    );
    const invalid = await keiyakuFromSources(['validate'], dir);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr.match(/not an OpenAPI discriminator object/g)).toHaveLength(1);
    expect(invalid.stderr).toContain('1 error; nothing written');
    const text = readFileSync(join(dir, 'asyncapi.yaml'), 'utf8');
    writeFileSync(
      join(dir, 'asyncapi.yaml'),
      text.replace('      discriminator:\n        propertyName: kind\n', '      discriminator: kind\n      required: [kind]\n'),
    );
    const valid = await keiyakuFromSources(['validate'], dir);
    expect(valid.stderr).toContain(
      'asyncapi.yaml:17:18 warning kafka_group_id_ignored: operation "onOrder" sets a Kafka binding groupId ("billing.order-payments"), which keiyaku does not use',
    );
    expect(valid.stderr).toContain('fix: declare `groupId: "billing.order-payments"` on the handler that receives these messages');
    expect(valid.code).toBe(0);
  });
});
