/**
 * The fast path's document check: the resolved document against the official AsyncAPI JSON
 * Schema of its version (@asyncapi/specs), with validators compiled at build time
 * (scripts/build-asyncapi-validators.mjs), reported like the parser's
 * `asyncapi-document-resolved` rule. The parser's full Spectral rulesets stay available
 * (`keiyaku validate --lint`); they cost seconds per run, this costs milliseconds.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { editDistance } from '../diagnostics.js';

const require = createRequire(import.meta.url);

/** Versions with a build-time validator; other versions go through the full rulesets. */
export const FAST_VERSIONS: readonly string[] = ['2.6.0', '3.0.0', '3.1.0'];

export interface SchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}

type Validate = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

const loaded = new Map<string, Validate>();

function validatorFor(version: string): Validate | undefined {
  if (!FAST_VERSIONS.includes(version)) return undefined;
  let validate = loaded.get(version);
  if (validate === undefined) {
    const file = join(dirname(fileURLToPath(import.meta.url)), 'asyncapi-schemas', `${version}.cjs`);
    if (!existsSync(file)) return undefined; // not built (`npm run build` writes them): the caller takes the full path
    validate = (require(file) as { validate: Validate }).validate;
    loaded.set(version, validate);
  }
  return validate;
}

/** Whether `value` holds an object cycle (shared, acyclic parts are fine for validation). */
function cyclic(value: unknown, stack = new Set<object>(), done = new Set<object>()): boolean {
  if (typeof value !== 'object' || value === null || done.has(value)) return false;
  if (stack.has(value)) return true;
  stack.add(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (cyclic(child, stack, done)) return true;
  stack.delete(value);
  done.add(value);
  return false;
}

/** A copy without cycles (the parser links circular `$ref`s as object cycles): a back edge becomes `{}`. */
function acyclic(value: unknown, stack = new Set<object>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (stack.has(value)) return {};
  stack.add(value);
  const copy = Array.isArray(value)
    ? value.map((v) => acyclic(v, stack))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, acyclic(v, stack)]));
  stack.delete(value);
  return copy;
}

/** Keys of `components.messages` and `components.channels` the 3.x schema validates (its `patternProperties`). */
const COMPONENT_KEY = /^[\w\d.\-_]+$/;

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** An object that may stand for its definition's checks: a `$ref` key would also match a Reference object. */
const plainObject = (value: unknown): value is Json => isJson(value) && !Object.hasOwn(value, '$ref');

/**
 * A resolved 3.x document's copy in which an object reached again where the schema checks it
 * against the same definition is checked once: resolving `$ref`s puts one message object under
 * `components.messages`, its channel and every operation that sends it (one channel object under
 * `channels` and every operation on it), and each place would check it again. The later places
 * hold `{}` instead, which every one of these definitions (channel, message) accepts. Only for a
 * pass or fail verdict: the problems of a failing document are found on the whole document.
 */
function checkedOnce(document: Json): Json {
  const messages = new Set<object>();
  const channels = new Set<object>();
  const components = isJson(document['components']) ? document['components'] : {};
  // Seen where the components schema checks them (keys that match its patternProperties).
  for (const [key, message] of Object.entries(isJson(components['messages']) ? components['messages'] : {}))
    if (COMPONENT_KEY.test(key) && plainObject(message)) messages.add(message);
  for (const [key, channel] of Object.entries(isJson(components['channels']) ? components['channels'] : {}))
    if (COMPONENT_KEY.test(key) && plainObject(channel)) channels.add(channel);
  const once = (seen: Set<object>, value: unknown): unknown => {
    if (!plainObject(value)) return value;
    if (seen.has(value)) return {};
    seen.add(value);
    return value;
  };
  const out: Json = { ...document };
  if (isJson(document['channels'])) {
    const copy: Json = {};
    for (const [key, channel] of Object.entries(document['channels'])) {
      const kept = once(channels, channel);
      if (kept === channel && plainObject(channel) && isJson(channel['messages'])) {
        const inner: Json = {};
        for (const [name, message] of Object.entries(channel['messages'])) inner[name] = once(messages, message);
        copy[key] = { ...channel, messages: inner };
      } else copy[key] = kept;
    }
    out['channels'] = copy;
  }
  if (isJson(document['operations'])) {
    // The build points an operation's (and its reply's) channel and messages at the channel and message definitions.
    const part = (value: Json): Json => {
      const copy: Json = { ...value };
      if (plainObject(value['channel']) && channels.has(value['channel'])) copy['channel'] = {};
      if (Array.isArray(value['messages']))
        copy['messages'] = value['messages'].map((m: unknown) => (plainObject(m) && messages.has(m) ? {} : m));
      return copy;
    };
    const copy: Json = {};
    for (const [key, operation] of Object.entries(document['operations'])) {
      if (!isJson(operation)) copy[key] = operation;
      else {
        const next = part(operation);
        if (isJson(operation['reply'])) next['reply'] = part(operation['reply']);
        copy[key] = next;
      }
    }
    out['operations'] = copy;
  }
  return out;
}

/**
 * Whether `document` (resolved JSON) passes the AsyncAPI schema of `version`, each shared channel
 * and message object checked once (see {@link checkedOnce}); undefined when no build-time
 * validator exists for `version`. The plain reader's verdict: a document that fails goes to the
 * parser, whose problems come from {@link checkDocument}.
 */
export function documentPasses(document: unknown, version: string, hasCycles?: boolean): boolean | undefined {
  const validate = validatorFor(version);
  if (validate === undefined) return undefined;
  const data = version.startsWith('3.') && isJson(document) ? checkedOnce(document) : document;
  return validate((hasCycles ?? cyclic(data)) ? acyclic(data) : data);
}

export interface DocumentProblem {
  /** Path in the resolved document. */
  readonly path: readonly string[];
  readonly message: string;
}

/**
 * Problems of `document` (resolved JSON) against the AsyncAPI schema of `version`, filtered and
 * worded as the parser's rule does; undefined when no build-time validator exists for `version`.
 * `hasCycles`: whether the document holds an object cycle, when the caller knows (else it is found out).
 */
export function checkDocument(document: unknown, version: string, hasCycles?: boolean): DocumentProblem[] | undefined {
  const validate = validatorFor(version);
  if (validate === undefined) return undefined;
  const data = (hasCycles ?? cyclic(document)) ? acyclic(document) : document;
  if (validate(data)) return [];
  const errors = prepare([...(validate.errors ?? [])]);
  const unmatched = new Map<string, string>();
  for (const e of errors)
    if ((e.keyword === 'oneOf' || e.keyword === 'anyOf') && !Array.isArray(e.params['passingSchemas']))
      unmatched.set(e.instancePath, e.keyword);
  // Report the most specific problems: a combinator or conditional failing where a deeper error explains it says nothing more.
  const specific = errors.filter(
    (e) =>
      !(
        ['oneOf', 'anyOf', 'if', 'not'].includes(e.keyword) &&
        errors.some((o) => o !== e && !['oneOf', 'anyOf', 'if', 'not'].includes(o.keyword) && o.instancePath.startsWith(e.instancePath))
      ),
  );
  const seen = new Set<string>();
  const problems: DocumentProblem[] = [];
  for (const e of specific) {
    if (seen.has(e.instancePath)) continue;
    seen.add(e.instancePath);
    const path =
      e.instancePath === ''
        ? []
        : e.instancePath
            .slice(1)
            .split('/')
            .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = describe(e, path, data);
    const combinator = unmatched.get(e.instancePath);
    if (combinator !== undefined && message.endsWith(` in ${combinator}`))
      message = `${message}. None of the schemas matched, see the other errors reported for this value`;
    problems.push({ path, message });
  }
  return problems;
}

/** As the parser's rule: additional properties point at the property, `$ref` requirements (irrelevant once resolved) go, duplicates go. */
function prepare(errors: SchemaError[]): SchemaError[] {
  const out: SchemaError[] = [];
  for (const e of errors) {
    if (e.keyword === 'required' && e.params['missingProperty'] === '$ref') continue;
    const instancePath =
      e.keyword === 'additionalProperties'
        ? `${e.instancePath}/${String(e.params['additionalProperty']).replace(/~/g, '~0').replace(/\//g, '~1')}`
        : e.instancePath;
    if (e.keyword === 'additionalProperties' && e.params['additionalProperty'] === '$ref') continue;
    out.push({ ...e, instancePath });
  }
  return out;
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let node = data;
  for (const token of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined;
  return node;
}

/** Wording of @stoplight/better-ajv-errors, as Spectral shows it. */
function describe(e: SchemaError, path: readonly string[], data: unknown): string {
  const last = path.at(-1);
  const value = valueAt(data, path);
  const name = last === undefined ? typeof value : /^\d+$/.test(last) ? undefined : `"${last}" property`;
  const subject = (text: string): string =>
    name === undefined
      ? `Item at index ${last}${text}`
      : last === undefined
        ? `${name[0]!.toUpperCase()}${name.slice(1)}${text}`
        : `${name}${text}`;
  const message = (e.message ?? e.keyword).replace(/'/g, '"').replace(/NOT/g, 'not');
  switch (e.keyword) {
    case 'additionalProperties':
      return `Property "${String(e.params['additionalProperty'])}" is not expected to be here`;
    case 'type':
      return subject(` type ${message}`);
    case 'enum': {
      const allowed = (e.params['allowedValues'] as unknown[]) ?? [];
      const list = allowed.map((v) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v))).join(', ');
      const best =
        typeof value === 'string'
          ? closest(
              value,
              allowed.filter((v): v is string => typeof v === 'string'),
            )
          : undefined;
      return `${subject(` ${message}: ${list}`)}${best ? `. Did you mean "${best}"?` : ''}`;
    }
    default:
      return subject(` ${message}`);
  }
}

function closest(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(value, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(value.length / 3)) ? best : undefined;
}
