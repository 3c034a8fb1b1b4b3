// W3C trace context across a publish → handle hop through the Iggy transport (its user
// headers carry ce_traceparent), against the in-repo protocol test double.
import { afterEach, beforeEach, describe, it } from 'vitest';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { assertTraceCrossesHops, registerSdk, type Traced } from '../ops/trace-hop.js';
import { IggyProtocolDouble } from './protocol-double.js';

let server: IggyProtocolDouble;
let port: number;
let traced: Traced | undefined;
beforeEach(async () => {
  server = new IggyProtocolDouble();
  port = await server.start();
});
afterEach(async () => {
  await traced?.shutdown();
  traced = undefined;
  await server.stop();
});

describe('tracing over the Iggy transport (against the protocol test double)', () => {
  it('links request → send → process → handler span → send → process across the server', async () => {
    traced = registerSdk();
    const transport = new IggyTransport({ host: '127.0.0.1', port, heartbeatMs: 0, idleWaitMs: 10 });
    try {
      await assertTraceCrossesHops(transport, traced, 'iggy');
    } finally {
      await transport.close();
    }
  });
});
