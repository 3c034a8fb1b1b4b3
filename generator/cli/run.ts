/** Process entry of the `keiyaku` binary. */
import { main } from './main.js';

const stop = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});

main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stopSignal: stop,
}).then(
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
