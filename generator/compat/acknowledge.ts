/**
 * From what the rules emit to what a run reports: one finding per shared-schema change (listing
 * its usages), the earlier spellings of each id, one finding per id across earlier contracts,
 * and the contract's acknowledgments applied.
 */
import type { ContractModel } from '../model/contract-model.js';
import { earlierSpellings, type FindingCode, REVERSE_READING, type SchemaFindingCode } from './codes.js';
import { type CompatSeverity, type Direction, type Finding, findingId } from './findings.js';

export interface CheckResult {
  readonly findings: readonly (Finding & { readonly acknowledged?: { readonly reason: string; readonly version: string } })[];
  readonly breaking: number;
  readonly acknowledged: number;
  readonly compatible: number;
  readonly info: number;
  /** Acknowledgments that apply to nothing or use an earlier id spelling, and parameter values no longer sent. */
  readonly warnings: number;
}

/** A finding as rules emit it: the id is made from its parts; a schema change says which named schema it is in. */
export type Emitted = Omit<Finding, 'id' | 'direction'> & {
  direction?: Direction;
  /** Given by the rule: the code earlier versions gave this kind of finding when breaking. */
  earlierCode?: FindingCode;
  /** The edit read new → old, when its code alone does not tell it (codes.ts `REVERSE_READING`). */
  reverseCode?: FindingCode;
  schema?: { readonly name: string; readonly pointer: string };
};
/**
 * The code earlier versions gave a finding, when it differs: the one its rule gives for a
 * breaking finding they judged by another rule, else — forward findings were named reader →
 * writer before findings were named after the edit — the reverse reading of its code.
 */
export function earlierCodeOf(
  f: Pick<Emitted, 'code' | 'severity' | 'direction' | 'earlierCode' | 'reverseCode'>,
): FindingCode | undefined {
  let code: FindingCode = f.code;
  if (f.severity === 'breaking' && f.earlierCode !== undefined) code = f.earlierCode;
  else if (f.direction === 'forward') code = f.reverseCode ?? reverseReading(f.code) ?? f.code;
  return code === f.code ? undefined : code;
}

/** `REVERSE_READING` of a schema code, `key_` kept for a Kafka key's. */
function reverseReading(code: FindingCode): FindingCode | undefined {
  const key = code.startsWith('key_');
  const reverse = REVERSE_READING.get((key ? code.slice(4) : code) as SchemaFindingCode);
  return reverse === undefined ? undefined : key ? `key_${reverse}` : reverse;
}

/** Places one shared-schema change shows up in, by (direction, schema, code, pointer inside it, severity). */
export function merge(raw: readonly Emitted[]): Finding[] {
  const groups = new Map<string, Emitted[]>();
  for (const f of raw) {
    if (f.schema === undefined) continue;
    const key = `${f.direction ?? 'backward'}|${f.schema.name}|${f.code}|${f.schema.pointer}|${f.severity}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const out: Finding[] = [];
  const seen = new Set<string>();
  const push = (finding: Finding): void => {
    const key = `${finding.direction}|${finding.id}|${finding.severity}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(finding);
  };
  const own = (f: Emitted): Finding => {
    const { earlierCode: _earlier, reverseCode: _reverse, schema: _schema, ...rest } = f;
    const legacyCode = earlierCodeOf(f);
    const direction = f.direction ?? 'backward';
    const id = findingId(f);
    // Earlier ids: given by the rule, the code of the reverse reading, and the codes' spellings before snake_case.
    const codes = [...earlierSpellings(f.code), ...(legacyCode === undefined ? [] : [legacyCode, ...earlierSpellings(legacyCode)])];
    const legacy = [...new Set([...(f.legacyIds ?? []), ...codes.map((code) => findingId({ ...f, code }))])].filter((l) => l !== id);
    return { ...rest, direction, id, ...(legacy.length === 0 ? {} : { legacyIds: legacy }) };
  };
  for (const f of raw) {
    const group =
      f.schema === undefined
        ? undefined
        : groups.get(`${f.direction ?? 'backward'}|${f.schema.name}|${f.code}|${f.schema.pointer}|${f.severity}`);
    const places = new Set((group ?? []).map((g) => `${g.channel}/${g.message}${g.pointer}`));
    if (group === undefined || places.size < 2) {
      push(own(f));
      continue;
    }
    if (group[0] !== f) continue;
    const members = group.map(own);
    const first = members[0]!;
    const name = f.schema!.name;
    const usages = [
      ...new Map(
        members.map((m) => [`${m.channel}/${m.message}${m.pointer}`, { channel: m.channel!, message: m.message!, pointer: m.pointer }]),
      ).values(),
    ];
    const { channel: _channel, message: _message, ...shared } = first;
    push({
      ...shared,
      pointer: f.schema!.pointer,
      id: `schemas/${name}/${f.code}${f.schema!.pointer}`,
      legacyIds: [
        ...new Set([
          ...earlierSpellings(f.code).map((code) => `schemas/${name}/${code}${f.schema!.pointer}`),
          ...members.flatMap((m) => [m.id, ...(m.legacyIds ?? [])]),
        ]),
      ],
      usages,
      detail: `${first.detail} (in shared schema ${name}, used by ${usages
        .map((u) => `${u.channel}/${u.message}`)
        .filter((v, i, a) => a.indexOf(v) === i)
        .join(', ')})`,
    });
  }
  return out;
}

/** Findings of several comparisons (against each earlier contract), each (direction, id, severity) once. */
export function unique(runs: Iterable<readonly Finding[]>): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const findings of runs) {
    for (const finding of findings) {
      const key = `${finding.direction}|${finding.id}|${finding.severity}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(finding);
    }
  }
  return out;
}

/**
 * Applies the contract's acknowledgments: a matching breaking finding passes, showing its reason.
 * An acknowledgment that applies to nothing is a warning naming the fix (bump `info.version`, or
 * remove the entry); one that matches through an earlier spelling of the id passes with a warning
 * giving the current id.
 */
export function acknowledge(findings: readonly Finding[], after: ContractModel): CheckResult {
  const acks = after.compatibility?.acknowledge ?? [];
  const used = new Set<number>();
  const warnings: Finding[] = [];
  const result: (Finding & { acknowledged?: { reason: string; version: string } })[] = findings.map((finding) => {
    if (finding.severity !== 'breaking') return finding;
    const current = after.info.version;
    let index = acks.findIndex((a) => a.id === finding.id && a.version === current);
    if (index === -1) {
      index = acks.findIndex((a) => a.version === current && (finding.legacyIds ?? []).includes(a.id));
      const ack = index === -1 ? undefined : acks[index]!.id;
      // A code spelled as before codes became snake_case is named, so the rename is plain to see.
      const renamed =
        ack === undefined ? undefined : earlierSpellings(finding.code).find((c) => ack.includes(`/${c}/`) || ack.endsWith(`/${c}`));
      if (ack !== undefined && !used.has(index))
        warnings.push({
          code: 'acknowledgment_id_deprecated',
          severity: 'warning',
          direction: finding.direction,
          pointer: '',
          detail: `acknowledgment ${ack} uses an earlier spelling of the finding's id${renamed === undefined ? '' : ` (the code ${renamed} is now ${finding.code})`}`,
          hint: `replace its id with ${finding.id}; the old spelling is accepted for now`,
          id: `*/*/acknowledgment_id_deprecated/${acks[index]!.id}`,
        });
    }
    if (index === -1) return finding;
    used.add(index);
    return { ...finding, acknowledged: { reason: acks[index]!.reason, version: acks[index]!.version } };
  });
  result.push(...warnings);
  acks.forEach((ack, index) => {
    if (used.has(index)) return;
    const stale = ack.version !== after.info.version;
    const matches = findings.some((f) => f.severity === 'breaking' && (f.id === ack.id || (f.legacyIds ?? []).includes(ack.id)));
    result.push({
      code: 'acknowledgment_unused',
      severity: 'warning',
      direction: 'backward',
      pointer: '',
      detail: stale
        ? `acknowledgment of ${ack.id} is for version ${ack.version}, the contract is ${after.info.version}`
        : `acknowledgment of ${ack.id} matches no breaking finding`,
      hint: stale
        ? matches
          ? `bump info.version to ${ack.version}, the version this break ships in (or correct the acknowledgment's version)`
          : `remove it from x-keiyaku.acknowledge: it was for ${ack.version} and matches no breaking finding now`
        : 'remove it from x-keiyaku.acknowledge, or correct its id (copy it from the finding)',
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
    warnings: count('warning'),
  };
}
