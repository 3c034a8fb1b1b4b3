// The published packages, used the way a team would: `npm pack` every workspace, install the
// tarballs in fresh projects outside this repository (npm, then pnpm's strict layout), run
// `keiyaku generate` there, compile the output with the project's own strict tsc and run it; and
// measure what a memory-transport service installs in production.
import {
  cpSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isScalar, parseDocument, visit } from 'yaml';
import { repoRoot, run } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'keiyaku-consumer-'));
/** Every workspace package: its folder and its tarball. */
const PACKAGES = [
  { name: 'keiyaku', dir: 'generator' },
  { name: '@keiyaku/runtime', dir: 'runtime' },
  { name: '@keiyaku/kafka', dir: 'runtime/kafka' },
  { name: '@keiyaku/iggy', dir: 'runtime/iggy' },
  { name: '@keiyaku/sqlite', dir: 'runtime/sqlite' },
  { name: '@keiyaku/postgres', dir: 'runtime/postgres' },
  { name: '@keiyaku/mysql', dir: 'runtime/mysql' },
  { name: '@keiyaku/avro', dir: 'runtime/avro' },
  { name: '@keiyaku/protobuf', dir: 'runtime/protobuf' },
] as const;
type PackageName = (typeof PACKAGES)[number]['name'];
const tarballs = new Map<PackageName, string>();

/** The better-sqlite3 this repository built (its version), which the consumer projects pin so the mirror below serves them. */
const sqliteDriver = join(repoRoot, 'node_modules', 'better-sqlite3');
const sqliteDriverVersion = (JSON.parse(readFileSync(join(sqliteDriver, 'package.json'), 'utf8')) as { version: string }).version;
let mirror: Server | undefined;
/** The environment of the installs: the mirror's address (only there: npm warns about the setting in every other command). */
const installEnv: NodeJS.ProcessEnv = {};

/**
 * better-sqlite3's install script downloads a prebuilt binary from GitHub and, offline, compiles SQLite
 * from source: a minute or more per install, and this file installs it four times. A loopback mirror
 * (prebuild-install's `npm_config_better_sqlite3_binary_host`, the setting teams behind a proxy use)
 * serves the binary this repository already built, for the same version and Node ABI only; any other
 * request gets a 404 and falls through to the compile. The installs then measure keiyaku's packages.
 */
async function startSqliteMirror(): Promise<void> {
  const binary = join(sqliteDriver, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binary)) return;
  const file = `better-sqlite3-v${sqliteDriverVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tarball = join(work, file);
  const packed = await run('tar', ['-czf', tarball, '-C', sqliteDriver, 'build/Release/better_sqlite3.node']);
  if (packed.code !== 0) return;
  mirror = createServer((request, response) => {
    if (request.url !== `/v${sqliteDriverVersion}/${file}`) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/gzip' });
    createReadStream(tarball).pipe(response);
  });
  const server = mirror;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address !== null && typeof address === 'object')
    installEnv['npm_config_better_sqlite3_binary_host'] = `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  await startSqliteMirror();
  const packed = await run('npm', ['pack', '--workspaces', '--silent', '--pack-destination', work], { cwd: repoRoot, timeout: 180_000 });
  expect(packed.code, packed.stderr).toBe(0);
  const files = readdirSync(work).filter((f) => f.endsWith('.tgz'));
  for (const { name } of PACKAGES) {
    const file = files.find((f) => f === `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
    expect(file, `${name} was packed (${files.join(', ')})`).toBeDefined();
    tarballs.set(name, join(work, file!));
  }
}, 240_000);

afterAll(() => {
  mirror?.close();
  rmSync(work, { recursive: true, force: true });
});

const version = (JSON.parse(readFileSync(join(repoRoot, 'runtime', 'package.json'), 'utf8')) as { version: string }).version;
const tgz = (name: PackageName): string => `file:${tarballs.get(name)!}`;

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

// @keiyaku/runtime/testing loads without vitest installed
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

// Every transport and store package loads and does one small real thing (no broker or server needed).
const adapters = `import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { configure } from '@keiyaku/runtime/config';
import { KafkaTransport } from '@keiyaku/kafka';
import { IggyClient, Partitioning } from '@keiyaku/iggy';
import { openDeadLetterStore } from '@keiyaku/sqlite';
import { createPostgresPool } from '@keiyaku/postgres';

const kafka = new KafkaTransport({ brokers: ['127.0.0.1:9'], logger: silentLogger });
await kafka.close();
const iggy = new IggyClient({ host: '127.0.0.1', port: 9 });
await iggy.close();
if (Partitioning.none() === undefined) throw new Error('Partitioning');
const pool = createPostgresPool('postgres://nobody@127.0.0.1:9/none');
await pool.end();
const deadLetters = openDeadLetterStore({ path: ':memory:', migrate: true });
const messaging = createMessaging({ transport: (await configure({ transport: 'memory' })).transport, deadLetters, logger: silentLogger });
await messaging.stop();
const viaConfig = await configure({ transport: 'kafka', kafka: { bootstrapServers: '127.0.0.1:9' }, deadLetters: { store: 'sqlite', path: ':memory:', migrate: true } });
process.stdout.write(viaConfig.transport.name + ' ' + (await viaConfig.deadLetters.list()).length + '\\n');
await viaConfig.transport.close();
await viaConfig.deadLetters.close?.();
await deadLetters.close?.();
`;

function withoutIggyBindings(yaml: string): string {
  const document = parseDocument(yaml);
  visit(document, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === 'x-iggy') return visit.REMOVE;
      return undefined;
    },
  });
  const text = document.toString();
  expect(text).not.toContain('x-iggy');
  return text;
}

function consumerProject(name: string, dependencies: readonly PackageName[]): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  // Without @keiyaku/iggy the contract carries no Iggy bindings (x-iggy makes generate write generated/iggy.ts).
  const contract = readFileSync(join(repoRoot, 'asyncapi.yaml'), 'utf8');
  writeFileSync(join(dir, 'asyncapi.yaml'), dependencies.includes('@keiyaku/iggy') ? contract : withoutIggyBindings(contract));
  cpSync(join(repoRoot, 'schemas'), join(dir, 'schemas'), { recursive: true });
  writeFileSync(join(dir, 'src', 'main.ts'), main);
  if (dependencies.includes('@keiyaku/kafka')) writeFileSync(join(dir, 'src', 'adapters.ts'), adapters);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: `consumer-${name}`,
      private: true,
      type: 'module',
      dependencies: {
        ...Object.fromEntries(dependencies.map((d) => [d, tgz(d)])),
        // The driver version this repository built and tested with (within @keiyaku/sqlite's range).
        ...(dependencies.includes('@keiyaku/sqlite') ? { 'better-sqlite3': sqliteDriverVersion } : {}),
      },
      // As runtime/postgres/README.md and runtime/sqlite/README.md say: the drivers' types are the project's own dev dependencies.
      devDependencies: {
        keiyaku: tgz('keiyaku'),
        typescript: '5.9.3',
        '@types/node': '^20',
        ...(dependencies.includes('@keiyaku/postgres') ? { '@types/pg': '^8.23.1' } : {}),
        ...(dependencies.includes('@keiyaku/sqlite') ? { '@types/better-sqlite3': '^9.6.0' } : {}),
      },
      // Install scripts reviewed, as npm (11.16+) asks and this repository's strict-allow-scripts (inherited by
      // npm run from here) enforces: better-sqlite3's native build runs (runtime/sqlite/README.md); the
      // generator's transitive postinstalls (a usage report, removing browser bundles) are not needed.
      allowScripts: {
        ...(dependencies.includes('@keiyaku/sqlite') ? { 'better-sqlite3': true } : {}),
        '@scarf/scarf': false,
        '@hyperjump/json-pointer': false,
        '@hyperjump/json-schema': false,
        '@hyperjump/json-schema-core': false,
        '@hyperjump/pact': false,
      },
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

async function exercise(dir: string, exec: readonly string[], withAdapters: boolean): Promise<void> {
  const generated = await run(exec[0]!, [...exec.slice(1), 'keiyaku', 'generate'], { cwd: dir });
  expect(generated.stderr).toBe('');
  expect(generated.stdout).toContain('4 channels, 5 messages');
  const check = await run(exec[0]!, [...exec.slice(1), 'keiyaku', 'generate', '--check'], { cwd: dir });
  expect(check.code, check.stderr).toBe(0);
  const compiled = await run(exec[0]!, [...exec.slice(1), 'tsc', '-p', '.'], { cwd: dir });
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.code).toBe(0);
  const ran = await run(process.execPath, ['dist/src/main.js'], { cwd: dir });
  expect(ran.stderr).toBe('');
  expect(ran.stdout).toBe('borrowed C-7\nrejected at $.copyId\nhandled BookBorrowed C-7\n');
  if (withAdapters) {
    const adapted = await run(process.execPath, ['dist/src/adapters.js'], { cwd: dir });
    expect(adapted.stderr).toBe('');
    expect(adapted.code).toBe(0);
    expect(adapted.stdout).toBe('kafka 0\n');
  }
}

/** Bytes of every file under `dir`. */
function treeSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeSize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

describe('the tarballs', () => {
  it.each(PACKAGES.map((p) => [p.name, p.dir] as const))(
    '%s ships every file its source maps point at, and a README without dangling links',
    async (name) => {
      const tarball = tarballs.get(name)!;
      const listed = await run('tar', ['-tzf', tarball]);
      expect(listed.code, listed.stderr).toBe(0);
      const files = new Set(
        listed.stdout
          .split('\n')
          .filter(Boolean)
          .map((f) => f.replace(/^package\//, '')),
      );
      expect(files.has('README.md')).toBe(true);
      expect([...files].filter((f) => f.endsWith('.tsbuildinfo'))).toEqual([]);
      const maps = [...files].filter((f) => f.endsWith('.map'));
      expect(maps.length).toBeGreaterThan(0);
      const unpacked = join(work, `unpacked-${name.replace(/\W/g, '-')}`);
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
      const relative = [...readme.matchAll(/\]\(([^)#\s]+)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
      expect(relative.filter((l) => !files.has(l))).toEqual([]);
    },
  );

  it('@keiyaku/runtime depends on nothing; each adapter package on its driver and the runtime as a peer', () => {
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      };
    expect(manifest('runtime').dependencies ?? {}).toEqual({});
    for (const [dir, driver] of [
      ['runtime/kafka', 'kafkajs'],
      ['runtime/iggy', '@node-rs/xxhash'],
      ['runtime/sqlite', 'better-sqlite3'],
      ['runtime/postgres', 'pg'],
      ['runtime/mysql', 'mysql2'],
    ] as const) {
      const m = manifest(dir);
      // The driver alone: type packages (@types/pg, @types/better-sqlite3, and through them @types/node and
      // undici-types) are the consumer's dev dependencies (runtime/postgres/README.md, runtime/sqlite/README.md),
      // neither dependencies nor peers (npm keeps an optional peer that a dev dependency satisfies in a production install).
      expect(Object.keys(m.dependencies ?? {})).toEqual([driver]);
      // Beside the runtime, only a second driver a service chooses (and installs) itself: an optional peer.
      const optional = Object.keys(m.peerDependenciesMeta ?? {}).filter((name) => m.peerDependenciesMeta?.[name]?.optional === true);
      expect(Object.keys(m.peerDependencies ?? {}).filter((name) => !optional.includes(name))).toEqual(['@keiyaku/runtime']);
      expect(optional).toEqual(dir === 'runtime/kafka' ? ['@platformatic/kafka'] : []);
    }
  });
});

describe('keiyaku as a dependency of another project', () => {
  const everything: PackageName[] = ['@keiyaku/runtime', '@keiyaku/kafka', '@keiyaku/iggy', '@keiyaku/sqlite', '@keiyaku/postgres'];

  it('npm: install the tarballs, generate, compile under strict, run on every package', async () => {
    const dir = consumerProject('npm', everything);
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      env: installEnv,
      timeout: 300_000,
    });
    expect(installed.code, installed.stderr).toBe(0);
    await exercise(dir, ['npx', '--no-install'], true);
  }, 600_000);

  it('a service on the memory transport installs @keiyaku/runtime alone in production: ≤ 2.5 MiB of node_modules, and runs', async () => {
    const dir = consumerProject('memory-only', ['@keiyaku/runtime']);
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      env: installEnv,
      timeout: 300_000,
    });
    expect(installed.code, installed.stderr).toBe(0);
    await exercise(dir, ['npx', '--no-install'], false);
    // The production install: `npm ci --omit=dev` from the same lockfile in a fresh folder, and the compiled service runs on it.
    const production = join(work, 'memory-only-production');
    mkdirSync(production);
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(dir, file), join(production, file));
    cpSync(join(dir, 'dist'), join(production, 'dist'), { recursive: true });
    const installedProduction = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: production,
      env: installEnv,
      timeout: 300_000,
    });
    expect(installedProduction.code, installedProduction.stderr).toBe(0);
    expect(readdirSync(join(production, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@keiyaku']);
    expect(readdirSync(join(production, 'node_modules', '@keiyaku'))).toEqual(['runtime']);
    const bytes = treeSize(join(production, 'node_modules'));
    // The bound was 2 MiB until the Schema Registry client (`@keiyaku/runtime/registry`, fetch only,
    // ~110 KiB with its sources and maps) joined the runtime, then 2.25 MiB until retry tiers,
    // request-reply and batch handlers did (~230 KiB, 2,537 KiB in all); a JSON-only service installs
    // no new package. The conformance suites of `@keiyaku/runtime/testing` are 425 KiB of it.
    process.stdout.write(
      `production install of a memory-transport service: node_modules ${(bytes / 1024).toFixed(0)} KiB (goal ≤ 2560 KiB)\n`,
    );
    expect(bytes).toBeLessThanOrEqual(2.5 * 1024 * 1024);
    const ran = await run(process.execPath, ['dist/src/main.js'], { cwd: production });
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('borrowed C-7\nrejected at $.copyId\nhandled BookBorrowed C-7\n');
  }, 600_000);

  it.each([
    ['postgres', 'pg', 'createPostgresPool'],
    ['sqlite', 'better-sqlite3', 'openSqlite'],
  ] as const)(
    'a service on %s installs %s and no type packages in production (@types/*, @types/node, undici-types)',
    async (store, driver, entry) => {
      const dir = consumerProject(`${store}-only`, ['@keiyaku/runtime', `@keiyaku/${store}`]);
      const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: dir,
        env: installEnv,
        timeout: 300_000,
      });
      expect(installed.code, installed.stderr).toBe(0);
      // The development install has the types the README asks for, so the project compiles.
      expect(readdirSync(join(dir, 'node_modules', '@types'))).toEqual(expect.arrayContaining(['node', driver]));
      const production = join(work, `${store}-only-production`);
      mkdirSync(production);
      for (const file of ['package.json', 'package-lock.json']) cpSync(join(dir, file), join(production, file));
      const installedProduction = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: production,
        env: installEnv,
        timeout: 300_000,
      });
      expect(installedProduction.code, installedProduction.stderr).toBe(0);
      const top = readdirSync(join(production, 'node_modules')).filter((d) => !d.startsWith('.'));
      expect(top).toContain(driver);
      expect(top.filter((d) => d === '@types' || d === 'undici-types' || d === 'typescript')).toEqual([]);
      const ran = await run(
        process.execPath,
        ['--input-type=module', '--eval', `import('@keiyaku/${store}').then((m) => console.log(typeof m.${entry}))`],
        {
          cwd: production,
        },
      );
      expect(ran.stderr).toBe('');
      expect(ran.stdout).toBe('function\n');
    },
    600_000,
  );

  it('pnpm (strict node_modules): the same project works unchanged', async () => {
    const dir = consumerProject('pnpm', everything);
    const pnpm = ['npx', '--yes', 'pnpm@9.15.9'];
    const installed = await run(pnpm[0]!, [...pnpm.slice(1), 'install', '--prefer-offline', '--config.confirmModulesPurge=false'], {
      cwd: dir,
      env: installEnv,
      timeout: 300_000,
    });
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    await exercise(dir, [...pnpm, 'exec'], true);
  }, 600_000);
});
