// Acknowledgments: the current id, earlier spellings (accepted with a warning naming the new id),
// and entries that apply to nothing (warnings naming the fix).
import type { ContractModel, SchemaNode } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { acknowledge, compareContracts } from './known-codes.js';

function contract(payload: SchemaNode, version = '1.0.0', acks: { id: string; reason: string; version: string }[] = []): ContractModel {
  return {
    source: 'asyncapi.yaml',
    asyncapi: '3.0.0',
    info: { title: 't', version },
    channels: [
      {
        id: 'c',
        identifier: 'C',
        address: 'c',
        parameters: [],
        messages: ['M'],
        bindings: {},
        roles: [{ action: 'send', operation: 'publishM' }],
      },
    ],
    messages: {
      M: {
        type: 'M',
        id: 'M',
        identifier: 'M',
        contentType: 'application/json',
        payload: 'Root',
        boxed: false,
        examples: [],
        deprecated: false,
      },
    },
    operations: [],
    schemas: { Root: { name: 'Root', schema: payload, origin: 'component' } },
    ...(acks.length > 0 ? { compatibility: { acknowledge: acks } } : {}),
  };
}

const levels = (values: string[]): SchemaNode => ({ type: 'object', properties: { level: { enum: values } } });

describe('acknowledgments', () => {
  it('names a forward finding after the edit and keeps its earlier spelling as a legacy id', () => {
    // The channel is sent on: forward by default.
    const findings = compareContracts(contract(levels(['a'])), contract(levels(['a', 'b'])), { policy: 'lenient' });
    expect(findings.map((f) => [f.severity, f.direction, f.id, f.legacyIds])).toEqual([
      [
        'breaking',
        'forward',
        'c/M/enum_value_added/payload/properties/level/enum',
        ['c/M/enum_value_removed/payload/properties/level/enum'],
      ],
    ]);
  });

  it('accepts the current id, and an earlier spelling with a warning giving the current id', () => {
    const before = contract(levels(['a']));
    const findings = (ack: string) => {
      const after = contract(levels(['a', 'b']), '1.1.0', [{ id: ack, reason: 'b is new', version: '1.1.0' }]);
      return acknowledge(compareContracts(before, after, { policy: 'lenient' }), after);
    };
    const current = findings('c/M/enum_value_added/payload/properties/level/enum');
    expect([current.breaking, current.acknowledged, current.warnings]).toEqual([0, 1, 0]);
    const legacy = findings('c/M/enum_value_removed/payload/properties/level/enum');
    expect([legacy.breaking, legacy.acknowledged, legacy.warnings]).toEqual([0, 1, 1]);
    const warning = legacy.findings.find((f) => f.severity === 'warning')!;
    expect(warning.code).toBe('acknowledgment_id_deprecated');
    expect(warning.hint).toContain('replace its id with c/M/enum_value_added/payload/properties/level/enum');
  });

  it('warns about an acknowledgment for another version (bump info.version) or matching nothing (remove it)', () => {
    const before = contract(levels(['a']));
    const after = contract(levels(['a', 'b']), '1.0.0', [
      { id: 'c/M/enum_value_added/payload/properties/level/enum', reason: 'b is new', version: '1.1.0' },
      { id: 'c/M/type_changed/payload', reason: 'left over', version: '1.0.0' },
    ]);
    const result = acknowledge(compareContracts(before, after, { policy: 'lenient' }), after);
    expect([result.breaking, result.acknowledged, result.warnings]).toEqual([1, 0, 2]);
    const hints = result.findings.filter((f) => f.severity === 'warning').map((f) => `${f.detail} | ${f.hint}`);
    expect(hints).toEqual([
      "acknowledgment of c/M/enum_value_added/payload/properties/level/enum is for version 1.1.0, the contract is 1.0.0 | bump info.version to 1.1.0, the version this break ships in (or correct the acknowledgment's version)",
      'acknowledgment of c/M/type_changed/payload matches no breaking finding | remove it from x-keiyaku.acknowledge, or correct its id (copy it from the finding)',
    ]);
  });

  it('accepts the id a channel parameter change had before it named the parameter', () => {
    const withRegion = (values: string[], version: string, acks: { id: string; reason: string; version: string }[] = []): ContractModel => {
      const base = contract(levels(['a']), version, acks);
      return { ...base, channels: [{ ...base.channels[0]!, parameters: [{ name: 'region', enum: values }], roles: [] }] };
    };
    const after = withRegion(['earth'], '2.0.0', [{ id: 'c/*/channel_parameters_changed', reason: 'mars is closed', version: '2.0.0' }]);
    const result = acknowledge(compareContracts(withRegion(['earth', 'mars'], '1.0.0'), after, { policy: 'lenient' }), after);
    const finding = result.findings.find((f) => f.code === 'channel_parameters_changed')!;
    expect(finding.detail).toBe(
      '`region`: enum lost `mars`: consumers on the new contract no longer read the addresses old messages went to',
    );
    expect(finding.id).toBe('c/*/channel_parameters_changed/parameters/region');
    // Warnings: the earlier id spelling, and (read forward) the consumers of `mars` addresses that stop receiving.
    expect(result.findings.filter((f) => f.severity === 'warning').map((f) => f.code)).toEqual([
      'parameter_value_removed',
      'acknowledgment_id_deprecated',
    ]);
    expect([result.breaking, result.acknowledged, result.warnings]).toEqual([0, 1, 2]);
  });

  describe('codes spelled as before they became snake_case', () => {
    // Sent on (forward): a maxLength raised is breaking (old readers reject the longer strings).
    const name = (maxLength: number): SchemaNode => ({ type: 'object', properties: { name: { type: 'string', maxLength } } });
    const check = (ack: string) => {
      const after = contract(name(80), '2.0.0', [{ id: ack, reason: 'longer names', version: '2.0.0' }]);
      return acknowledge(compareContracts(contract(name(40)), after, { policy: 'lenient' }), after);
    };
    const current = 'c/M/max_length_widened/payload/properties/name/maxLength';

    it('names the finding in snake_case, and acknowledges it by that id without a warning', () => {
      const result = check(current);
      expect(result.findings.map((f) => [f.severity, f.id, Boolean(f.acknowledged)])).toEqual([['breaking', current, true]]);
      expect([result.breaking, result.acknowledged, result.warnings]).toEqual([0, 1, 0]);
    });

    it.each([
      [
        'the old spelling of the code',
        'c/M/maxLength_widened/payload/properties/name/maxLength',
        ' (the code maxLength_widened is now max_length_widened)',
      ],
      ['the old spelling of the reverse reading', 'c/M/maxLength_narrowed/payload/properties/name/maxLength', ''],
    ])('still acknowledges it by %s, with a deprecation warning naming the new id', (_what, ack, renamed) => {
      const result = check(ack);
      expect([result.breaking, result.acknowledged, result.warnings]).toEqual([0, 1, 1]);
      const warning = result.findings.find((f) => f.severity === 'warning')!;
      expect(warning.code).toBe('acknowledgment_id_deprecated');
      expect(warning.detail).toBe(`acknowledgment ${ack} uses an earlier spelling of the finding's id${renamed}`);
      expect(warning.hint).toBe(`replace its id with ${current}; the old spelling is accepted for now`);
    });

    it('still acknowledges a shared-schema id and a Kafka key id spelled the old way', () => {
      const shared: SchemaNode = { type: 'object', properties: { from: { $ref: '#/schemas/Name' }, to: { $ref: '#/schemas/Name' } } };
      const withName = (maxLength: number, version: string, acks: { id: string; reason: string; version: string }[] = []) => {
        const base = contract(shared, version, acks);
        const m = base.messages['M']!;
        return {
          ...base,
          schemas: { ...base.schemas, Name: { name: 'Name', schema: { type: 'string', maxLength }, origin: 'component' as const } },
          messages: { M: { ...m, kafkaKey: { type: 'string', maxLength } } },
        } satisfies ContractModel;
      };
      const acks = [
        { id: 'schemas/Name/maxLength_widened/maxLength', reason: 'longer names', version: '2.0.0' },
        { id: 'c/M/key_maxLength_widened/bindings/kafka/key/maxLength', reason: 'longer keys', version: '2.0.0' },
      ];
      const after = withName(80, '2.0.0', acks);
      const result = acknowledge(compareContracts(withName(40, '1.0.0'), after, { policy: 'lenient' }), after);
      expect(result.findings.filter((f) => f.severity === 'breaking').map((f) => [f.id, Boolean(f.acknowledged)])).toEqual([
        ['c/M/key_max_length_widened/bindings/kafka/key/maxLength', true],
        ['schemas/Name/max_length_widened/maxLength', true],
      ]);
      expect(result.findings.filter((f) => f.severity === 'warning').map((f) => f.detail)).toEqual([
        "acknowledgment c/M/key_maxLength_widened/bindings/kafka/key/maxLength uses an earlier spelling of the finding's id (the code key_maxLength_widened is now key_max_length_widened)",
        "acknowledgment schemas/Name/maxLength_widened/maxLength uses an earlier spelling of the finding's id (the code maxLength_widened is now max_length_widened)",
      ]);
    });
  });
});
