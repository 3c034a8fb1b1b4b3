/**
 * Compatibility of a whole AsyncAPI contract: channels, parameters, bindings, message sets,
 * content types, headers and payloads, per direction, with modes, policies and
 * acknowledged breaks.
 *
 * - backward: consumers on the new contract can read what producers on the old one wrote.
 * - forward: consumers still on the old contract can read what producers on the new one write.
 * - full: both. The `-transitive` variants check against every recorded earlier version.
 */
import { formatLocation, type SourceLocation } from '../diagnostics.js';
import type { ChannelModel, ContractModel, MessageModel } from '../model/contract-model.js';
import { type CompatSeverity, type Direction, type Finding, findingId } from './findings.js';
import { diffNodes, diffSchemas, type Policy } from './schema-diff.js';

export const MODES = ['backward', 'forward', 'full', 'backward-transitive', 'forward-transitive', 'full-transitive', 'none'] as const;
export type Mode = (typeof MODES)[number];
export const POLICIES = ['strict', 'lenient'] as const satisfies readonly Policy[];

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

export interface CompareOptions {
  readonly mode: Mode;
  readonly policy: Policy;
  /**
   * File, line and column of a node of the new (`after`) contract's resolved document, by JSON
   * pointer (`CompiledContract.locate`). With it, findings point at the exact node, through every
   * `$ref`; without it, at the message or the schema that holds the change.
   */
  readonly locate?: ((pointer: string) => SourceLocation) | undefined;
}

type Emit = (finding: Omit<Finding, 'id' | 'direction'> & { direction?: Direction }) => void;

function parametersKey(channel: ChannelModel): string {
  return channel.parameters.map((p) => `${p.name}${p.enum ? `:${p.enum.join('|')}` : ''}`).join(',');
}

function compareChannel(before: ChannelModel, after: ChannelModel, emit: Emit): void {
  const channel = before.id;
  const where = after.location;
  /** A channel-level finding: no schema pointer, located at the channel. */
  const flag = ({ code, severity, message, ...rest }: Omit<Finding, 'id' | 'direction' | 'channel' | 'pointer' | 'location'>): void =>
    emit({
      code,
      severity,
      channel,
      ...(message === undefined ? {} : { message }),
      pointer: '',
      ...rest,
      ...(where ? { location: where } : {}),
    });
  if (before.address !== after.address) {
    flag({
      code: 'channel_address_changed',
      severity: 'breaking',
      before: before.address,
      after: after.address,
      detail: `address ${before.address} → ${after.address}: producers and consumers would meet at different topics`,
      hint: 'keep the address; add a new channel and migrate',
    });
  }
  if (parametersKey(before) !== parametersKey(after)) {
    flag({
      code: 'channel_parameters_changed',
      severity: 'breaking',
      before: parametersKey(before),
      after: parametersKey(after),
      detail: 'channel parameters changed',
      hint: 'keep parameter names and allowed values',
    });
  }
  const pb = before.bindings.kafka?.partitions;
  const pa = after.bindings.kafka?.partitions;
  if (pb !== undefined && pa !== undefined && pa < pb) {
    flag({
      code: 'partition_count_reduced',
      severity: 'breaking',
      before: pb,
      after: pa,
      detail: `Kafka partitions ${pb} → ${pa}: Kafka cannot remove partitions and key order would break`,
      hint: 'partitions can only grow',
    });
  } else if (pb !== undefined && pa !== undefined && pa > pb) {
    flag({
      code: 'partition_count_increased',
      severity: 'compatible',
      before: pb,
      after: pa,
      detail: `Kafka partitions ${pb} → ${pa}: keys move to new partitions, so per-key order across the change is not kept`,
      hint: 'drain consumers before adding partitions if order matters',
    });
  }
  const ib = before.bindings.iggy?.partitions;
  const ia = after.bindings.iggy?.partitions;
  if (ib !== undefined && ia !== undefined && ia < ib) {
    flag({
      code: 'iggy_partition_count_reduced',
      severity: 'breaking',
      before: ib,
      after: ia,
      detail: `Iggy partitions ${ib} → ${ia}`,
      hint: 'partitions can only grow',
    });
  }
  for (const type of before.messages) {
    if (!after.messages.includes(type)) {
      flag({
        code: 'message_removed',
        severity: 'breaking',
        message: type,
        detail: `message type ${type} no longer travels on ${channel}`,
        hint: 'keep the type (deprecate it) until every consumer has moved on',
      });
    }
  }
  for (const type of after.messages) {
    if (!before.messages.includes(type)) {
      flag({
        code: 'message_added',
        severity: 'compatible',
        message: type,
        detail: `new message type ${type}: consumers that declare the types they accept skip it, others must tolerate it`,
        hint: '',
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
  options: { readonly policy: Policy; readonly wanted: readonly Direction[]; readonly locate?: CompareOptions['locate'] },
  emit: Emit,
): void {
  const { policy, wanted, locate } = options;
  const where = ma.location;
  /** Where the node at `pointer` (into the message) was written: found through `locate`, else `fallback`. */
  const at = (pointer: string, fallback: SourceLocation | undefined): { location?: SourceLocation } => {
    if (locate !== undefined && ma.documentPointer !== undefined) {
      const found = locate(`${ma.documentPointer}${pointer}`);
      if (found.line > 0) return { location: found };
    }
    return fallback ? { location: fallback } : {};
  };
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
        ...at('/bindings/kafka/key', where),
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
        ...at('/bindings/kafka/key', where),
      });
    } else {
      for (const direction of wanted) {
        const changes = direction === 'backward' ? diffNodes(before, kb, after, ka, policy) : diffNodes(after, ka, before, kb, policy);
        for (const change of changes) {
          const pointer = `/bindings/kafka/key${change.pointer}`;
          emit({
            ...change,
            code: `key_${change.code}`,
            direction,
            channel,
            message: ma.type,
            pointer,
            detail: `Kafka key: ${change.detail}`,
            ...at(pointer, where),
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
        ...at(`/${part}`, where),
      });
      continue;
    }
    for (const direction of wanted) {
      const changes = direction === 'backward' ? diffSchemas(before, b, after, a, policy) : diffSchemas(after, a, before, b, policy);
      const schema = after.schemas[a]?.location;
      for (const change of changes) {
        const pointer = `/${part}${change.pointer}`;
        emit({
          ...change,
          direction,
          channel,
          message: ma.type,
          pointer,
          ...at(pointer, schema),
        });
      }
    }
  }
}

/** Every finding between `before` and `after` in the directions of `mode`. */
export function compareContracts(before: ContractModel, after: ContractModel, options: CompareOptions): Finding[] {
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
  // A channel or message whose mode (its own, else the run's) is `none` has no gate at all.
  const gated = (channel: ChannelModel): boolean => directions(channel.compatibility ?? options.mode).length > 0;
  for (const cb of before.channels) {
    const ca = after.channels.find((c) => c.id === cb.id);
    if (ca === undefined) {
      if (gated(cb))
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
    if (gated(ca)) compareChannel(cb, ca, emit);
    for (const type of cb.messages) {
      if (!ca.messages.includes(type)) continue;
      const mb = before.messages[type];
      const ma = after.messages[type];
      const wanted = ma === undefined ? [] : modeFor(ca, ma, options.mode);
      if (mb && ma && wanted.length > 0)
        compareMessage(cb.id, before, after, mb, ma, { policy: options.policy, wanted, locate: options.locate }, emit);
    }
  }
  for (const ca of after.channels) {
    if (!before.channels.some((c) => c.id === ca.id) && gated(ca))
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
  return directions(message.compatibility ?? channel.compatibility ?? fallback);
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

/** `file:line:col (#pointer)` of a finding; empty when it has no location. */
export function locationText(location: SourceLocation | undefined): string {
  if (location === undefined) return '';
  return `${formatLocation(location)}${location.pointer ? ` (#${location.pointer})` : ''}`;
}
