/**
 * A message payload's schema format (AsyncAPI `schemaFormat`): where the schema is, and which
 * of keiyaku's paths reads it. AsyncAPI 3 writes `payload: { schemaFormat, schema }` (a
 * multi-format schema); AsyncAPI 2.x writes `message.schemaFormat` beside `payload`.
 *
 * JSON Schema media types take the JSON Schema path, Avro ones the Avro path (./avro/), Protobuf
 * ones the single Protobuf entry (./protobuf/). Any other format is an error naming it: read as
 * JSON Schema it would check nothing.
 *
 * @see https://www.asyncapi.com/docs/reference/specification/v3.0.0#multiFormatSchemaObject
 */

/** The schema formats keiyaku reads, as the error for any other lists them. */
export const SUPPORTED_SCHEMA_FORMATS = [
  'application/vnd.aai.asyncapi;version=<asyncapi version> (also +json, +yaml)',
  'application/schema+json;version=draft-07 (also +yaml; draft-04, draft-06, 2019-09, 2020-12)',
  'application/vnd.apache.avro;version=1.9.0 (also +json, +yaml; versions 1.9 to 1.12)',
  'application/vnd.google.protobuf;version=3 (also version=2)',
] as const;

export type SchemaFormatKind = 'json-schema' | 'avro' | 'protobuf';

export type ClassifiedFormat = { readonly kind: SchemaFormatKind } | { readonly kind: 'unsupported'; readonly reason: string };

/** The payload schema of a message and where it sits, below the message's pointer. */
export interface PayloadSource {
  /** The schema format as written, when the contract gives one. */
  readonly schemaFormat?: string;
  /** Tokens of the schema below the message (`['payload']` or `['payload', 'schema']`). */
  readonly tokens: readonly string[];
  /** Tokens of the `schemaFormat` below the message, when written. */
  readonly formatTokens?: readonly string[];
  readonly schema: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the payload schema of a message (its raw JSON, `payload` its payload's) is and in which format. */
export function payloadSource(message: unknown, payload: unknown, asyncapiMajor: number): PayloadSource {
  if (asyncapiMajor >= 3 && isObject(payload) && ('schemaFormat' in payload || isObject(payload['schema']))) {
    const format = payload['schemaFormat'];
    return {
      ...(typeof format === 'string' ? { schemaFormat: format, formatTokens: ['payload', 'schemaFormat'] } : {}),
      tokens: ['payload', 'schema'],
      schema: payload['schema'],
    };
  }
  const format = isObject(message) ? message['schemaFormat'] : undefined;
  return {
    ...(typeof format === 'string' ? { schemaFormat: format, formatTokens: ['schemaFormat'] } : {}),
    tokens: ['payload'],
    schema: payload,
  };
}

/** A media type's essence (lowercase, without parameters) and its parameters. */
function parseMediaType(text: string): { essence: string; parameters: Map<string, string> } {
  const [essence = '', ...rest] = text.split(';');
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at > 0)
      parameters.set(
        part.slice(0, at).trim().toLowerCase(),
        part
          .slice(at + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      );
  }
  return { essence: essence.trim().toLowerCase(), parameters };
}

const JSON_SCHEMA_DRAFTS = new Set(['draft-04', 'draft-06', 'draft-07', '2019-09', '2020-12']);
const AVRO_VERSION = /^1\.(9|10|11|12)(\.\d+)?$/;

/** Which path reads a payload of `schemaFormat` (absent: the document's own schema format, JSON Schema). */
export function classifySchemaFormat(schemaFormat: string | undefined): ClassifiedFormat {
  if (schemaFormat === undefined) return { kind: 'json-schema' };
  const { essence, parameters } = parseMediaType(schemaFormat);
  const version = parameters.get('version');
  if (/^application\/vnd\.aai\.asyncapi(\+json|\+yaml)?$/.test(essence)) return { kind: 'json-schema' };
  if (/^application\/schema(\+json|\+yaml)$/.test(essence)) {
    if (version === undefined || JSON_SCHEMA_DRAFTS.has(version)) return { kind: 'json-schema' };
    return { kind: 'unsupported', reason: `JSON Schema version "${version}" is not one keiyaku reads` };
  }
  if (/^application\/vnd\.apache\.avro(\+json|\+yaml)?$/.test(essence)) {
    if (version !== undefined && AVRO_VERSION.test(version)) return { kind: 'avro' };
    const which = version === undefined ? 'has no version' : `has version "${version}"`;
    return { kind: 'unsupported', reason: `the Avro schema format ${which}; keiyaku reads Avro 1.9 to 1.12` };
  }
  if (/^application\/(vnd\.google\.protobuf|x-protobuf)$/.test(essence)) {
    if (version === undefined || version === '2' || version === '3') return { kind: 'protobuf' };
    return { kind: 'unsupported', reason: `Protobuf version "${version}" is not 2 or 3` };
  }
  if (/^application\/vnd\.oai\.openapi/.test(essence)) return { kind: 'unsupported', reason: 'OpenAPI schema objects are not supported' };
  if (/^application\/raml/.test(essence)) return { kind: 'unsupported', reason: 'RAML data types are not supported' };
  return { kind: 'unsupported', reason: 'keiyaku does not know this schema format' };
}
