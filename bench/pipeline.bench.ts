/**
 * Publish → handle throughput through the full typed pipeline (factory-made messages,
 * publisher batching, CloudEvents envelope, in-memory transport, the conveyor belt with
 * decode + validation + dispatch to a handler, acks and commits), against a bare
 * encode/decode loop of the same payloads in the same process. Also the heap growth: over
 * the whole run, and from the first 10,000 messages on (compiled code and every key's state
 * exist by then, so what grows after is what the messages leave behind); run with --expose-gc
 * for settled figures.
 */

import { BookBorrowed, BookIntegrationEvents } from '../generated/index.js';
import { createMessaging } from '../runtime/index.js';
import { InMemoryTransport } from '../runtime/memory/index.js';
import { verdict } from './stats.js';

const TOTAL = Number(process.env['BENCH_MESSAGES'] ?? 1_000_000);
const CHUNK = 10_000;
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const gc = (globalThis as { gc?: () => void }).gc;
const heap = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

const payload = (i: number) => ({
  bookId: `6f1c2b8e-3a4d-4e5f-9a0b-${String(i % 4096).padStart(12, '0')}`,
  copyId: `C-${i}`,
  borrower: { memberId: 'M-1001', displayName: 'Ada Lovelace' },
  borrowedAt: '2026-11-02T10:15:00Z',
  dueAt: '2026-11-23T10:15:00Z',
  channel: 'desk' as const,
});

// Baseline: the bare minimum any transport path does, JSON encode + decode, no validation.
// It runs in slices interleaved with the pipeline's chunks (it is synchronous: nothing of the
// pipeline runs during a slice), so load from other processes falls on both alike.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let checksum = 0;
let baseMs = 0;
const bareSlice = (from: number, to: number): void => {
  const begin = performance.now();
  for (let i = from; i < to; i++) {
    const bytes = encoder.encode(JSON.stringify(payload(i)));
    checksum += (JSON.parse(decoder.decode(bytes)) as { copyId: string }).copyId.length;
  }
  baseMs += performance.now() - begin;
};

// The contract codec alone (create = validate + tag, encode, decode = parse + validate), the
// floor the generated code sets under the pipeline; also interleaved.
let codecMs = 0;
const codecSlice = (from: number, to: number): void => {
  const begin = performance.now();
  for (let i = from; i < to; i++) {
    const decoded = BookBorrowed.decode(BookBorrowed.encode(BookBorrowed.create(payload(i))));
    checksum += decoded.ok ? decoded.value.copyId.length : 0;
  }
  codecMs += performance.now() - begin;
};

// The typed pipeline.
const heapBefore = heap();
const transport = new InMemoryTransport({ defaultPartitions: 4, idleWaitMs: 1, retention: 'uncommitted' });
const messaging = createMessaging({ transport });
let handled = 0;
let waiting: { until: number; resolve: () => void } | undefined;
const handledAtLeast = (count: number): Promise<void> =>
  handled >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { until: count, resolve }));
messaging.subscribe(
  BookIntegrationEvents,
  {
    groupId: 'bench.counter',
    handle(message) {
      handled += message.copyId.length > 0 ? 1 : 0;
      if (waiting !== undefined && handled >= waiting.until) {
        waiting.resolve();
        waiting = undefined;
      }
    },
  },
  { batchSize: 1_000 },
);
const publisher = messaging.publisher(BookIntegrationEvents, { maxBatchCount: 1_000, lingerMs: 0, key: (m) => m.bookId });
await messaging.start();
let pipelineMs = 0;
/** Heap once the first chunk went through: the code is compiled and every key's state exists. */
let heapWarm = 0;
for (let sent = 0; sent < TOTAL; sent += CHUNK) {
  if (sent === CHUNK) {
    const pause = performance.now();
    await handledAtLeast(CHUNK);
    pipelineMs += performance.now() - pause;
    heapWarm = heap();
  }
  const end = Math.min(TOTAL, sent + CHUNK);
  bareSlice(sent, end);
  codecSlice(sent, end);
  const begin = performance.now();
  // Published as the Kafka benchmark does (and as a service publishing in bulk would): one
  // publishMany per chunk, which waits for each batch's promise once.
  const batch: BookBorrowed[] = [];
  for (let i = sent; i < end; i++) batch.push(BookBorrowed.create(payload(i)));
  await publisher.publishMany(batch);
  // Keep the belt within one chunk of the producer, as a bounded queue would.
  await handledAtLeast(sent);
  pipelineMs += performance.now() - begin;
}
const drain = performance.now();
await handledAtLeast(TOTAL);
pipelineMs += performance.now() - drain;
await messaging.stop();
const heapAfter = heap();

const rate = (ms: number): string => `${(((TOTAL / ms) * 1000) / 1000).toFixed(0)}k msg/s`;
out(
  `messages: ${TOTAL.toLocaleString('en')} BookBorrowed (${encoder.encode(JSON.stringify(payload(0))).byteLength} bytes each)${gc ? '' : ' (heap figures without --expose-gc are unsettled)'}`,
);
out(`bare encode/decode loop  : ${baseMs.toFixed(0)} ms, ${rate(baseMs)} (checksum ${checksum})`);
out(
  `typed pipeline, memory   : ${pipelineMs.toFixed(0)} ms, ${rate(pipelineMs)} (create → publish → envelope → transport → belt → decode+validate → handler → ack/commit)`,
);
out(
  `codec alone              : ${codecMs.toFixed(0)} ms, ${rate(codecMs)} (create + encode + decode + validate, the generated code's floor)`,
);
const pipelineRatio = (baseMs / pipelineMs).toFixed(2);
out(
  `ratio pipeline/bare      : ${pipelineRatio}x the bare loop's throughput (${(pipelineMs / baseMs).toFixed(1)}x its time) (goal >= 0.6x: ${verdict(pipelineRatio, 0.6)})`,
);
out(
  `runtime share            : ${(pipelineMs - codecMs).toFixed(0)} ms beyond the codec (${(((pipelineMs - codecMs) / pipelineMs) * 100).toFixed(0)}% of the pipeline's time; ratio codec/bare ${(baseMs / codecMs).toFixed(2)}x)`,
);
const steadyMiB = ((heapAfter - heapWarm) / 1024 / 1024).toFixed(2);
out(
  `heap growth over the run : ${((heapAfter - heapBefore) / 1024 / 1024).toFixed(1)} MiB from before the transport was created; ${steadyMiB} MiB from message ${CHUNK.toLocaleString('en')} on (steady state; goal <= 1 MiB: ${gc ? verdict(steadyMiB, 1, true) : 'not judged without --expose-gc'})`,
);
