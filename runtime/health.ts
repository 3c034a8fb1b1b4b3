/**
 * The health of a `Messaging` host, and the view of a host that the operations server and the
 * OpenTelemetry instrumentation read (so they depend on what they read, not on the host class).
 */
import type { AnyContractMessage } from './core/contract.js';
import type { HostedComponentHealth } from './core/hosted.js';
import type { Transport, TransportHealth } from './core/transport.js';
import type { DeadLetterStore } from './dead-letter/store.js';
import type { Publisher } from './publisher.js';
import type { Subscription, SubscriptionHealth } from './subscription.js';

export interface MessagingHealth {
  /** Started, every subscription is running and none is stalled, every hosted component and the transport are ready. */
  readonly ready: boolean;
  /** `start()` has finished. */
  readonly started: boolean;
  /** The transport's connections (cut-offs, rebuilds, reconnects), when it reports them. */
  readonly transport?: TransportHealth;
  readonly subscriptions: readonly SubscriptionHealth[];
  /** Hosted background components (outbox dispatchers, producers), in the order they were added. */
  readonly components: readonly HostedComponentHealth[];
}

/** What the operations server and the metrics read of a `Messaging` host. */
export interface MessagingView {
  readonly transport: Transport;
  readonly deadLetters: DeadLetterStore;
  readonly subscriptions: readonly Subscription<AnyContractMessage>[];
  readonly publishers: readonly Publisher<AnyContractMessage, unknown>[];
  health(): MessagingHealth;
}
