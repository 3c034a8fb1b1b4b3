/**
 * What a handler learns about the message it is given, beside the message itself.
 * Transports fill it in; fields a transport does not have are left undefined.
 */
export interface MessageContext<TType extends string = string> {
  /** Channel id from the contract. */
  readonly channel: string;
  /** Concrete address the message was read from (topic, stream/topic). */
  readonly address: string;
  /** Unique message id (CloudEvents `ce_id`). */
  readonly messageId: string;
  /** Contract message type (CloudEvents `ce_type`). */
  readonly type: TType;
  /** When the event happened (CloudEvents `ce_time`). */
  readonly time: Date;
  readonly partition?: number;
  readonly offset?: string;
  /** Partition key: the aggregate id, so one aggregate's events stay in order. */
  readonly key?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  /** Every header as received, decoded as UTF-8. */
  readonly headers: Readonly<Record<string, string>>;
  /** 1 on the first delivery to this handler, then 2, 3, … while it is retried. */
  readonly attempt: number;
  /** Aborted when the subscription is shutting down. */
  readonly signal: AbortSignal;
  /**
   * The inbox transaction the handler runs in, when its subscription has an `inbox`: a `pg` client
   * inside `BEGIN … COMMIT`, a better-sqlite3 `Database` inside a transaction. Read it typed with
   * `inboxTransaction(inbox, context)`.
   */
  readonly transaction?: unknown;
}
