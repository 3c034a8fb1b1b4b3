/** `@keiyaku/runtime/memory`: the in-memory transport, for tests and the embedded demo. */
export type { MemoryTransportOptions, PublishedMessage } from './transport.js';
export { InMemoryTransport } from './transport.js';
