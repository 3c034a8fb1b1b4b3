// The published package, used the way a team would: `npm pack`, install the tarball in a
// fresh project outside this repository (npm, then pnpm's strict layout), run
// `keiyaku generate` there, compile the output with the project's own strict tsc and run it.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, run } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'keiyaku-consumer-'));
let tarball = '';

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: repoRoot, timeout: 180_000 });
  expect(packed.code, packed.stderr).toBe(0);
  const file = readdirSync(work).find((f) => f.endsWith('.tgz'));
  expect(file).toBeDefined();
  tarball = join(work, file!);
}, 240_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const main = `import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { ManualClock } from '@keiyaku/runtime/testing';
import {
  BookBorrowed,
  BookIntegrationEvents,
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  dispatchBookIntegrationEvents,
} from '../generated/index.js';

// keiyaku/testing loads without vitest installed
if (new ManualClock(1_000).now() !== 1_000) throw new Error('ManualClock');

const message = BookBorrowed.create({
  bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
  copyId: 'C-7',
  borrower: { memberId: 'M-2002' },
  borrowedAt: '2026-11-30T08:00:00Z',
  dueAt: '2026-12-21T08:00:00Z',
  channel: 'app',
});
const decoded = BookIntegrationEvents.decode(BookIntegrationEvents.encode(message), 'BookBorrowed');
if (!decoded.ok) throw decoded.error;
const bad = BookIntegrationEvents.decode(new TextEncoder().encode('{"bookId":1}'), 'BookBorrowed');
process.stdout.write(dispatchBookIntegrationEvents(decoded.value, { BookBorrowed: (m) => 'borrowed ' + m.copyId, BookReturned: () => 'returned' }) + '\\n');
process.stdout.write((bad.ok ? 'accepted' : 'rejected at ' + bad.error.path) + '\\n');

// The guide's steps 5 and 6: a handler implementing the generated interface, wired with createMessaging.
class Shelf implements BookIntegrationEventsHandler {
  readonly groupId = 'inventory.shelf';
  readonly seen: string[] = [];
  handle(message: BookIntegrationEventsMessage, context: MessageContext): void {
    this.seen.push(context.type + ' ' + message.copyId);
  }
}
const shelf = new Shelf();
const messaging = createMessaging({ transport: new InMemoryTransport(), logger: silentLogger });
messaging.subscribe(BookIntegrationEvents, shelf);
await messaging.start();
await messaging.publisher(BookIntegrationEvents).publish(message);
for (let i = 0; i < 200 && shelf.seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
await messaging.stop();
process.stdout.write('handled ' + shelf.seen.join(',') + '\\n');
`;

function consumerProject(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  copyFileSync(join(repoRoot, 'asyncapi.yaml'), join(dir, 'asyncapi.yaml'));
  cpSync(join(repoRoot, 'schemas'), join(dir, 'schemas'), { recursive: true });
  writeFileSync(join(dir, 'src', 'main.ts'), main);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: `consumer-${name}`,
      private: true,
      type: 'module',
      dependencies: { keiyaku: `file:${tarball}` },
      devDependencies: { typescript: '5.9.3', '@types/node': '^20' },
    }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        noUnusedLocals: true,
        types: ['node'],
        outDir: 'dist',
        rootDir: '.',
      },
      include: ['src', 'generated'],
    }),
  );
  return dir;
}

async function exercise(dir: string, exec: readonly string[]): Promise<void> {
  const generated = await run(exec[0]!, [...exec.slice(1), 'keiyaku', 'generate'], { cwd: dir });
  expect(generated.stderr).toBe('');
  expect(generated.stdout).toContain('2 channels, 3 messages');
  const check = await run(exec[0]!, [...exec.slice(1), 'keiyaku', 'generate', '--check'], { cwd: dir });
  expect(check.code, check.stderr).toBe(0);
  const compiled = await run(exec[0]!, [...exec.slice(1), 'tsc', '-p', '.'], { cwd: dir });
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.code).toBe(0);
  const ran = await run(process.execPath, ['dist/src/main.js'], { cwd: dir });
  expect(ran.stderr).toBe('');
  expect(ran.stdout).toBe('borrowed C-7\nrejected at $.copyId\nhandled BookBorrowed C-7\n');
}

describe('the tarball', () => {
  it('ships every file its source maps and its README links point at', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    expect(listed.code, listed.stderr).toBe(0);
    const files = new Set(
      listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((f) => f.replace(/^package\//, '')),
    );
    const maps = [...files].filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked, { recursive: true });
    expect((await run('tar', ['-xzf', tarball, '-C', unpacked])).code).toBe(0);
    const dangling: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(unpacked, 'package', map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const target = posix.normalize(posix.join(posix.dirname(map), source));
        if (!files.has(target)) dangling.push(`${map} → ${target}`);
      }
    }
    expect(dangling).toEqual([]);
    const readme = readFileSync(join(unpacked, 'package', 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(((?:docs|examples|schemas|generated|runtime|generator)\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(links.filter((l) => l.startsWith('docs/')).length).toBeGreaterThan(0);
    expect(links.filter((l) => l.startsWith('docs/') && !files.has(l))).toEqual([]);
  });
});

describe('keiyaku as a dependency of another project', () => {
  it('npm: install the tarball, generate, compile under strict, run', async () => {
    const dir = consumerProject('npm');
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeout: 300_000 });
    expect(installed.code, installed.stderr).toBe(0);
    await exercise(dir, ['npx', '--no-install']);
  }, 600_000);

  it('pnpm (strict node_modules): the same project works unchanged', async () => {
    const dir = consumerProject('pnpm');
    const pnpm = ['npx', '--yes', 'pnpm@9.15.9'];
    const installed = await run(pnpm[0]!, [...pnpm.slice(1), 'install', '--prefer-offline', '--config.confirmModulesPurge=false'], {
      cwd: dir,
      timeout: 300_000,
    });
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    await exercise(dir, [...pnpm, 'exec']);
  }, 600_000);
});
