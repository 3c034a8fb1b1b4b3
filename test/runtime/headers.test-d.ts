// Type-level tests: publishing takes the contract's typed headers where the message declares them.

import type { Publisher } from '@keiyaku/runtime';
import type { HeadersOf } from '@keiyaku/runtime/codegen-v1';
import { describe, expectTypeOf, it } from 'vitest';
import type { BookBorrowed, BookIntegrationEventsMessage, DueDateReminder, MemberNotificationsMessage } from '../../generated/index.js';
import type { EventHeaders } from '../../generated/types.js';

declare const publisher: Publisher<BookIntegrationEventsMessage>;
declare const notifications: Publisher<MemberNotificationsMessage>;
declare const borrowed: BookBorrowed;
declare const reminder: DueDateReminder;

describe('typed headers', () => {
  it('a message with a headers schema is published with its typed headers', () => {
    expectTypeOf<HeadersOf<BookBorrowed>>().toMatchTypeOf<EventHeaders>();
    void publisher.publish(borrowed, { headers: { correlationId: 'c-1' } });
    // Undeclared headers still travel (as strings, checked when published).
    void publisher.publish(borrowed, { headers: { correlationId: 'c-1', traceparent: '00-abc' } });
    // @ts-expect-error correlationId is a string in the contract
    void publisher.publish(borrowed, { headers: { correlationId: 42 } });
  });

  it('a message without one takes free string headers', () => {
    expectTypeOf<HeadersOf<DueDateReminder>>().toEqualTypeOf<Readonly<Record<string, string>>>();
    void notifications.publish(reminder, { headers: { anything: 'goes' } });
    // @ts-expect-error header values on the wire are strings
    void notifications.publish(reminder, { headers: { anything: 1 } });
  });
});
