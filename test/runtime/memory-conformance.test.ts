import { InMemoryTransport } from '@keiyaku/runtime/memory';
import {
  runBatchConformance,
  runRequestReplyConformance,
  runRetryLaterConformance,
  runTransportConformance,
} from '@keiyaku/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';

// The in-memory transport runs every case; it skips none. The runner is passed explicitly here
// (any jest-style runner works); the Kafka and Iggy suites let keiyaku load vitest itself.
await runTransportConformance(
  {
    name: 'memory',
    create: async () => ({ transport: new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 10 }) }),
    timeoutMs: 5_000,
  },
  { describe, it, afterEach, expect },
);
// The retry-later cases (retry tiers) on the same transport.
await runRetryLaterConformance(
  {
    name: 'memory',
    create: async () => ({ transport: new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 10 }) }),
    timeoutMs: 5_000,
  },
  { describe, it, afterEach, expect },
);
// The request-reply cases on the same transport.
await runRequestReplyConformance(
  {
    name: 'memory',
    create: async () => ({ transport: new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 10 }) }),
    timeoutMs: 5_000,
  },
  { describe, it, afterEach, expect },
);

// The batch handler cases (docs/batch-handlers.md) on the same transport.
await runBatchConformance(
  {
    name: 'memory',
    create: async () => ({ transport: new InMemoryTransport({ defaultPartitions: 3, idleWaitMs: 10 }) }),
    timeoutMs: 5_000,
  },
  { describe, it, afterEach, expect },
);
