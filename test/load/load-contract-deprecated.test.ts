// loadContract() keeps the shape it had before contracts were read without @asyncapi/parser: its
// `document` is the parser's document again, with one DeprecationWarning pointing at readContract().
import { join } from 'node:path';
import { loadContract, readContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { fixturesDir } from '../helpers.js';

/** A contract the fast reader takes, so readContract() does not go through the parser. */
const cwd = join(fixturesDir, 'unions');

describe('loadContract (deprecated)', () => {
  it("returns the parser's document, warns once with KEIYAKU_LOAD_CONTRACT, and readContract gives keiyaku's", async () => {
    const warnings: Error[] = [];
    const listeners = process.listeners('warning');
    process.removeAllListeners('warning');
    const record = (warning: Error) => warnings.push(warning);
    process.on('warning', record);
    try {
      const [first, second] = [await loadContract('asyncapi.yaml', { cwd }), await loadContract('asyncapi.yaml', { cwd })];
      await new Promise((resolve) => setImmediate(resolve));
      const ours = warnings.filter((w) => (w as { code?: string }).code === 'KEIYAKU_LOAD_CONTRACT');
      expect(ours).toHaveLength(1);
      expect(ours[0]!.name).toBe('DeprecationWarning');
      expect(ours[0]!.message).toContain('readContract()');
      for (const loaded of [first, second]) {
        expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        // Methods only the parser's AsyncAPIDocument has (keiyaku's reading has none of them).
        expect(typeof loaded.document?.allMessages).toBe('function');
        expect(loaded.document?.allMessages().length).toBeGreaterThan(0);
        expect(loaded.contract).toBe(loaded.document);
      }
      const read = await readContract('asyncapi.yaml', { cwd });
      expect(read.contract?.channels().length).toBe(first.document?.channels().length);
      expect('document' in read).toBe(false);
      expect((read.contract as { allMessages?: unknown }).allMessages).toBeUndefined();
    } finally {
      process.off('warning', record);
      for (const listener of listeners) process.on('warning', listener);
    }
  });
});
