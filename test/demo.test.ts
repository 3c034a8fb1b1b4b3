// The example service behind `npm run demo`, run as users run it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, run } from './helpers.js';

describe('examples/demo.ts', () => {
  it('publishes, decodes, handles and rejects as it says', async () => {
    const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
    const result = await run(tsx, ['--conditions=keiyaku-source', 'examples/demo.ts']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual([
      'contract channels: bookIntegrationEvents (BookBorrowed, BookReturned); memberNotifications (DueDateReminder)',
      'address of memberNotifications for M-1001: library.members.M-1001.notifications',
      expect.stringMatching(/^published BookBorrowed to library\.book-integration-events \(\d+ bytes\)$/),
      expect.stringMatching(/^published BookReturned to library\.book-integration-events \(\d+ bytes\)$/),
      '  inventory.book-availability handled BookBorrowed #0 for book 6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b: 1 on loan',
      '  inventory.book-availability handled BookReturned #1 for book 6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b: 0 on loan',
      'tampered BookReturned rejected: schema at $.memberId (must match pattern "^M-[0-9]{4,}$")',
      'invalid BookBorrowed refused by its factory: BookBorrowed is not valid at $.copyId: must NOT have fewer than 1 characters',
    ]);
  });
});
