/**
 * `@keiyaku/iggy/codegen-v1`: the one surface that `generated/iggy.ts` imports, versioned like
 * `@keiyaku/runtime/codegen-v1` so the Iggy runtime can evolve without breaking generated code.
 */
export type { ChannelSerde, IggyChannel, IggyPlacement } from './channel.js';
export { iggyChannel } from './channel.js';
