// The in-memory stores run the store conformance suites (durability cases skip: memory keeps nothing).
import { InMemoryCheckpointStore, InMemoryDeadLetterStore, InMemoryEventStore } from '@keiyaku/runtime';
import {
  type ConformanceEvent,
  runCheckpointStoreConformance,
  runDeadLetterStoreConformance,
  runEventStoreConformance,
} from '@keiyaku/runtime/testing';

const notDurable = 'in-memory stores keep nothing across a restart';
await runEventStoreConformance({ name: 'memory', create: async () => ({ store: new InMemoryEventStore<ConformanceEvent>() }), notDurable });
await runCheckpointStoreConformance({ name: 'memory', create: async () => ({ store: new InMemoryCheckpointStore() }), notDurable });
await runDeadLetterStoreConformance({ name: 'memory', create: async () => ({ store: new InMemoryDeadLetterStore() }), notDurable });
