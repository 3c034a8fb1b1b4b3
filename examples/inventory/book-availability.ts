/**
 * The inventory bounded context: tracks how many copies of each book are on the shelf.
 * Its handler names its consumer group after the capability, not the service, so the
 * group (and its position) moves with the handler if the service is ever split.
 */
import { type InboxStore, inboxTransaction } from '@keiyaku/runtime';
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import {
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  dispatchBookIntegrationEvents,
} from '../../generated/index.js';

/**
 * Where inventory keeps its counts. `tx` is the inbox transaction the handler runs in (the
 * inventory database's, so the count and the inbox row commit together), when it has an inbox.
 */
export interface InventoryStore<Tx = undefined> {
  adjust(bookId: string, delta: number, tx: Tx): number | Promise<number>;
}

export class BookAvailability<Tx = undefined> implements BookIntegrationEventsHandler {
  readonly groupId = 'inventory.book-availability';
  readonly #store: InventoryStore<Tx>;
  readonly #inbox: InboxStore<Tx> | undefined;

  /**
   * Delivery is at least once. With `inbox` (subscribe with the same `{ inbox }`), each message id
   * changes the count once: a redelivery is skipped before this handler runs. Without one, a
   * redelivered message would count twice.
   */
  constructor(store: InventoryStore<Tx>, inbox?: InboxStore<Tx>) {
    this.#store = store;
    this.#inbox = inbox;
  }

  async handle(message: BookIntegrationEventsMessage, context: MessageContext): Promise<void> {
    const delta = dispatchBookIntegrationEvents(message, { BookBorrowed: () => -1, BookReturned: () => 1 });
    const tx = this.#inbox === undefined ? (undefined as Tx) : inboxTransaction(this.#inbox, context);
    await this.#store.adjust(message.bookId, delta, tx);
  }
}
