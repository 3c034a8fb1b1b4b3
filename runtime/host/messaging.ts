/**
 * The host of a service's messaging: one transport, one dead-letter store, one clock and
 * logger, every publisher and subscription, health, and a graceful shutdown that stops all
 * subscriptions together within one shared budget.
 *
 * ```ts
 * await using messaging = createMessaging({ transport: new InMemoryTransport() });
 * messaging.subscribe(BookIntegrationEvents, new BookAvailability());
 * const books = messaging.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
 * await messaging.start();
 * ```
 */

import { type BatchSubscriptionOptions, batchSubscription } from '../belt/batch-options.js';
import { Subscription, type SubscriptionOptions } from '../belt/subscription.js';
import { type ParametersOfAddress, resolveAddress } from '../core/address.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { RequestReplyDescriptor, Responder } from '../core/contract/request-reply.js';
import type { AnyChannel, AnyContractMessage, BatchHandler, ChannelDescriptor, MessageHandler } from '../core/contract.js';
import { KeiyakuError } from '../core/errors.js';
import type { HostedComponent } from '../core/hosted.js';
import { type Logger, silentLogger, stderrLogger } from '../core/logger.js';
import type { Transport, TransportProducer } from '../core/transport.js';
import { InboxPurger } from '../inbox/purger.js';
import { Publisher, type PublisherOptions } from '../publish/publisher.js';
import { frameByContract, type SchemaRegistrySetup } from '../registry/binding.js';
import {
  planRedrive,
  type RedriveOptions,
  type RedriveResult,
  type RedriveTarget,
  redrive as redriveParked,
} from '../stores/dead-letter/redrive.js';
import { type DeadLetterStore, InMemoryDeadLetterStore } from '../stores/dead-letter/store.js';
import { configurationOf, type MessagingConfiguration, type MessagingHealth, memoryByDefault } from './health.js';
import { instrumentMessaging } from './otel-metrics.js';
import { Requester, type RequesterOptions } from './requester.js';
import { responderHandler } from './responder.js';

export type { MessagingHealth, MessagingView } from './health.js';

export interface MessagingOptions {
  readonly transport: Transport;
  /** Where parked messages go (default: in process memory). */
  readonly deadLetters?: DeadLetterStore;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Shared time budget of `stop()` for all subscriptions together (default 10 s). */
  readonly shutdownBudgetMs?: number;
  /** CloudEvents `ce_source` of published messages (default `keiyaku`). */
  readonly source?: string;
  readonly random?: () => number;
  /**
   * The Schema Registry of channels whose contract frames their payloads (a Kafka message binding
   * with `schemaIdLocation: payload`): `configure()` builds it from `schemaRegistry` in the
   * configuration. A publisher or subscription of such a channel without it is refused, naming the channel.
   */
  readonly schemaRegistry?: SchemaRegistrySetup;
}

export class Messaging implements AsyncDisposable {
  readonly transport: Transport;
  readonly deadLetters: DeadLetterStore;
  readonly #options: MessagingOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #subscriptions: Subscription<AnyContractMessage>[] = [];
  readonly #publishers: Publisher<AnyContractMessage, unknown>[] = [];
  readonly #components: HostedComponent[] = [];
  #producer: TransportProducer | undefined;
  /** Each channel as this host uses it (framed for the registry where the contract says so), one per channel: their caches are shared. */
  readonly #channels = new WeakMap<AnyChannel, AnyChannel>();
  #started = false;
  #startFinished = false;
  #stopping: Promise<void> | undefined;

  constructor(options: MessagingOptions) {
    this.#options = options;
    this.transport = options.transport;
    this.deadLetters = options.deadLetters ?? new InMemoryDeadLetterStore();
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? stderrLogger;
    // A transport built by hand without a logger of its own speaks through the host's.
    if (options.logger !== undefined) this.transport.useLogger?.(options.logger);
  }

  /**
   * A typed publisher of `channel`. Publishers share one transport producer. On a channel with
   * parameters, give `parameters` here (one address) or with each `publish` (routing per message).
   */
  publisher<M extends AnyContractMessage, A extends string | ((params: never) => string)>(
    channel: ChannelDescriptor<M, A>,
    options: PublisherOptions<M, ParametersOfAddress<A>> = {},
  ): Publisher<M, ParametersOfAddress<A>> {
    channel = this.#channel(channel);
    this.#producer ??= this.transport.producer();
    const publisher = new Publisher<M, ParametersOfAddress<A>>(
      channel as AnyChannel<M> & { readonly address: string | ((params: ParametersOfAddress<A>) => string) },
      { producer: this.#producer, clock: this.#clock, logger: this.#logger, transport: this.transport, system: this.transport.name },
      { ...(this.#options.source === undefined ? {} : { source: this.#options.source }), ...options },
    );
    this.#publishers.push(publisher as unknown as Publisher<AnyContractMessage, unknown>);
    return publisher;
  }

  /** `channel` framed for the Schema Registry when its contract says so (once per channel), else itself. */
  #channel<C extends AnyChannel>(channel: C): C {
    let used = this.#channels.get(channel);
    if (used === undefined) {
      used = frameByContract(channel, this.#options.schemaRegistry, this.transport);
      this.#channels.set(channel, used);
    }
    return used as C;
  }

  /** Every subscription, in the order they were made. */
  get subscriptions(): readonly Subscription<AnyContractMessage>[] {
    return [...this.#subscriptions];
  }

  /** Every publisher, in the order they were made. */
  get publishers(): readonly Publisher<AnyContractMessage, unknown>[] {
    return [...this.#publishers];
  }

  /** Registers `handler` on `channel` with its own consumer group; it starts with `start()` (or now, if started). */
  subscribe<M extends AnyContractMessage, A extends string | ((params: never) => string)>(
    channel: ChannelDescriptor<M, A>,
    handler: MessageHandler<M>,
    options: SubscriptionOptions<M, ParametersOfAddress<A>> = {},
  ): Subscription<M> {
    channel = this.#channel(channel);
    const address = resolveAddress(channel, options, silentLogger);
    const duplicate = this.#subscriptions.find(
      (s) => s.channel.id === channel.id && s.groupId === handler.groupId && s.address === address,
    );
    if (duplicate)
      throw new KeiyakuError(
        'duplicate_subscription',
        `group ${handler.groupId} already subscribes to ${channel.id}; each handler needs its own groupId`,
      );
    const subscription = new Subscription<M>(
      channel,
      handler,
      {
        transport: this.transport,
        deadLetters: this.deadLetters,
        clock: this.#clock,
        logger: this.#logger,
        ...(this.#options.random ? { random: this.#options.random } : {}),
      },
      options,
    );
    this.#subscriptions.push(subscription as unknown as Subscription<AnyContractMessage>);
    // An inbox's rows past its retention are deleted by one purger per store, hosted beside it.
    const inbox = options.inbox;
    if (inbox !== undefined && !this.#components.some((c) => c instanceof InboxPurger && c.store === inbox))
      this.host(new InboxPurger({ store: inbox, clock: this.#clock, logger: this.#logger }));
    if (this.#started)
      void subscription
        .start()
        .catch((error: unknown) =>
          this.#logger.error('subscription failed to start', { channel: channel.id, groupId: handler.groupId, error: String(error) }),
        );
    return subscription;
  }

  /**
   * A typed requester of a request-reply of the contract (see docs/request-reply.md): `request(message)`
   * resolves with the reply. It reads its replies from the end, with a consumer group of its own,
   * and is hosted: it shows in `health()` and its pending requests are rejected on `stop()`.
   */
  requester<Req extends AnyContractMessage, Rep extends AnyContractMessage>(
    operation: RequestReplyDescriptor<Req, Rep>,
    options: RequesterOptions = {},
  ): Requester<Req, Rep> {
    const publisher = this.publisher(operation.request as ChannelDescriptor<AnyContractMessage, string>) as unknown as Publisher<
      AnyContractMessage,
      unknown
    >;
    const reply = this.#channel(operation.reply);
    return this.host(new Requester(operation, { transport: this.transport, logger: this.#logger, publisher, reply }, options));
  }

  /**
   * Answers the requests of a request-reply with `responder`: a subscription of the request channel
   * (consumer group `responder.groupId`, `options` as for `subscribe`) whose handler's return value
   * is published as the reply, with the request's correlation id.
   */
  respond<Req extends AnyContractMessage, Rep extends AnyContractMessage>(
    operation: RequestReplyDescriptor<Req, Rep>,
    responder: Responder<Req, Rep>,
    options: SubscriptionOptions<Req, never> = {},
  ): Subscription<Req> {
    this.#producer ??= this.transport.producer();
    const deps = {
      producer: this.#producer,
      clock: this.#clock,
      logger: this.#logger,
      source: this.#options.source ?? 'keiyaku',
      reply: this.#channel(operation.reply),
    };
    const channel = operation.request as ChannelDescriptor<Req, string>;
    return this.subscribe(channel, responderHandler(operation, responder, deps), options);
  }

  /**
   * Registers a batch `handler` on `channel` (see docs/batch-handlers.md): each lane hands it up to `batch.maxSize`
   * messages of its partition in order, waiting at most `batch.maxWaitMs` after the first, and acknowledges them together.
   */
  subscribeBatch<M extends AnyContractMessage, A extends string | ((params: never) => string)>(
    channel: ChannelDescriptor<M, A>,
    handler: BatchHandler<M>,
    options: BatchSubscriptionOptions<M, ParametersOfAddress<A>> = {},
  ): Subscription<M> {
    const batch = batchSubscription(channel.id, handler, options);
    return this.subscribe(channel, batch.handler, batch.options);
  }

  /**
   * Hosts a background component: it starts with `start()` (or now, if started), stops inside
   * the shared shutdown budget before the publishers close, and shows in `health()`.
   */
  host<C extends HostedComponent>(component: C): C {
    if (this.#components.some((c) => c.kind === component.kind && c.name === component.name))
      throw new KeiyakuError('duplicate_component', `a ${component.kind} named ${component.name} is already hosted`);
    this.#components.push(component);
    if (this.#started)
      void component
        .start()
        .catch((error: unknown) =>
          this.#logger.error('hosted component failed to start', { kind: component.kind, name: component.name, error: String(error) }),
        );
    return component;
  }

  /** Provisions addresses the transport can create and starts every subscription. Rejects if one cannot start. */
  async start(): Promise<void> {
    if (!this.#started) {
      instrumentMessaging(this);
      const warning = memoryByDefault(this.#configuration(), this.transport, this.deadLetters);
      if (warning) this.#logger.warn(warning.message, warning.fields);
    }
    this.#started = true;
    await Promise.all([
      ...this.#subscriptions.map((subscription) => subscription.start()),
      ...this.#components.map((component) => component.start()),
    ]);
    this.#startFinished = true;
  }

  health(): MessagingHealth {
    const subscriptions = this.#subscriptions.map((s) => s.health());
    const components = this.#components.map((c) => c.health());
    const transport = this.transport.health?.();
    const started = this.#startFinished;
    return {
      ready: started && subscriptions.every((s) => s.ready) && components.every((c) => c.ready) && transport?.ready !== false,
      started,
      ...(transport === undefined ? {} : { transport }),
      subscriptions,
      components,
      configuration: this.#configuration(),
    };
  }

  #configuration(): MessagingConfiguration {
    return configurationOf(this.transport, this.deadLetters, this.#options.deadLetters !== undefined);
  }

  /**
   * Redrives a parked message (see `dead-letter/redrive.ts`, shared with the operations page and
   * `keiyaku dead-letters redrive`): claims the record so that of concurrent redrives only one
   * sends, checks its payload and contract headers again with its channel's codec, resolves its
   * target as a publisher does (the channel's parameters, the Kafka binding's `topic`, the
   * namespace, the Iggy stream/topic), refuses a destination that does not exist (a redrive never
   * creates a topic), republishes the record as received (id, key, time, correlation, headers,
   * plus `keiyaku-redriven-from`) through this host's producer and removes it from the store only
   * after the acknowledgement. Every group of the channel receives it again: handlers are
   * idempotent. The channel must be one this host subscribes to or publishes.
   * @throws RedriveError (`dead_letter_not_found`, `redrive_in_progress`, `redrive_unknown_channel`,
   * `redrive_invalid`, `redrive_target_missing`, `redrive_failed`); the record then stays parked.
   */
  redrive(id: string): Promise<RedriveResult> {
    this.#producer ??= this.transport.producer();
    return redriveParked(id, { ...this.#redriveOptions(), producer: this.#producer });
  }

  /** Where {@link redrive} would send parked message `id`, checked the same way; nothing is claimed or sent. */
  planRedrive(id: string): Promise<RedriveTarget> {
    return planRedrive(id, this.#redriveOptions());
  }

  #redriveOptions(): RedriveOptions {
    return {
      transport: this.transport,
      deadLetters: this.deadLetters,
      channel: (channelId) =>
        this.#subscriptions.find((s) => s.channel.id === channelId)?.channel ??
        this.#publishers.find((p) => p.channel.id === channelId)?.channel,
      unknownChannel: () => 'which this host neither subscribes to nor publishes',
      logger: this.#logger,
      clock: this.#clock,
    };
  }

  /**
   * Stops every subscription together within the shared budget, then flushes and closes the
   * publishers (so what in-flight handlers published still goes out), then closes the shared
   * producer and the dead-letter store. Failures are logged, never thrown.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    const budget = this.#options.shutdownBudgetMs ?? 10_000;
    const deadline = AbortSignal.timeout(budget);
    const started = this.#clock.now();
    await Promise.allSettled([...this.#subscriptions.map((s) => s.stop(deadline)), ...this.#components.map((c) => c.stop(deadline))]);
    await Promise.allSettled(this.#publishers.map((p) => p.close()));
    try {
      await this.#producer?.close();
    } catch (error) {
      this.#logger.error('closing the producer failed', { error: String(error) });
    }
    try {
      await this.deadLetters.close?.();
    } catch (error) {
      this.#logger.error('closing the dead-letter store failed', { error: String(error) });
    }
    this.#logger.info('messaging stopped', {
      subscriptions: this.#subscriptions.length,
      elapsedMs: this.#clock.now() - started,
      budgetMs: budget,
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

export function createMessaging(options: MessagingOptions): Messaging {
  return new Messaging(options);
}
