/**
 * The contract's own vocabulary, read from `x-keiyaku` by the model builder and used by `check`:
 * compatibility modes and schema policies.
 */

/**
 * Compatibility modes (Confluent Schema Registry's names).
 * - backward: consumers on the new contract can read what producers on the old one wrote.
 * - forward: consumers still on the old contract can read what producers on the new one write.
 * - full: both. The `-transitive` variants check against every recorded earlier version.
 * - none: nothing is checked.
 *
 * There is no default mode: without `--mode` or a contract-wide `x-keiyaku.compatibility`, each
 * channel is checked in the direction its operations imply (`impliedMode` in compat).
 */
export const MODES = ['backward', 'forward', 'full', 'backward-transitive', 'forward-transitive', 'full-transitive', 'none'] as const;
export type Mode = (typeof MODES)[number];

/** How an open object's unknown fields are treated when schemas are compared. */
export type Policy = 'strict' | 'lenient';
export const POLICIES = ['strict', 'lenient'] as const satisfies readonly Policy[];

/**
 * The default policy: keiyaku's decoders ignore unknown fields of open objects (lenient), so
 * adding an optional field is compatible. Lenient never softens changes to closed objects:
 * those decoders reject undeclared fields.
 */
export const DEFAULT_POLICY: Policy = 'lenient';
