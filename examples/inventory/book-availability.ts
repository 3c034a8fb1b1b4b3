/**
 * The inventory bounded context: tracks how many copies of each book are on the shelf.
 * Its handler names its consumer group after the capability, not the service, so the
 * group (and its position) moves with the handler if the service is ever split.
 */
import type { MessageContext } from '@keiyaku/runtime/codegen-v1';
import {
  type BookIntegrationEventsHandler,
  type BookIntegrationEventsMessage,
  dispatchBookIntegrationEvents,
} from '../../generated/index.js';

/** Where inventory keeps its counts; in the demo it can be told to fail for a while. */
export interface InventoryStore {
  adjust(bookId: string, delta: number): Promise<number>;
}

export class BookAvailability implements BookIntegrationEventsHandler {
  readonly groupId = 'inventory.book-availability';
  readonly #store: InventoryStore;
  readonly #seen = new Set<string>();

  constructor(store: InventoryStore) {
    this.#store = store;
  }

  async handle(message: BookIntegrationEventsMessage, context: MessageContext): Promise<void> {
    // Delivery is at least once: remember message ids so a redelivery changes nothing.
    if (this.#seen.has(context.messageId)) return;
    const delta = dispatchBookIntegrationEvents(message, { BookBorrowed: () => -1, BookReturned: () => 1 });
    await this.#store.adjust(message.bookId, delta);
    this.#seen.add(context.messageId);
  }
}
