// The parameters of a channel are a typed argument: per publisher or per publish, checked by
// the compiler against the contract (an enum becomes a union); a channel without parameters takes none.

import { createMessaging, type ParametersOfAddress, type Publisher } from '@keiyaku/runtime';
import { InMemoryTransport } from '@keiyaku/runtime/memory';
import { describe, expectTypeOf, it } from 'vitest';
import {
  PaymentRequests,
  type PaymentRequestsMessage,
  type PaymentRequestsParameters,
  PaymentResults,
  PaymentSettled,
} from '../fixtures/payments/expected/index.js';

declare const request: PaymentRequestsMessage;
const messaging = createMessaging({ transport: new InMemoryTransport() });

describe('typed addresses', () => {
  it('an enum parameter is a union of its values', () => {
    expectTypeOf<PaymentRequestsParameters>().toEqualTypeOf<{ readonly region: 'eu' | 'us' | 'apac' }>();
    expectTypeOf<ParametersOfAddress<typeof PaymentRequests.address>>().toEqualTypeOf<PaymentRequestsParameters>();
    expectTypeOf<ParametersOfAddress<typeof PaymentResults.address>>().toBeNever();
    // @ts-expect-error not a region of the contract
    PaymentRequests.address({ region: 'mars' });
    // @ts-expect-error the parameter is required
    PaymentRequests.address({});
  });

  it('one publisher routes by region, each publish naming its parameters', () => {
    const requests = messaging.publisher(PaymentRequests);
    expectTypeOf(requests).toEqualTypeOf<Publisher<PaymentRequestsMessage, PaymentRequestsParameters>>();
    void requests.publish(request, { parameters: { region: 'eu' } });
    // @ts-expect-error not a region of the contract
    void requests.publish(request, { parameters: { region: 'mars' } });
    // @ts-expect-error a misspelt parameter
    void requests.publish(request, { parameters: { regoin: 'eu' } });
    void messaging.publisher(PaymentRequests, { parameters: { region: 'us' } }).publish(request);
    // @ts-expect-error the publisher's parameters are checked as well
    messaging.publisher(PaymentRequests, { parameters: { region: 'mars' } });
  });

  it('a subscription names the parameters of the address it reads', () => {
    messaging.subscribe(PaymentRequests, { groupId: 'example.group', handle() {} }, { parameters: { region: 'apac' } });
    // @ts-expect-error not a region of the contract
    messaging.subscribe(PaymentRequests, { groupId: 'example.group', handle() {} }, { parameters: { region: 'mars' } });
  });

  it('a channel without parameters takes none', () => {
    const results = messaging.publisher(PaymentResults);
    void results.publish(PaymentSettled.create({ paymentId: 'p', outcome: 'settled' }));
    // @ts-expect-error no parameters on a fixed address
    void results.publish(PaymentSettled.create({ paymentId: 'p', outcome: 'settled' }), { parameters: { region: 'eu' } });
    // @ts-expect-error no parameters on a fixed address
    messaging.publisher(PaymentResults, { parameters: { region: 'eu' } });
  });
});
