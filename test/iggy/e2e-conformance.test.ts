// The transport conformance suite on the Iggy transport against a real iggy-server (see
// e2e-env.ts). Skipped with the reason printed when no server address is given.
import {
  runBatchConformance,
  runRequestReplyConformance,
  runRetryLaterConformance,
  runTransportConformance,
} from '@keiyaku/runtime/testing';
import { describe, it } from 'vitest';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { clientOptions, skipReason, uniqueName } from './e2e-env.js';

if (skipReason) {
  process.stdout.write(`\nIggy end-to-end conformance skipped: ${skipReason}\n`);
  describe.skip(`transport conformance: iggy-server (skipped: ${skipReason})`, () => {
    it.skip('needs a server', () => undefined);
  });
} else {
  const stream = uniqueName('keiyaku-conformance');
  await runTransportConformance({
    name: 'iggy-server',
    create: async () => ({ transport: new IggyTransport({ ...clientOptions({ heartbeatMs: 5_000 }), stream, idleWaitMs: 20 }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  await runRetryLaterConformance({
    name: 'iggy-server',
    create: async () => ({ transport: new IggyTransport({ ...clientOptions({ heartbeatMs: 5_000 }), stream, idleWaitMs: 20 }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  await runRequestReplyConformance({
    name: 'iggy-server',
    create: async () => ({ transport: new IggyTransport({ ...clientOptions({ heartbeatMs: 5_000 }), stream, idleWaitMs: 20 }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
  await runBatchConformance({
    name: 'iggy-server',
    create: async () => ({ transport: new IggyTransport({ ...clientOptions({ heartbeatMs: 5_000 }), stream, idleWaitMs: 20 }) }),
    partitions: 3,
    timeoutMs: 30_000,
  });
}
