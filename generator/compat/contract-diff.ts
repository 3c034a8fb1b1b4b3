/**
 * Compatibility of a whole AsyncAPI contract: channels, parameters, bindings, message sets,
 * content types, headers and payloads, per direction, with modes, policies and
 * acknowledged breaks.
 *
 * - backward: consumers on the new contract can read what producers on the old one wrote.
 * - forward: consumers still on the old contract can read what producers on the new one write.
 * - full: both. The `-transitive` variants check against every recorded earlier version.
 */
import type { SourceLocation } from '../diagnostics.js';
import type { ChannelModel, ContractModel, MessageModel } from '../model/contract-model.js';
import { type CompatSeverity, type Direction, type Finding, findingId } from './findings.js';
import { diffNodes, diffSchemas, type Policy } from './schema-diff.js';

export const MODES = ['backward', 'forward', 'full', 'backward-transitive', 'forward-transitive', 'full-transitive', 'none'] as const;
export type Mode = (typeof MODES)[number];
export const POLICIES = ['strict', 'lenient'] as const;

/**
 * Defaults for integration events: consumers upgrade first (backward), and keiyaku's decoders
 * ignore unknown fields of open objects (lenient), so adding an optional field is compatible.
 * Lenient never softens changes to closed objects: those decoders reject undeclared fields.
 */
export const DEFAULT_MODE: Mode = 'backward';
export const DEFAULT_POLICY: Policy = 'lenient';

export interface CheckResult {
  readonly findings: readonly (Finding & { readonly acknowledged?: { readonly reason: string; readonly version: string } })[];
  readonly breaking: number;
  readonly acknowledged: number;
  readonly compatible: number;
  readonly info: number;
}

export function directions(mode: Mode): Direction[] {
  const base = mode.replace('-transitive', '');
  return base === 'none' ? [] : base === 'full' ? ['backward', 'forward'] : [base as Direction];
}

type Emit = (finding: Omit<Finding, 'id' | 'direction'> & { direction?: Direction }) => void;

function parametersKey(channel: ChannelModel): string {
  return channel.parameters.map((p) => `${p.name}${p.enum ? `:${p.enum.join('|')}` : ''}`).join(',');
}

function compareChannel(before: ChannelModel, after: ChannelModel, emit: Emit): void {
  const channel = before.id;
  const where = after.location;
  if (before.address !== after.address) {
    emit({
      code: 'channel_address_changed',
      severity: 'breaking',
      channel,
      pointer: '',
      before: before.address,
      after: after.address,
      detail: `address ${before.address} → ${after.address}: producers and consumers would meet at different topics`,
      hint: 'keep the address; add a new channel and migrate',
      ...(where ? { location: where } : {}),
    });
  }
  if (parametersKey(before) !== parametersKey(after)) {
    emit({
      code: 'channel_parameters_changed',
      severity: 'breaking',
      channel,
      pointer: '',
      before: parametersKey(before),
      after: parametersKey(after),
      detail: 'channel parameters changed',
      hint: 'keep parameter names and allowed values',
      ...(where ? { location: where } : {}),
    });
  }
  const pb = before.bindings.kafka?.partitions;
  const pa = after.bindings.kafka?.partitions;
  if (pb !== undefined && pa !== undefined && pa < pb) {
    emit({
      code: 'partition_count_reduced',
      severity: 'breaking',
      channel,
      pointer: '',
      before: pb,
      after: pa,
      detail: `Kafka partitions ${pb} → ${pa}: Kafka cannot remove partitions and key order would break`,
      hint: 'partitions can only grow',
      ...(where ? { location: where } : {}),
    });
  } else if (pb !== undefined && pa !== undefined && pa > pb) {
    emit({
      code: 'partition_count_increased',
      severity: 'compatible',
      channel,
      pointer: '',
      before: pb,
      after: pa,
      detail: `Kafka partitions ${pb} → ${pa}: keys move to new partitions, so per-key order across the change is not kept`,
      hint: 'drain consumers before adding partitions if order matters',
      ...(where ? { location: where } : {}),
    });
  }
  const ib = before.bindings.iggy?.partitions;
  const ia = after.bindings.iggy?.partitions;
  if (ib !== undefined && ia !== undefined && ia < ib) {
    emit({
      code: 'iggy_partition_count_reduced',
      severity: 'breaking',
      channel,
      pointer: '',
      before: ib,
      after: ia,
      detail: `Iggy partitions ${ib} → ${ia}`,
      hint: 'partitions can only grow',
      ...(where ? { location: where } : {}),
    });
  }
  for (const type of before.messages) {
    if (!after.messages.includes(type)) {
      emit({
        code: 'message_removed',
        severity: 'breaking',
        channel,
        message: type,
        pointer: '',
        detail: `message type ${type} no longer travels on ${channel}`,
        hint: 'keep the type (deprecate it) until every consumer has moved on',
        ...(where ? { location: where } : {}),
      });
    }
  }
  for (const type of after.messages) {
    if (!before.messages.includes(type)) {
      emit({
        code: 'message_added',
        severity: 'compatible',
        channel,
        message: type,
        pointer: '',
        detail: `new message type ${type}: consumers that declare the types they accept skip it, others must tolerate it`,
        hint: '',
        ...(where ? { location: where } : {}),
      });
    }
  }
}

function compareMessage(
  channel: string,
  before: ContractModel,
  after: ContractModel,
  mb: MessageModel,
  ma: MessageModel,
  policy: Policy,
  emit: Emit,
  wanted: Direction[],
): void {
  const where = ma.location;
  if (mb.contentType !== ma.contentType) {
    emit({
      code: 'content_type_changed',
      severity: 'breaking',
      channel,
      message: ma.type,
      pointer: '',
      before: mb.contentType,
      after: ma.contentType,
      detail: `content type ${mb.contentType} → ${ma.contentType}`,
      hint: 'keep the content type; add a new message type for another encoding',
      ...(where ? { location: where } : {}),
    });
  }
  const kb = mb.kafkaKey;
  const ka = ma.kafkaKey;
  if (kb !== undefined || ka !== undefined) {
    if (kb === undefined) {
      emit({
        code: 'key_schema_added',
        severity: 'breaking',
        channel,
        message: ma.type,
        pointer: '/bindings/kafka/key',
        after: ka,
        detail: 'a Kafka key schema was added: keys of old messages may not match it',
        hint: 'add the key schema together with a new message type',
        ...(where ? { location: where } : {}),
      });
    } else if (ka === undefined) {
      emit({
        code: 'key_schema_removed',
        severity: 'compatible',
        channel,
        message: ma.type,
        pointer: '/bindings/kafka/key',
        before: kb,
        detail: 'the Kafka key schema was removed',
        hint: '',
        ...(where ? { location: where } : {}),
      });
    } else {
      for (const direction of wanted) {
        const changes = direction === 'backward' ? diffNodes(before, kb, after, ka, policy) : diffNodes(after, ka, before, kb, policy);
        for (const change of changes) {
          emit({
            ...change,
            code: `key_${change.code}`,
            direction,
            channel,
            message: ma.type,
            pointer: `/bindings/kafka/key${change.pointer}`,
            detail: `Kafka key: ${change.detail}`,
            ...(where ? { location: where } : {}),
          });
        }
      }
    }
  }
  const parts: ['payload' | 'headers', string | undefined, string | undefined][] = [
    ['payload', mb.payload, ma.payload],
    ['headers', mb.headers, ma.headers],
  ];
  for (const [part, b, a] of parts) {
    if (b === undefined && a === undefined) continue;
    if (b === undefined || a === undefined) {
      const added = b === undefined;
      emit({
        code: `${part}_schema_${added ? 'added' : 'removed'}`,
        severity: added ? 'breaking' : 'compatible',
        channel,
        message: ma.type,
        pointer: `/${part}`,
        detail: `${part} schema ${added ? 'added' : 'removed'}`,
        hint: added ? 'old messages carry no such headers' : '',
        ...(where ? { location: where } : {}),
      });
      continue;
    }
    for (const direction of wanted) {
      const changes = direction === 'backward' ? diffSchemas(before, b, after, a, policy) : diffSchemas(after, a, before, b, policy);
      const location = after.schemas[a]?.location;
      for (const change of changes) {
        emit({
          ...change,
          direction,
          channel,
          message: ma.type,
          pointer: `/${part}${change.pointer}`,
          ...(location ? { location: { ...location, pointer: `${location.pointer}${change.pointer}` } } : {}),
        });
      }
    }
  }
}

/** Every finding between `before` and `after` in the directions of `mode`. */
export function compareContracts(before: ContractModel, after: ContractModel, options: { mode: Mode; policy: Policy }): Finding[] {
  const wanted = directions(options.mode);
  const out: Finding[] = [];
  const seen = new Set<string>();
  const emit: Emit = (finding) => {
    const direction = finding.direction ?? 'backward';
    const id = findingId(finding);
    const key = `${direction}|${id}|${finding.severity}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ...finding, direction, id });
  };
  if (wanted.length === 0) return out;
  for (const cb of before.channels) {
    const ca = after.channels.find((c) => c.id === cb.id);
    if (ca === undefined) {
      emit({
        code: 'channel_removed',
        severity: 'breaking',
        channel: cb.id,
        pointer: '',
        detail: `channel ${cb.id} (${cb.address}) was removed`,
        hint: 'keep the channel until every producer and consumer has moved on',
      });
      continue;
    }
    compareChannel(cb, ca, emit);
    for (const type of cb.messages) {
      if (!ca.messages.includes(type)) continue;
      const mb = before.messages[type];
      const ma = after.messages[type];
      if (mb && ma) compareMessage(cb.id, before, after, mb, ma, options.policy, emit, modeFor(ca, ma, options.mode));
    }
  }
  for (const ca of after.channels) {
    if (!before.channels.some((c) => c.id === ca.id))
      emit({
        code: 'channel_added',
        severity: 'compatible',
        channel: ca.id,
        pointer: '',
        detail: `new channel ${ca.id} (${ca.address})`,
        hint: '',
      });
  }
  return out;
}

/** A channel or message can set its own mode with `x-keiyaku: { compatibility: … }`. */
function modeFor(channel: ChannelModel, message: MessageModel, fallback: Mode): Direction[] {
  const own = (message.compatibility ?? channel.compatibility) as Mode | undefined;
  return directions(own !== undefined && (MODES as readonly string[]).includes(own) ? own : fallback);
}

/** Applies the contract's acknowledgments: a matching breaking finding passes, showing its reason; an unused one is reported. */
export function acknowledge(findings: readonly Finding[], after: ContractModel): CheckResult {
  const acks = after.compatibility?.acknowledge ?? [];
  const used = new Set<number>();
  const result: (Finding & { acknowledged?: { reason: string; version: string } })[] = findings.map((finding) => {
    if (finding.severity !== 'breaking') return finding;
    const index = acks.findIndex((a) => a.id === finding.id && a.version === after.info.version);
    if (index === -1) return finding;
    used.add(index);
    return { ...finding, acknowledged: { reason: acks[index]!.reason, version: acks[index]!.version } };
  });
  acks.forEach((ack, index) => {
    if (used.has(index)) return;
    const stale = ack.version !== after.info.version;
    result.push({
      code: 'acknowledgment_unused',
      severity: 'info',
      direction: 'backward',
      pointer: '',
      detail: stale
        ? `acknowledgment of ${ack.id} is for version ${ack.version}, the contract is ${after.info.version}`
        : `acknowledgment of ${ack.id} matches no finding`,
      hint: 'remove it from x-keiyaku.acknowledge',
      id: `*/*/acknowledgment_unused/${ack.id}`,
    });
  });
  const count = (severity: CompatSeverity, acknowledged = false): number =>
    result.filter((f) => f.severity === severity && Boolean(f.acknowledged) === acknowledged).length;
  return {
    findings: result,
    breaking: count('breaking'),
    acknowledged: count('breaking', true),
    compatible: count('compatible'),
    info: count('info'),
  };
}

export function locationText(location: SourceLocation | undefined): string {
  if (location === undefined) return '';
  return `${location.file}${location.line > 0 ? `:${location.line}:${location.column}` : ''}${location.pointer ? ` (#${location.pointer})` : ''}`;
}
