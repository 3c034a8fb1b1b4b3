// The Iggy transport's clients in health and on /readyz: generations (logins) and reconnects,
// not ready while a logged-in client has lost its connection, ready again once it reconnected.
// Against the in-repo protocol test double, restarted on the same port.

import { createMessaging } from '@keiyaku/runtime';
import { serveOperations } from '@keiyaku/runtime/ops';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { borrowed } from '../books.js';
import { waitFor } from '../helpers.js';
import { IggyProtocolDouble } from './protocol-double.js';
import { recordingLogger } from './recording-logger.js';

let server: IggyProtocolDouble;
let port: number;
/** Reconnects, evictions and rejoins are reported here (never on stderr). */
let log: ReturnType<typeof recordingLogger>;
beforeEach(async () => {
  log = recordingLogger();
  server = new IggyProtocolDouble();
  port = await server.start();
});
afterEach(async () => {
  await server.stop();
});

describe('Iggy transport health (against the protocol test double)', () => {
  it('reports generations and reconnects, and is not ready while a client lost its connection', async () => {
    const transport = new IggyTransport({
      host: '127.0.0.1',
      port,
      heartbeatMs: 0,
      logger: log.logger,
      reconnection: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    const host = createMessaging({ transport, shutdownBudgetMs: 2_000 });
    const handled: string[] = [];
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle: (m) => void handled.push(m.copyId) });
    const publisher = host.publisher(BookIntegrationEvents, { lingerMs: 0 });
    const ops = await serveOperations(host, { port: 0 });
    try {
      await host.start();
      await publisher.publish(borrowed('C-1'));
      await waitFor(() => handled.length === 1, 'handled before the restart');
      const before = transport.health();
      expect(before.ready).toBe(true);
      const clients = before.details!['clients'] as { generation: number; reconnects: number; connected: boolean }[];
      expect(clients.length).toBeGreaterThanOrEqual(2);
      for (const c of clients) expect(c).toMatchObject({ generation: 1, reconnects: 0, connected: true });
      await server.stop();
      await waitFor(() => transport.health().ready === false, 'the transport sees its clients lose the connection');
      expect(transport.health().reason).toMatch(/Iggy consumer client\(s\) lost the connection to 127\.0\.0\.1:\d+; reconnecting$/);
      const down = await fetch(`${ops.url}/readyz`);
      expect(down.status).toBe(503);
      expect(((await down.json()) as { reasons: string[] }).reasons).toContainEqual(expect.stringMatching(/^transport iggy is cut off: /));
      await server.start(port);
      await publisher.publish(borrowed('C-2'));
      await waitFor(() => handled.length === 2, 'handled after the restart', 10_000);
      await waitFor(() => transport.health().ready, 'every client reconnected', 10_000);
      const after = transport.health();
      expect(after.details!['reconnects']).toBeGreaterThanOrEqual(2);
      for (const c of after.details!['clients'] as { generation: number; reconnects: number }[])
        expect(c.reconnects).toBe(c.generation - 1);
      const metrics = await (await fetch(`${ops.url}/metrics`)).text();
      expect(metrics).toMatch(/keiyaku_transport_reconnects_total\{transport="iggy"\} 2\n/);
    } finally {
      await ops.close();
      await host.stop();
      await transport.close();
    }
  });
});
