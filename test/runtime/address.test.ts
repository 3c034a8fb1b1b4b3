// Addresses of channels: parameters are typed values checked against the contract's rules,
// one publisher routes by parameter, and a fixed channel's address is not overridden by accident.

import { ChannelAddressError, createMessaging, type Logger, type Messaging, silentLogger } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { PaymentRequested, PaymentRequests, PaymentResults, PaymentSettled } from '../fixtures/payments/expected/index.js';
import { waitFor } from '../helpers.js';

const request = (paymentId: string) =>
  PaymentRequested.create({ paymentId, amount: { value: '12.50', currency: 'EUR' }, method: { kind: 'card', last4: '4242' } });
const settled = PaymentSettled.create({ paymentId: '0b6c3a52-8a4f-4c7e-9d0e-5f1a2b3c4d5e', outcome: 'settled' });

const hosts: Messaging[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

function rig(logger: Logger = silentLogger) {
  const transport = new InMemoryTransport({ defaultPartitions: 1, idleWaitMs: 5 });
  const host = createMessaging({ transport, logger, shutdownBudgetMs: 1_000 });
  hosts.push(host);
  return { transport, host };
}

describe('addresses of channels with parameters', () => {
  it('refuse missing, empty and out-of-enum values with a typed error instead of payments.undefined.requests', () => {
    expect(() => PaymentRequests.address({} as never)).toThrow(
      expect.objectContaining({
        name: 'ChannelAddressError',
        code: 'parameter_invalid',
        channel: 'paymentRequests',
        parameter: 'region',
        message: 'channel paymentRequests: parameter region is missing',
      }),
    );
    expect(() => PaymentRequests.address({ region: 'mars' } as never)).toThrow(
      'channel paymentRequests: parameter region must be one of "eu", "us", "apac", got "mars"',
    );
    expect(() => PaymentRequests.address({ region: '' } as never)).toThrow(/must not be empty/);
    expect(() => PaymentRequests.address({ region: 7 } as never)).toThrow(/must be a string, got number/);
    expect(PaymentRequests.address({ region: 'eu' })).toBe('payments.eu.requests');
  });

  it('route by parameter with one publisher, and a subscription reads the address of its parameters', async () => {
    const { transport, host } = rig();
    const seen: string[] = [];
    host.subscribe(
      PaymentRequests,
      { groupId: 'example.group', handle: (message, context) => void seen.push(`${context.address} ${message.paymentId}`) },
      { parameters: { region: 'us' } },
    );
    await host.start();
    const requests = host.publisher(PaymentRequests, { lingerMs: 0 });
    await requests.publish(request('9d1b7c1e-0000-4000-8000-000000000001'), { parameters: { region: 'eu' } });
    await requests.publish(request('9d1b7c1e-0000-4000-8000-000000000002'), { parameters: { region: 'us' } });
    await requests.publishMany([[request('9d1b7c1e-0000-4000-8000-000000000003'), { parameters: { region: 'apac' } }]]);
    expect(transport.published('payments.eu.requests')).toHaveLength(1);
    expect(transport.published('payments.us.requests')).toHaveLength(1);
    expect(transport.published('payments.apac.requests')).toHaveLength(1);
    await waitFor(() => seen.length === 1, 'the us subscription handles its message');
    expect(seen).toEqual(['payments.us.requests 9d1b7c1e-0000-4000-8000-000000000002']);
    await expect(requests.publish(request('9d1b7c1e-0000-4000-8000-000000000004'))).rejects.toMatchObject({ code: 'address_required' });
    await expect(
      requests.publish(request('9d1b7c1e-0000-4000-8000-000000000005'), { parameters: { region: 'mars' } as never }),
    ).rejects.toBeInstanceOf(ChannelAddressError);
  });

  it('accept the deprecated address option only when it fits the template and rules, with a warning', () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message) };
    const { host } = rig(logger);
    expect(() => host.publisher(PaymentRequests, { address: 'totally.wrong.topic' })).toThrow(
      expect.objectContaining({
        code: 'address_mismatch',
        message: expect.stringContaining('does not fit its template payments.{region}.requests'),
      }),
    );
    expect(() => host.publisher(PaymentRequests, { address: 'payments.mars.requests' })).toThrow(/parameter region must be one of/);
    expect(host.publisher(PaymentRequests, { address: 'payments.eu.requests' }).address).toBe('payments.eu.requests');
    expect(warnings).toEqual(['the address option of a channel with parameters is deprecated; pass parameters instead']);
  });
});

describe('addresses of channels without parameters', () => {
  it('refuse an override unless it is forced', async () => {
    const { transport, host } = rig();
    expect(() => host.publisher(PaymentResults, { address: 'elsewhere' })).toThrow(
      expect.objectContaining({ name: 'ChannelAddressError', code: 'address_override', message: expect.stringContaining('forceAddress') }),
    );
    expect(() => host.subscribe(PaymentResults, { groupId: 'example.group', handle() {} }, { address: 'elsewhere' })).toThrow(
      expect.objectContaining({ code: 'address_override' }),
    );
    expect(host.publisher(PaymentResults, { address: 'payments.results' }).address).toBe('payments.results');
    const forced = host.publisher(PaymentResults, { address: 'payments.results.replay', forceAddress: true, lingerMs: 0 });
    await forced.publish(settled);
    expect(transport.published('payments.results.replay')).toHaveLength(1);
    expect(() => host.publisher(PaymentResults, { parameters: {} as never })).toThrow(/has no parameters/);
  });
});
