/**
 * Allocations per message of Iggy's rented (pooled) paths against the copying paths, over 1M
 * messages of 1 KiB each (BENCH_MESSAGES, BENCH_PAYLOAD to change), batches of 100:
 *
 * - send, copying: `client.sendMessages(stream, topic, p, messages)` (the encoder copies each payload into the frame)
 * - send, rented:  `RentedMessageBatchBuilder.add(…)` into a pooled buffer + `client.sendRentedBatch(…)` (frame headers
 *   written in place, the pooled buffer itself goes to the socket), the buffer back in the pool after the send
 * - typed JSON send: `serialize` (an array per item) against `write` (UTF-8 straight into the send buffer)
 * - receive, copying: `client.pollMessages(…)` (a reply buffer of its own per poll), each message as the consumer yields it
 * - receive, rented: `client.pollMessagesPooled(…, pool)` (the reply assembled in a pooled buffer), each message a
 *   `RentedReceivedMessage` disposed after use, the buffer back in the pool with the last one
 *
 * Allocation is measured in chunks of 1 000 messages as the growth of the V8 heap (`heapUsed`) plus
 * the growth of ArrayBuffer memory (`arrayBuffers`, where payload bytes live), keeping only chunks
 * that start from a collected heap and during which no garbage collection ran (a GC would hide
 * what the chunk allocated); bytes per message = sum over clean chunks / messages in them. The server is a sink in a child process (it
 * answers sends with OK and every poll with the same canned reply of 100 × 1 KiB), so none of its
 * memory is counted. Run with `npm run bench:iggy-alloc`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { IggyClient } from '../runtime/iggy/client.js';
import { RentedPollBuffer, RentedReceivedMessage } from '../runtime/iggy/consumer.js';
import { BufferPool, RentedMessageBatchBuilder, type RentedPayloadWriter } from '../runtime/iggy/pooled-batches.js';
import { encodeLoginReply } from '../runtime/iggy/protocol/v0_11/commands/login-register.js';
import { encodeBatch } from '../runtime/iggy/protocol/v0_11/commands/messages.js';
import { decodeFrame, encodeReply, frameSize, HEADER_SIZE, VERSION } from '../runtime/iggy/protocol/v0_11/header.js';
import { Writer } from '../runtime/iggy/protocol/wire.js';
import { JsonSerializer } from '../runtime/iggy/typed-builders.js';

const PAYLOAD = Number(process.env['BENCH_PAYLOAD'] ?? 1024);
const BATCH = 100;
const CHUNK = 1_000;

/** The sink server (child process): OK to everything, a canned poll reply to every poll. */
function serve(): void {
  const payload = new Uint8Array(PAYLOAD).map((_, i) => 97 + (i % 26));
  const batch = encodeBatch(Array.from({ length: BATCH }, (_, i) => ({ id: BigInt(i + 1), originTimestamp: 1n, payload })));
  const pollBody = new Writer(batch.length + 16)
    .u32(0)
    .u64(BigInt(BATCH - 1))
    .u32(BATCH)
    .bytes(batch)
    .finish();
  const login = encodeLoginReply({ userId: 0, session: 42n, serverProtocolVersion: VERSION, serverVersion: 'bench-sink' });
  const server = createServer((socket) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= HEADER_SIZE) {
        const size = frameSize(pending.subarray(0, HEADER_SIZE));
        if (pending.length < size) break;
        const frame = decodeFrame(new Uint8Array(pending.subarray(0, size)));
        pending = pending.subarray(size);
        if (frame.kind !== 'request') continue;
        const { client, request, operation, code } = frame.frame;
        const body = operation === 1 ? login : operation === 2 && code === 100 ? pollBody : undefined;
        socket.write(encodeReply({ client, request, operation, status: 0, ...(body ? { body } : {}) }));
      }
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as { port: number }).port}\n`);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

async function startSink(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the sink server exited with ${code}`)));
  });
  return { port, stop: () => child.stdin.end() };
}

/** When each garbage collection started (performance.now() time). */
const gcTimes: number[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcTimes.push(entry.startTime);
}).observe({ entryTypes: ['gc'] });
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

interface Figure {
  readonly heap: number;
  readonly buffers: number;
  readonly clean: number;
}

/** Bytes allocated per message by `step` (which handles `BATCH` messages per call). */
async function measure(total: number, step: () => Promise<void>, chunk = CHUNK): Promise<Figure> {
  for (let i = 0; i < 20; i++) await step(); // warm up
  let heap = 0;
  let buffers = 0;
  let clean = 0;
  for (let done = 0; done < total; done += chunk) {
    // Each chunk starts from a collected heap, once the ArrayBuffers it freed are swept (that happens concurrently).
    (globalThis as { gc?: () => void }).gc?.();
    for (let last = -1, now = process.memoryUsage().arrayBuffers; now !== last; last = now, now = process.memoryUsage().arrayBuffers)
      await tick();
    const start = performance.now();
    const before = process.memoryUsage();
    for (let i = 0; i < chunk / BATCH; i++) await step();
    const after = process.memoryUsage();
    const end = performance.now();
    await tick(); // let the GC observer report
    if (gcTimes.some((t) => t >= start && t <= end)) continue;
    heap += after.heapUsed - before.heapUsed;
    buffers += after.arrayBuffers - before.arrayBuffers;
    clean += chunk;
  }
  return { heap: heap / clean, buffers: buffers / clean, clean };
}

async function main(): Promise<void> {
  const total = Number(process.env['BENCH_MESSAGES'] ?? 1_000_000);
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('run with --expose-gc (npm run bench:iggy-alloc)');
  const sink = await startSink();
  const client = new IggyClient({ host: '127.0.0.1', port: sink.port, heartbeatMs: 0 });
  await client.connect();
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  const fmt = (f: Figure): string =>
    `${(f.heap + f.buffers).toFixed(0)} B/msg (heap ${f.heap.toFixed(0)}, array buffers ${f.buffers.toFixed(0)}; ${f.clean} msgs in GC-free chunks)`;
  const partition = { kind: 'partition', id: 0 } as const;
  const payload = new Uint8Array(PAYLOAD).map((_, i) => 97 + (i % 26));
  const now = BigInt(Date.now()) * 1000n;
  const writeBytes = (bytes: Uint8Array, writer: RentedPayloadWriter): void => writer.write(bytes);
  const pool = new BufferPool();
  out(`Iggy allocations per message: ${total} messages of ${PAYLOAD} B in batches of ${BATCH}, against a sink server in a child process`);

  const sendCopy = await measure(total, async () => {
    const messages = [];
    for (let i = 0; i < BATCH; i++) messages.push({ payload, originTimestamp: now });
    await client.sendMessages('s', 't', partition, messages);
  });
  const sendRented = await measure(total, async () => {
    const builder = new RentedMessageBatchBuilder(BATCH * (PAYLOAD + 64), pool);
    for (let i = 0; i < BATCH; i++) builder.add(payload, writeBytes);
    const batch = builder.build();
    try {
      await client.sendRentedBatch('s', 't', partition, batch);
    } finally {
      batch.dispose();
    }
  });
  out(`send, copying (sendMessages):            ${fmt(sendCopy)}`);
  out(`send, rented (builder + sendRentedBatch): ${fmt(sendRented)}`);
  out(`  → rented/copying: ${((sendRented.heap + sendRented.buffers) / (sendCopy.heap + sendCopy.buffers)).toFixed(3)}`);

  const order = { id: 'o-1', note: 'x'.repeat(PAYLOAD - 40) };
  const json = new JsonSerializer<typeof order>();
  const typedArray = await measure(
    total,
    async () => {
      const messages = [];
      for (let i = 0; i < BATCH; i++) messages.push({ payload: json.serialize(order), originTimestamp: now });
      await client.sendMessages('s', 't', partition, messages);
    },
    200,
  ); // it allocates so much that a longer chunk always sees a GC
  const write = (item: typeof order, writer: RentedPayloadWriter): void => json.write(item, writer);
  const typedWrite = await measure(
    total,
    async () => {
      const builder = new RentedMessageBatchBuilder(BATCH * (PAYLOAD + 64), pool);
      for (let i = 0; i < BATCH; i++) builder.add(order, write);
      const batch = builder.build();
      try {
        await client.sendRentedBatch('s', 't', partition, batch);
      } finally {
        batch.dispose();
      }
    },
    200,
  );
  out(`typed JSON send, serialize() + copy:     ${fmt(typedArray)}`);
  out(`typed JSON send, write() into the buffer: ${fmt(typedWrite)}`);
  out(
    `  → write/serialize: ${((typedWrite.heap + typedWrite.buffers) / (typedArray.heap + typedArray.buffers)).toFixed(3)} (both include JSON.stringify's string)`,
  );

  const poll = {
    consumer: { kind: 'consumer', id: 1 },
    stream: 's',
    topic: 't',
    partition: 0,
    strategy: { kind: 'next' },
    count: BATCH,
    autoCommit: false,
  } as const;
  let sum = 0;
  const receiveCopy = await measure(total, async () => {
    const reply = await client.pollMessages(poll);
    for (const m of reply.messages) {
      const message = { ...m, partition: 0 };
      sum += message.payload[PAYLOAD - 1]!;
    }
  });
  const receiveRented = await measure(total, async () => {
    const { reply, buffer } = await client.pollMessagesPooled(poll, pool);
    const shared = new RentedPollBuffer(buffer, pool, reply.messages.length);
    for (const m of reply.messages) {
      const message = new RentedReceivedMessage({ ...m, partition: 0 }, shared);
      sum += message.payload[PAYLOAD - 1]!;
      message.dispose();
    }
  });
  out(`receive, copying (pollMessages):          ${fmt(receiveCopy)}`);
  out(`receive, rented (pollMessagesPooled):     ${fmt(receiveRented)}`);
  out(`  → rented/copying: ${((receiveRented.heap + receiveRented.buffers) / (receiveCopy.heap + receiveCopy.buffers)).toFixed(3)}`);
  out(`pool: ${JSON.stringify(pool.stats)} (${pool.pooled} buffers pooled); checksum ${sum}`);
  await client.close();
  sink.stop();
}

if (process.argv[2] === 'serve') serve();
else await main();
