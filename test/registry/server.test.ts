// The registry server scripts/registry starts, through its Confluent-compatible API with plain fetch:
// what keiyaku's registry client relies on (register, look up, read by id and by subject/version,
// compatibility levels and checks), for Avro and Protobuf. Where Apicurio answers otherwise than
// Confluent's registry, the test pins Apicurio's answer and docs/development.md names the difference.

import { describe, expect, it } from 'vitest';
import { registryCall, registrySkipNote, registryUrl, testSubject } from './registry-env.js';

const run = registryUrl === '' ? describe.skip : describe;

const avro = (fields: readonly object[]) => JSON.stringify({ type: 'record', name: 'OrderPlaced', namespace: 'dev.keiyaku.test', fields });
const orderV1 = avro([
  { name: 'orderId', type: 'string' },
  { name: 'cents', type: 'long' },
]);
// Readable by a reader of v1's data (BACKWARD): the added field has a default.
const orderV2 = avro([
  { name: 'orderId', type: 'string' },
  { name: 'cents', type: 'long' },
  { name: 'note', type: ['null', 'string'], default: null },
]);
// Not BACKWARD: a new reader finds no `currency` in v1's data and has no default for it.
const orderNoDefault = avro([
  { name: 'orderId', type: 'string' },
  { name: 'cents', type: 'long' },
  { name: 'currency', type: 'string' },
]);

const proto = (body: string) =>
  `syntax = "proto3";\npackage keiyaku.test;\n\nimport "google/protobuf/timestamp.proto";\n\nmessage PaymentTaken {\n${body}}\n`;
const paymentV1 = proto('  string payment_id = 1;\n  int64 cents = 2;\n  google.protobuf.Timestamp at = 3;\n');
const paymentV2 = proto('  string payment_id = 1;\n  int64 cents = 2;\n  google.protobuf.Timestamp at = 3;\n  string note = 4;\n');
// Field 2 changes wire type (varint → length-delimited): incompatible in every direction.
const paymentRetyped = proto('  string payment_id = 1;\n  string cents = 2;\n  google.protobuf.Timestamp at = 3;\n');

async function register(subject: string, schema: string, extra: object = {}): Promise<number> {
  const answer = await registryCall('POST', `/subjects/${encodeURIComponent(subject)}/versions`, { schema, ...extra });
  expect(answer, `registering under ${subject}`).toMatchObject({ status: 200, body: { id: expect.any(Number) } });
  return (answer.body as { id: number }).id;
}

run(`Schema Registry server (Confluent-compatible API)${registrySkipNote}`, () => {
  it('registers an Avro schema once and reads it back by id, by subject/version and by lookup', async () => {
    const subject = testSubject('orders-value');
    const id = await register(subject, orderV1);
    // The same text again is the same schema: same id, no new version.
    expect(await register(subject, orderV1)).toBe(id);

    const byId = await registryCall('GET', `/schemas/ids/${id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ schema: orderV1 });
    // Avro is the default type: no schemaType, as Confluent answers.
    expect((byId.body as { schemaType?: string }).schemaType ?? 'AVRO').toBe('AVRO');

    const version = { subject, version: 1, id, schema: orderV1 };
    expect(await registryCall('GET', `/subjects/${subject}/versions/1`)).toMatchObject({ status: 200, body: version });
    expect(await registryCall('GET', `/subjects/${subject}/versions/latest`)).toMatchObject({ status: 200, body: version });
    expect(await registryCall('GET', `/subjects/${subject}/versions`)).toEqual({ status: 200, body: [1] });
    expect(await registryCall('POST', `/subjects/${subject}`, { schema: orderV1 })).toMatchObject({ status: 200, body: version });
    expect((await registryCall('GET', '/subjects')).body).toContain(subject);
    expect((await registryCall('GET', `/schemas/ids/${id}/versions`)).body).toContainEqual({ subject, version: 1 });
  });

  it('gives a schema one id under every subject, as Confluent does (ids are per schema, not per subject)', async () => {
    const schema = avro([
      { name: 'only', type: 'string' },
      { name: 'nonce', type: { type: 'fixed', name: 'N', size: 8 } },
      { name: testSubject('f').replaceAll('-', '_'), type: 'int' },
    ]);
    const first = await register(testSubject('a-value'), schema);
    expect(await register(testSubject('b-value'), schema)).toBe(first);
  });

  it('registers Protobuf schemas, with a well-known import and with a reference to another subject, and returns them as PROTOBUF', async () => {
    const subject = testSubject('payments-value');
    const id = await register(subject, paymentV1, { schemaType: 'PROTOBUF' });
    expect(await registryCall('GET', `/schemas/ids/${id}`)).toMatchObject({
      status: 200,
      body: { schema: paymentV1, schemaType: 'PROTOBUF' },
    });
    expect(await registryCall('GET', `/subjects/${subject}/versions/latest`)).toMatchObject({
      status: 200,
      body: { subject, version: 1, id, schema: paymentV1, schemaType: 'PROTOBUF' },
    });

    // An imported file registered under a subject of its own and named in `references`, as the
    // Confluent serdes register a Protobuf schema that imports another.
    const moneySubject = testSubject('keiyaku.test.money');
    const money = 'syntax = "proto3";\npackage keiyaku.test;\n\nmessage Money {\n  int64 cents = 1;\n  string currency = 2;\n}\n';
    await register(moneySubject, money, { schemaType: 'PROTOBUF' });
    const refund =
      'syntax = "proto3";\npackage keiyaku.test;\n\nimport "keiyaku/test/money.proto";\n\nmessage Refunded {\n  keiyaku.test.Money amount = 1;\n}\n';
    const references = [{ name: 'keiyaku/test/money.proto', subject: moneySubject, version: 1 }];
    const refundSubject = testSubject('refunds-value');
    const refundId = await register(refundSubject, refund, { schemaType: 'PROTOBUF', references });
    expect(await registryCall('GET', `/subjects/${refundSubject}/versions/1`)).toMatchObject({
      status: 200,
      body: { id: refundId, schemaType: 'PROTOBUF', references },
    });
    expect(await registryCall('GET', `/schemas/ids/${refundId}`)).toMatchObject({ status: 200, body: { references } });
  });

  it('keeps a subject-level compatibility level, checks a candidate against it and refuses to register an incompatible one (Avro)', async () => {
    const subject = testSubject('orders-value');
    await register(subject, orderV1);
    expect(await registryCall('PUT', `/config/${subject}`, { compatibility: 'BACKWARD' })).toEqual({
      status: 200,
      body: { compatibility: 'BACKWARD' },
    });
    expect(await registryCall('GET', `/config/${subject}`)).toEqual({ status: 200, body: { compatibilityLevel: 'BACKWARD' } });

    const check = (schema: string) => registryCall('POST', `/compatibility/subjects/${subject}/versions/latest`, { schema });
    expect(await check(orderV2)).toMatchObject({ status: 200, body: { is_compatible: true } });
    expect(await check(orderNoDefault)).toMatchObject({ status: 200, body: { is_compatible: false } });

    // Confluent answers 409 with error_code 409; Apicurio 409 with error_code 0.
    const refused = await registryCall('POST', `/subjects/${subject}/versions`, { schema: orderNoDefault });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ message: expect.stringContaining('currency') });

    const v2 = await register(subject, orderV2);
    expect(await registryCall('GET', `/subjects/${subject}/versions/latest`)).toMatchObject({ body: { version: 2, id: v2 } });
    expect(await registryCall('GET', `/subjects/${subject}/versions`)).toEqual({ status: 200, body: [1, 2] });

    for (const level of ['FORWARD', 'FULL', 'BACKWARD_TRANSITIVE', 'FORWARD_TRANSITIVE', 'FULL_TRANSITIVE', 'NONE']) {
      expect(await registryCall('PUT', `/config/${subject}`, { compatibility: level })).toEqual({
        status: 200,
        body: { compatibility: level },
      });
      expect(await registryCall('GET', `/config/${subject}`)).toEqual({ status: 200, body: { compatibilityLevel: level } });
    }
    // With NONE anything goes.
    expect(await check(orderNoDefault)).toMatchObject({ status: 200, body: { is_compatible: true } });
  });

  it('checks Protobuf candidates by wire compatibility', async () => {
    const subject = testSubject('payments-value');
    await register(subject, paymentV1, { schemaType: 'PROTOBUF' });
    await registryCall('PUT', `/config/${subject}`, { compatibility: 'BACKWARD' });
    const check = (schema: string) =>
      registryCall('POST', `/compatibility/subjects/${subject}/versions/latest`, { schema, schemaType: 'PROTOBUF' });
    expect(await check(paymentV2)).toMatchObject({ status: 200, body: { is_compatible: true } });
    expect(await check(paymentRetyped)).toMatchObject({ status: 200, body: { is_compatible: false } });
    expect((await registryCall('POST', `/subjects/${subject}/versions`, { schema: paymentRetyped, schemaType: 'PROTOBUF' })).status).toBe(
      409,
    );
  });

  it('reads the global compatibility level (NONE on Apicurio, BACKWARD on Confluent) and the schema types', async () => {
    expect(await registryCall('GET', '/config')).toMatchObject({ status: 200, body: { compatibilityLevel: expect.any(String) } });
    expect((await registryCall('GET', '/schemas/types')).body).toEqual(expect.arrayContaining(['AVRO', 'PROTOBUF']));
  });

  it('answers 404 for an unknown subject, version and id, with Confluent error codes except for the subject', async () => {
    const subject = testSubject('missing-value');
    // Confluent: 40401 (subject not found); Apicurio answers 40402 (version not found) for both.
    expect(await registryCall('GET', `/subjects/${subject}/versions/1`)).toMatchObject({ status: 404, body: { error_code: 40402 } });
    await register(subject, orderV1);
    expect(await registryCall('GET', `/subjects/${subject}/versions/7`)).toMatchObject({ status: 404, body: { error_code: 40402 } });
    expect(await registryCall('GET', '/schemas/ids/2000000000')).toMatchObject({ status: 404, body: { error_code: 40403 } });
  });

  it('deletes a subject: its versions are listed back and it leaves the subject list', async () => {
    const subject = testSubject('gone-value');
    await register(subject, orderV1);
    expect(await registryCall('DELETE', `/subjects/${subject}`)).toEqual({ status: 200, body: [1] });
    expect((await registryCall('GET', '/subjects')).body).not.toContain(subject);
  });
});
