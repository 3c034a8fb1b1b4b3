/**
 * What every comparer of the schema check shares: the two sides, the direction, the policy, and
 * the findings recorded so far. Comparers recurse through `ctx.compare` (set by the entry points
 * to the walk in walk.ts), so no comparer module imports the walk that imports it.
 */

import type { ContractModel, SchemaNode } from '../../model/contract-model.js';
import type { Policy } from '../../model/vocabulary.js';
import type { SchemaFindingCode } from '../codes.js';
import type { CompatSeverity } from '../findings.js';
import type { Facts } from './wording.js';

/** A schema-level finding before it is placed in a channel and message. */
export interface SchemaChange {
  readonly code: SchemaFindingCode;
  readonly severity: CompatSeverity;
  readonly pointer: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly detail: string;
  readonly hint: string;
  /**
   * The code earlier versions gave this kind of finding when they judged it by another rule (read
   * for breaking findings; see `earlierCodeOf` in acknowledge.ts).
   */
  readonly earlierCode?: SchemaFindingCode;
  /** The edit read new → old, for a forward finding whose code alone does not tell it (codes.ts `REVERSE_READING`). */
  readonly reverseCode?: SchemaFindingCode;
  /** The innermost named schema of the new contract the change is in, and the pointer inside it. */
  readonly schema?: { readonly name: string; readonly pointer: string };
  /**
   * An Avro or Protobuf payload's finding: the JSON pointer of its node as written under the
   * payload's `schema`, to locate it (`pointer` names fields and branches, not their indexes).
   */
  readonly written?: string;
}

export type Schema = { readonly [keyword: string]: unknown };

export interface Side {
  readonly model: ContractModel;
  /** The raw root schema, for local `#/$defs/…` / `#/definitions/…` references of schemas not normalized by keiyaku. */
  readonly root: SchemaNode;
}

/** Compares at `pointer`: can the reader's schema accept every value of the writer's? */
export type Compare = (ctx: Context, writer: SchemaNode, reader: SchemaNode, pointer: string) => void;

export interface Context {
  /** The side whose values must be accepted. */
  readonly writer: Side;
  /** The side that must accept them. */
  readonly reader: Side;
  readonly policy: Policy;
  /** True when the writer is the new contract (forward): names then read reader → writer as old → new. */
  readonly forward: boolean;
  readonly seen: Set<string>;
  readonly out: SchemaChange[];
  /** The innermost named schema of the new side being compared, and where it starts. */
  readonly anchor?: { readonly name: string; readonly base: string };
  /** The walk: resolves both sides and runs every comparer on them. */
  readonly compare: Compare;
}

/** Compares two subschemas at `pointer` (the walk of walk.ts, reached through the context). */
export function compareSchema(ctx: Context, writer: SchemaNode, reader: SchemaNode, pointer: string): void {
  ctx.compare(ctx, writer, reader, pointer);
}

/** An edit named old → new: its code, and the facts its words (wording.ts) need. */
export interface Edit {
  readonly code: SchemaFindingCode;
  readonly facts?: Facts;
}
