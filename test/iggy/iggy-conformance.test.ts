// The transport conformance suite on the Iggy transport, against the in-repo protocol test
// double (not Iggy). test/iggy/e2e-conformance.test.ts runs the same suite against a real iggy-server.
import {
  runBatchConformance,
  runRequestReplyConformance,
  runRetryLaterConformance,
  runTransportConformance,
} from '@keiyaku/runtime/testing';
import { afterAll, beforeAll } from 'vitest';
import { IggyTransport } from '../../runtime/iggy/transport.js';
import { IggyProtocolDouble } from './protocol-double.js';

const server = new IggyProtocolDouble();
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});

await runTransportConformance({
  name: 'iggy (protocol test double)',
  create: async () => ({
    transport: new IggyTransport({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 2_000, heartbeatMs: 0, idleWaitMs: 10 }),
  }),
  partitions: 3,
  timeoutMs: 10_000,
});

await runRetryLaterConformance({
  name: 'iggy (protocol test double)',
  create: async () => ({
    transport: new IggyTransport({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 2_000, heartbeatMs: 0, idleWaitMs: 10 }),
  }),
  partitions: 3,
  timeoutMs: 10_000,
});

await runRequestReplyConformance({
  name: 'iggy (protocol test double)',
  create: async () => ({
    transport: new IggyTransport({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 2_000, heartbeatMs: 0, idleWaitMs: 10 }),
  }),
  partitions: 3,
  timeoutMs: 10_000,
});
await runBatchConformance({
  name: 'iggy (protocol test double)',
  create: async () => ({
    transport: new IggyTransport({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 2_000, heartbeatMs: 0, idleWaitMs: 10 }),
  }),
  partitions: 3,
  timeoutMs: 10_000,
});
