import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@keiyaku/runtime';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const fixturesDir = join(repoRoot, 'test', 'fixtures');
export const binPath = join(repoRoot, 'generator', 'bin', 'keiyaku.js');

/** A fresh scratch folder under test/.tmp (inside the package, so generated code resolves `keiyaku`). */
export function scratch(prefix: string): string {
  const base = join(repoRoot, 'test', '.tmp');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, `${prefix}-`));
}

/** git in `cwd`, committing as a fixed author (for tests that build a repository). */
export const gitIn =
  (cwd: string) =>
  (...args: string[]): string =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd ?? repoRoot,
        env: { ...process.env, ...options.env },
        timeout: options.timeout ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** Runs the built `keiyaku` binary. */
export function keiyaku(args: readonly string[], options: { cwd?: string } = {}): Promise<RunResult> {
  return run(process.execPath, [binPath, ...args], options);
}

/** Polls `predicate` (real time) until it holds; fails with `what` (a function: read at the time of failure) after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** A logger that keeps every line, for tests that assert what was logged. */
export function recordingLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, fields: Readonly<Record<string, unknown>> = {}) =>
      lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * kafkajs (no release since 2023) arms its request queue's timer with `-1 - Date.now()` ms when
 * nothing is throttled; Node 23 and later print a TimeoutNegativeWarning for it once per process
 * (tulios/kafkajs#1751). That warning, and only that one, is left out of "nothing on stderr".
 */
export function withoutKafkajsTimeoutWarning(stderr: string): string {
  return stderr.replace(
    /^\(node:\d+\) TimeoutNegativeWarning: -\d+ is a negative number\.\nTimeout duration was set to 1\.\n(\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n)?/m,
    '',
  );
}
