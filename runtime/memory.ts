/** `@keiyaku/runtime/memory`: the in-memory transport, for tests and the embedded demo. */
export type { MemoryTransportOptions, PublishedMessage } from './transports/memory.js';
export { InMemoryTransport } from './transports/memory.js';
