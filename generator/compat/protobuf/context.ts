/**
 * What the Protobuf comparers share: the rules, the pairs of types already compared, and the
 * edits found. An edit is found once, named old → new, with the directions in which it breaks a
 * reader; diffProtobuf (index.ts) turns it into the finding of the direction being checked.
 */
import type { DescEnum, DescMessage } from '@bufbuild/protobuf';
import type { ProtobufRules } from '../../model/vocabulary.js';
import type { ProtobufCode } from '../codes.js';
import type { Direction } from '../findings.js';

/** What an edit's words (wording.ts) need. */
export interface Facts {
  /** The field, enum value or reservation, by name. */
  readonly name?: string;
  readonly number?: number;
  /** The message or enum the edit is in. */
  readonly owner?: string;
  readonly from?: string;
  readonly to?: string;
  /** Why a type change breaks: another encoding, values read as others, another JSON form. */
  readonly via?: 'encoding' | 'values' | 'json';
  /** What a removal left unreserved: `number`, `name`, or both. */
  readonly unreserved?: readonly ('number' | 'name')[];
  /** Fields that share a oneof with the one moved. */
  readonly others?: readonly string[];
  /** The field was (or is) required. */
  readonly required?: boolean;
  /** The enum is closed (proto2, or editions `enum_type: CLOSED`). */
  readonly closed?: boolean;
}

export interface ProtoEdit {
  readonly code: ProtobufCode;
  readonly pointer: string;
  readonly facts: Facts;
  /** The directions in which a reader breaks: backward (new reads old), forward (old reads new). */
  readonly breaks: readonly Direction[];
  /** Not breaking either way and only worth a look: `info` rather than `compatible`. */
  readonly info?: boolean;
  readonly before?: unknown;
  readonly after?: unknown;
  /** The first step of the fix: an edit that passes (`step`), else what to keep. */
  readonly fix: string;
  readonly step?: boolean;
  /** The message or enum of the new side the edit is in, and the pointer inside it. */
  readonly schema: { readonly name: string; readonly pointer: string };
}

export interface Ctx {
  readonly rules: ProtobufRules;
  /** True under `wire-json`: the JSON mapping must keep working too. */
  readonly json: boolean;
  /** Pairs of types already compared (`old|new`), so shared and recursive types are compared once. */
  readonly seen: Set<string>;
  readonly out: ProtoEdit[];
  /** The message or enum being compared, and where it starts. */
  readonly anchor: { readonly name: string; readonly base: string };
  /** Compares two messages or two enums at `pointer` (messages.ts, reached through the context). */
  readonly message: (ctx: Ctx, old: DescMessage, neu: DescMessage, pointer: string) => void;
  readonly enum: (ctx: Ctx, old: DescEnum, neu: DescEnum, pointer: string) => void;
}

export const BOTH: readonly Direction[] = ['backward', 'forward'];
export const NONE: readonly Direction[] = [];

/** Records an edit found at `pointer` of the current anchor. */
export function edit(ctx: Ctx, found: Omit<ProtoEdit, 'schema' | 'pointer'>, pointer: string): void {
  ctx.out.push({ ...found, pointer, schema: { name: ctx.anchor.name, pointer: pointer.slice(ctx.anchor.base.length) } });
}

/** A pointer segment: `/` and `~` escaped as in a JSON pointer. */
export function seg(name: string | number): string {
  return `/${String(name).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
