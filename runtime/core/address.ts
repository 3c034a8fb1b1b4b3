import type { AnyChannel } from '../codegen-v1.js';
import { KeiyakuError } from './errors.js';

/**
 * The concrete address of `channel`: `address` when given, else the channel's own address.
 * A channel with parameters has no address of its own, so it needs one given.
 *
 * @throws KeiyakuError `address_required` when neither is there.
 */
export function resolveAddress(channel: Pick<AnyChannel, 'id' | 'address'>, address?: string): string {
  if (address !== undefined) return address;
  if (typeof channel.address === 'string') return channel.address;
  throw new KeiyakuError(
    'address_required',
    `channel ${channel.id} has parameters: pass its concrete address (built by the channel's address({...}))`,
  );
}
