/**
 * A client of the Schema Registry REST API as Confluent defines it (and Apicurio Registry serves
 * under `/apis/ccompat/v7`): register a schema under a subject, look one up, read a schema by id,
 * read a subject's latest version. `fetch` only, no dependency. Ids and schemas are cached
 * (bounded, least recently used dropped first) and concurrent lookups of one key share one request.
 *
 * @see https://docs.confluent.io/platform/current/schema-registry/develop/api.html
 */
import { BoundedCache } from './cache.js';
import { REGISTRY_ERROR_CODES, SchemaRegistryError, SchemaRegistryUnavailableError } from './errors.js';

/** The registry's schema types keiyaku writes (JSON is read, e.g. by id, but keiyaku does not frame JSON Schema payloads). */
export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** A reference of a schema to another registered one (a Protobuf import, a named Avro type). */
export interface SchemaReference {
  /** The name the referencing schema uses (the import path, the Avro full name). */
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as it is registered. */
export interface SchemaInput {
  readonly schemaType: SchemaType;
  readonly schema: string;
  readonly references?: readonly SchemaReference[];
}

/** A schema registered under a subject, with its id and version. */
export interface RegisteredSchema extends SchemaInput {
  readonly subject: string;
  readonly id: number;
  readonly version: number;
}

export interface SchemaRegistryClientOptions {
  /** The registry's base URL (`http://registry:8081`; for Apicurio, `http://registry:8080/apis/ccompat/v7`). Credentials in the URL are sent as basic auth. */
  readonly url: string;
  /** Basic auth (`username`/`password`) or a bearer token. */
  readonly auth?: { readonly username: string; readonly password: string } | { readonly token: string };
  /** More headers on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** How long one request may take before it counts as the registry being unavailable (default 10 000 ms). */
  readonly timeoutMs?: number;
  /** Most ids and most schemas cached, each (default 1 000). */
  readonly cacheSize?: number;
  /** The `fetch` to use (default the global one): a counting or instrumented wrapper, a custom agent. */
  readonly fetch?: typeof fetch;
}

/** Options of {@link SchemaRegistryClient.id}. */
export interface SchemaIdOptions {
  /** Register the schema when the subject lacks it (default false: look it up only). */
  readonly autoRegister?: boolean;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export class SchemaRegistryClient {
  /** The base URL, without credentials or a trailing slash. */
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  /** `subject \0 type \0 schema` → id. */
  readonly #ids: BoundedCache<string, number>;
  /** id → schema. */
  readonly #schemas: BoundedCache<number, SchemaInput>;

  constructor(options: SchemaRegistryClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch (cause) {
      throw new SchemaRegistryError(
        `the schema registry URL ${JSON.stringify(options.url)} is not a URL: give one like http://registry:8081`,
        {
          errorCode: 0,
          status: 0,
          cause,
          code: 'schema_registry_config',
        },
      );
    }
    this.#headers = { accept: `${CONTENT_TYPE}, application/json`, ...options.headers };
    const auth = options.auth;
    if (parsed.username !== '' && auth === undefined)
      this.#headers['authorization'] = basic(decodeURIComponent(parsed.username), decodeURIComponent(parsed.password));
    else if (auth !== undefined)
      this.#headers['authorization'] = 'token' in auth ? `Bearer ${auth.token}` : basic(auth.username, auth.password);
    parsed.username = '';
    parsed.password = '';
    this.url = parsed.href.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
    const size = options.cacheSize ?? 1_000;
    this.#ids = new BoundedCache(size);
    this.#schemas = new BoundedCache(size);
  }

  /** Registers `schema` under `subject` (`POST /subjects/{subject}/versions`); resolves to its id (the existing one when already registered). */
  async register(subject: string, schema: SchemaInput): Promise<number> {
    const body = await this.#request<{ id: number }>(
      'POST',
      `/subjects/${encodeURIComponent(subject)}/versions`,
      subject,
      requestBody(schema),
    );
    this.#remember(subject, schema, body.id);
    return body.id;
  }

  /** The registered version of `schema` under `subject` (`POST /subjects/{subject}`); a SchemaRegistryError 40401/40403 when there is none. */
  async lookup(subject: string, schema: SchemaInput): Promise<RegisteredSchema> {
    const body = await this.#request<WireRegistered>('POST', `/subjects/${encodeURIComponent(subject)}`, subject, requestBody(schema));
    this.#remember(subject, schema, body.id);
    return registered(body, subject);
  }

  /** The schema of `id` (`GET /schemas/ids/{id}`), cached. */
  schema(id: number): Promise<SchemaInput> {
    return this.#schemas.load(id, async () => {
      const body = await this.#request<WireSchema>('GET', `/schemas/ids/${id}`, undefined);
      return schemaOf(body);
    });
  }

  /** The latest version of `subject` (`GET /subjects/{subject}/versions/latest`), never cached. */
  async latest(subject: string): Promise<RegisteredSchema> {
    const body = await this.#request<WireRegistered>('GET', `/subjects/${encodeURIComponent(subject)}/versions/latest`, subject);
    const schema = registered(body, subject);
    this.#schemas.set(schema.id, schemaOf(body));
    return schema;
  }

  /**
   * The id of `schema` under `subject`: cached, else looked up, else (with `autoRegister`)
   * registered. Without `autoRegister` a subject or version that lacks it is a
   * SchemaRegistryError that says so and how to fix it.
   */
  id(subject: string, schema: SchemaInput, options: SchemaIdOptions = {}): Promise<number> {
    return this.#ids.load(idKey(subject, schema), async () => {
      try {
        return (await this.lookup(subject, schema)).id;
      } catch (error) {
        if (!(error instanceof SchemaRegistryError) || !isMissing(error.errorCode)) throw error;
        if (options.autoRegister === true) return this.register(subject, schema);
        throw new SchemaRegistryError(
          `subject ${subject} in the schema registry at ${this.url} has no version with this ${schema.schemaType} schema (${error.message}): register it (e.g. with the registry's API or UI), or let keiyaku register it on first publish with autoRegister: true`,
          { errorCode: error.errorCode, status: error.status, subject, cause: error, code: 'schema_not_registered' },
        );
      }
    });
  }

  /** The cached id of `schema` under `subject`, without asking the registry. */
  cachedId(subject: string, schema: SchemaInput): number | undefined {
    return this.#ids.get(idKey(subject, schema));
  }

  /** Forgets every cached id and schema. */
  clearCache(): void {
    this.#ids.clear();
    this.#schemas.clear();
  }

  #remember(subject: string, schema: SchemaInput, id: number): void {
    this.#ids.set(idKey(subject, schema), id);
    if (this.#schemas.get(id) === undefined) this.#schemas.set(id, schema);
  }

  /** One request; 4xx → SchemaRegistryError, unreachable/5xx/429/timeout → SchemaRegistryUnavailableError. */
  async #request<T>(method: 'GET' | 'POST', path: string, subject: string | undefined, body?: string): Promise<T> {
    const url = `${this.url}${path}`;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers: body === undefined ? this.#headers : { ...this.#headers, 'content-type': CONTENT_TYPE },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (cause) {
      const timedOut = (cause as { name?: unknown } | null)?.name === 'TimeoutError';
      const reason = timedOut ? `no answer within ${this.#timeoutMs} ms` : causeText(cause);
      throw new SchemaRegistryUnavailableError(url, `the schema registry at ${this.url} is unavailable (${method} ${path}: ${reason})`, {
        cause,
      });
    }
    const text = await response.text().catch(() => '');
    if (response.ok) {
      try {
        return JSON.parse(text) as T;
      } catch (cause) {
        throw new SchemaRegistryUnavailableError(url, `the schema registry at ${this.url} answered ${method} ${path} with no JSON`, {
          status: response.status,
          cause,
        });
      }
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408)
      throw new SchemaRegistryUnavailableError(
        url,
        `the schema registry at ${this.url} is unavailable (${method} ${path}: HTTP ${response.status}${text === '' ? '' : ` ${text.slice(0, 200)}`})`,
        { status: response.status },
      );
    throw refusal(this.url, method, path, subject, response.status, text);
  }
}

interface WireRegistered {
  readonly subject?: string;
  readonly id: number;
  readonly version: number;
  readonly schema: string;
  readonly schemaType?: SchemaType;
  readonly references?: readonly SchemaReference[];
}
type WireSchema = Pick<WireRegistered, 'schema' | 'schemaType' | 'references'>;

function schemaOf(body: WireSchema): SchemaInput {
  // The registry leaves schemaType out for Avro, its default.
  const schema: SchemaInput = { schemaType: body.schemaType ?? 'AVRO', schema: body.schema };
  return body.references === undefined || body.references.length === 0 ? schema : { ...schema, references: body.references };
}

function registered(body: WireRegistered, subject: string): RegisteredSchema {
  return { ...schemaOf(body), subject: body.subject ?? subject, id: body.id, version: body.version };
}

function requestBody(schema: SchemaInput): string {
  // Avro is the registry's default type: left out, as the Confluent serdes do, for registries that predate schemaType.
  return JSON.stringify({
    ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
    schema: schema.schema,
    ...(schema.references === undefined || schema.references.length === 0 ? {} : { references: schema.references }),
  });
}

function idKey(subject: string, schema: SchemaInput): string {
  const references = schema.references === undefined ? '' : JSON.stringify(schema.references);
  return `${subject}\0${schema.schemaType}\0${schema.schema}\0${references}`;
}

function isMissing(code: number): boolean {
  return (
    code === REGISTRY_ERROR_CODES.subjectNotFound ||
    code === REGISTRY_ERROR_CODES.schemaNotFound ||
    code === REGISTRY_ERROR_CODES.versionNotFound
  );
}

function basic(username: string, password: string): string {
  // btoa takes Latin-1: spell the UTF-8 bytes as such characters first.
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

function causeText(cause: unknown): string {
  // fetch reports "fetch failed" and puts the reason (ECONNREFUSED, …) in its cause.
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  if (typeof inner?.message === 'string') return inner.message;
  return cause instanceof Error ? cause.message : String(cause);
}

/** What a 4xx answer means, with the fix. */
function refusal(
  base: string,
  method: string,
  path: string,
  subject: string | undefined,
  status: number,
  text: string,
): SchemaRegistryError {
  let errorCode = status;
  let said = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error_code?: unknown; message?: unknown };
    // Apicurio answers an incompatible schema with error_code 0: the status says it then.
    if (typeof body.error_code === 'number' && body.error_code !== 0) errorCode = body.error_code;
    if (typeof body.message === 'string') said = body.message;
  } catch {
    // not JSON: keep the text
  }
  const about = subject === undefined ? '' : ` for subject ${subject}`;
  const fix =
    errorCode === REGISTRY_ERROR_CODES.subjectNotFound
      ? `: subject ${subject} does not exist; register the schema, or check the subject name strategy`
      : errorCode === REGISTRY_ERROR_CODES.schemaNotFound
        ? `: the registry at ${base} holds no such schema`
        : errorCode === REGISTRY_ERROR_CODES.incompatible
          ? `: the schema is incompatible with the registered versions of ${subject} under the subject's compatibility level; make the change compatible (see keiyaku check) or register it under another subject`
          : errorCode === REGISTRY_ERROR_CODES.invalidSchema
            ? ': the registry rejects the schema as invalid'
            : status === 401 || status === 403
              ? ': the registry refused the credentials; set schemaRegistry.auth (basic or bearer)'
              : '';
  return new SchemaRegistryError(`the schema registry refused ${method} ${path}${about} (error ${errorCode}: ${said})${fix}`, {
    errorCode,
    status,
    ...(subject === undefined ? {} : { subject }),
  });
}
