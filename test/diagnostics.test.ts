// Diagnostics point at the right place: the real file:line:col with a relative path, one root
// cause once, a fix that fits, and "did you mean" for schema keyword and format typos.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { scratch } from './helpers.js';

async function diagnose(files: Record<string, string>) {
  const dir = scratch('diagnostics');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const result = await generateFromFile('asyncapi.yaml', { cwd: dir });
  return { dir, diagnostics: result.diagnostics.filter((d) => d.severity !== 'info') };
}

const contract = (payload: string) => `asyncapi: 3.0.0
info: { title: Orders, version: 1.0.0 }
channels:
  orders:
    address: orders
    messages:
      OrderPaid:
        name: OrderPaid
        payload:
${payload}`;

const orderPaid = (amount: string) => `{
  "type": "object",
  "required": ["orderId"],
  "properties": {
    "orderId": { "type": "string", "minLenght": 3 },
    "site": { "type": "string", "format": "uri-refrence" },
    "total": { "type": "number" },
    "amount": ${amount}
  }
}
`;

describe('diagnostics', () => {
  it('locate a bad pointer inside a nested $ref at the $ref, in its file, with a relative path', async () => {
    const { dir, diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          $ref: "./schemas/order-paid.json"\n'),
      'schemas/order-paid.json': orderPaid('{ "$ref": "#/properties/nothere" }'),
    });
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'invalid-ref',
        message: '$ref "#/properties/nothere": the pointer /properties/nothere does not exist in schemas/order-paid.json',
        hint: expect.stringContaining('resolved in the file that contains the $ref (schemas/order-paid.json)'),
        location: expect.objectContaining({ file: 'schemas/order-paid.json', line: 8, column: 26 }),
      },
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain(dir);
  });

  it('suggest the keyword and the format a typo was meant to be, at the typo', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          $ref: "./schemas/order-paid.json"\n'),
      'schemas/order-paid.json': orderPaid('{ "type": "number" }'),
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'unknown_keyword',
        hint: 'did you mean "minLength"?',
        location: expect.objectContaining({ file: 'schemas/order-paid.json', line: 5 }),
      }),
      expect.objectContaining({
        code: 'unknown_format',
        message: 'format "uri-refrence" is not one keiyaku validates; it is kept as documentation only',
        hint: 'did you mean "uri-reference"?',
        location: expect.objectContaining({ file: 'schemas/order-paid.json', line: 6 }),
      }),
    ]);
  });

  it('give one YAML indentation error once, with an indentation fix', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          type: object\n           properties:\n            id: { type: string }\n'),
    });
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'parser',
        message: 'Bad indentation of a mapping entry',
        hint: expect.stringMatching(/^indent this line with spaces/),
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 11 }),
      },
    ]);
  });

  it('name an OpenAPI discriminator object at the discriminator, once, with the AsyncAPI form as the fix', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract(
        '          type: object\n          discriminator:\n            propertyName: kind\n          properties:\n            kind: { type: string }\n',
      ),
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('not an OpenAPI discriminator object'),
        hint: 'write `discriminator: <propertyName>` (for example `discriminator: kind`)',
        location: expect.objectContaining({
          file: 'asyncapi.yaml',
          line: 11,
          pointer: '/channels/orders/messages/OrderPaid/payload/discriminator',
        }),
      }),
    ]);
  });

  it('say that a remote $ref could not be fetched', async () => {
    const { diagnostics } = await diagnose({ 'asyncapi.yaml': contract('          $ref: "https://schemas.invalid/order.json"\n') });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'invalid-ref',
        message: expect.stringMatching(/^the remote \$ref https:\/\/schemas\.invalid\/order\.json could not be fetched: /),
        hint: expect.stringContaining('copy the schema into a local file'),
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 10 }),
      }),
    ]);
  });

  it('locate a bad pointer of a cross-file $ref at the $ref, naming the file it was resolved in', async () => {
    const { dir, diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          $ref: "./schemas/payment.json"\n'),
      'schemas/payment.json':
        '{\n  "type": "object",\n  "properties": {\n    "amount": {\n      "$ref": "./common.json#/$defs/Monee"\n    }\n  }\n}\n',
      'schemas/common.json': '{ "$defs": { "Money": { "type": "number" } } }\n',
    });
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'invalid-ref',
        message: '$ref "./common.json#/$defs/Monee": the pointer /$defs/Monee does not exist in schemas/common.json',
        hint: 'point it at an existing node of schemas/common.json (did you mean "Money"?), or at another file',
        location: { file: 'schemas/payment.json', line: 5, column: 16, pointer: '/properties/amount/$ref' },
      },
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain(dir);
  });

  it('locate a bad pointer of a same-file $ref inside a YAML schema file at the $ref', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          $ref: "./schemas/order.yaml#/$defs/Order"\n'),
      'schemas/order.yaml':
        '$defs:\n  Order:\n    type: object\n    properties:\n      total:\n        $ref: "#/$defs/Mony"\n  Money:\n    type: number\n',
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'invalid-ref',
        message: '$ref "#/$defs/Mony": the pointer /$defs/Mony does not exist in schemas/order.yaml',
        location: expect.objectContaining({ file: 'schemas/order.yaml', line: 6, column: 16 }),
      }),
    ]);
  });

  it('report an unclosed quote where it opens, not at the indentation error it causes lines later', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': 'asyncapi: 3.0.0\ninfo:\n  title: "Orders\n  version: 1.0.0\nchannels:\n  orders:\n    address: "orders"\n',
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'parser',
        message: expect.stringMatching(/^the double-quoted string that opens here is not closed on its line: .*Bad indentation/),
        hint: 'close the string with " on this line (or write the value without quotes)',
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 3, column: 10 }),
      }),
    ]);
  });

  it('report an unclosed quote in a referenced schema file where it opens, naming the $ref', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract('          $ref: "./schemas/order.yaml"\n'),
      'schemas/order.yaml': 'type: object\ndescription: "An order\nproperties:\n  id:\n    type: string\n',
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'parser',
        message: expect.stringMatching(
          /^\$ref "\.\/schemas\/order\.yaml": the file schemas\/order\.yaml does not parse: the double-quoted string that opens here is not closed/,
        ),
        location: expect.objectContaining({ file: 'schemas/order.yaml', line: 2, column: 14 }),
      }),
    ]);
  });

  it('keep a multi-line quoted string that swallows nothing out of a later syntax error', async () => {
    const { diagnostics } = await diagnose({
      'asyncapi.yaml': contract(
        '          type: object\n          description: "one\n            two"\n           properties:\n            id: { type: string }\n',
      ),
    });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'parser', message: 'Bad indentation of a mapping entry' })]);
  });
});
