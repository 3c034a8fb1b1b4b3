/**
 * The health of a `Messaging` host, and the view of a host that the operations server and the
 * OpenTelemetry instrumentation read (so they depend on what they read, not on the host class).
 */

import type { Subscription, SubscriptionHealth } from '../belt/subscription.js';
import { type ConfigChoice, choiceOf, describeChoice } from '../config/choice.js';
import type { AnyContractMessage } from '../core/contract.js';
import type { HostedComponentHealth } from '../core/hosted.js';
import type { Transport, TransportHealth } from '../core/transport.js';
import type { Publisher } from '../publish/publisher.js';
import type { DeadLetterStore } from '../stores/dead-letter/store.js';

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
  /** Which transport and dead-letter store the host runs on, and where each choice came from. */
  readonly configuration?: MessagingConfiguration;
}

/** The transport and dead-letter store of a host, each with where it was chosen (see `@keiyaku/runtime/config`). */
export interface MessagingConfiguration {
  readonly transport: ConfigChoice;
  readonly deadLetters: ConfigChoice;
}

/**
 * How a host's parts were chosen: as `configure()` marked them, else built in code; a dead-letter
 * store the host made itself because none was given is `memory` by `default`.
 */
export function configurationOf(transport: Transport, deadLetters: DeadLetterStore, storeGiven: boolean): MessagingConfiguration {
  return {
    transport: choiceOf(transport) ?? { kind: transport.name, source: 'code' },
    deadLetters:
      choiceOf(deadLetters) ??
      (storeGiven ? { kind: deadLetters.constructor.name || 'custom', source: 'code' } : { kind: 'memory', source: 'default' }),
  };
}

/**
 * The one warning a host logs at start when configuration chose process memory by default (a
 * missing or misspelt setting): messages sent over a memory transport reach only this process, and
 * a memory store loses what it parked on restart. Parts built in code, and the in-memory store a
 * host makes when given none (its documented default), are shown in health, not warned about.
 */
export function memoryByDefault(
  configuration: MessagingConfiguration,
  transport: Transport,
  deadLetters: DeadLetterStore,
): { readonly message: string; readonly fields: Readonly<Record<string, unknown>> } | undefined {
  const parts: string[] = [];
  const effects: string[] = [];
  const { transport: t, deadLetters: d } = configuration;
  if (t.source === 'default' && t.kind === 'memory' && choiceOf(transport) !== undefined) {
    parts.push('the transport (set KEIYAKU_TRANSPORT or "transport")');
    effects.push('nothing published leaves this process');
  }
  if (d.source === 'default' && d.kind === 'memory' && choiceOf(deadLetters) !== undefined) {
    parts.push('the dead-letter store (set KEIYAKU_DEAD_LETTERS or "deadLetters.store")');
    effects.push('parked messages are lost on restart');
  }
  if (parts.length === 0) return undefined;
  return {
    message: `keiyaku: ${parts.join(' and ')} ${parts.length === 1 ? 'is' : 'are'} in process memory by default: ${effects.join(', and ')}`,
    fields: { transport: describeChoice(t), deadLetters: describeChoice(d) },
  };
}

/** What the operations server and the metrics read of a `Messaging` host. */
export interface MessagingView {
  readonly transport: Transport;
  readonly deadLetters: DeadLetterStore;
  readonly subscriptions: readonly Subscription<AnyContractMessage>[];
  readonly publishers: readonly Publisher<AnyContractMessage, unknown>[];
  health(): MessagingHealth;
}
