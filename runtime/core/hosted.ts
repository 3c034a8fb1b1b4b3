/**
 * A background component hosted by a `Messaging` host beside its subscriptions: started by
 * `start()`, stopped inside the shared shutdown budget, and part of `health()`.
 * The outbox dispatcher and the event relay are hosted components.
 */
export interface HostedComponentHealth {
  /** What kind of component this is (`outbox`, `producer`, …). */
  readonly kind: string;
  /** Unique within one host. */
  readonly name: string;
  /** False while the component cannot do its job; `reason` then says why. */
  readonly ready: boolean;
  readonly reason?: string;
  /** Component-specific figures (backlog, oldest pending age, positions, …). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface HostedComponent {
  readonly kind: string;
  readonly name: string;
  start(): Promise<void>;
  /** Stops within the deadline of the shared shutdown budget; must not throw. */
  stop(deadline: AbortSignal): Promise<void>;
  health(): HostedComponentHealth;
}
