/**
 * A worker thread that loads and models one contract (`workerData`: `{ spec, cwd }`) and posts
 * back its model and diagnostics: `keiyaku check` loads the baseline here while the main thread
 * loads the working contract, so the two loads take the time of one on two cores.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileContract } from '../index.js';

const { spec, cwd } = workerData as { spec: string; cwd: string };
const compiled = await compileContract(spec, { cwd });
parentPort!.postMessage({ model: compiled.model, diagnostics: compiled.diagnostics });
