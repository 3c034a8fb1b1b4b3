/** A synthetic contract of `channels` × `messagesPerChannel` messages, for benchmarks. */
export function syntheticContract(channels: number, messagesPerChannel: number): Record<string, unknown> {
  const channelMap: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Money: {
      type: 'object',
      required: ['amount', 'currency'],
      properties: { amount: { type: 'integer' }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
    },
    Address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string', maxLength: 10 } },
    },
  };
  for (let c = 0; c < channels; c++) {
    const refs: Record<string, unknown> = {};
    for (let m = 0; m < messagesPerChannel; m++) {
      const name = `Entity${c}Event${m}`;
      messages[name] = {
        name,
        payload: {
          type: 'object',
          required: ['id', 'occurredAt', 'status'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            occurredAt: { type: 'string', format: 'date-time' },
            status: { type: 'string', enum: ['new', 'active', 'closed'] },
            total: { $ref: '#/components/schemas/Money' },
            shipTo: { $ref: '#/components/schemas/Address' },
            lines: {
              type: 'array',
              items: {
                type: 'object',
                required: ['sku', 'qty'],
                properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
              },
            },
            note: { type: ['string', 'null'] },
            attributes: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      };
      refs[name] = { $ref: `#/components/messages/${name}` };
    }
    channelMap[`entity${c}`] = { address: `entities.${c}.events`, messages: refs };
    operations[`publishEntity${c}`] = { action: 'send', channel: { $ref: `#/channels/entity${c}` } };
  }
  return {
    asyncapi: '3.0.0',
    info: { title: 'Synthetic', version: '1.0.0' },
    channels: channelMap,
    operations,
    components: { messages, schemas },
  };
}

/**
 * The same shape with shared component schemas: every payload is built from schemas under
 * `components.schemas` (line items, customers, addresses, money, audit stamps) that every
 * message references, as real contracts do. Validators must compile each shared schema once.
 */
export function sharedSyntheticContract(channels: number, messagesPerChannel: number): Record<string, unknown> {
  const document = syntheticContract(channels, messagesPerChannel) as {
    components: { messages: Record<string, { payload: Record<string, unknown> }>; schemas: Record<string, unknown> };
  };
  Object.assign(document.components.schemas, {
    Stamp: {
      type: 'object',
      required: ['at', 'by'],
      properties: { at: { type: 'string', format: 'date-time' }, by: { type: 'string', format: 'email' } },
    },
    Customer: {
      type: 'object',
      required: ['customerId', 'email'],
      properties: {
        customerId: { type: 'string', format: 'uuid' },
        email: { type: 'string', format: 'email' },
        billing: { $ref: '#/components/schemas/Address' },
        shipping: { type: 'array', items: { $ref: '#/components/schemas/Address' } },
      },
    },
    LineItem: {
      type: 'object',
      required: ['sku', 'qty', 'price'],
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
        qty: { type: 'integer', minimum: 1 },
        price: { $ref: '#/components/schemas/Money' },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
    },
  });
  for (const message of Object.values(document.components.messages)) {
    const properties = message.payload['properties'] as Record<string, unknown>;
    properties['lines'] = { type: 'array', items: { $ref: '#/components/schemas/LineItem' } };
    properties['customer'] = { $ref: '#/components/schemas/Customer' };
    properties['created'] = { $ref: '#/components/schemas/Stamp' };
    properties['updated'] = { $ref: '#/components/schemas/Stamp' };
  }
  return document;
}
