/** Process entry of the `keiyaku` binary. */
import { createInterface } from 'node:readline';

/** One line from stdin (a terminal or a pipe); undefined when stdin ends first. */
function prompt(question: string): Promise<string | undefined> {
  process.stderr.write(question);
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}

/**
 * Ctrl-C / SIGTERM as a promise, for `--watch` only: the listeners are installed when watch mode
 * asks for it. Installed for every command, they would keep a running `generate` alive through
 * SIGTERM (a CI runner's timeout would wait for SIGKILL).
 */
let stop: Promise<void> | undefined;
function stopSignal(): Promise<void> {
  stop ??= new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  return stop;
}

const argv = process.argv.slice(2);
const io = {
  cwd: process.cwd(),
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
  get stopSignal(): Promise<void> {
    return stopSignal();
  },
  prompt,
};
// `dead-letters` loads only the stores (not the generator), so operating on a store starts fast.
(argv[0] === 'dead-letters'
  ? import('./dead-letters.js').then((m) => m.runDeadLetters(argv.slice(1), io))
  : import('./main.js').then((m) => m.main(argv, io))
).then(
  (code) => {
    // Let pending writes to a pipe drain; process.exit() here could cut them off.
    process.exitCode = code;
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
  },
  (error: unknown) => {
    process.stderr.write(`keiyaku: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  },
);
