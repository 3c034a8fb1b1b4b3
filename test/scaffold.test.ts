// `keiyaku scaffold mapper`: creates a mapper with one case per domain event, completes it
// after new domain events appear, and never rewrites what the user wrote.
//
// The first case is CPU work only (three runs of the CLI, which loads the TypeScript compiler, and
// a type check of what it wrote), about 15 s of CPU: on a loaded 2-core machine running the whole
// suite it took longer than the default 60 s. It type-checks once (the mapper as created, kept in
// created/, and as completed, in src/), and its time limit is a hang guard, not an estimate.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keiyaku, repoRoot, run, scratch } from './helpers.js';

const dir = scratch('scaffold');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const events = `export type OrderEvent =
  | { readonly kind: 'OrderPlaced'; readonly orderId: string }
  | { readonly kind: 'OrderShipped'; readonly orderId: string; readonly carrier: string };
`;
const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const mapperFile = join(dir, 'src', 'order-mapper.ts');
const args = [
  'scaffold',
  'mapper',
  '--spec',
  join(repoRoot, 'asyncapi.yaml'),
  '--generated',
  join(repoRoot, 'generated'),
  '--events',
  'src/order-events.ts',
  '--type',
  'OrderEvent',
  '--channel',
  'bookIntegrationEvents',
  '--out',
  'src/order-mapper.ts',
];

const HANG_GUARD_MS = 300_000;

async function typecheck(): Promise<string> {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(repoRoot, 'tsconfig.json'),
      include: ['src', 'created'],
      exclude: [],
      compilerOptions: { noEmit: true },
    }),
  );
  const result = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]);
  return result.stdout + result.stderr;
}

describe('keiyaku scaffold mapper', () => {
  it(
    'creates a compiling mapper with one case per variant, then adds only what is missing',
    async () => {
      writeFileSync(join(dir, 'placeholder'), '');
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'src', 'order-events.ts'), events);
      const created = await keiyaku(args, { cwd: dir });
      expect(created.stderr).toBe('');
      expect(created.stdout).toContain('created src/order-mapper.ts with 2 cases (OrderPlaced, OrderShipped), switching on event.kind');
      const text = readFileSync(mapperFile, 'utf8');
      expect(text).toContain("import type { BookIntegrationEventsMessage } from '");
      expect(text).toContain('export const orderEventMapper: EventMapper<OrderEvent, BookIntegrationEventsMessage>');
      expect(text).toContain("case 'OrderPlaced':");
      // The mapper as created, with the events it was made for, is type-checked with the completed one below
      // (created/ sits beside src/, so its imports of the generated code resolve alike).
      mkdirSync(join(dir, 'created'), { recursive: true });
      copyFileSync(join(dir, 'src', 'order-events.ts'), join(dir, 'created', 'order-events.ts'));
      copyFileSync(mapperFile, join(dir, 'created', 'order-mapper.ts'));

      // The user fills in a case; then a new domain event appears.
      const edited = text.replace(
        "// TODO: return a contract message (a generated factory's create(...)), withHeaders(message, headers) when its\n" +
          '        // contract headers ask for values, or null to keep OrderShipped internal.\n        return null;',
        '// shipping is internal for now\n        return null; // user wrote this',
      );
      writeFileSync(mapperFile, edited);
      writeFileSync(
        join(dir, 'src', 'order-events.ts'),
        events.replace(/;\n$/, "\n  | { readonly kind: 'OrderCancelled'; readonly orderId: string; readonly reason: string };\n"),
      );
      const completed = await keiyaku(args, { cwd: dir });
      expect(completed.stdout).toContain('added to src/order-mapper.ts 1 case (OrderCancelled)');
      const after = readFileSync(mapperFile, 'utf8');
      expect(after).toContain('return null; // user wrote this');
      expect(after).toContain("case 'OrderCancelled':");
      expect(after.replace(/ {6}case 'OrderCancelled':\n.*\n.*\n.*\n/, '')).toBe(edited);

      const again = await keiyaku(args, { cwd: dir });
      expect(again.stdout).toContain('already maps every OrderEvent; unchanged');
      expect(readFileSync(mapperFile, 'utf8')).toBe(after);
      // Both mappers compile: as created (created/) and as completed (src/).
      expect(await typecheck()).toBe('');
    },
    HANG_GUARD_MS,
  );

  it(
    'on a channel whose contract headers are required, the mapper it creates returns withHeaders(...) and compiles; a bare message does not',
    async () => {
      const tenant = join(dir, 'tenant');
      mkdirSync(join(tenant, 'src'), { recursive: true });
      writeFileSync(
        join(tenant, 'src', 'parcel-events.ts'),
        "export type ParcelEvent =\n  | { readonly kind: 'Scanned'; readonly parcelId: string; readonly tenant: string }\n  | { readonly kind: 'Weighed'; readonly parcelId: string };\n",
      );
      const fixture = join(repoRoot, 'test', 'fixtures', 'tenant-headers');
      const created = await keiyaku(
        [
          'scaffold',
          'mapper',
          '--spec',
          join(fixture, 'asyncapi.yaml'),
          '--generated',
          join(fixture, 'expected'),
          '--events',
          'src/parcel-events.ts',
          '--type',
          'ParcelEvent',
          '--channel',
          'parcelEvents',
          '--out',
          'src/parcel-mapper.ts',
        ],
        { cwd: tenant },
      );
      expect(created.stderr).toBe('');
      const text = readFileSync(join(tenant, 'src', 'parcel-mapper.ts'), 'utf8');
      expect(text).toContain('export const parcelEventMapper: EventMapper<ParcelEvent, ParcelEventsMessage>');
      const todo = /\/\/ TODO: return a contract message[^\n]*\n[^\n]*Scanned internal\.\n {8}return null;/;
      expect(text).toMatch(todo);
      const filled = (body: string) =>
        text
          .replace(
            "import type { EventMapper, EventMapperContext, Mapped } from '@keiyaku/runtime';",
            "import { type EventMapper, type EventMapperContext, type Mapped, withHeaders } from '@keiyaku/runtime';",
          )
          .replace(/import type \{ ParcelEventsMessage \} from '([^']+)';/, "import { ParcelScanned, type ParcelEventsMessage } from '$1';")
          .replace(todo, body);
      const project = (name: string, mapper: string) => {
        mkdirSync(join(tenant, name), { recursive: true });
        copyFileSync(join(tenant, 'src', 'parcel-events.ts'), join(tenant, name, 'parcel-events.ts'));
        writeFileSync(join(tenant, name, 'parcel-mapper.ts'), mapper);
        writeFileSync(
          join(tenant, `tsconfig.${name}.json`),
          JSON.stringify({ extends: join(repoRoot, 'tsconfig.json'), include: [name], exclude: [], compilerOptions: { noEmit: true } }),
        );
        return run(process.execPath, [tsc, '-p', join(tenant, `tsconfig.${name}.json`)]).then((r) => r.stdout + r.stderr);
      };
      const scanned = "ParcelScanned.create({ parcelId: event.parcelId, depot: 'D1' })";
      const [withTenant, bare] = await Promise.all([
        project('with-headers', filled(`return withHeaders(${scanned}, { tenantId: event.tenant });`)),
        project('bare', filled(`return ${scanned};`)),
      ]);
      expect(withTenant).toBe('');
      // The channel's headers schema requires tenantId: the compiler refuses the message without its headers.
      expect(bare).toContain('bare/parcel-mapper.ts');
      expect(bare).toContain('TS2322');
    },
    HANG_GUARD_MS,
  );

  it.each([
    [['--type', 'NoSuchEvent'], 'declares no type NoSuchEvent (it declares OrderEvent'],
    [['--channel', 'nope'], 'has no channel "nope" (channels: bookIntegrationEvents, memberNotifications, copyLookups, copyLookupAnswers)'],
    [['--events', 'src/missing.ts'], 'domain events file src/missing.ts does not exist'],
  ])('refuses %j with a clear error and exit 2', async (override, message) => {
    const changed = [...args];
    changed[changed.indexOf(override[0]!) + 1] = override[1]!;
    const result = await keiyaku(changed, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('refuses a union without a discriminant, and a file it did not write', async () => {
    writeFileSync(join(dir, 'src', 'loose.ts'), 'export type Loose = { readonly a: string } | { readonly b: number };\n');
    const with_ = (flag: string, value: string, base: string[]): string[] => base.map((a, i) => (base[i - 1] === flag ? value : a));
    const loose = await keiyaku(with_('--out', 'src/loose-mapper.ts', with_('--events', 'src/loose.ts', with_('--type', 'Loose', args))), {
      cwd: dir,
    });
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain('Loose is not a discriminated union');
    writeFileSync(join(dir, 'src', 'custom.ts'), 'export const mine = 1;\n');
    const custom = await keiyaku(with_('--out', 'src/custom.ts', args), { cwd: dir });
    expect(custom.code).toBe(2);
    expect(custom.stderr).toContain('has no `switch (event.kind)`; keiyaku will not rewrite it');
    expect(readFileSync(join(dir, 'src', 'custom.ts'), 'utf8')).toBe('export const mine = 1;\n');
  });
});
