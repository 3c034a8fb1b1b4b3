// `keiyaku mock` over Iggy (KEIYAKU_TRANSPORT=iggy): against the in-repo protocol double, and
// against a real iggy-server when IGGY_TCP_ADDRESS is set. A subscription of the generated channel
// receives exactly the messages the dry run of the same seed prints.
import { IggyTransport, type IggyTransportOptions } from '@keiyaku/iggy';
import { createMessaging, silentLogger } from '@keiyaku/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentResults, type PaymentResultsMessage } from '../fixtures/payments/expected/index.js';
import { waitFor } from '../helpers.js';
import { jsonLines, runMock } from '../mock/run-mock.js';
import { clientOptions, skipReason, uniqueName } from './e2e-env.js';
import { IggyProtocolDouble } from './protocol-double.js';

/** Mocks of the payments fixture's paymentResults (no x-iggy binding: the stream comes from KEIYAKU_IGGY_STREAM). */
async function mockRoundTrip(options: IggyTransportOptions, credentials: Record<string, string>): Promise<void> {
  const stream = uniqueName('keiyaku-mock');
  const env = {
    KEIYAKU_TRANSPORT: 'iggy',
    KEIYAKU_IGGY_ADDRESS: `${options.host}:${options.port}`,
    KEIYAKU_IGGY_STREAM: stream,
    ...credentials,
  };
  const args = ['--spec', 'test/fixtures/payments/asyncapi.yaml', '--channel', 'paymentResults', '--count', '6', '--seed', '9'];
  const transport = new IggyTransport({ ...options, stream, idleWaitMs: 20 });
  const messaging = createMessaging({ transport, logger: silentLogger });
  const received: unknown[] = [];
  messaging.subscribe(PaymentResults, {
    groupId: 'mock.check',
    handle: (message: PaymentResultsMessage) => {
      received.push({ type: PaymentResults.typeOf(message), payload: JSON.parse(JSON.stringify(message)) });
    },
  });
  try {
    await messaging.start();
    const sent = await runMock(args, env);
    expect(sent.stderr).toBe('');
    expect(sent.stdout).toBe(
      `keiyaku: published 6 messages of paymentResults to payments.results on iggy at ${options.host}:${options.port} (0 from examples, 6 built; seed 9)\n`,
    );
    expect(sent.code).toBe(0);
    await waitFor(
      () => received.length === 6,
      () => `6 messages received (${received.length} so far)`,
      20_000,
    );
    const printed = jsonLines(await runMock([...args, '--dry-run'], {})).map((m) => ({ type: m['type'], payload: m['payload'] }));
    const order = (a: unknown, b: unknown): number => JSON.stringify(a).localeCompare(JSON.stringify(b));
    expect([...received].sort(order)).toEqual([...printed].sort(order));
  } finally {
    await messaging.stop();
    await transport.close();
  }
}

describe('keiyaku mock over Iggy (protocol double)', () => {
  const server = new IggyProtocolDouble();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('publishes to the stream of the configuration; a subscription receives what the dry run prints', async () => {
    await mockRoundTrip({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 2_000, heartbeatMs: 0, logger: silentLogger }, {});
  }, 60_000);
});

(skipReason ? describe.skip : describe)(`keiyaku mock over a real iggy-server${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('publishes to the stream of the configuration; a subscription receives what the dry run prints', async () => {
    const options = clientOptions({ heartbeatMs: 5_000 });
    await mockRoundTrip(options, { KEIYAKU_IGGY_USERNAME: options.username ?? 'iggy', KEIYAKU_IGGY_PASSWORD: options.password ?? 'iggy' });
  }, 60_000);
});
