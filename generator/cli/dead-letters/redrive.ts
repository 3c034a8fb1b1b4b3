// Redrive of a parked message: the runtime's one redrive, with the service's transport (the generator,
// ajv and the transport load only for a redrive, so list/show/remove start fast).
import {
  type DeadLetterStore,
  type Logger,
  missingDestination,
  planRedrive,
  type RedriveOptions,
  type RedriveTarget,
  redrive,
  type Transport,
} from '@keiyaku/runtime';
import { confirm, DeadLettersError, type DeadLettersIo, type Options } from './options.js';
import { describeItem } from './output.js';
import type { DeadItem } from './sources.js';

const DEPRECATED_KAFKA_BROKERS = 'KAFKA_BROKERS';

/**
 * The environment the transport is configured from: the process's, with the deprecated flags
 * and KAFKA_BROKERS mapped onto the KEIYAKU_* variables they stand for (each with a warning).
 */
function transportEnvironment(
  o: Options,
  env: Readonly<Record<string, string | undefined>>,
  warn: (text: string) => void,
): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = { ...env };
  // Not a keiyaku variable: the configuration must not see it.
  delete vars[DEPRECATED_KAFKA_BROKERS];
  const legacy = env[DEPRECATED_KAFKA_BROKERS];
  let brokers = o.brokers;
  if (brokers !== undefined)
    warn("--brokers is deprecated: set KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS (the service's own configuration)");
  else if (legacy && !vars['KEIYAKU_TRANSPORT'] && !vars['KEIYAKU_KAFKA_BOOTSTRAP_SERVERS']) {
    warn(
      `${DEPRECATED_KAFKA_BROKERS} is deprecated for keiyaku dead-letters: set KEIYAKU_TRANSPORT=kafka and KEIYAKU_KAFKA_BOOTSTRAP_SERVERS`,
    );
    brokers = legacy;
  }
  if (brokers !== undefined) {
    vars['KEIYAKU_TRANSPORT'] = 'kafka';
    vars['KEIYAKU_KAFKA_BOOTSTRAP_SERVERS'] = brokers;
  }
  if (o.namespace !== undefined) {
    warn('--namespace is deprecated: set KEIYAKU_KAFKA_NAMESPACE');
    vars['KEIYAKU_KAFKA_NAMESPACE'] = o.namespace;
  }
  return vars;
}

/**
 * The transport of the service's configuration (configure()'s rules: keiyaku.config.json's `runtime` object
 * when there is one, every KEIYAKU_* variable over it); memory is refused.
 */
async function redriveTransport(o: Options, io: DeadLettersIo): Promise<{ transport: Transport; where: string }> {
  const warn = (text: string): void => io.stderr(`keiyaku: warning: ${text}\n`);
  const env = transportEnvironment(o, io.env ?? process.env, warn);
  const { createTransport, resolveConfig } = await import('@keiyaku/runtime/config');
  const resolved =
    o.runtime === undefined
      ? resolveConfig(undefined, { env })
      : resolveConfig(o.runtime.config, { env, withEnvironment: true, file: o.runtime.file });
  if (resolved.transport === 'memory')
    throw new DeadLettersError(
      "redrive republishes to the service's broker: set KEIYAKU_TRANSPORT=kafka with KEIYAKU_KAFKA_BOOTSTRAP_SERVERS (and the " +
        "service's KEIYAKU_KAFKA_NAMESPACE, SASL, TLS or Event Hubs settings), or KEIYAKU_TRANSPORT=iggy with KEIYAKU_IGGY_ADDRESS " +
        '(nothing changed)',
    );
  // Warnings and errors of the transport (an unreachable broker) reach the operator; the rest is noise here.
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => warn(message),
    error: (message, fields) => io.stderr(`keiyaku: ${message}${fields?.['error'] ? `: ${String(fields['error'])}` : ''}\n`),
  };
  const transport = await createTransport(resolved, { logger });
  const where = resolved.kafka ? resolved.kafka.brokers.join(',') : resolved.iggy ? `${resolved.iggy.host}:${resolved.iggy.port}` : '';
  return { transport, where: `${resolved.transport} at ${String(where)}` };
}

function describeTarget(target: RedriveTarget): string {
  const kind = target.transport === 'kafka' ? 'Kafka topic' : target.transport === 'iggy' ? 'Iggy stream/topic' : target.transport;
  return `${kind} ${target.destination}${target.destination === target.address ? '' : ` (address ${target.address})`}`;
}

function targetJson(target: RedriveTarget): Record<string, unknown> {
  return { ...target, exists: target.exists ?? null };
}

/** Redrives a parked message with the runtime's one redrive; returns the exit code. */
export async function redriveParked(o: Options, io: DeadLettersIo, store: DeadLetterStore, item: DeadItem): Promise<number> {
  const { compileContract } = await import('../../index.js');
  const compiled = await compileContract(o.spec, { cwd: io.cwd });
  if (compiled.model === undefined) {
    const first = compiled.diagnostics.find((d) => d.severity === 'error');
    throw new DeadLettersError(`${o.spec} is not a valid contract${first ? `: ${first.message}` : ''}; nothing changed`);
  }
  const model = compiled.model;
  const { contractChannels } = await import('../contract-channels.js');
  const { contractCodecs } = await import('../payload-codecs.js');
  const codecs = await contractCodecs(model);
  for (const line of codecs.missing) io.stderr(`keiyaku: warning: ${line}\n`);
  const channels = contractChannels(model, codecs.codecOf);
  const { transport, where } = await redriveTransport(o, io);
  try {
    const options: RedriveOptions = {
      transport,
      deadLetters: store,
      channel: (id) => channels.get(id) ?? channels.get(model.channels.find((c) => c.identifier === id)?.id ?? ''),
      unknownChannel: () =>
        `which ${o.spec} does not have (channels: ${model.channels.map((c) => c.id).join(', ')}); pass the contract the service runs with --spec`,
    };
    const target = await planRedrive(item.id, options);
    const line = `${describeItem(item)} goes to ${describeTarget(target)} on ${where}`;
    if (o.dryRun) {
      if (o.json) io.stdout(`${JSON.stringify({ ok: target.exists !== false, dryRun: true, target: targetJson(target) }, null, 2)}\n`);
      else io.stdout(`keiyaku: dry run: ${line}${target.exists === undefined ? ' (whether it exists is not known)' : ''}; nothing sent\n`);
      if (target.exists === false) {
        if (!o.json) io.stderr(`keiyaku: ${missingDestination(target).message}\n`);
        return 2;
      }
      return 0;
    }
    if (target.exists === false) throw missingDestination(target);
    if (!o.json) io.stderr(`keiyaku: ${line}\n`);
    if (!(await confirm(io, o, `republish ${describeItem(item)} to ${describeTarget(target)}, then remove it?`))) {
      io.stderr('keiyaku: not confirmed; nothing changed\n');
      return 1;
    }
    const result = await redrive(item.id, options);
    if (o.json)
      io.stdout(
        `${JSON.stringify({ ok: true, redriven: item.id, topic: result.target.destination, target: targetJson(result.target), removed: result.removed }, null, 2)}\n`,
      );
    else
      io.stdout(
        `keiyaku: republished ${describeItem(item)} to ${describeTarget(result.target)}${result.removed ? ' and removed it' : '; it was already removed by someone else'}\n`,
      );
    return 0;
  } finally {
    await transport.close().catch(() => {});
  }
}
