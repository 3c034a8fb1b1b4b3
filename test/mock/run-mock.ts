// `keiyaku mock …` run in this process through the CLI's entry, for the tests of the command.
import { main } from '../../generator/cli/main.js';
import { repoRoot } from '../helpers.js';

export interface MockRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `keiyaku mock …` with `env` as its whole environment (no KEIYAKU_* of the test run's own). */
export async function runMock(args: readonly string[], env: Record<string, string> = {}, cwd = repoRoot): Promise<MockRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(['mock', ...args], {
    cwd,
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** The JSON lines of a dry run. */
export const jsonLines = (r: MockRun): Record<string, unknown>[] =>
  r.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
