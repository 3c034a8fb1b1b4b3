// `npm run demo -- --serve`: the demo keeps running with the operations server, prints the
// URL and the token, answers the probes and the page, and shuts down cleanly on Ctrl-C (SIGINT).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot, waitFor } from '../helpers.js';

describe('npm run demo -- --serve', () => {
  it('serves the operations page until interrupted, then shuts down as the demo does', async () => {
    // node with the tsx loader, so the exit code is the demo's own (the tsx binary reports 130 after relaying SIGINT).
    const child = spawn(process.execPath, ['--import', 'tsx/esm', '--conditions=keiyaku-source', 'examples/demo.ts', '--serve'], {
      cwd: repoRoot,
      env: { ...process.env, KAFKA_BROKERS: '', KEIYAKU_OPS_PORT: '0', KEIYAKU_OPS_TOKEN: '' },
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
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(
        () => stdout.includes('press Ctrl-C to stop'),
        () => `the demo to serve (stdout so far:\n${stdout}\n${stderr})`,
        90_000,
      );
      const url = /operations page: (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1];
      expect(url, stdout).toBeDefined();
      expect(stdout).toMatch(/operator token for redrive and remove: [0-9a-f]{32}\n/);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      const page = await (await fetch(`${url}/`)).text();
      expect(page).toContain('data-subscription="inventory.book-availability"');
      expect(page).toContain('data-subscription="notifications.late-fees"');
      expect(page).toMatch(/data-dead-letter-count="1"/);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/keiyaku_messages_handled_total\{[^}]*group="inventory\.book-availability"[^}]*\} [1-9]/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    // The demo keeps the runtime's default logger: its stderr holds only the runtime's own warnings (JSON lines).
    const records = stderr
      .trimEnd()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: string; logger: string });
    expect(records.every((r) => r.logger === 'keiyaku' && r.level === 'warn')).toBe(true);
    expect(stdout).toContain('4. Shutdown: the dispatcher and every subscription together within one 10 s budget.');
    expect(stdout).toContain('The dead-letter store still holds 1 message after reopening the file');
  }, 120_000);
});
