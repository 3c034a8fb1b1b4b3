/**
 * `keiyaku mock`: publishes schema-valid messages of one channel — the contract's examples, then
 * values built from its schemas (generator/mock) — to the broker of the service's configuration,
 * or prints them as JSON lines (`--dry-run`). Every message is checked against the contract (the
 * channel descriptors `keiyaku dead-letters redrive` uses, built from the model) before the first
 * is sent, so a run that cannot complete sends nothing.
 */
import type { AnyChannel, AnyContractMessage } from '@keiyaku/runtime/codegen-v1';
import { formatDiagnostic } from '../diagnostics.js';
import { isKeiyakuError } from '../errors.js';
import type { MockMessage } from '../mock/mock-messages.js';
import type { ContractModel } from '../model/contract-model.js';
import { MOCK_USAGE, MockCommandError, type MockCommandOptions, parse } from './mock/options.js';
import { mockTransport } from './mock/transport.js';

export { MOCK_USAGE } from './mock/options.js';

export interface MockIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The environment the transport's configuration is read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One message ready to send: the contract message, its address and its publish options. */
interface Ready {
  readonly mock: MockMessage;
  readonly message: AnyContractMessage;
  readonly address: string;
  readonly key: string | undefined;
  /** The payload as JSON: as built, or its codec's JSON view (Avro, Protobuf). */
  readonly json: unknown;
}

export async function runMock(argv: readonly string[], io: MockIo): Promise<number> {
  let options: MockCommandOptions | 'help';
  try {
    options = parse(argv, io.cwd);
  } catch (error) {
    if (!isKeiyakuError(error)) throw error;
    io.stderr(`keiyaku: ${error.message}\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(`${MOCK_USAGE}\n`);
    return 0;
  }
  try {
    const { model, channel } = await contractChannel(options, io);
    const ready = await prepare(options, model, channel);
    if (options.dryRun) {
      for (const r of ready) io.stdout(`${JSON.stringify(dryRunLine(channel, r))}\n`);
      return 0;
    }
    return await publish(options, io, channel, ready);
  } catch (error) {
    if (!isKeiyakuError(error)) throw error;
    if (options.json) io.stdout(`${JSON.stringify({ ok: false, error: { code: error.code, message: error.message } }, null, 2)}\n`);
    else io.stderr(`keiyaku: ${error.message}\n`);
    return 2;
  }
}

/** The contract's model and the runtime descriptor of the channel asked for. */
async function contractChannel(o: MockCommandOptions, io: MockIo): Promise<{ model: ContractModel; channel: AnyChannel }> {
  const { compileContract } = await import('../index.js');
  const compiled = await compileContract(o.spec, { cwd: io.cwd });
  if (compiled.model === undefined) {
    for (const d of compiled.diagnostics) if (d.severity === 'error') io.stderr(`${formatDiagnostic(d)}\n`);
    throw new MockCommandError(`${o.spec} is not valid; nothing sent`);
  }
  const model = compiled.model;
  const { findChannel } = await import('../mock/mock-messages.js');
  const found = findChannel(model, o.channel);
  const { contractChannels } = await import('./contract-channels.js');
  const { contractCodecs } = await import('./payload-codecs.js');
  const codecs = await contractCodecs(model);
  for (const line of codecs.missing) io.stderr(`keiyaku: warning: ${line}\n`);
  return { model, channel: contractChannels(model, codecs.codecOf).get(found.id)! };
}

const describe = (m: MockMessage): string => (m.origin === 'example' ? `example ${m.example} of ${m.type}` : `a built ${m.type}`);

/** Builds the messages and checks each against the contract: the payload (create) and the headers. */
async function prepare(o: MockCommandOptions, model: ContractModel, channel: AnyChannel): Promise<Ready[]> {
  const { ContractMocks } = await import('../mock/mock-messages.js');
  const mocks = new ContractMocks(model).channel(channel.id, o.count, { seed: o.seed, examples: o.examples, parameters: o.parameters });
  for (const [name, value] of Object.entries(o.parameters)) {
    const rule = channel.parameterRules[name];
    if (rule?.enum !== undefined && !rule.enum.includes(value))
      throw new MockCommandError(`--param ${name}=${value}: the contract allows ${rule.enum.join(', ')}`);
    if (rule?.pattern !== undefined && !new RegExp(rule.pattern, 'u').test(value))
      throw new MockCommandError(`--param ${name}=${value}: the contract asks for values matching ${JSON.stringify(rule.pattern)}`);
  }
  return mocks.map((mock) => {
    const descriptor = channel.message(mock.type);
    if (descriptor === undefined) throw new MockCommandError(`${mock.type} cannot be encoded here (see the warning above); nothing sent`);
    let message: AnyContractMessage;
    try {
      message = descriptor.create(mock.payload);
      const issues = descriptor.headers?.validate(mock.headers ?? {}) ?? [];
      if (issues.length > 0) throw new MockCommandError(`header ${issues[0]!.path}: ${issues[0]!.message}`);
    } catch (error) {
      if (!isKeiyakuError(error)) throw error;
      const fix =
        mock.origin === 'example'
          ? 'fix the example in the contract, or pass --no-examples'
          : 'this is a bug of keiyaku mock: please report it';
      throw new MockCommandError(`${describe(mock)} does not satisfy the contract: ${error.message}; ${fix}; nothing sent`, error);
    }
    const address =
      typeof channel.address === 'string' ? channel.address : (channel.address as (p: object) => string)(mock.parameters ?? {});
    const json = descriptor.codec === undefined ? mock.payload : descriptor.codec.toJson(message);
    return { mock, message, address, key: descriptor.key(message), json };
  });
}

function dryRunLine(channel: AnyChannel, r: Ready): Record<string, unknown> {
  const m = r.mock;
  return {
    channel: channel.id,
    address: r.address,
    type: m.type,
    origin: m.origin,
    ...(m.example === undefined ? {} : { example: m.example }),
    ...(r.key === undefined ? {} : { key: r.key }),
    ...(m.parameters === undefined ? {} : { parameters: m.parameters }),
    ...(m.headers === undefined ? {} : { headers: m.headers }),
    payload: r.json,
  };
}

/** Sends every message (paced by --rate), then says what went where; exit 1 when a send failed. */
async function publish(o: MockCommandOptions, io: MockIo, channel: AnyChannel, ready: readonly Ready[]): Promise<number> {
  const { transport, where, schemaRegistry } = await mockTransport(o, io.env ?? process.env, io.stderr);
  const { Publisher } = await import('@keiyaku/runtime');
  const { frameByContract } = await import('@keiyaku/runtime/registry');
  // A message whose Kafka binding puts the schema id in the payload travels in the registry's wire format, as a host sends it;
  // without a registry configured that is refused before anything is sent.
  let framed: AnyChannel;
  try {
    framed = frameByContract(channel, schemaRegistry, transport);
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
  let sent = 0;
  try {
    const publisher = new Publisher<AnyContractMessage, Record<string, string>>(
      framed as AnyChannel & { address: string | ((p: Record<string, string>) => string) },
      { producer: transport.producer(), transport, logger: quiet },
      { source: 'keiyaku-mock' },
    );
    const send = (r: Ready): Promise<void> =>
      publisher
        .publish(r.message, {
          ...(r.mock.headers === undefined ? {} : { headers: r.mock.headers as never }),
          ...(r.mock.parameters === undefined ? {} : { parameters: r.mock.parameters }),
        })
        .then(() => {
          sent++;
        });
    try {
      if (o.rate === undefined) await Promise.all(ready.map(send));
      else {
        const start = performance.now();
        for (let i = 0; i < ready.length; i++) {
          const wait = start + (i * 1000) / o.rate - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          await send(ready[i]!);
        }
      }
    } finally {
      await publisher.close().catch(() => {});
    }
  } catch (error) {
    if (!isKeiyakuError(error)) throw error;
    io.stderr(`keiyaku: sent ${sent} of ${ready.length} messages to ${channel.id} on ${where}, then: ${error.message}\n`);
    return 1;
  } finally {
    await transport.close().catch(() => {});
  }
  summary(o, io, channel, ready, where);
  return 0;
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function summary(o: MockCommandOptions, io: MockIo, channel: AnyChannel, ready: readonly Ready[], where: string): void {
  const examples = ready.filter((r) => r.mock.origin === 'example').length;
  const addresses = [...new Set(ready.map((r) => r.address))];
  if (o.json) {
    io.stdout(
      `${JSON.stringify({ ok: true, channel: channel.id, addresses, transport: where, published: ready.length, examples, generated: ready.length - examples, seed: o.seed }, null, 2)}\n`,
    );
    return;
  }
  io.stdout(
    `keiyaku: published ${ready.length} message${ready.length === 1 ? '' : 's'} of ${channel.id} to ${addresses.join(', ')} on ${where} ` +
      `(${examples} from examples, ${ready.length - examples} built; seed ${o.seed})\n`,
  );
}
