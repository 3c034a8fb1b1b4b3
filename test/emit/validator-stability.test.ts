// Validators are named after the schema's place in the contract, not by counters: adding a
// message adds its own validator and changes no line of any other.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ContractModel, compileContract, generate } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { syntheticContract } from '../../bench/synthetic.js';
import { repoRoot, scratch } from '../helpers.js';

async function validatorsOf(document: object, name: string): Promise<string> {
  const dir = scratch(name);
  writeFileSync(join(dir, 'asyncapi.json'), JSON.stringify(document));
  const model = (await compileContract('asyncapi.json', { cwd: dir })).model as ContractModel;
  const { files } = await generate(model, { source: 'asyncapi.json' });
  return files.find((f) => f.path === 'validators.ts')!.content;
}

/** Blank-line separated blocks: the header, then one block per validator function with its constants. */
const blocks = (code: string): string[] => code.split('\n\n');

describe('validator names are stable', () => {
  it('adding a message adds its own lines and touches no other validator', async () => {
    const before = syntheticContract(3, 2) as {
      channels: Record<string, { messages: Record<string, unknown> }>;
      components: { messages: Record<string, unknown> };
    };
    const after = structuredClone(before);
    after.components.messages['Entity1Audited'] = {
      name: 'Entity1Audited',
      payload: {
        type: 'object',
        required: ['auditor'],
        properties: { auditor: { type: 'string', format: 'email' }, total: { $ref: '#/components/schemas/Money' } },
      },
    };
    after.channels['entity1']!.messages['Entity1Audited'] = { $ref: '#/components/messages/Entity1Audited' };
    const [old, now] = await Promise.all([validatorsOf(before, 'stable-before'), validatorsOf(after, 'stable-after')]);
    // The header (file comment, import, helpers and format checks) gains the one new format check (email), nothing else.
    const header = (code: string) => blocks(code).slice(0, 2).join('\n\n').split('\n');
    const body = (code: string) => blocks(code).slice(2);
    expect(header(now).filter((l) => !header(old).includes(l))).toEqual([expect.stringMatching(/^const \$f_email=/)]);
    expect(header(old).filter((l) => !header(now).includes(l))).toEqual([]);
    expect(body(old).filter((b) => !body(now).includes(b))).toEqual([]);
    const functions = body(now).filter((b) => !body(old).includes(b));
    expect(functions).toHaveLength(1);
    expect(functions[0]).toMatch(/^function v_Entity1AuditedPayload\(d,E\)/);
    expect(functions[0]).toContain('export const validateEntity1AuditedPayload=');
    // Shared definitions are called, not inlined.
    expect(functions[0]).toContain('v_Money(');
    expect(now.match(/^function v_Money\(/gm)).toHaveLength(1);
  });

  it("this repository's validators are compact: shared definitions are functions, named after them", () => {
    const code = readFileSync(join(repoRoot, 'generated', 'validators.ts'), 'utf8');
    expect(code).toMatch(/^function v_BookId\(d,E\)/m);
    expect(code).not.toMatch(/validate\d+|schema\d+|func\d+/);
    expect(code.match(/v_MemberId\(/g)!.length).toBeGreaterThan(2);
  });
});

describe('validators are laid out as they are written', () => {
  it('indentStatements leaves validators.ts of every fixture and of the synthetic contracts unchanged', async () => {
    const { indentStatements } = await import('./bracket-layout.js');
    const { sharedSyntheticContract } = await import('../../bench/synthetic.js');
    const dir = scratch('validator-layout');
    writeFileSync(join(dir, 'synthetic.json'), JSON.stringify(syntheticContract(20, 4)));
    writeFileSync(join(dir, 'shared.json'), JSON.stringify(sharedSyntheticContract(20, 4)));
    const { readdirSync } = await import('node:fs');
    const fixtures = join(repoRoot, 'test', 'fixtures');
    const specs = [
      join(repoRoot, 'asyncapi.yaml'),
      ...readdirSync(fixtures, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('invalid') && e.name !== 'hostile')
        .map((e) => join(fixtures, e.name, 'asyncapi.yaml')),
      join(dir, 'synthetic.json'),
      join(dir, 'shared.json'),
    ];
    let checked = 0;
    for (const spec of specs) {
      const compiled = await compileContract(spec, { cwd: repoRoot });
      if (compiled.model === undefined) continue;
      const validators = (await generate(compiled.model, { source: 'asyncapi.yaml' })).files.find((f) => f.path === 'validators.ts');
      if (validators === undefined) continue;
      const code = validators.content.slice(validators.content.indexOf('import '));
      expect(indentStatements(code, '\t'), spec).toBe(code);
      expect(code).toMatch(/\n\t+if\(/);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
