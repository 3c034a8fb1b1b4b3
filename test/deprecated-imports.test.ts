// keiyaku 0.1's import paths (one package) still resolve after the split into @keiyaku/* packages:
// the same objects, with one DeprecationWarning per path that names the new import.
import * as runtimeNow from '@keiyaku/runtime';
import * as codegenNow from '@keiyaku/runtime/codegen-v1';
import * as memoryNow from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';

const warnings: Error[] = [];
const listen = (warning: Error) => warnings.push(warning);

afterEach(() => {
  process.off('warning', listen);
  warnings.length = 0;
});

describe('imports from before the split', () => {
  it('keiyaku/codegen-v1, keiyaku/runtime and keiyaku/memory give the new packages’ objects and warn once each', async () => {
    process.on('warning', listen);
    const codegenOld = await import('keiyaku/codegen-v1');
    const runtimeOld = await import('keiyaku/runtime');
    const memoryOld = await import('keiyaku/memory');
    await import('keiyaku/codegen-v1');
    expect(codegenOld.defineMessage).toBe(codegenNow.defineMessage);
    expect(codegenOld.validatorRuntime).toBe(codegenNow.validatorRuntime);
    expect(runtimeOld.createMessaging).toBe(runtimeNow.createMessaging);
    expect(memoryOld.InMemoryTransport).toBe(memoryNow.InMemoryTransport);
    // process.emitWarning delivers on the next tick
    await new Promise((resolve) => setImmediate(resolve));
    const moved = warnings.filter((w) => (w as Error & { code?: string }).code === 'KEIYAKU_MOVED');
    expect(moved.map((w) => w.name)).toEqual(['DeprecationWarning', 'DeprecationWarning', 'DeprecationWarning']);
    expect(moved.map((w) => w.message)).toEqual([
      'keiyaku/codegen-v1 is deprecated: import @keiyaku/runtime/codegen-v1 instead (npm i @keiyaku/runtime); generated code: run keiyaku generate',
      'keiyaku/runtime is deprecated: import @keiyaku/runtime instead (npm i @keiyaku/runtime); generated code: run keiyaku generate',
      'keiyaku/memory is deprecated: import @keiyaku/runtime/memory instead (npm i @keiyaku/runtime); generated code: run keiyaku generate',
    ]);
  });

  it('every old path of keiyaku 0.1 still resolves', async () => {
    process.on('warning', listen);
    const old = ['testing', 'ops', 'config', 'kafka', 'iggy', 'iggy-codegen-v1', 'sqlite', 'postgres'] as const;
    const modules = await Promise.all(old.map((path) => import(`keiyaku/${path}`) as Promise<Record<string, unknown>>));
    for (const [i, module] of modules.entries()) expect(Object.keys(module).length, old[i]).toBeGreaterThan(0);
    expect((modules[3] as { KafkaTransport?: unknown }).KafkaTransport).toBe((await import('@keiyaku/kafka')).KafkaTransport);
  });

  it('IggyConnection, internal since the split, still constructs from @keiyaku/iggy and warns once; IggyClient does not warn', async () => {
    process.on('warning', listen);
    const { IggyClient, IggyConnection } = await import('@keiyaku/iggy');
    const client = new IggyClient({ host: '127.0.0.1', port: 9 });
    await client.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => (w as Error & { code?: string }).code === 'KEIYAKU_IGGY_CONNECTION')).toEqual([]);
    const first = new IggyConnection({ host: '127.0.0.1', port: 9 });
    const second = new IggyConnection({ host: '127.0.0.1', port: 9 });
    await Promise.all([first.close(), second.close()]);
    await new Promise((resolve) => setImmediate(resolve));
    const deprecated = warnings.filter((w) => (w as Error & { code?: string }).code === 'KEIYAKU_IGGY_CONNECTION');
    expect(deprecated.map((w) => [w.name, w.message])).toEqual([
      ['DeprecationWarning', 'IggyConnection from @keiyaku/iggy is deprecated: use IggyClient, which owns its connection'],
    ]);
  });
});
