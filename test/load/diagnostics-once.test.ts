// A problem in a schema that several places reach through `$ref` (a component schema used by a
// message, referenced from a channel and an operation) is reported once, not once per path.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFromFile } from 'keiyaku';
import { describe, expect, it } from 'vitest';
import { scratch } from '../helpers.js';

const contract = `asyncapi: 3.0.0
info: { title: Orders, version: 1.0.0 }
channels:
  orders:
    address: orders
    messages:
      OrderPaid:
        $ref: "#/components/messages/OrderPaid"
operations:
  sendOrders:
    action: send
    channel: { $ref: "#/channels/orders" }
    messages:
      - $ref: "#/channels/orders/messages/OrderPaid"
components:
  messages:
    OrderPaid:
      name: OrderPaid
      payload:
        $ref: "#/components/schemas/Order"
  schemas:
    Order:
      type: object
      discriminator:
        propertyName: kind
      properties:
        kind: { type: string }
`;

describe('diagnostics of a node reached by several $ref paths', () => {
  it('names an OpenAPI discriminator object once, at the discriminator', async () => {
    const dir = scratch('diagnostics-once');
    writeFileSync(join(dir, 'asyncapi.yaml'), contract);
    const { diagnostics } = await generateFromFile('asyncapi.yaml', { cwd: dir });
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('not an OpenAPI discriminator object'),
        location: expect.objectContaining({ file: 'asyncapi.yaml', line: 24, column: 7 }),
      }),
    ]);
  });
});
