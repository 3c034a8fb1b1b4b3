/**
 * `keiyaku/testing`: the transport conformance suite and a manual clock. Importing it does not
 * load vitest (an optional peer): the suite takes your runner's `describe`/`it`/`afterEach`/`expect`,
 * or loads vitest when it is registered without them.
 */
export { ManualClock, settle } from './core/clock.js';
export type { ConformanceCase, ConformanceMatchers, ConformanceRunner, ConformanceTarget } from './testing/conformance.js';
export { CONFORMANCE_CASES, runTransportConformance } from './testing/conformance.js';
