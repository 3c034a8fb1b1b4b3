// A Kafka operation binding's groupId is not what keiyaku subscribes with (each handler declares its
// group): a located warning says so, on the fast reader and through the parser (--lint) alike.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileContract } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const v3 = (groupId: string) => `asyncapi: 3.0.0
info: { title: Parcels, version: 1.0.0 }
channels:
  pings:
    address: courier.pings
    messages:
      LocationPinged:
        payload: { type: object, properties: { courierId: { type: string } } }
operations:
  onPing:
    action: receive
    channel: { $ref: "#/channels/pings" }
    bindings:
      kafka:
        groupId: ${groupId}
`;

const v2 = `asyncapi: 2.6.0
info: { title: Parcels, version: 1.0.0 }
channels:
  courier.pings:
    publish:
      operationId: onPing
      bindings:
        kafka:
          groupId: { type: string, enum: [dispatch.courier-tracking] }
      message:
        name: LocationPinged
        payload: { type: object, properties: { courierId: { type: string } } }
`;

async function warnings(text: string, lint: boolean) {
  const dir = scratch('kafka-group-id');
  writeFileSync(join(dir, 'asyncapi.yaml'), text);
  const compiled = await compileContract('asyncapi.yaml', { cwd: dir, lint });
  expect(compiled.model).toBeDefined();
  return compiled.diagnostics.filter((d) => d.code === 'kafka_group_id_ignored');
}

describe('a Kafka operation binding groupId', () => {
  it.each([false, true])('is a located warning naming the group to declare on the handler (lint: %s)', async (lint) => {
    const found = await warnings(v3('{ type: string, const: dispatch.courier-tracking }'), lint);
    expect(found).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining(
          'operation "onPing" sets a Kafka binding groupId ("dispatch.courier-tracking"), which keiyaku does not use',
        ),
        hint: 'declare `groupId: "dispatch.courier-tracking"` on the handler that receives these messages, and remove `groupId` from the binding',
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 15, pointer: '/operations/onPing/bindings/kafka/groupId' }),
      }),
    ]);
  });

  it('is found in an AsyncAPI 2.x operation too', async () => {
    const [warning] = await warnings(v2, false);
    expect(warning?.message).toContain('"dispatch.courier-tracking"');
    expect(warning?.location).toMatchObject({ file: 'asyncapi.yaml', line: 9 });
  });

  it('without a single value, asks for the group on the handler', async () => {
    const [warning] = await warnings(v3('{ type: string }'), false);
    expect(warning?.hint).toBe('remove `groupId` from the binding and declare the group on the handler that receives these messages');
  });

  it('is not reported when the binding has no groupId', async () => {
    expect(
      await warnings(v3('{ type: string }').replace('        groupId: { type: string }\n', '        clientId: { type: string }\n'), false),
    ).toEqual([]);
  });
});
