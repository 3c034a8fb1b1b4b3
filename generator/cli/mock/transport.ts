// The broker `keiyaku mock` publishes to: the service's own configuration, as configure() reads it.
import type { Logger, Transport } from '@keiyaku/runtime';
import type { SchemaRegistrySetup } from '@keiyaku/runtime/registry';
import { MockCommandError, type MockCommandOptions } from './options.js';

export interface MockTransport {
  readonly transport: Transport;
  /** `kafka at host:port`, for the summary line. */
  readonly where: string;
  /** The Schema Registry of the configuration, when it names one (messages the contract frames need it). */
  readonly schemaRegistry: SchemaRegistrySetup | undefined;
}

/**
 * The transport of the service's configuration (keiyaku.config.json's `runtime` object when there
 * is one, every KEIYAKU_* variable over it); the memory transport is refused, since no other
 * process would see what it carries.
 */
export async function mockTransport(
  o: MockCommandOptions,
  env: Readonly<Record<string, string | undefined>>,
  stderr: (text: string) => void,
): Promise<MockTransport> {
  const { createSchemaRegistry, createTransport, resolveConfig } = await import('@keiyaku/runtime/config');
  const resolved =
    o.runtime === undefined
      ? resolveConfig(undefined, { env })
      : resolveConfig(o.runtime.config, { env, withEnvironment: true, file: o.runtime.file });
  if (resolved.transport === 'memory')
    throw new MockCommandError(
      'keiyaku mock publishes to the broker your consumer reads, and none is configured: the memory transport lives inside ' +
        'one process, so no consumer would see the messages. Set KEIYAKU_TRANSPORT=kafka with KEIYAKU_KAFKA_BOOTSTRAP_SERVERS ' +
        "(and the service's KEIYAKU_KAFKA_NAMESPACE, SASL or TLS settings), or KEIYAKU_TRANSPORT=iggy with KEIYAKU_IGGY_ADDRESS, " +
        'or pass --dry-run to print the messages (nothing sent)',
    );
  // Warnings and errors of the transport (an unreachable broker) reach the operator; the rest is noise here.
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => stderr(`keiyaku: warning: ${message}\n`),
    error: (message, fields) => stderr(`keiyaku: ${message}${fields?.['error'] ? `: ${String(fields['error'])}` : ''}\n`),
  };
  const transport = await createTransport(resolved, { logger });
  const where = resolved.kafka ? resolved.kafka.brokers.join(',') : resolved.iggy ? `${resolved.iggy.host}:${resolved.iggy.port}` : '';
  return { transport, where: `${resolved.transport} at ${where}`, schemaRegistry: createSchemaRegistry(resolved) };
}
