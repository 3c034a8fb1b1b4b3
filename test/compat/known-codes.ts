// Every finding code the compat tests meet must be one of `FINDING_CODES` (the runtime mirror of
// the `FindingCode` union): each test file passes what it gets through these helpers.
import { isFindingCode } from 'keiyaku';
import { expect } from 'vitest';
import { main } from '../../generator/cli/main.js';
import * as contractDiff from '../../generator/compat/contract-diff.js';
import * as schemaDiff from '../../generator/compat/schema-diff.js';
import type { RunResult } from '../helpers.js';

export type { Policy } from '../../generator/compat/schema-diff.js';

/** Asserts that every finding (or schema change) has a known code; returns them unchanged. */
export function known<T extends { readonly code: string }>(findings: readonly T[]): T[] {
  expect(
    findings.map((f) => f.code).filter((code) => !isFindingCode(code)),
    'codes missing from FINDING_CODES',
  ).toEqual([]);
  return [...findings];
}

/** The codes in `keiyaku check` output: text lines, JSON `"code"` fields, GitHub titles and JUnit failure types. */
export function codesIn(output: string): string[] {
  const patterns = [
    /^ {2}(?:ACKNOWLEDGED|BREAKING|WARNING|compatible|info) (\S+) \((?:backward|forward)\):/gm,
    /^\s*"code": "([^"]+)"/gm,
    /title=keiyaku (\w+)/g,
    /<failure [^>]*type="([^"]+)"/g,
  ];
  return patterns.flatMap((p) => [...output.matchAll(p)].map((m) => m[1]!));
}

/**
 * The CLI's `main` run in this process on the sources (so these tests check the code as it is, not
 * the last build; test/cli.test.ts runs the built binary), with every finding code in its output checked.
 */
export async function keiyaku(args: readonly string[], options: { cwd?: string } = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    cwd: options.cwd ?? process.cwd(),
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  const result = { code, stdout, stderr };
  known(codesIn(result.stdout).map((code) => ({ code })));
  return result;
}

/** `diffSchemas`, with every code checked. */
export function diffSchemas(...args: Parameters<typeof schemaDiff.diffSchemas>): schemaDiff.SchemaChange[] {
  return known(schemaDiff.diffSchemas(...args));
}

/** `compareContracts`, with every code checked. */
export function compareContracts(
  ...args: Parameters<typeof contractDiff.compareContracts>
): ReturnType<typeof contractDiff.compareContracts> {
  return known(contractDiff.compareContracts(...args));
}

/** `acknowledge`, with every code (warnings included) checked. */
export function acknowledge(...args: Parameters<typeof contractDiff.acknowledge>): contractDiff.CheckResult {
  const result = contractDiff.acknowledge(...args);
  known(result.findings);
  return result;
}
