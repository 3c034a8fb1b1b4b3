/**
 * The words of every Protobuf finding, code → detail, from the facts the comparer found (the
 * JSON Schema gate's catalogue shape: comparers name the code and the facts, never the text).
 * A breaking finding says which reader breaks and how, in the words of its direction.
 */
import type { ProtobufCode } from '../codes.js';
import type { Facts } from './context.js';

export interface At {
  readonly forward: boolean;
  readonly breaking: boolean;
}

type Words = (f: Facts, at: At) => string;

/** The reader of the direction: old consumers of new messages (forward), new consumers of old ones (backward). */
const reader = (at: At): string =>
  at.forward ? 'consumers on the old contract' : 'consumers on the new contract, reading messages written under the old one,';
const unreserved = (f: Facts): string => {
  const what = f.unreserved ?? [];
  return what.length === 2 ? 'its number and name' : `its ${what[0] ?? 'number'}`;
};
const field = (f: Facts): string => `field ${f.name}`;
const why = (f: Facts): string =>
  f.via === 'json'
    ? 'its JSON form differs'
    : f.via === 'values'
      ? 'the bytes parse, but values read as other values'
      : 'the encodings differ';

const WORDS: Readonly<Record<ProtobufCode, Words>> = {
  protobuf_message_renamed: (f, at) =>
    `payload message ${f.from} → ${f.to}${at.breaking ? ': consumers that find the payload type by name (RecordNameStrategy subjects, typed deserializers, google.protobuf.Any) no longer find it' : ''}`,
  protobuf_type_renamed: (f) => `${field(f)} refers to ${f.to} instead of ${f.from}; compared by structure`,
  protobuf_field_added: (f) => `${field(f)} = ${f.number} added: consumers on the old contract skip it`,
  protobuf_required_field_added: (f, at) =>
    `required ${field(f)} = ${f.number} added${at.breaking ? `: ${reader(at)} reject messages without it` : ''}`,
  protobuf_field_removed: (f, at) =>
    `${f.required ? 'required ' : ''}${field(f)} = ${f.number} removed without reserving ${unreserved(f)}${
      at.breaking
        ? f.required && at.forward
          ? `: ${reader(at)} reject messages without it`
          : ': a later field may take it and misread messages that still carry the old one'
        : ''
    }`,
  protobuf_field_removed_and_reserved: (f, at) =>
    `${f.required ? 'required ' : ''}${field(f)} = ${f.number} removed and reserved${at.breaking ? `: ${reader(at)} reject messages without it` : ''}`,
  protobuf_field_renamed: (f, at) =>
    `field ${f.number} renamed ${f.from} → ${f.to}${at.breaking ? `: its JSON name changes, and ${reader(at)} do not find it in the JSON form` : ''}`,
  protobuf_field_json_name_changed: (f, at) =>
    `${field(f)} JSON name ${f.from} → ${f.to}${at.breaking ? `: ${reader(at)} do not find it in the JSON form` : ''}`,
  protobuf_field_number_changed: (f, at) =>
    `${field(f)} number ${f.from} → ${f.to}${at.breaking ? `: ${reader(at)} do not find it under the number they know` : ''}`,
  protobuf_field_type_changed: (f, at) => `${field(f)} ${f.from} → ${f.to}${at.breaking ? `: ${why(f)}` : ''}`,
  protobuf_field_type_widened: (f, at) =>
    `${field(f)} ${f.from} → ${f.to}${at.breaking ? `: ${reader(at)} misread values a ${f.from} cannot hold` : ''}`,
  protobuf_field_type_narrowed: (f, at) =>
    `${field(f)} ${f.from} → ${f.to}${at.breaking ? `: ${reader(at)} misread old values a ${f.to} cannot hold` : ''}`,
  protobuf_field_made_repeated: (f, at) =>
    `${field(f)} ${f.from} → ${f.to}${at.breaking ? (f.via === 'json' ? ': its JSON form becomes a list' : `: ${reader(at)} keep one value of each list`) : ''}`,
  protobuf_field_made_singular: (f, at) =>
    `${field(f)} ${f.from} → ${f.to}${at.breaking ? (f.via === 'json' ? ': its JSON form is no longer a list' : `: ${reader(at)} keep one value of each list`) : ''}`,
  protobuf_field_made_required: (f, at) => `${field(f)} is now required${at.breaking ? `: ${reader(at)} reject messages without it` : ''}`,
  protobuf_field_made_optional: (f, at) =>
    `${field(f)} is no longer required${at.breaking ? `: ${reader(at)} reject messages without it` : ''}`,
  protobuf_field_presence_changed: (f) => `${field(f)} presence ${f.from} → ${f.to}; the encoding is the same`,
  protobuf_field_moved_into_oneof: (f, at) =>
    `${field(f)} moved into oneof ${f.to}${at.breaking ? `: old messages may set it with ${(f.others ?? []).join(', ')}, and ${reader(at)} keep only one` : ''}`,
  protobuf_field_moved_out_of_oneof: (f, at) =>
    `${field(f)} moved out of oneof ${f.to}${at.breaking ? `: new messages may set it with ${(f.others ?? []).join(', ')}, and ${reader(at)} keep only one` : ''}`,
  protobuf_field_oneof_changed: (f, at) =>
    `${field(f)} moved from oneof ${f.from} to ${f.to}${at.breaking ? `: ${reader(at)} keep only one of fields the other side sets together` : ''}`,
  protobuf_field_default_changed: (f, at) =>
    `${field(f)} default ${f.from} → ${f.to}${at.breaking ? `: ${reader(at)} read a field left out as another value` : ''}`,
  protobuf_field_packing_changed: (f) => `${field(f)} ${f.from} → ${f.to}; parsers read both`,
  protobuf_enum_value_added: (f, at) =>
    `enum ${f.owner} gained ${f.name} = ${f.number}${at.breaking ? `: ${reader(at)} (a closed enum) drop the value, and the field reads unset` : ''}`,
  protobuf_enum_value_removed: (f, at) =>
    `enum ${f.owner} lost ${f.name} = ${f.number} without reserving ${unreserved(f)}${at.breaking ? ': a later value may take it and misread messages that still carry the old one' : ''}`,
  protobuf_enum_value_removed_and_reserved: (f) => `enum ${f.owner} lost ${f.name} = ${f.number}, reserved`,
  protobuf_enum_value_renamed: (f, at) =>
    `enum ${f.owner} value ${f.number} renamed ${f.from} → ${f.to}${at.breaking ? `: its JSON form is the name, which ${reader(at)} do not know` : ''}`,
  protobuf_reserved_removed: (f, at) =>
    `${f.owner} no longer reserves ${f.name}${at.breaking ? ': the reservation kept it from being used again with another meaning' : ''}`,
};

export function protobufDetail(code: ProtobufCode, facts: Facts, at: At): string {
  return WORDS[code](facts, at);
}
