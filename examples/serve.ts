/**
 * `npm run demo -- --serve`: keeps the demo's services running with the operations server
 * (health probes, metrics, the operations page) until Ctrl-C.
 * Port from KEIYAKU_OPS_PORT (default 4380); the operator token from KEIYAKU_OPS_TOKEN, or a
 * random one printed at start.
 */
import { randomBytes } from 'node:crypto';
import type { Messaging } from '@keiyaku/runtime';
import { serveOperations } from '@keiyaku/runtime/ops';

export async function serveUntilInterrupted(messaging: Messaging, say: (line?: string) => void): Promise<void> {
  const token = process.env['KEIYAKU_OPS_TOKEN'] || randomBytes(16).toString('hex');
  const port = Number(process.env['KEIYAKU_OPS_PORT'] || 4380);
  const server = await serveOperations(messaging, { port, token, title: 'keiyaku demo' });
  say(`   operations page: ${server.url}/  (readiness ${server.url}/readyz, metrics ${server.url}/metrics)`);
  say(`   operator token for redrive and remove: ${token}`);
  say('   the services keep running; press Ctrl-C to stop');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  say();
}
