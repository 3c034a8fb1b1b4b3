/**
 * The event relay and the mappers under their first module name. They live in
 * `event-store/`: `mapper.ts` (domain event → contract message), `memory.ts` (in-process event
 * and checkpoint stores), `relay.ts` ({@link EventRelay}, formerly `MessageProducer`). This file
 * re-exports them so every importer of `producer.js` keeps working.
 */
export type {
  EventMapper,
  EventMapperContext,
  Mapped,
  Mapper,
  MessageWithHeaders,
  WithoutRequiredHeaders,
} from './event-store/mapper.js';
export { MapperResultError, unwrapMapped, withHeaders } from './event-store/mapper.js';
export { InMemoryCheckpointStore, InMemoryEventStore } from './event-store/memory.js';
export type { EventRelayOptions, EventRelayStatus, MessageProducerOptions, MessageProducerStatus } from './event-store/relay.js';
export { EventRelay, MessageProducer } from './event-store/relay.js';
export type { AppendOptions, CheckpointStore, EventSource, StoredEvent } from './event-store/store.js';
