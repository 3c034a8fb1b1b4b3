/**
 * What every transport-facing conformance module (the transport suite, retry later, batch
 * handlers) does around its cases: a fresh transport from the target for each case, an address of
 * the case's own provisioned with the target's partitions, hosts on one in-memory dead-letter
 * store, and all of it stopped and closed after the case; cases a target skips registered as
 * skipped, with the reason in their name.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../core/logger.js';
import type { Transport } from '../core/transport.js';
import { createMessaging, type Messaging } from '../host/messaging.js';
import { InMemoryDeadLetterStore } from '../stores/dead-letter/store.js';

/** The target as the cases use it (a `ConformanceTarget`). */
interface CaseTarget {
  readonly name: string;
  create(): Promise<{ readonly transport: Transport; readonly cleanup?: () => Promise<void> }>;
  readonly partitions?: number;
  readonly timeoutMs?: number;
}

/** The runner's parts the cases are registered with (a `ConformanceRunner`). */
interface CaseRunner {
  readonly it: {
    (name: string, body: () => Promise<void>, timeoutMs?: number): void;
    skip(name: string, body: () => void): void;
  };
  afterEach(body: () => Promise<void>): void;
}

/** One case's transport, its address (provisioned), the shared dead-letter store, and a maker of hosts on them. */
export interface CaseSetup {
  readonly transport: Transport;
  readonly address: string;
  readonly deadLetters: InMemoryDeadLetterStore;
  messaging(): Messaging;
}

/**
 * Call inside the suite's `describe`. `prefix` starts each case's address; `skips` names the
 * cases the target does not run, with the reason. A case may wait `timeout` for messages and runs
 * for at most three times that.
 */
export function caseHarness(target: CaseTarget, runner: CaseRunner, prefix: string, skips: Readonly<Record<string, string>> = {}) {
  const timeout = target.timeoutMs ?? 15_000;
  const partitions = target.partitions ?? 3;
  const cleanups: (() => Promise<void>)[] = [];
  runner.afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(options: { readonly shutdownBudgetMs?: number } = {}): Promise<CaseSetup> {
    const { transport, cleanup } = await target.create();
    const address = `${prefix}-${randomUUID().slice(0, 8)}`;
    await transport.provision?.(address, { kafka: { partitions }, iggy: { partitions } });
    const deadLetters = new InMemoryDeadLetterStore();
    const instances: Messaging[] = [];
    const messaging = (): Messaging => {
      const m = createMessaging({ transport, deadLetters, logger: silentLogger, shutdownBudgetMs: options.shutdownBudgetMs ?? 5_000 });
      instances.push(m);
      return m;
    };
    cleanups.push(async () => {
      for (const m of instances) await m.stop();
      if (cleanup) await cleanup();
      else await transport.close();
    });
    return { transport, address, deadLetters, messaging };
  }

  function test(name: string, body: () => Promise<void>): void {
    const reason = skips[name];
    if (reason !== undefined) runner.it.skip(`${name} (skipped on ${target.name}: ${reason})`, () => {});
    else runner.it(name, body, timeout * 3);
  }

  return { timeout, partitions, setup, test };
}

/** Polls `predicate` every 10 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function until(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
