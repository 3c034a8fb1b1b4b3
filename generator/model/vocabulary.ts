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

/**
 * The rules Protobuf payloads are compared by, after Buf's breaking-change categories:
 * `wire-json` (WIRE_JSON: what breaks the binary encoding or the canonical JSON mapping) or
 * `wire` (WIRE: the binary encoding only).
 */
export const PROTOBUF_RULES = ['wire-json', 'wire'] as const;
export type ProtobufRules = (typeof PROTOBUF_RULES)[number];

/**
 * The default rules: `wire-json`. The payload on the wire is binary, but keiyaku shows Protobuf
 * payloads as their JSON mapping (dead-letter pages, `dead-letters show`, logs) and teams feed
 * those views to tools; a field or enum value renamed under the same number reads fine in binary
 * and breaks every reader of that JSON. A renamed field is also the change a reviewer most needs
 * to see. Estates that never read the JSON form set `x-keiyaku.protobuf: wire`.
 */
export const DEFAULT_PROTOBUF_RULES: ProtobufRules = 'wire-json';
