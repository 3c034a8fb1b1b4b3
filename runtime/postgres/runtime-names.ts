/**
 * Outbox names this package re-exported from the runtime before they had a home there. They
 * stay (users import them from here) as aliases of the very same objects and types, marked
 * deprecated: import them from `@keiyaku/runtime`.
 */

import type { AnyContractMessage } from '@keiyaku/runtime/adapter';
import * as runtime from '@keiyaku/runtime/adapter';

/** @deprecated Import `OUTBOX_SCHEMA_VERSION` from `@keiyaku/runtime`. */
export const OUTBOX_SCHEMA_VERSION = runtime.OUTBOX_SCHEMA_VERSION;
/** @deprecated Import `OutboxDispatcher` from `@keiyaku/runtime`. */
export const OutboxDispatcher = runtime.OutboxDispatcher;
/** @deprecated Import `OutboxDispatcher` from `@keiyaku/runtime`. */
export type OutboxDispatcher = runtime.OutboxDispatcher;
/** @deprecated Import `OutboxEncoder` from `@keiyaku/runtime`. */
export const OutboxEncoder = runtime.OutboxEncoder;
/** @deprecated Import `OutboxEncoder` from `@keiyaku/runtime`. */
export type OutboxEncoder<M extends AnyContractMessage> = runtime.OutboxEncoder<M>;
/** @deprecated Import `OutboxError` from `@keiyaku/runtime`. */
export const OutboxError = runtime.OutboxError;
/** @deprecated Import `OutboxError` from `@keiyaku/runtime`. */
export type OutboxError = runtime.OutboxError;
/** @deprecated Import `OutboxLockedError` from `@keiyaku/runtime`. */
export const OutboxLockedError = runtime.OutboxLockedError;
/** @deprecated Import `OutboxLockedError` from `@keiyaku/runtime`. */
export type OutboxLockedError = runtime.OutboxLockedError;

/** @deprecated Import `OutboxAdmin` from `@keiyaku/runtime`. */
export type OutboxAdmin = runtime.OutboxAdmin;
/** @deprecated Import `OutboxChannelOptions` from `@keiyaku/runtime`. */
export type OutboxChannelOptions<M extends AnyContractMessage> = runtime.OutboxChannelOptions<M>;
/** @deprecated Import `OutboxCounts` from `@keiyaku/runtime`. */
export type OutboxCounts = runtime.OutboxCounts;
/** @deprecated Import `OutboxDispatcherOptions` from `@keiyaku/runtime`. */
export type OutboxDispatcherOptions = runtime.OutboxDispatcherOptions;
/** @deprecated Import `OutboxDispatcherStatus` from `@keiyaku/runtime`. */
export type OutboxDispatcherStatus = runtime.OutboxDispatcherStatus;
/** @deprecated Import `OutboxDispatchStore` from `@keiyaku/runtime`. */
export type OutboxDispatchStore = runtime.OutboxDispatchStore;
/** @deprecated Import `OutboxEventsOptions` from `@keiyaku/runtime`. */
export type OutboxEventsOptions = runtime.OutboxEventsOptions;
/** @deprecated Import `OutboxFailure` from `@keiyaku/runtime`. */
export type OutboxFailure = runtime.OutboxFailure;
/** @deprecated Import `OutboxFilter` from `@keiyaku/runtime`. */
export type OutboxFilter = runtime.OutboxFilter;
/** @deprecated Import `OutboxRecord` from `@keiyaku/runtime`. */
export type OutboxRecord = runtime.OutboxRecord;
/** @deprecated Import `OutboxRow` from `@keiyaku/runtime`. */
export type OutboxRow = runtime.OutboxRow;
/** @deprecated Import `OutboxRowState` from `@keiyaku/runtime`. */
export type OutboxRowState = runtime.OutboxRowState;
/** @deprecated Import `OutboxWriteOptions` from `@keiyaku/runtime`. */
export type OutboxWriteOptions<H = Readonly<Record<string, string>>> = runtime.OutboxWriteOptions<H>;
