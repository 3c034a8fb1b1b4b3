// A contract full of hostile names and text must still produce code that compiles
// (see typecheck.test.ts) and does exactly what the schema says.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { _2fast, Break, Class, Class2, Constructor, channels, dispatchClass, EvenementRecu } from './fixtures/hostile/expected/index.js';
import { binPath, fixturesDir, scratch as scratchDir } from './helpers.js';

const valid = {
  '*/ evil': 'x',
  'with "quotes"': 'say "hi"',
  class: 1,
  default: '*/ ${x}',
} as const;

describe('hostile contract', () => {
  it('keeps hostile names as data, not code', () => {
    expect(Break.type).toBe('*/ break');
    expect(_2fast.type).toBe('2fast');
    expect(Constructor.type).toBe('constructor');
    expect(EvenementRecu.type).toBe('événement.reçu');
    expect(Class.id).toBe('class');
    expect(Class2.id).toBe('Class');
    expect(channels.map((c) => c.id)).toEqual(['class', 'Class', 'tšékʏ ünïcödé']);
  });

  it('builds addresses with quotes, backticks and template syntax verbatim', () => {
    expect(Class.address({ id: '42' })).toBe('evil.`$(x)`.42.\'"\\n');
  });

  it('validates properties whose names are comment terminators, quotes, reserved words and newlines', () => {
    const message = Break.create({ ...valid, 'new\nline': true, '': 'empty' });
    expect(message['*/ evil']).toBe('x');
    expect(Break.validate({ ...valid, 'with "quotes"': 'nope' })[0]?.path).toBe('$["with \\"quotes\\""]');
    expect(Break.validate({ 'with "quotes"': "it's", class: 1, default: '' })[0]).toMatchObject({
      keyword: 'required',
      path: '$["*/ evil"]',
    });
    expect(Break.validate({ ...valid, 'new\nline': 'yes' })[0]?.path).toBe('$["new\\nline"]');
    for (const value of ["it's", 'say "hi"', '`${tick}`', 'back\\slash', '*/']) {
      expect(Break.validate({ ...valid, 'with "quotes"': value })).toEqual([]);
    }
  });

  it('handles unicode property names, enum values and patterns', () => {
    expect(EvenementRecu.validate({ 名前: '東京', 'emoji 🎉': '🎉🎉' })).toEqual([]);
    expect(EvenementRecu.validate({ 名前: '\u0000nul' })).toEqual([]);
    expect(EvenementRecu.validate({ 名前: '大阪' })[0]?.keyword).toBe('enum');
    expect(EvenementRecu.validate({ 名前: '東京', 'emoji 🎉': 'x' })[0]?.keyword).toBe('pattern');
  });

  it('treats a const of "*/" and mutual recursion through reserved-word names correctly', () => {
    expect(Constructor.validate({ type: '*/', Interface: { again: { type: '*/' } } })).toEqual([]);
    expect(Constructor.validate({ type: '*/', Interface: { again: { type: 'x' } } })[0]?.path).toBe('$.Interface.again.type');
  });

  it('dispatches on hostile type names', () => {
    const out = dispatchClass(_2fast.create({ '123': 1 }), { '*/ break': () => 'break', '2fast': (m) => `fast ${m['123']}` });
    expect(out).toBe('fast 1');
  });

  it('never lets contract text end a comment or open a template', () => {
    // Comments and quoted strings removed in one left-to-right pass, as a tokenizer would: a comment
    // that contract text ended early leaves the rest of it, and its real `*/`, behind as code.
    const code = (text: string): string =>
      text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/gm, (token) =>
        token.startsWith('/') ? '' : token[0]!.repeat(2),
      );
    expect(code('const a = \'*/ /*\'; /* c */ f("//");')).toBe('const a = \'\';  f("");');
    expect(code('/** a */ b */ x;')).toContain('*/');
    const expected = join(fixturesDir, 'hostile', 'expected');
    for (const file of ['types.ts', 'messages.ts', 'channels/class.ts', 'index.ts']) {
      const rest = code(readFileSync(join(expected, file), 'utf8'));
      // Outside comments and quoted strings there is no comment end, template literal or injected statement.
      expect(rest).not.toContain('*/');
      expect(rest).not.toContain('`');
      expect(rest).not.toContain('process.exit');
      expect(rest).not.toContain('hacked');
    }
  });
});

// Hostile contracts on the command line: every one ends in bounded time and memory (a heap of
// 256 MB, a timeout) with a located diagnostic, exit 2, no stack trace and nothing written.
// The CLI runs as the built binary (`npm test` builds first): a process per case, and the binary
// starts on a third of the CPU that the TypeScript sources through tsx take (~0.3 s against ~1 s).
const contractsDir = join(fixturesDir, 'hostile', 'contracts');

interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(
  args: readonly string[],
  cwd: string,
  options: { timeoutMs?: number; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', binPath, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child);
  });
}

/** Scratch folders of this file, removed when it ends. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function scratch(prefix: string): string {
  const dir = scratchDir(prefix);
  made.push(dir);
  return dir;
}

/** A scratch copy of a hostile contract (the CLI may not write next to the fixtures). */
function copyCase(name: string): string {
  const dir = scratch(`hostile-${name}`);
  cpSync(join(contractsDir, name), dir, { recursive: true });
  return dir;
}

function expectRefused(run: CliRun, cwd: string, located: RegExp): void {
  const output = `${run.stdout}${run.stderr}`;
  expect(run.signal, output).toBeNull();
  expect(run.code, output).toBe(2);
  expect(run.stderr).toMatch(located);
  expect(output).not.toMatch(/\n\s+at |internal error|stack:/);
  expect(existsSync(join(cwd, 'generated'))).toBe(false);
}

/** [case, folder of the contract inside the case, spec, the diagnostic's start: file:line:col severity code]. */
const refused: readonly [string, string, string, RegExp][] = [
  [
    'schema-cycle',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:17:14 error ref_cycle: \$ref cycle with no schema in between: #\/components\/schemas\/A → #\/components\/schemas\/B → #\/components\/schemas\/A/m,
  ],
  ['self-ref', '', 'asyncapi.yaml', /^asyncapi\.yaml:15:14 error ref_cycle: /m],
  [
    'message-cycle',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:16:14 error ref_cycle: .*#\/components\/messages\/A → #\/components\/messages\/B/m,
  ],
  [
    'file-cycle',
    '',
    'asyncapi.yaml',
    /^b\.json:1:11 error ref_cycle: \$ref cycle with no schema in between: \.\/a\.json → \.\/b\.json → \.\/a\.json/m,
  ],
  [
    'root-back',
    '',
    'asyncapi.yaml',
    /^schemas\/x\.json:1:47 error ref_cycle: \$ref "\.\.\/asyncapi\.yaml" points back at an object that contains it/m,
  ],
  ['dev-zero', '', 'asyncapi.yaml', /^asyncapi\.yaml:11:18 error ref_outside_contract: \$ref "\/dev\/zero" points outside/m],
  ['etc-passwd', '', 'asyncapi.yaml', /^asyncapi\.yaml:11:17 error ref_outside_contract: \$ref "\/etc\/passwd" points outside/m],
  ['outside', 'contract', 'asyncapi.yaml', /^asyncapi\.yaml:11:18 error ref_outside_contract: \$ref "\.\.\/secret\.json" points outside/m],
  ['alias-bomb', '', 'asyncapi.yaml', /^asyncapi\.yaml:7:12 error yaml_alias_limit: /m],
  ['merge-bomb', '', 'asyncapi.yaml', /^asyncapi\.yaml:10:10 error yaml_alias_limit: /m],
  ['no-asyncapi', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:1 error not_asyncapi: .*has no `asyncapi` version/m],
  ['scalar', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:1 error not_asyncapi: .*holds a string/m],
  ['list', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:1 error not_asyncapi: .*holds a list/m],
  ['null', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:1 error not_asyncapi: .*holds nothing/m],
  ['number-version', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:11 error not_asyncapi: `asyncapi` is a number/m],
  ['custom-tag', '', 'asyncapi.yaml', /^asyncapi\.yaml:5:11 error yaml_tag: Unresolved tag: !custom/m],
  ['retyped', '', 'asyncapi.yaml', /^asyncapi\.yaml:1:1 error yaml_tag: /m],
  ['retyped-sections', '', 'asyncapi.yaml', /^asyncapi\.yaml:3:17 error yaml_tag: a set \(a !!set value\)/m],
  [
    'null-payload',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:10:17 error asyncapi-document-resolved: the payload of message "M" of channel "a" is null/m,
  ],
  [
    'null-subschema',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:13:16 error asyncapi-document-resolved: "id" property type must be object,boolean/m,
  ],
  [
    'scalar-channel',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:10:8 error asyncapi-document-resolved: channel "a" must be a mapping \(an object\), not a string/m,
  ],
  ['unclosed-quote', '', 'asyncapi.yaml', /^asyncapi\.yaml:7:14 error parser: the double-quoted string that opens here is not closed/m],
  [
    'unclosed-quote-swallows',
    '',
    'asyncapi.yaml',
    /^asyncapi\.yaml:3:10 error parser: the double-quoted string that opens here is not closed.*Bad indentation/m,
  ],
  [
    'bad-json-file',
    '',
    'asyncapi.yaml',
    /^schemas\/bad\.json:2:20 error parser: \$ref "\.\/schemas\/bad\.json": the file schemas\/bad\.json does not parse/m,
  ],
  [
    'bad-yaml-file',
    '',
    'asyncapi.yaml',
    /^schemas\/bad\.yaml:\d+:\d+ error parser: \$ref "\.\/schemas\/bad\.yaml": the file schemas\/bad\.yaml does not parse/m,
  ],
];

describe('hostile contracts on the CLI', () => {
  it('covers every hostile contract in the fixtures', () => {
    const named = new Set([...refused.map(([name]) => name), 'recursive-schema']);
    expect(readdirSync(contractsDir).sort()).toEqual([...named].sort());
  });

  for (const [name, folder, spec, located] of refused) {
    it(`${name}: generate ends with a located diagnostic, exit 2, nothing written`, async () => {
      const dir = copyCase(name);
      const cwd = join(dir, folder);
      expectRefused(await cli(['generate', '--spec', spec], cwd), cwd, located);
    });
  }

  for (const name of ['schema-cycle', 'message-cycle', 'file-cycle', 'root-back']) {
    it(`${name}: validate ends too`, async () => {
      const cwd = copyCase(name);
      expectRefused(await cli(['validate'], cwd), cwd, refused.find(([n]) => n === name)![3]);
    });
  }

  it('a recursive schema (legitimate JSON Schema) still generates', async () => {
    const cwd = copyCase('recursive-schema');
    const run = await cli(['generate'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'generated', 'types.ts'), 'utf8')).toContain('readonly children?: readonly Node[];');
  });

  it('a schema file that refers to itself ("#" and its own name) still generates a recursive type', async () => {
    const cwd = scratch('hostile-self-file');
    writeFileSync(
      join(cwd, 'asyncapi.yaml'),
      "asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    address: a\n    messages:\n      M:\n        payload:\n          $ref: './tree.json'\n",
    );
    writeFileSync(
      join(cwd, 'tree.json'),
      JSON.stringify({ title: 'Tree', type: 'object', properties: { child: { $ref: '#' }, other: { $ref: './tree.json' } } }),
    );
    const run = await cli(['generate'], cwd);
    expect(run.code, run.stderr).toBe(0);
    const types = readFileSync(join(cwd, 'generated', 'types.ts'), 'utf8');
    expect(types).toContain('readonly child?: Tree;');
    expect(types).toContain('readonly other?: Tree;');
  });

  it('a $ref to a FIFO is refused without waiting for a writer', async (context) => {
    const cwd = scratch('hostile-fifo');
    try {
      execFileSync('mkfifo', [join(cwd, 'pipe.json')]);
    } catch {
      process.stdout.write('skipped: mkfifo is not available to make a FIFO\n');
      context.skip();
    }
    writeFileSync(
      join(cwd, 'asyncapi.yaml'),
      "asyncapi: 3.0.0\ninfo:\n  title: T\n  version: 1.0.0\nchannels:\n  a:\n    address: a\n    messages:\n      M:\n        payload:\n          $ref: './pipe.json'\n",
    );
    expectRefused(
      await cli(['generate'], cwd),
      cwd,
      /^asyncapi\.yaml:11:18 error ref_unreadable: \$ref "\.\/pipe\.json": the file pipe\.json cannot be read: pipe\.json is not a regular file/m,
    );
  });

  describe('nesting, key length and sizes (written by the test)', () => {
    const jsonContract = (payload: unknown): string =>
      JSON.stringify({
        asyncapi: '3.0.0',
        info: { title: 'T', version: '1.0.0' },
        channels: { a: { address: 'a', messages: { M: { payload } } } },
      });
    const nest = (levels: number, wrap: (inner: unknown) => unknown): unknown => {
      let schema: unknown = { type: 'string' };
      for (let i = 0; i < levels; i++) schema = wrap(schema);
      return schema;
    };
    /** `inner` wrapped in `levels` objects with one property each. */
    const nestFrom = (inner: unknown, levels: number): unknown => {
      let schema = inner;
      for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { p: schema } };
      return schema;
    };
    const cases: [string, () => string, RegExp][] = [
      ['800-deep anyOf', () => jsonContract(nest(800, (s) => ({ anyOf: [s] }))), /^asyncapi\.json:1:\d+ error nesting_too_deep: /m],
      [
        '1,000-deep properties',
        () => jsonContract(nest(1000, (s) => ({ type: 'object', properties: { p: s } }))),
        /^asyncapi\.json:1:\d+ error nesting_too_deep: /m,
      ],
      [
        'a 10 MB property name',
        () => jsonContract({ type: 'object', properties: { ['x'.repeat(10_000_000)]: { type: 'string' } } }),
        /^asyncapi\.json:1:\d+ error key_too_long: a key of 10000000 characters/m,
      ],
      [
        'component schemas each within the limit, chained by $refs far beyond it',
        () => {
          // Listed last-first, so each is walked before the one that refers to it.
          const schemas: Record<string, unknown> = {};
          for (let k = 59; k >= 0; k--)
            schemas[`S${k}`] = nestFrom(k === 59 ? { type: 'string' } : { $ref: `#/components/schemas/S${k + 1}` }, 60);
          return JSON.stringify({
            asyncapi: '3.0.0',
            info: { title: 'T', version: '1.0.0' },
            components: { schemas },
            channels: { a: { address: 'a', messages: { M: { payload: { $ref: '#/components/schemas/S0' } } } } },
          });
        },
        /^asyncapi\.json:1:\d+ error nesting_too_deep: the contract nests more than 256 levels deep from here once its \$refs are followed/m,
      ],
      [
        '100,000 nested brackets',
        () => `{"asyncapi":"3.0.0","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
        /^asyncapi\.json:1:1 error spec_unreadable: contract file asyncapi\.json nests too deeply/m,
      ],
    ];
    for (const [name, text, located] of cases) {
      it(`${name}: refused at its place`, async () => {
        const cwd = scratch('hostile-deep');
        writeFileSync(join(cwd, 'asyncapi.json'), text());
        expectRefused(await cli(['generate', '--spec', 'asyncapi.json'], cwd), cwd, located);
      });
    }

    it('3,000 nested YAML flow lists: refused where the YAML reader gave up', async () => {
      const cwd = scratch('hostile-deep');
      writeFileSync(join(cwd, 'asyncapi.yaml'), `asyncapi: 3.0.0\nx: ${'['.repeat(3000)}${']'.repeat(3000)}\n`);
      expectRefused(
        await cli(['validate'], cwd),
        cwd,
        /^asyncapi\.yaml:2:\d+ error nesting_too_deep: contract file asyncapi\.yaml nests too deeply/m,
      );
    });

    it('128 levels of properties (within the limit) still generate', async () => {
      const cwd = scratch('hostile-deep');
      writeFileSync(join(cwd, 'asyncapi.json'), jsonContract(nest(120, (s) => ({ type: 'object', properties: { p: s } }))));
      const run = await cli(['generate', '--spec', 'asyncapi.json'], cwd);
      expect(run.code, run.stderr).toBe(0);
    });
  });

  describe('$refs stay inside the contract folder', () => {
    it('refuses ../secret.json without quoting it, and reads it with --allow-ref-outside or allowRefOutside', async () => {
      const dir = copyCase('outside');
      const cwd = join(dir, 'contract');
      const refusedRun = await cli(['generate'], cwd);
      expectRefused(refusedRun, cwd, /ref_outside_contract/);
      expect(refusedRun.stderr).toContain('--allow-ref-outside');
      expect(`${refusedRun.stdout}${refusedRun.stderr}`).not.toContain('TOP SECRET');

      const allowed = await cli(['generate', '--allow-ref-outside'], cwd);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(readFileSync(join(cwd, 'generated', 'types.ts'), 'utf8')).toContain('TOP SECRET');

      rmSync(join(cwd, 'generated'), { recursive: true });
      writeFileSync(join(cwd, 'keiyaku.config.json'), JSON.stringify({ allowRefOutside: true }));
      const configured = await cli(['validate'], cwd);
      expect(configured.code, configured.stderr).toBe(0);
    });

    it('follows symbolic links before judging: a link inside the folder to a file outside is refused', async () => {
      const dir = copyCase('outside');
      const cwd = join(dir, 'contract');
      mkdirSync(join(cwd, 'schemas'));
      symlinkSync(join(dir, 'secret.json'), join(cwd, 'schemas', 'link.json'));
      writeFileSync(
        join(cwd, 'asyncapi.yaml'),
        readFileSync(join(cwd, 'asyncapi.yaml'), 'utf8').replace('../secret.json', './schemas/link.json'),
      );
      expectRefused(
        await cli(['validate'], cwd),
        cwd,
        /^asyncapi\.yaml:11:18 error ref_outside_contract: \$ref "\.\/schemas\/link\.json"/m,
      );
    });

    it('check reads the baseline as it reads the contract: --allow-ref-outside reaches both', async () => {
      const dir = copyCase('outside');
      const cwd = join(dir, 'contract');
      const refusedRun = await cli(['check', '--against', 'asyncapi.yaml'], cwd);
      expect(refusedRun.code, refusedRun.stderr).toBe(2);
      expect(refusedRun.stderr).toMatch(/^asyncapi\.yaml:11:18 error ref_outside_contract: /m);
      const allowed = await cli(['check', '--against', 'asyncapi.yaml', '--allow-ref-outside'], cwd);
      expect(allowed.code, allowed.stderr).toBe(0);
    });

    it('a device is not read even when outside refs are allowed', async () => {
      const cwd = copyCase('dev-zero');
      expectRefused(
        await cli(['generate', '--allow-ref-outside'], cwd),
        cwd,
        /^asyncapi\.yaml:11:18 error ref_unreadable: \$ref "\/dev\/zero": the file \/dev\/zero cannot be read: \/dev\/zero is not a regular file/m,
      );
    });
  });

  describe('signals', () => {
    /** CPU time (user + system) a process has used, in clock ticks, or undefined without /proc. */
    const cpuTicks = (pid: number): number | undefined => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return Number(fields[11]) + Number(fields[12]);
      } catch {
        return undefined;
      }
    };

    it('SIGTERM stops a running generate at once (no listener keeps it alive); nothing is written', async (context) => {
      if (cpuTicks(process.pid) === undefined) {
        process.stdout.write('skipped: SIGTERM test needs /proc to see that generate is running\n');
        context.skip();
      }
      const cwd = scratch('hostile-sigterm');
      const { syntheticContract } = await import('../bench/synthetic.js');
      writeFileSync(join(cwd, 'asyncapi.json'), JSON.stringify(syntheticContract(1200, 4)));
      let sentAt = 0;
      const run = await cli(['generate', '--spec', 'asyncapi.json'], cwd, {
        timeoutMs: 300_000,
        onSpawn: (child) => {
          // Past start-up (about 0.3 s of CPU) and into loading and generating (~7 s of CPU in all): 2.5 s of CPU.
          const poll = setInterval(() => {
            const ticks = cpuTicks(child.pid!);
            if (ticks === undefined || ticks < 250) return;
            clearInterval(poll);
            sentAt = Date.now();
            child.kill('SIGTERM');
          }, 20);
          child.on('close', () => clearInterval(poll));
        },
      });
      expect(sentAt, `generate finished before it was signalled: ${run.stdout}`).toBeGreaterThan(0);
      expect(run.signal, run.stdout + run.stderr).toBe('SIGTERM');
      expect(existsSync(join(cwd, 'generated'))).toBe(false);
    });

    it('--watch still stops on SIGTERM, with exit 0', async () => {
      const cwd = copyCase('recursive-schema');
      const run = await cli(['generate', '--watch'], cwd, {
        onSpawn: (child) => {
          child.stdout!.on('data', (chunk: Buffer) => {
            if (chunk.toString('utf8').includes('watching')) child.kill('SIGTERM');
          });
        },
      });
      expect(run.signal, run.stderr).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('watching');
    });
  });
});
