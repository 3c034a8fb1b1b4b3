import { InMemoryTransport } from 'keiyaku/memory';
import { runTransportConformance } from 'keiyaku/testing';

// The in-memory transport runs every case; it skips none.
runTransportConformance({
  name: 'memory',
  create: async () => ({ transport: new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 10 }) }),
  timeoutMs: 5_000,
});
