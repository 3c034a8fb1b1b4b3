// Golden files: whole contracts through load → model → emit, compared with the
// committed output under test/fixtures/<name>/expected (update with `vitest run -u`).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from './helpers.js';

const fixtures = readdirSync(fixturesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('invalid'))
  .map((e) => e.name)
  .sort();

/** Every file under `dir`, relative to it with `/` separators, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(dir.length + 1)
        .replace(/\\/g, '/'),
    )
    .sort();
}

describe('golden output', () => {
  it('has the fixtures it is meant to cover', () => {
    expect(fixtures).toEqual(expect.arrayContaining(['hostile', 'streetlights-v2', 'streetlights-v3', 'unions']));
  });

  for (const name of fixtures) {
    it(`${name}: matches expected/ file by file`, async () => {
      const cwd = join(fixturesDir, name);
      const result = await generateFromFile('asyncapi.yaml', { cwd });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(result.files.length).toBeGreaterThan(4);
      for (const file of result.files) {
        await expect(file.content).toMatchFileSnapshot(join(cwd, 'expected', file.path));
      }
      expect(filesUnder(join(cwd, 'expected'))).toEqual(result.files.map((f) => f.path).sort());
    });
  }

  it("the repo's own contract matches the committed generated/", async () => {
    const result = await generateFromFile('asyncapi.yaml', { cwd: repoRoot });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.files.length).toBeGreaterThan(0);
    for (const file of result.files) {
      await expect(file.content).toMatchFileSnapshot(join(repoRoot, 'generated', file.path));
    }
    expect(filesUnder(join(repoRoot, 'generated'))).toEqual(result.files.map((f) => f.path).sort());
  });

  it('is deterministic: two runs give byte-identical files', async () => {
    for (const name of fixtures) {
      const cwd = join(fixturesDir, name);
      const [a, b] = await Promise.all([generateFromFile('asyncapi.yaml', { cwd }), generateFromFile('asyncapi.yaml', { cwd })]);
      expect(a.files.length).toBeGreaterThan(0);
      expect(b.files).toEqual(a.files);
    }
  });
});
