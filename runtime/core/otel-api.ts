/**
 * `@opentelemetry/api`, an optional peer of the runtime: loaded on first use when the service has
 * it installed (every OpenTelemetry SDK brings it), absent otherwise — then tracing and
 * OpenTelemetry metrics are simply off. The API keeps its registrations on a global, so this copy
 * and the one the service imports see the same SDK.
 */
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';

export type OtelApi = typeof Api;

let loaded: OtelApi | null | undefined;

/** The OpenTelemetry API when installed, else undefined. */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** OpenTelemetry's `SpanKind` values (numbers fixed by the API), usable without loading it. */
export const SPAN_KIND = Object.freeze({ PRODUCER: 3, CONSUMER: 4 } as const);
