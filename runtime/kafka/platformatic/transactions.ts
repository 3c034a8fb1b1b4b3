/** Kafka transactions on `@platformatic/kafka` (placeholder: the transactional producer lands next). */
import { type TransactionalProducer, TransportError, type TransportTransaction } from '@keiyaku/runtime/adapter';
import type { PlatformaticClients } from './client.js';

/** @internal One transactional id's producer. */
export class PlatformaticTransactionalProducer implements TransactionalProducer {
  readonly transactionalId: string;
  readonly #onClose: () => void;

  constructor(_transport: PlatformaticClients, transactionalId: string, onClose: () => void) {
    this.transactionalId = transactionalId;
    this.#onClose = onClose;
  }

  begin(): Promise<TransportTransaction> {
    return Promise.reject(new TransportError('kafka', 'transactions on the platformatic driver are not built yet', { retriable: false }));
  }

  async lastNote(): Promise<string | undefined> {
    throw new TransportError('kafka', 'transactions on the platformatic driver are not built yet', { retriable: false });
  }

  async close(): Promise<void> {
    this.#onClose();
  }
}
