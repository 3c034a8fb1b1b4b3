/** `keiyaku/testing`: the transport conformance suite (needs vitest) and a manual clock. */
export { ManualClock, settle } from './core/clock.js';
export type { ConformanceCase, ConformanceTarget } from './testing/conformance.js';
export { CONFORMANCE_CASES, runTransportConformance } from './testing/conformance.js';
