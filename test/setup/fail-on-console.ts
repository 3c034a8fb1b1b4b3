// Library code never prints; a test that writes to the console is a failing test. The runtime's
// default logger writes to standard error, so a test that lets it speak fails too: tests inject
// silentLogger, or a logger of their own that records what it is told.
import { afterEach, beforeEach, vi } from 'vitest';

const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
const originalWrite = process.stderr.write;
let written: string[] = [];

beforeEach(() => {
  for (const method of methods) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      throw new Error(`unexpected console.${method}: ${args.map(String).join(' ')}`);
    });
  }
  written = [];
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (text.includes('"logger":"keiyaku"')) {
      written.push(text);
      return true;
    }
    return (originalWrite as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
  }) as typeof process.stderr.write;
});

afterEach(() => {
  vi.restoreAllMocks();
  process.stderr.write = originalWrite;
  if (written.length > 0) {
    const lines = written.splice(0);
    throw new Error(`the runtime's default logger wrote to stderr (inject silentLogger or a recording logger):\n${lines.join('')}`);
  }
});
