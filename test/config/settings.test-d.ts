// configure() validates transport settings as plain data (runtime/config/settings.ts) and hands
// them to the transport packages it loads by name; these checks keep the two in step.
import type { IggyTransportOptions } from '@keiyaku/iggy';
import type { KafkaTransportOptions } from '@keiyaku/kafka';
import type { Logger } from '@keiyaku/runtime';
import type { IggySettings, KafkaSettings } from '@keiyaku/runtime/config';
import { expectTypeOf, test } from 'vitest';

test('the Kafka settings a configuration produces are Kafka transport options', () => {
  expectTypeOf<KafkaSettings & { readonly logger?: Logger }>().toExtend<KafkaTransportOptions>();
});

test('the Iggy settings a configuration produces are Iggy transport options', () => {
  expectTypeOf<IggySettings & { readonly logger?: Logger }>().toExtend<IggyTransportOptions>();
});
