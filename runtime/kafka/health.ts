/** The health report of a Kafka transport, the same on either driver. */
import type { TransportHealth } from '@keiyaku/runtime/adapter';
import type { KafkaClientStatus } from './options.js';

/**
 * @internal Which clients are cut off from the brokers (since when) and how often each was rebuilt.
 * Not ready while any consumer or producer is cut off or faulted.
 */
export function kafkaHealth(
  name: string,
  brokers: readonly string[],
  consumers: readonly KafkaClientStatus[],
  producers: readonly KafkaClientStatus[],
): TransportHealth {
  const cut = [...consumers, ...producers].filter((c) => c.cutOffSince !== undefined || c.fault !== undefined);
  const first = cut[0];
  const describe = (c: KafkaClientStatus): string =>
    c.fault !== undefined
      ? `${c.role}${c.group ? ` of group ${c.group}` : ''} faulted: ${c.fault}`
      : `${c.role}${c.group ? ` of group ${c.group}` : ''} cut off from the brokers since ${c.cutOffSince}`;
  return {
    name,
    ready: first === undefined,
    ...(first === undefined ? {} : { reason: cut.map(describe).join('; ') }),
    details: {
      brokers: [...brokers],
      rebuilds: [...consumers, ...producers].reduce((n, c) => n + c.rebuilds, 0),
      consumers: [...consumers],
      producers: [...producers],
    },
  };
}
