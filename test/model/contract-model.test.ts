// The frozen ContractModel built from real contracts (AsyncAPI 2.6 and 3.x, multi-file).
import { join } from 'node:path';
import { type ContractModel, compileContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from '../helpers.js';

async function model(cwd: string): Promise<ContractModel> {
  const compiled = await compileContract('asyncapi.yaml', { cwd });
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(compiled.model).toBeDefined();
  return compiled.model!;
}

describe('ContractModel', () => {
  it("models the repo's own contract: channels, messages, bindings, operations", async () => {
    const m = await model(repoRoot);
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m.channels[0]!.bindings)).toBe(true);
    expect(m.asyncapi).toBe('3.0.0');
    expect(m.info.version).toBe('1.2.0');
    expect(m.channels.map((c) => [c.id, c.address, c.messages])).toEqual([
      ['bookIntegrationEvents', 'library.book-integration-events', ['BookBorrowed', 'BookReturned']],
      ['memberNotifications', 'library.members.{memberId}.notifications', ['DueDateReminder']],
      ['copyLookups', 'library.copy-lookups', ['CopiesRequested']],
      ['copyLookupAnswers', 'library.copy-lookups.answers', ['CopiesCounted']],
    ]);
    expect(m.channels[0]!.bindings).toEqual({
      kafka: { partitions: 6, replicas: 1 },
      iggy: { stream: 'library', topic: 'book-integration-events', partitions: 3 },
    });
    expect(m.channels[1]!.parameters).toEqual([{ name: 'memberId', description: 'The member the notifications are for.' }]);
    const borrowed = m.messages['BookBorrowed']!;
    expect(borrowed).toMatchObject({
      type: 'BookBorrowed',
      contentType: 'application/json',
      payload: 'BookBorrowedPayload',
      headers: 'EventHeaders',
      correlationId: '$message.header#/correlationId',
      kafkaKey: { type: 'string', format: 'uuid' },
    });
    expect(borrowed.examples[0]?.name).toBe('first-loan');
    expect(borrowed.location).toMatchObject({ file: 'asyncapi.yaml', pointer: '/components/messages/BookBorrowed' });
    expect(m.operations.map((o) => [o.id, o.action, o.channel])).toEqual([
      ['publishBookEvents', 'send', 'bookIntegrationEvents'],
      ['receiveBookEvents', 'receive', 'bookIntegrationEvents'],
      ['sendReminder', 'send', 'memberNotifications'],
      ['lookUpCopies', 'receive', 'copyLookups'],
    ]);
    expect(m.operations[3]!.reply).toEqual({
      identifier: 'LookUpCopies',
      channel: 'copyLookupAnswers',
      messages: ['CopiesCounted'],
      addressHeader: 'replyTo',
      location: '$message.header#/replyTo',
    });
    expect(m.channels[3]!.roles).toEqual([{ action: 'send', operation: 'lookUpCopies (reply)' }]);
  });

  it('names $defs from referenced files and keeps them as references', async () => {
    const m = await model(repoRoot);
    expect(Object.keys(m.schemas)).toEqual(expect.arrayContaining(['BookId', 'MemberId', 'Member', 'EventHeaders']));
    expect(m.schemas['Member']!.location).toMatchObject({ file: 'schemas/common.json', pointer: '/$defs/Member', line: 8 });
    const payload = m.schemas['BookBorrowedPayload']!.schema as { properties: Record<string, unknown> };
    expect(payload.properties['borrower']).toEqual({ $ref: '#/schemas/Member' });
  });

  it('models AsyncAPI 2.6: subscribe is send, publish is receive, parameters from schema, draft-07 tuples', async () => {
    const m = await model(join(fixturesDir, 'streetlights-v2'));
    expect(m.asyncapi).toBe('2.6.0');
    expect(m.operations.map((o) => [o.id, o.action])).toEqual([
      ['emitUserSignUp', 'send'],
      ['onUserEvent', 'receive'],
    ]);
    expect(m.channels[0]!.bindings.kafka).toEqual({ topic: 'user-signedup', partitions: 3, replicas: 1 });
    expect(m.channels[1]!.messages).toEqual(['userDeleted', 'userRenamed']);
    const renamed = m.schemas['UserRenamedPayload']!.schema as { properties: { previous: unknown } };
    expect(renamed.properties.previous).toEqual({
      type: 'array',
      prefixItems: [{ $ref: '#/schemas/FullName' }, { type: 'string', format: 'date-time' }],
      items: false,
    });
    expect(m.schemas['FullName']!.schema).toMatchObject({ dependentRequired: { last: ['first'] } });
    expect(m.schemas['UserDeletedPayload']!.schema).toMatchObject({ properties: { reason: { type: ['string', 'null'] } } });
  });

  it('models 3.x multi-file messages, traits, enum parameters and recursion', async () => {
    const m = await model(join(fixturesDir, 'streetlights-v3'));
    expect(m.channels.find((c) => c.id === 'lightsDimmed')!.parameters[0]).toEqual({
      name: 'zone',
      description: 'The zone to dim.',
      enum: ['north', 'south'],
      default: 'north',
    });
    expect(m.messages['lightMeasured']!.headers).toBe('LightMeasuredHeaders');
    expect(m.channels.find((c) => c.id === 'lightingMeasured')!.bindings.kafka).toEqual({ partitions: 12 });
    const unions = await model(join(fixturesDir, 'unions'));
    const category = unions.schemas['Category']!.schema as { properties: { children: unknown } };
    expect(category.properties.children).toEqual({ type: 'array', items: { $ref: '#/schemas/Category' } });
  });
});
