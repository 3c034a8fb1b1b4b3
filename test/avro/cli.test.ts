// The CLI on a contract with Avro payloads in .avsc files: generate, generate --check (stale when
// an .avsc changes), and check --against a git ref, which must load both sides' .avsc files.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot, run, scratch } from '../helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function keiyakuFromSources(args: readonly string[], cwd: string) {
  const entry = join(repoRoot, 'generator', 'cli', 'run.ts');
  return run(process.execPath, ['--import', 'tsx/esm', '--conditions=keiyaku-source', entry, ...args], { cwd });
}

describe('keiyaku CLI with Avro payloads', () => {
  it('generate, generate --check and check --against a git ref read the .avsc files', async () => {
    const dir = scratch('avro-cli');
    dirs.push(dir);
    cpSync(join(fixturesDir, 'avro', 'asyncapi.yaml'), join(dir, 'asyncapi.yaml'));
    cpSync(join(fixturesDir, 'avro', 'schemas'), join(dir, 'schemas'), { recursive: true });
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

    const generated = await keiyakuFromSources(['generate'], dir);
    expect(generated.stderr).toBe('');
    expect(generated.code).toBe(0);
    expect(readFileSync(join(dir, 'generated', 'messages.ts'), 'utf8')).toContain('import { avroCodec } from "@keiyaku/avro";');
    expect((await keiyakuFromSources(['generate', '--check'], dir)).code).toBe(0);

    const address = join(dir, 'schemas', 'address.avsc');
    writeFileSync(
      address,
      readFileSync(address, 'utf8').replace('{ "name": "city", "type": "string" }', '{ "name": "town", "type": "string" }'),
    );
    const stale = await keiyakuFromSources(['generate', '--check'], dir);
    expect(stale.code).toBe(1);

    const same = await keiyakuFromSources(['check', '--against', 'v1', '--spec', 'asyncapi.yaml', '--format', 'json'], dir);
    expect(same.stderr).not.toMatch(/error/i);
    const report = JSON.parse(same.stdout) as { findings: { code: string }[] };
    expect(report.findings.map((f) => f.code)).toContain('avro_field_removed_without_default');
  });
});
