/**
 * The transport and store packages a configuration may choose, loaded by name only when chosen
 * (they are optional peers of `@keiyaku/runtime`, which depends on none of them). A package that is
 * not installed is a configuration problem that names the package to install.
 */
import type { Logger } from '../core/logger.js';
import type { Transport } from '../core/transport.js';
import type { DeadLetterStore } from '../stores/dead-letter/store.js';
import { ConfigurationError } from './problems.js';
import type { IggySettings, KafkaSettings } from './settings.js';

/** What the runtime uses of each package. */
export interface OptionalPackages {
  readonly '@keiyaku/kafka': { createKafkaTransport(options: KafkaSettings & { readonly logger?: Logger }): Transport };
  /** The client of the Kafka driver `platformatic`: checked for when that driver is chosen. */
  readonly '@platformatic/kafka': object;
  readonly '@keiyaku/iggy': { readonly IggyTransport: new (options: IggySettings & { readonly logger?: Logger }) => Transport };
  readonly '@keiyaku/sqlite': {
    openDeadLetterStore(options: { readonly path: string; readonly migrate: boolean }): DeadLetterStore;
  };
  readonly '@keiyaku/postgres': {
    openDeadLetterStore(options: {
      readonly connectionString: string;
      readonly schema?: string;
      readonly migrate: boolean;
    }): Promise<DeadLetterStore>;
  };
  readonly '@keiyaku/mysql': {
    openDeadLetterStore(options: { readonly connectionString: string; readonly migrate: boolean }): Promise<DeadLetterStore>;
  };
}

export type OptionalPackage = keyof OptionalPackages;

/** Loads `name`; `key` is the configuration key that chose it (named in the error when it is missing). */
export async function loadPackage<N extends OptionalPackage>(name: N, key: string): Promise<OptionalPackages[N]> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as OptionalPackages[N];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(name))
      throw new ConfigurationError([{ key, message: `needs the package ${name}, which is not installed: npm i ${name}` }]);
    throw error;
  }
}
