/**
 * The words of every Avro finding: what changed (named old → new), why it breaks the reader of
 * the direction when it does, and the fix. Comparers (diff.ts) give the code and the facts, never
 * the text — as for JSON Schema (schema/wording.ts).
 */
import type { AvroCode } from '../codes.js';
import { keepOrAcknowledge } from '../findings.js';
import { ACKNOWLEDGE_WHEN } from '../schema/record.js';

/** What a comparer found. */
export interface AvroFacts {
  /** The field, or the named type (full name) the finding is about. */
  readonly name?: string;
  /** `record`, `enum` or `fixed`, for a named type. */
  readonly kind?: string;
  /** The old and the new value (a type as words, a default, a size, a name). */
  readonly from?: unknown;
  readonly to?: unknown;
  /** Enum symbols or union branches added or removed. */
  readonly values?: readonly string[];
}

type Text = (f: AvroFacts) => string;

interface Words {
  readonly detail: Text;
  /** Why it breaks, per direction; else the reader cannot read the writer's messages. */
  readonly why?: (f: AvroFacts, forward: boolean) => string;
  /** The fix: `keep` (only an acknowledgment lets the change itself through) or `step` (an edit that passes). */
  readonly backward?: readonly [Text, 'keep' | 'step'];
  readonly forward?: readonly [Text, 'keep' | 'step'];
}

const json = (value: unknown): string => JSON.stringify(value);
const list = (values: readonly string[] | undefined): string => (values ?? []).join(', ');
const misread = (forward: boolean): string =>
  forward
    ? 'consumers on the old contract read the values of new messages as something else'
    : 'consumers on the new contract read the values of old messages as something else';
const keep = (text: Text): readonly [Text, 'keep'] => [text, 'keep'];
const keepType: Text = (f) => `keep type ${String(f.from)}`;

const WORDS: { readonly [C in AvroCode]: Words } = {
  avro_field_added_with_default: { detail: (f) => `field ${f.name} added with default ${json(f.to)}` },
  avro_field_added_without_default: {
    detail: (f) => `field ${f.name} added without a default`,
    why: () => 'consumers on the new contract cannot read messages written under the old one, which lack it',
    backward: [(f) => `give field ${f.name} a default`, 'step'],
  },
  avro_field_removed_with_default: { detail: (f) => `field ${f.name} removed (its default was ${json(f.from)})` },
  avro_field_removed_without_default: {
    detail: (f) => `field ${f.name} removed (it had no default)`,
    why: () => 'consumers on the old contract cannot read new messages, which lack it',
    forward: keep(
      (f) => `keep field ${f.name} (an old consumer reads a message without a field only when its contract gives the field a default)`,
    ),
  },
  avro_field_renamed_with_alias: {
    detail: (f) => `field ${String(f.from)} renamed ${String(f.to)}, with ${String(f.from)} among its aliases`,
    why: (f) => `consumers on the old contract do not know the name ${String(f.to)} and cannot read new messages`,
    forward: keep((f) => `keep the name ${String(f.from)}`),
  },
  avro_field_renamed: {
    detail: (f) => `field ${String(f.from)} renamed ${String(f.to)}, without ${String(f.from)} among its aliases`,
    why: (f) => `consumers on the new contract find no field ${String(f.to)} in messages written under the old one`,
    backward: [(f) => `add ${json(String(f.from))} to the aliases of field ${String(f.to)}`, 'step'],
  },
  avro_field_default_added: { detail: (f) => `field ${f.name} default ${json(f.to)} added` },
  avro_field_default_removed: { detail: (f) => `field ${f.name} default ${json(f.from)} removed` },
  avro_field_default_changed: { detail: (f) => `field ${f.name} default ${json(f.from)} → ${json(f.to)}` },
  avro_type_promoted: {
    detail: (f) => `type ${String(f.from)} → ${String(f.to)} (a promotion: ${String(f.to)} reads ${String(f.from)})`,
    why: (f) => `consumers on the old contract read ${String(f.from)}, which does not read ${String(f.to)}`,
    forward: keep(keepType),
  },
  avro_type_demoted: {
    detail: (f) => `type ${String(f.from)} → ${String(f.to)}`,
    why: (f) => `consumers on the new contract read ${String(f.to)}, which does not read the ${String(f.from)} values of old messages`,
    backward: keep(keepType),
  },
  avro_type_changed: {
    detail: (f) => `type ${String(f.from)} → ${String(f.to)}`,
    backward: keep((f) => `keep type ${String(f.from)} (add a new field with a default for the new type)`),
    forward: keep((f) => `keep type ${String(f.from)} (add a new field with a default for the new type)`),
  },
  avro_name_changed: {
    detail: (f) => `${f.kind} ${String(f.from)} renamed ${String(f.to)}`,
    why: (_f, forward) =>
      forward
        ? 'consumers on the old contract do not know the new name and cannot read new messages'
        : 'consumers on the new contract do not know the old name and cannot read messages written under it',
    backward: [(f) => `add ${json(String(f.from))} to the aliases of ${f.kind} ${String(f.to)}`, 'step'],
    forward: keep((f) => `keep the name ${String(f.from)}`),
  },
  avro_name_changed_with_alias: {
    detail: (f) => `${f.kind} ${String(f.from)} renamed ${String(f.to)}, with ${String(f.from)} among its aliases`,
    why: () => 'consumers on the old contract do not know the new name and cannot read new messages',
    forward: keep((f) => `keep the name ${String(f.from)}`),
  },
  avro_aliases_changed: { detail: (f) => `aliases [${list(f.from as string[])}] → [${list(f.to as string[])}]` },
  avro_doc_changed: { detail: () => 'doc edited' },
  avro_enum_symbol_added: {
    detail: (f) => `enum ${f.name} gained ${list(f.values)}`,
    why: () => 'consumers on the old contract cannot read new messages that carry it, and their enum has no default',
    forward: keep((f) => `drop ${list(f.values)} (an old consumer reads an unknown symbol only when its enum has a default)`),
  },
  avro_enum_symbol_removed: {
    detail: (f) => `enum ${f.name} lost ${list(f.values)}`,
    why: () => 'consumers on the new contract cannot read messages written under the old one that carry it',
    backward: [(f) => `give enum ${f.name} a default symbol: consumers then read ${list(f.values)} as it`, 'step'],
  },
  avro_enum_default_added: { detail: (f) => `enum ${f.name} gained default ${String(f.to)}` },
  avro_enum_default_removed: { detail: (f) => `enum ${f.name} lost its default ${String(f.from)}` },
  avro_enum_default_changed: { detail: (f) => `enum ${f.name} default ${String(f.from)} → ${String(f.to)}` },
  avro_union_branch_added: {
    detail: (f) => `union gained ${list(f.values)}`,
    why: () => 'consumers on the old contract have no branch that reads it',
    forward: keep((f) => `drop ${list(f.values)} from the union`),
  },
  avro_union_branch_removed: {
    detail: (f) => `union lost ${list(f.values)}`,
    why: () => 'consumers on the new contract have no branch that reads what old messages carry there',
    backward: keep((f) => `keep ${list(f.values)} in the union`),
  },
  avro_type_became_union: {
    detail: (f) => `type ${String(f.from)} became the union [${String(f.to)}]`,
    why: (_f, forward) =>
      forward
        ? 'consumers on the old contract read only the old type, not the other branches'
        : 'consumers on the new contract have no branch that reads the old type',
    backward: keep((f) => `keep type ${String(f.from)} among the branches`),
    forward: keep((f) => `keep type ${String(f.from)} alone`),
  },
  avro_union_became_type: {
    detail: (f) => `the union [${String(f.from)}] became type ${String(f.to)}`,
    why: (_f, forward) =>
      forward
        ? 'consumers on the old contract have no branch that reads the new type'
        : 'consumers on the new contract read only the new type, not the other branches old messages carry',
    backward: keep((f) => `keep the union [${String(f.from)}]`),
    forward: keep((f) => `keep the union [${String(f.from)}]`),
  },
  avro_fixed_size_changed: {
    detail: (f) => `fixed ${f.name} size ${String(f.from)} → ${String(f.to)}`,
    backward: keep((f) => `keep size ${String(f.from)}`),
    forward: keep((f) => `keep size ${String(f.from)}`),
  },
  avro_logical_type_added: {
    detail: (f) => `logicalType ${String(f.to)} added`,
    why: () => 'consumers on the new contract reject old values that are not of the logical type',
    backward: keep(() => 'keep the type without the logical type'),
  },
  avro_logical_type_removed: {
    detail: (f) => `logicalType ${String(f.from)} removed`,
    why: () => 'consumers on the old contract reject new values that are not of the logical type',
    forward: keep((f) => `keep logicalType ${String(f.from)}`),
  },
  avro_logical_type_changed: {
    detail: (f) => `logicalType ${String(f.from)} → ${String(f.to)}`,
    why: (_f, forward) => misread(forward),
    backward: keep((f) => `keep logicalType ${String(f.from)} (add a new field with a default for the new one)`),
    forward: keep((f) => `keep logicalType ${String(f.from)} (add a new field with a default for the new one)`),
  },
  avro_decimal_scale_changed: {
    detail: (f) => `decimal scale ${String(f.from)} → ${String(f.to)}`,
    why: (_f, forward) => misread(forward),
    backward: keep((f) => `keep scale ${String(f.from)}`),
    forward: keep((f) => `keep scale ${String(f.from)}`),
  },
  avro_decimal_precision_widened: {
    detail: (f) => `decimal precision ${String(f.from)} → ${String(f.to)}`,
    why: () => 'consumers on the old contract reject new values with more digits',
    forward: keep((f) => `keep precision ${String(f.from)}`),
  },
  avro_decimal_precision_narrowed: {
    detail: (f) => `decimal precision ${String(f.from)} → ${String(f.to)}`,
    why: () => 'consumers on the new contract reject old values with more digits',
    backward: keep((f) => `keep precision ${String(f.from)}`),
  },
};

/** Who cannot read what, in the words of the direction. */
function cannotRead(forward: boolean): string {
  return forward
    ? 'consumers on the old contract cannot read new messages'
    : 'consumers on the new contract cannot read messages written under the old one';
}

/** The detail of a finding: what changed, and for a breaking one which reader it breaks and why. */
export function avroDetail(code: AvroCode, facts: AvroFacts, at: { forward: boolean; breaking: boolean }): string {
  const words = WORDS[code];
  const detail = words.detail(facts);
  if (!at.breaking) return detail;
  return `${detail}: ${words.why?.(facts, at.forward) ?? cannotRead(at.forward)}`;
}

/** The fix of a breaking finding, in the words of the direction. */
export function avroHint(code: AvroCode, facts: AvroFacts, forward: boolean): string {
  const words = WORDS[code];
  const advice = forward ? words.forward : words.backward;
  const [text, kind] = advice ?? keep(() => 'keep the schema as it was here');
  if (kind === 'step') return text(facts);
  return keepOrAcknowledge(text(facts), forward ? ACKNOWLEDGE_WHEN.forward : ACKNOWLEDGE_WHEN.backward);
}
