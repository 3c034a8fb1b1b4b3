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
import { DEFAULT_POLICY, MODES, type Mode, POLICIES, type Policy } from '../model/vocabulary.js';
import { acknowledge, type CheckResult, type Emitted, merge, unique } from './acknowledge.js';
import { keyCode } from './codes.js';
import { type Direction, type Finding, findingId, keepOrAcknowledge } from './findings.js';
import { diffPayloadFormat } from './formats.js';
import { diffNodes, diffSchemas } from './schema-diff.js';

export { acknowledge, type CheckResult, DEFAULT_POLICY, MODES, type Mode, POLICIES, type Policy };

export function directions(mode: Mode): Direction[] {
  const base = mode.replace('-transitive', '');
  return base === 'none' ? [] : base === 'full' ? ['backward', 'forward'] : [base as Direction];
}

export interface CompareOptions {
  /**
   * The run's mode (`--mode`, else the contract's `x-keiyaku.compatibility`). Absent: each
   * channel is checked in the direction its operations imply (see {@link impliedMode}).
   */
  readonly mode?: Mode | undefined;
  /** Where the run's mode was set, for the reason shown with it (`--mode`, `x-keiyaku.compatibility`). */
  readonly modeFrom?: string | undefined;
  readonly policy: Policy;
  /**
   * File, line and column of a node of the new (`after`) contract's resolved document, by JSON
   * pointer (`CompiledContract.locate`). With it, findings point at the exact node, through every
   * `$ref`; without it, at the message or the schema that holds the change.
   */
  readonly locate?: ((pointer: string) => SourceLocation) | undefined;
}

type Emit = (finding: Emitted) => void;

/** The mode a channel is checked in, and why. */
export interface ChannelPlan {
  readonly channel: string;
  readonly mode: Mode;
  readonly reason: string;
}

function listOps(roles: readonly { operation: string }[]): string {
  return roles.map((r) => r.operation).join(', ');
}

/**
 * The direction a channel's operations imply. `send`: this application writes, others read;
 * consumers still on the old contract must read what the new one writes (forward). `receive`:
 * this application reads what others write; the new code must read messages written under the
 * old contract and still retained in the topic (backward). Both, or no operation: full.
 */
export function impliedMode(channel: ChannelModel): { mode: Mode; reason: string } {
  const roles = channel.roles ?? [];
  const sends = roles.filter((r) => r.action === 'send');
  const receives = roles.filter((r) => r.action === 'receive');
  if (sends.length > 0 && receives.length === 0)
    return {
      mode: 'forward',
      reason: `this application sends on it (${listOps(sends)}): consumers still on the old contract must read the new messages`,
    };
  if (receives.length > 0 && sends.length === 0)
    return {
      mode: 'backward',
      reason: `this application receives from it (${listOps(receives)}): the new code must read messages written under the old contract, still in the topic`,
    };
  if (sends.length > 0)
    return {
      mode: 'full',
      reason: `this application both sends (${listOps(sends)}) and receives (${listOps(receives)}): old readers meet new messages and new readers old ones`,
    };
  return {
    mode: 'full',
    reason: 'no operation says who writes or reads it: readers and writers may be on either version',
  };
}

/** The mode of a channel: its own `x-keiyaku`, else the run's, else the one its operations imply. */
export function planChannel(channel: ChannelModel, options: Pick<CompareOptions, 'mode' | 'modeFrom'>): ChannelPlan {
  if (channel.compatibility !== undefined)
    return { channel: channel.id, mode: channel.compatibility, reason: 'set by the channel (x-keiyaku.compatibility)' };
  if (options.mode !== undefined) return { channel: channel.id, mode: options.mode, reason: `set by ${options.modeFrom ?? '--mode'}` };
  return { channel: channel.id, ...impliedMode(channel) };
}

/** The plan of every channel of the new contract, and of channels only the old one has. */
export function planChannels(before: ContractModel, after: ContractModel, options: CompareOptions): ChannelPlan[] {
  const plans = after.channels.map((c) => planChannel(c, options));
  for (const c of before.channels) if (!after.channels.some((a) => a.id === c.id)) plans.push(planChannel(c, options));
  return plans;
}

/** When the acknowledgment of a contract-level change is due. */
const MOVED_ON = 'once every producer and consumer has moved to the new channel';
const RETAINED = 'once no message written under the old contract is left to read';
const UPGRADED = 'once every consumer reads the new contract';

/**
 * Channel parameters, one finding per parameter naming what changed. A parameter added, removed
 * or renamed moves the address: breaking both ways. An allowed value removed: consumers on the
 * new contract no longer read the addresses old messages went to (backward); in the forward
 * reading nothing is unreadable, but consumers of those addresses stop receiving: a warning
 * (`parameter_value_removed`). A value added: consumers on the old contract do not read the new
 * addresses (forward).
 */
function compareParameters(
  before: ChannelModel,
  after: ChannelModel,
  wanted: readonly Direction[],
  emit: Emit,
  where: SourceLocation | undefined,
): void {
  const channel = before.id;
  const legacyIds = [findingId({ channel, code: 'channel_parameters_changed', pointer: '' })];
  const base = { channel, ...(where ? { location: where } : {}), legacyIds };
  for (const p of before.parameters) {
    const now = after.parameters.find((q) => q.name === p.name);
    const pointer = `/parameters/${p.name}`;
    if (now === undefined) {
      emit({
        ...base,
        code: 'channel_parameters_changed',
        severity: 'breaking',
        pointer,
        before: p.name,
        detail: `parameter \`${p.name}\` removed: the address ${before.address} → ${after.address}`,
        hint: keepOrAcknowledge(
          `keep the parameter \`${p.name}\` (put the new address on a new channel: adding a channel passes)`,
          MOVED_ON,
        ),
      });
      continue;
    }
    const lost = (p.enum ?? []).filter((v) => now.enum !== undefined && !now.enum.includes(v));
    const gained = (now.enum ?? []).filter((v) => p.enum !== undefined && !p.enum.includes(v));
    const restricted = p.enum === undefined && now.enum !== undefined;
    const freed = p.enum !== undefined && now.enum === undefined;
    for (const direction of wanted) {
      const narrowing = lost.length > 0 || restricted;
      const widening = gained.length > 0 || freed;
      if (direction === 'forward' && narrowing) {
        // Nothing old consumers cannot read, but those subscribed to a value no longer sent stop receiving.
        const stopped =
          lost.length > 0 ? lost.map((v) => `\`${v}\``).join(', ') : `values other than ${now.enum!.map((v) => `\`${v}\``).join(', ')}`;
        emit({
          ...base,
          code: 'parameter_value_removed',
          severity: 'warning',
          direction,
          pointer,
          before: p.enum,
          after: now.enum,
          detail: `\`${p.name}\`: ${lost.length > 0 ? `enum lost ${stopped}` : `now restricted to ${now.enum!.map((v) => `\`${v}\``).join(', ')}`}: consumers of the addresses with ${stopped} stop receiving (this application no longer sends there)`,
          hint: `make sure no consumer still waits on ${after.address} with \`${p.name}\` ${stopped}, or keep the value${lost.length === 1 ? '' : 's'}`,
        });
        if (!widening) continue;
      }
      if (!narrowing && !widening) continue;
      const breaking = direction === 'backward' ? narrowing : widening;
      const what = [
        lost.length > 0 ? `enum lost ${lost.map((v) => `\`${v}\``).join(', ')}` : '',
        gained.length > 0 ? `enum gained ${gained.map((v) => `\`${v}\``).join(', ')}` : '',
        restricted ? `now restricted to ${now.enum!.map((v) => `\`${v}\``).join(', ')}` : '',
        freed ? 'no longer restricted to a list' : '',
      ]
        .filter(Boolean)
        .join('; ');
      const reader =
        direction === 'backward'
          ? 'consumers on the new contract no longer read the addresses old messages went to'
          : 'consumers on the old contract do not read the new addresses';
      emit({
        ...base,
        code: 'channel_parameters_changed',
        severity: breaking ? 'breaking' : 'compatible',
        direction,
        pointer,
        before: p.enum,
        after: now.enum,
        detail: `\`${p.name}\`: ${what}${breaking ? `: ${reader}` : ''}`,
        hint: breaking
          ? direction === 'backward'
            ? keepOrAcknowledge(`keep the values of \`${p.name}\` as they were`, RETAINED)
            : keepOrAcknowledge(
                `keep \`${p.name}\` to its old values (send to the new addresses on a new channel: adding a channel passes)`,
                UPGRADED,
              )
          : '',
      });
    }
  }
  for (const q of after.parameters) {
    if (before.parameters.some((p) => p.name === q.name)) continue;
    emit({
      ...base,
      code: 'channel_parameters_changed',
      severity: 'breaking',
      pointer: `/parameters/${q.name}`,
      after: q.name,
      detail: `parameter \`${q.name}\` added: the address ${before.address} → ${after.address}`,
      hint: keepOrAcknowledge('keep the address without it (put the new address on a new channel: adding a channel passes)', MOVED_ON),
    });
  }
}

function parametersKey(channel: ChannelModel): string {
  return channel.parameters.map((p) => `${p.name}${p.enum ? `:${p.enum.join('|')}` : ''}`).join(',');
}

function compareChannel(before: ChannelModel, after: ChannelModel, wanted: readonly Direction[], emit: Emit): void {
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
      hint: keepOrAcknowledge('keep the address (put the new one on a new channel: adding a channel passes)', MOVED_ON),
    });
  }
  if (parametersKey(before) !== parametersKey(after)) compareParameters(before, after, wanted, emit, where);
  const pb = before.bindings.kafka?.partitions;
  const pa = after.bindings.kafka?.partitions;
  if (pb !== undefined && pa !== undefined && pa < pb) {
    flag({
      code: 'partition_count_reduced',
      severity: 'breaking',
      before: pb,
      after: pa,
      detail: `Kafka partitions ${pb} → ${pa}: Kafka cannot remove partitions and key order would break`,
      hint: keepOrAcknowledge(`keep ${pb} partitions or more (a new channel may start with fewer)`, MOVED_ON),
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
      hint: keepOrAcknowledge(`keep ${ib} partitions or more (a new channel may start with fewer)`, MOVED_ON),
    });
  }
  for (const type of before.messages) {
    if (!after.messages.includes(type)) {
      flag({
        code: 'message_removed',
        severity: 'breaking',
        message: type,
        detail: `message type ${type} no longer travels on ${channel}`,
        hint: keepOrAcknowledge('keep the type on the channel (mark it deprecated)', 'once every consumer has moved on'),
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

/** The Kafka key schema of a message: added or removed, or compared as a schema (codes `key_<schema code>`). */
function compareKafkaKey(
  channel: string,
  before: ContractModel,
  after: ContractModel,
  mb: MessageModel,
  ma: MessageModel,
  options: { readonly policy: Policy; readonly wanted: readonly Direction[] },
  at: (pointer: string, fallback: SourceLocation | undefined) => { location?: SourceLocation },
  emit: Emit,
): void {
  const { policy, wanted } = options;
  const where = ma.location;
  const kb = mb.kafkaKey;
  const ka = ma.kafkaKey;
  if (kb !== undefined || ka !== undefined) {
    if (kb === undefined || ka === undefined) {
      // A key schema on one side only: the side without one accepts any key.
      const added = kb === undefined;
      for (const direction of wanted) {
        const breaking = added === (direction === 'backward');
        emit({
          code: added ? 'key_schema_added' : 'key_schema_removed',
          severity: breaking ? 'breaking' : 'compatible',
          direction,
          channel,
          message: ma.type,
          pointer: '/bindings/kafka/key',
          ...(added ? { after: ka } : { before: kb }),
          detail: added
            ? `a Kafka key schema was added${breaking ? ': keys of old messages may not match it' : ''}`
            : `the Kafka key schema was removed${breaking ? ': consumers on the old contract check keys against it' : ''}`,
          hint: breaking
            ? added
              ? keepOrAcknowledge('drop the key schema (add it together with a new message type)', RETAINED)
              : keepOrAcknowledge('keep the key schema: consumers on the old contract check keys against it', UPGRADED)
            : '',
          ...at('/bindings/kafka/key', where),
        });
      }
    } else {
      for (const direction of wanted) {
        for (const change of diffNodes(before, kb, after, ka, policy, direction)) {
          const pointer = `/bindings/kafka/key${change.pointer}`;
          const { schema: _schema, earlierCode, reverseCode, ...rest } = change;
          emit({
            ...rest,
            code: keyCode(change.code),
            ...(earlierCode === undefined ? {} : { earlierCode: keyCode(earlierCode) }),
            ...(reverseCode === undefined ? {} : { reverseCode: keyCode(reverseCode) }),
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
      hint: keepOrAcknowledge('keep the content type (add a new message type for another encoding: adding one passes)', UPGRADED),
      ...(where ? { location: where } : {}),
    });
  }
  compareKafkaKey(channel, before, after, mb, ma, { policy, wanted }, at, emit);
  const parts: ['payload' | 'headers', string | undefined, string | undefined][] = [
    ['payload', mb.payload, ma.payload],
    ['headers', mb.headers, ma.headers],
  ];
  for (const [part, b, a] of parts) {
    if (b === undefined && a === undefined) continue;
    if (b === undefined || a === undefined) {
      // A schema on one side only: the side without one accepts anything.
      const added = b === undefined;
      for (const direction of wanted) {
        const breaking = added === (direction === 'backward');
        emit({
          code: `${part}_schema_${added ? 'added' : 'removed'}`,
          severity: breaking ? 'breaking' : 'compatible',
          direction,
          channel,
          message: ma.type,
          pointer: `/${part}`,
          detail: `${part} schema ${added ? 'added' : 'removed'}${breaking ? (added ? ': messages written under the old contract were not held to it' : ': consumers on the old contract still check it') : ''}`,
          hint: breaking
            ? added
              ? keepOrAcknowledge(`drop the ${part} schema: old messages were not held to it (add it with a new message type)`, RETAINED)
              : keepOrAcknowledge(`keep the ${part} schema: consumers on the old contract still check it`, UPGRADED)
            : '',
          ...at(`/${part}`, where),
        });
      }
      continue;
    }
    for (const direction of wanted) {
      const changes =
        (part === 'payload' ? diffPayloadFormat(mb, ma, direction, { protobuf: after.compatibility?.protobuf }) : undefined) ??
        diffSchemas(before, b, after, a, policy, direction);
      const schema = after.schemas[a]?.location ?? (ma.format === undefined ? undefined : where);
      for (const { written, ...change } of changes) {
        const pointer = `/${part}${change.pointer}`;
        emit({
          ...change,
          direction,
          channel,
          message: ma.type,
          pointer,
          ...at(written === undefined ? pointer : `/${part}/schema${written}`, schema),
        });
      }
    }
  }
}

/**
 * Every finding between `before` and `after`, each channel in the directions of its mode. A
 * change inside a schema that several messages (or places) share is one finding listing them.
 */
export function compareContracts(before: ContractModel, after: ContractModel, options: CompareOptions): Finding[] {
  const raw: Emitted[] = [];
  const emit: Emit = (finding) => {
    raw.push(finding);
  };
  // A channel or message whose mode (its own, else the run's, else its operations') is `none` has no gate at all.
  const gated = (channel: ChannelModel): boolean => directions(planChannel(channel, options).mode).length > 0;
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
          hint: keepOrAcknowledge('keep the channel (mark it deprecated)', 'once every producer and consumer has moved on'),
        });
      continue;
    }
    if (gated(ca)) compareChannel(cb, ca, directions(planChannel(ca, options).mode), emit);
    for (const type of cb.messages) {
      if (!ca.messages.includes(type)) continue;
      const mb = before.messages[type];
      const ma = after.messages[type];
      const wanted = ma === undefined ? [] : directions(ma.compatibility ?? planChannel(ca, options).mode);
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
  return merge(raw);
}

/** Compares `current` with each earlier contract; a finding several of them share is reported once. */
export function compareAll(earlier: readonly ContractModel[], current: ContractModel, options: CompareOptions): Finding[] {
  return unique(earlier.map((model) => compareContracts(model, current, options)));
}

/** `file:line:col (#pointer)` of a finding; empty when it has no location. */
export function locationText(location: SourceLocation | undefined): string {
  if (location === undefined) return '';
  return `${formatLocation(location)}${location.pointer ? ` (#${location.pointer})` : ''}`;
}
