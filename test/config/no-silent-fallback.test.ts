// Configuration never falls back silently: every KEIYAKU_* variable outside the documented table is
// a problem with a "did you mean", all problems are listed at once (and a service that configures
// itself from them exits non-zero), health() and the operations page say which transport and
// store were chosen and from where, a memory part chosen by default is one warning at start, and
// the host's logger reaches a transport built by hand.
import { IggyTransport } from '@keiyaku/iggy';
import { KafkaTransport } from '@keiyaku/kafka';
import { createMessaging, InMemoryDeadLetterStore, type Logger } from '@keiyaku/runtime';
import {
  ConfigurationError,
  choiceOf,
  configure,
  ENVIRONMENT_VARIABLES,
  OTHER_ENVIRONMENT_VARIABLES,
  resolveConfig,
} from '@keiyaku/runtime/config';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { serveOperations } from '@keiyaku/runtime/ops';
import { SqliteDeadLetterStore } from '@keiyaku/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { BookIntegrationEvents } from '../../generated/index.js';
import { borrowed } from '../books.js';
import { run, waitFor } from '../helpers.js';
import { IggyProtocolDouble } from '../iggy/protocol-double.js';
import { kafkaBrokers, kafkaSkipReason } from '../kafka/kafka-env.js';

function problemsOf(action: () => unknown): { key: string; message: string }[] {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return [...(error as ConfigurationError).problems];
  }
  throw new Error('expected a ConfigurationError');
}

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function recordingLogger(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const put = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    void lines.push({ level, message, fields: { ...fields } });
  return { logger: { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') }, lines };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a KEIYAKU_* variable outside the table is a problem, never ignored', () => {
  it('KEIYAKU_TRANSPROT=kafka: refused with "did you mean KEIYAKU_TRANSPORT?", nothing built', async () => {
    const env = { KEIYAKU_TRANSPROT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9' };
    expect(problemsOf(() => resolveConfig(undefined, { env }))).toEqual([
      { key: 'KEIYAKU_TRANSPROT', message: 'unknown keiyaku variable; did you mean KEIYAKU_TRANSPORT?' },
    ]);
    await expect(configure(undefined, { env })).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('KEIYAKU_DEADLETTERS=postgres: refused with "did you mean KEIYAKU_DEAD_LETTERS?"', () => {
    expect(problemsOf(() => resolveConfig(undefined, { env: { KEIYAKU_DEADLETTERS: 'postgres' } }))).toEqual([
      { key: 'KEIYAKU_DEADLETTERS', message: 'unknown keiyaku variable; did you mean KEIYAKU_DEAD_LETTERS?' },
    ]);
  });

  it('lists every problem at once: typos, letter case, the property family and a bad value', () => {
    let error: unknown;
    try {
      resolveConfig(undefined, {
        env: {
          KEIYAKU_TRANSPROT: 'kafka',
          KEIYAKU_DEADLETTERS_PATH: 'dead.db',
          keiyaku_dead_letters: 'sqlite',
          KEIYAKU_KAFKA_PROPERTIES_SASL_PASSWORD: 'secret-value',
          KEIYAKU_CONTENT_MODE: 'binary',
          KEIYAKU_NOTHING_LIKE_IT_AT_ALL: '1',
          KEIYAKU_IGGY_HEARTBEAT_MS: 'often',
        },
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { key: 'KEIYAKU_TRANSPROT', message: 'unknown keiyaku variable; did you mean KEIYAKU_TRANSPORT?' },
        { key: 'KEIYAKU_DEADLETTERS_PATH', message: 'unknown keiyaku variable; did you mean KEIYAKU_DEAD_LETTERS_PATH?' },
        { key: 'keiyaku_dead_letters', message: 'unknown keiyaku variable; did you mean KEIYAKU_DEAD_LETTERS?' },
        {
          key: 'KEIYAKU_KAFKA_PROPERTIES_SASL_PASSWORD',
          message: 'unknown keiyaku variable; did you mean KEIYAKU_KAFKA_PROPERTY_SASL_PASSWORD?',
        },
        { key: 'KEIYAKU_CONTENT_MODE', message: 'unknown keiyaku variable; did you mean KEIYAKU_KAFKA_CONTENT_MODE?' },
        { key: 'KEIYAKU_NOTHING_LIKE_IT_AT_ALL', message: 'unknown keiyaku variable' },
        { key: 'KEIYAKU_IGGY_HEARTBEAT_MS', message: 'must be an integer, got "often"' },
      ]),
    );
    expect(problems).toHaveLength(7);
    expect((error as Error).message).toMatch(/^the configuration has 7 problems:\n/);
    expect((error as Error).message).not.toContain('secret-value');
  });

  it('the variables other parts of keiyaku read are accepted, and no table entry is suggested against', () => {
    const env = Object.fromEntries(OTHER_ENVIRONMENT_VARIABLES.map((v) => [v.name, 'x']));
    expect(resolveConfig(undefined, { env }).transport).toBe('memory');
    const names = ENVIRONMENT_VARIABLES.map((v) => v.name);
    expect(OTHER_ENVIRONMENT_VARIABLES.filter((v) => names.includes(v.name))).toEqual([]);
  });

  it('a service that configures itself from a misspelt environment exits non-zero and names the variable', async () => {
    const script = `import { configure } from '@keiyaku/runtime/config';
const { transport } = await configure();
process.stdout.write('started on ' + transport.name + '\\n');`;
    const result = await run(
      process.execPath,
      ['--import', 'tsx/esm', '--conditions=keiyaku-source', '--input-type=module', '--eval', script],
      { env: { KEIYAKU_TRANSPROT: 'kafka' } },
    );
    expect(result.stdout).toBe('');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('KEIYAKU_TRANSPROT: unknown keiyaku variable; did you mean KEIYAKU_TRANSPORT?');
  }, 60_000);
});

describe('a file with the environment over it: each part says where it came from', () => {
  const file = {
    Transport: 'memory',
    deadLetters: { store: 'memory' },
    kafka: { bootstrapServers: '127.0.0.1:9' },
  };

  it('the environment wins key by key; the rest comes from the file; the file is named in problems', () => {
    const resolved = resolveConfig(file, {
      file: 'keiyaku.json',
      withEnvironment: true,
      env: { KEIYAKU_DEAD_LETTERS: 'sqlite', KEIYAKU_DEAD_LETTERS_PATH: ':memory:', KEIYAKU_KAFKA_NAMESPACE: 'staging' },
    });
    expect(resolved.chosen).toEqual({
      transport: { kind: 'memory', source: 'file', from: 'keiyaku.json: transport' },
      deadLetters: { kind: 'sqlite', source: 'environment', from: 'KEIYAKU_DEAD_LETTERS' },
    });
    expect(resolved.kafka).toEqual({ brokers: ['127.0.0.1:9'], namespace: 'staging' });
    expect(
      problemsOf(() =>
        resolveConfig(
          { transport: 'kafka', kafka: { bootstrapServer: 'x:1' } },
          { file: 'keiyaku.json', withEnvironment: true, env: { KEIYAKU_TRANSPROT: 'iggy' } },
        ),
      ).map((p) => p.key),
    ).toEqual(['KEIYAKU_TRANSPROT', 'keiyaku.json: kafka.bootstrapServer', 'keiyaku.json: kafka.bootstrapServers']);
  });

  it('without withEnvironment an object is read alone; without a file its keys are plain paths', () => {
    const resolved = resolveConfig({ deadLetters: { store: 'memory' } }, { env: { KEIYAKU_TRANSPORT: 'kafka' } });
    expect(resolved.chosen).toEqual({
      transport: { kind: 'memory', source: 'default' },
      deadLetters: { kind: 'memory', source: 'object', from: 'deadLetters.store' },
    });
  });
});

describe('health() and the operations page show what was chosen and from where', () => {
  it('defaults, the environment, and parts built in code', async () => {
    const byDefault = createMessaging({ ...(await configure(undefined, { env: {} })), logger: recordingLogger().logger });
    expect(byDefault.health().configuration).toEqual({
      transport: { kind: 'memory', source: 'default' },
      deadLetters: { kind: 'memory', source: 'default' },
    });
    const parts = await configure(undefined, {
      env: {
        KEIYAKU_TRANSPORT: 'memory',
        KEIYAKU_DEAD_LETTERS: 'sqlite',
        KEIYAKU_DEAD_LETTERS_PATH: ':memory:',
        KEIYAKU_DEAD_LETTERS_MIGRATE: 'true',
      },
    });
    expect(parts.deadLetters).toBeInstanceOf(SqliteDeadLetterStore);
    const fromEnvironment = createMessaging({ ...parts, logger: recordingLogger().logger });
    cleanups.push(() => fromEnvironment.stop());
    expect(fromEnvironment.health().configuration).toEqual({
      transport: { kind: 'memory', source: 'environment', from: 'KEIYAKU_TRANSPORT' },
      deadLetters: { kind: 'sqlite', source: 'environment', from: 'KEIYAKU_DEAD_LETTERS' },
    });
    const byHand = createMessaging({ transport: new InMemoryTransport(), logger: recordingLogger().logger });
    expect(byHand.health().configuration).toEqual({
      transport: { kind: 'memory', source: 'code' },
      deadLetters: { kind: 'memory', source: 'default' },
    });
    const withStore = createMessaging({
      transport: new InMemoryTransport(),
      deadLetters: new InMemoryDeadLetterStore(),
      logger: recordingLogger().logger,
    });
    expect(withStore.health().configuration?.deadLetters).toEqual({ kind: 'InMemoryDeadLetterStore', source: 'code' });
  });

  it('the overview page and /readyz name each part and its source', async () => {
    const parts = await configure(
      { deadLetters: { store: 'memory' } },
      { file: 'service.json', withEnvironment: true, env: { KEIYAKU_TRANSPORT: 'memory' } },
    );
    const host = createMessaging({ ...parts, logger: recordingLogger().logger });
    await host.start();
    const server = await serveOperations(host, { port: 0, refreshSeconds: 1 });
    cleanups.push(
      () => host.stop(),
      () => server.close(),
    );
    const page = await (await fetch(`${server.url}/`)).text();
    expect(page).toContain(
      'transport <strong>memory</strong> <small data-source="environment">from environment <code>KEIYAKU_TRANSPORT</code></small>',
    );
    expect(page).toContain(
      'dead letters <strong>memory</strong> <small data-source="file">from file <code>service.json: deadLetters.store</code></small>',
    );
    const health = (await (await fetch(`${server.url}/readyz`)).json()) as { configuration?: unknown };
    expect(health.configuration).toEqual({
      transport: { kind: 'memory', source: 'environment', from: 'KEIYAKU_TRANSPORT' },
      deadLetters: { kind: 'memory', source: 'file', from: 'service.json: deadLetters.store' },
    });
  });
});

describe('process memory chosen by default is one warning at start', () => {
  const warnings = (lines: readonly Line[]) => lines.filter((l) => l.level === 'warn');

  it('configure() with nothing set: one warning naming both parts, once however often start() is called', async () => {
    const { logger, lines } = recordingLogger();
    const host = createMessaging({ ...(await configure(undefined, { env: {} })), logger });
    await host.start();
    await host.start();
    await host.stop();
    expect(warnings(lines)).toHaveLength(1);
    expect(warnings(lines)[0]!.message).toBe(
      'keiyaku: the transport (set KEIYAKU_TRANSPORT or "transport") and the dead-letter store (set KEIYAKU_DEAD_LETTERS or "deadLetters.store") are in process memory by default: nothing published leaves this process, and parked messages are lost on restart',
    );
    expect(warnings(lines)[0]!.fields).toEqual({ transport: 'memory (default)', deadLetters: 'memory (default)' });
  });

  it('memory chosen on purpose (environment, or built in code for a test) says nothing', async () => {
    const { logger, lines } = recordingLogger();
    const chosen = createMessaging({
      ...(await configure(undefined, { env: { KEIYAKU_TRANSPORT: 'memory', KEIYAKU_DEAD_LETTERS: 'memory' } })),
      logger,
    });
    await chosen.start();
    await chosen.stop();
    const test = createMessaging({ transport: new InMemoryTransport(), logger });
    await test.start();
    await test.stop();
    expect(warnings(lines)).toEqual([]);
  });

  it('a store left to its default by configuration is named; the store a host makes when given none is shown in health only', async () => {
    const { logger, lines } = recordingLogger();
    const fromConfiguration = await configure(undefined, {
      env: { KEIYAKU_TRANSPORT: 'kafka', KEIYAKU_KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9' },
    });
    expect(choiceOf(fromConfiguration.deadLetters)).toEqual({ kind: 'memory', source: 'default' });
    const configured = createMessaging({ ...fromConfiguration, logger });
    await configured.start();
    await configured.stop();
    await fromConfiguration.transport.close();
    expect(warnings(lines).map((l) => l.message)).toEqual([
      'keiyaku: the dead-letter store (set KEIYAKU_DEAD_LETTERS or "deadLetters.store") is in process memory by default: parked messages are lost on restart',
    ]);
    expect(warnings(lines)[0]!.fields).toEqual({ transport: 'kafka (environment: KEIYAKU_TRANSPORT)', deadLetters: 'memory (default)' });
    const transport = new KafkaTransport({ brokers: ['127.0.0.1:9'], logger });
    const byHand = createMessaging({ transport, logger });
    await byHand.start();
    await byHand.stop();
    await transport.close();
    expect(warnings(lines)).toHaveLength(1);
    expect(byHand.health().configuration).toEqual({
      transport: { kind: 'kafka', source: 'code' },
      deadLetters: { kind: 'memory', source: 'default' },
    });
  });
});

describe('createMessaging({ logger }) reaches a transport built by hand', () => {
  it('Iggy (protocol double): an eviction, the reconnect and the rejoin reach the host logger; a logger of its own is kept', async () => {
    const server = new IggyProtocolDouble();
    await server.start();
    cleanups.push(() => server.stop());
    const { logger, lines } = recordingLogger();
    const transport = new IggyTransport({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 1_000, heartbeatMs: 0, idleWaitMs: 10 });
    const host = createMessaging({ transport, logger, deadLetters: new InMemoryDeadLetterStore() });
    cleanups.push(() => host.stop());
    const seen = new Set<string>();
    host.subscribe(BookIntegrationEvents, { groupId: 'inventory.book-availability', handle: (m) => void seen.add(m.copyId) });
    await host.start();
    const publisher = host.publisher(BookIntegrationEvents, { key: (m) => m.bookId });
    await publisher.publishMany(['C-1', 'C-2'].map(borrowed));
    await waitFor(() => seen.size === 2, 'the first two arrive');
    server.evictAll(13);
    await publisher.publishMany(['C-3'].map(borrowed));
    await waitFor(() => seen.size === 3, 'the third arrives after the rejoin', 10_000);
    const told = lines.map((line) => line.message);
    expect(told).toContain('iggy: the server evicted this client; it reconnects on its next command');
    expect(told).toContain('iggy: the connection is lost; reconnecting');
    // A transport given a logger of its own keeps it.
    const own = recordingLogger();
    const withOwn = new IggyTransport({ host: '127.0.0.1', port: server.port, logger: own.logger });
    createMessaging({ transport: withOwn, logger });
    const before = lines.length;
    withOwn.logger.warn('iggy: probe');
    expect(own.lines.map((l) => l.message)).toEqual(['iggy: probe']);
    expect(lines).toHaveLength(before);
  });

  (kafkaSkipReason ? describe.skip : describe)(`Kafka (real broker)${kafkaSkipReason ? ` (${kafkaSkipReason})` : ''}`, () => {
    it('the transport speaks through the host logger while it creates a topic', async () => {
      const { logger, lines } = recordingLogger();
      const transport = new KafkaTransport({ brokers: kafkaBrokers.split(','), namespace: `logger-${Date.now()}` });
      const host = createMessaging({ transport, logger });
      cleanups.push(async () => {
        await host.stop();
        await transport.close();
      });
      await transport.provision('config.logger-probe', {});
      expect(lines.filter((l) => l.message === 'kafka: created topic')).toHaveLength(1);
    }, 60_000);
  });
});
