/**
 * The contract's files checked before anything else reads them (the fast reader, the AsyncAPI
 * parser, the model builder): hostile or broken input ends here, in bounded time and memory, with
 * a located diagnostic, instead of running forever, exhausting memory or crashing deeper down.
 *
 * - every file is read once, only when it is a regular file of at most 16 MiB (see
 *   {@link readContractFile}); YAML aliases and merge keys expand to at most
 *   {@link MAX_ALIAS_COUNT} values (alias bombs, also in an unused `x-` extension);
 * - a `$ref` stays inside the contract's folder tree (symbolic links resolved) unless
 *   `allowRefOutside` is set: a contract cannot make keiyaku read `/etc/shadow`;
 * - a `$ref` to a file that cannot be read or does not parse, or whose pointer names nothing, is
 *   located at the `$ref` itself (file, line, column), naming the file it was resolved in;
 * - `$ref` cycles that cannot be generated are refused: a `$ref` that reaches itself through
 *   `$ref`s only (a schema or message A → B → A, a.json → b.json → a.json), and a `$ref` back into
 *   an object that contains it which is not a schema (the whole document, a channel, a message).
 *   A recursive schema (a schema reached again from inside itself) is legitimate JSON Schema and
 *   passes (docs/schema-mapping.md);
 * - nesting deeper than {@link MAX_DEPTH} levels and keys longer than {@link MAX_KEY_LENGTH}
 *   characters are refused (they overflow the stack of every recursive reader);
 * - the root must be an AsyncAPI document: a mapping with a string `asyncapi` version; YAML tags
 *   the YAML core schema does not know (`!custom`, a `!!seq` on a mapping) are refused.
 *
 * The walk follows each file's written values (never a resolved document) and visits each
 * object once, so its cost is one pass over the contract's files.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { type Diagnostic, didYouMean, type SourceLocation } from '../diagnostics.js';
import { escapeToken, unescapeToken } from '../pointer.js';
import { unclosedQuote } from './refine-diagnostics.js';
import { MAX_ALIAS_COUNT, type SourceLocator } from './source-locator.js';

/** Container levels (objects and arrays) one walk through the contract may nest, `$ref`s included. */
export const MAX_DEPTH = 256;
/** The longest key (property name, channel id, …) a contract may use. */
export const MAX_KEY_LENGTH = 1024;
/** How many files one contract may reference. */
export const MAX_FILES = 1000;
/** How many `$ref`s may be followed in a row before a target is reached. */
const MAX_HOPS = 64;

export interface GuardOptions {
  /** Let `$ref`s read files outside the contract's folder tree (`--allow-ref-outside`). */
  readonly allowRefOutside?: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys that only AsyncAPI objects (documents, channels, messages, operations, their maps) have, never a schema. */
const NOT_SCHEMA = ['asyncapi', 'channels', 'components', 'operations', 'payload', 'messages', 'address', 'publish', 'subscribe'];

/** A value that the generator can meet again from inside itself: a schema (an object without AsyncAPI structure). */
function recursiveSchema(value: unknown): boolean {
  return isObject(value) && !NOT_SCHEMA.some((key) => Object.hasOwn(value, key));
}

/** An object as JSON has them (a YAML mapping), not a Set, Map, Date or bytes that YAML tags make. */
function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown, empty = 'nothing (an empty or null document)'): string {
  if (value === null || value === undefined) return empty;
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data (a !!binary value)';
  if (value instanceof Date) return 'a date (a !!timestamp value)';
  if (value instanceof Set) return 'a set (a !!set value)';
  if (value instanceof Map) return 'an ordered map (a !!omap or !!pairs value)';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (${JSON.stringify(String(value).slice(0, 40))})`;
}

/** Where a value sits: its file and the path from the file's root (tokens built only when a diagnostic needs them). */
class Place {
  private constructor(
    readonly file: string,
    readonly parent: Place | undefined,
    readonly token: string | undefined,
  ) {}
  static root(file: string): Place {
    return new Place(file, undefined, undefined);
  }
  child(token: string): Place {
    return new Place(this.file, this, token);
  }
  get tokens(): string[] {
    const out: string[] = [];
    for (let place: Place | undefined = this; place?.token !== undefined; place = place.parent) out.push(place.token);
    return out.reverse();
  }
}

class Refused extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

/** A `$ref` target: the value a `$ref` finally names, and where it is written. */
interface Target {
  readonly value: unknown;
  readonly place: Place;
}

const pointerOf = (tokens: readonly string[]): string => tokens.map((t) => `/${escapeToken(t)}`).join('');
const refPlace = (place: Place): Place => place.child('$ref');

/**
 * Problems that stop the load, in the order found (empty: the contract may be read). Never
 * throws for contract problems.
 */
export function guardContract(rootFile: string, locator: SourceLocator, options: GuardOptions = {}): Diagnostic[] {
  return new ContractGuard(rootFile, locator, options).run();
}

/** One check of one contract: the files read, the `$ref` targets reached and the walk's state, shared by its steps. */
class ContractGuard {
  readonly diagnostics: Diagnostic[] = [];
  readonly rootDir: string;
  readonly realRoot: string;
  /** Files read so far, and the problems they had (reported once each). */
  readonly checkedFiles = new Map<string, Diagnostic | undefined>();
  /** How many `follow`s are under way (a `$ref` followed inside the pointer of another). */
  nested = 0;
  /** Targets already reached, by the file a `$ref` is written in and the `$ref` as written. */
  readonly reached = new Map<string, Target>();
  /**
   * How deep each object walked so far nests once its `$ref`s are followed (a `$ref` back into an
   * object still being walked is recursion, which a generated type names, and counts nothing).
   */
  readonly heights = new Map<object, number>();
  /** Objects on the walk's path: a `$ref` to one of them is a cycle. */
  readonly active = new Set<object>();

  constructor(
    readonly rootFile: string,
    readonly locator: SourceLocator,
    readonly options: GuardOptions,
  ) {
    this.rootDir = dirname(rootFile);
    let realRoot: string;
    try {
      realRoot = realpathSync(this.rootDir);
    } catch {
      realRoot = this.rootDir;
    }
    this.realRoot = realRoot;
  }

  display(file: string): string {
    return this.locator.displayPath(file);
  }

  at(place: Place, text = false): SourceLocation {
    return this.locator.locateWritten(place.file, place.tokens, text);
  }

  /** Problems that stop the load, in the order found. */
  run(): Diagnostic[] {
    try {
      const root = this.fileValue(this.rootFile, undefined, undefined);
      // A syntax error is the root cause: the parser reports it, located (the value read past it is
      // a guess). Its aliases were counted above, so the parser meets no bomb either.
      if (this.locator.yamlProblems(this.rootFile).errors.length > 0) return this.diagnostics;
      const where: SourceLocation = { file: this.display(this.rootFile), line: 1, column: 1, pointer: '' };
      if (!isObject(root)) {
        this.diagnostics.push({
          severity: 'error',
          code: 'not_asyncapi',
          message: `contract file ${this.display(this.rootFile)} holds ${describe(root)}, not an AsyncAPI document`,
          hint: 'write an AsyncAPI document: a mapping that starts with `asyncapi: 3.0.0`',
          location: where,
        });
        return this.diagnostics;
      }
      const version = root['asyncapi'];
      if (typeof version !== 'string') {
        const location = version === undefined ? where : this.at(Place.root(this.rootFile).child('asyncapi'));
        this.diagnostics.push({
          severity: 'error',
          code: 'not_asyncapi',
          message:
            version === undefined
              ? `contract file ${this.display(this.rootFile)} has no \`asyncapi\` version: it is not an AsyncAPI document`
              : `\`asyncapi\` is ${describe(version)}; the version must be a string`,
          hint: version === undefined ? 'start the document with `asyncapi: 3.0.0` (or 2.6.0)' : "quote the version: asyncapi: '3.0.0'",
          location,
        });
        return this.diagnostics;
      }
      this.walk(root, Place.root(this.rootFile), 0);
      this.checkShape(root, version);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      this.diagnostics.push(error.diagnostic);
    }
    return this.diagnostics;
  }

  /** Whether `file` (symbolic links resolved) lies inside the contract's folder tree. */
  inside(file: string): boolean {
    let real = file;
    try {
      real = realpathSync(file);
    } catch {
      // a file that does not exist is judged by its path
    }
    const rel = relative(this.realRoot, real);
    return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  }

  /** The value of `file`, or a diagnostic (at `from`, the `$ref` that led here) saying why it cannot be read. */
  fileValue(file: string, from: Place | undefined, ref: string | undefined): unknown {
    const known = this.checkedFiles.get(file);
    if (known !== undefined) throw new Refused(known);
    const where = (): SourceLocation | undefined => (from === undefined ? undefined : this.at(refPlace(from), true));
    const refused = (code: string, message: string, hint: string, location = where()): never => {
      const diagnostic: Diagnostic = { severity: 'error', code, message, hint, ...(location ? { location } : {}) };
      this.checkedFiles.set(file, diagnostic);
      throw new Refused(diagnostic);
    };
    const via = ref === undefined ? `contract file ${this.display(file)}` : `$ref "${ref}": the file ${this.display(file)}`;
    if (!this.checkedFiles.has(file)) {
      if (ref !== undefined && !this.options.allowRefOutside && !this.inside(file))
        refused(
          'ref_outside_contract',
          `$ref "${ref}" points outside the contract's folder (${this.display(this.rootDir) || '.'}): keiyaku does not read ${this.display(file)}`,
          'move the file into the folder tree of the contract, or allow it with --allow-ref-outside ("allowRefOutside": true in keiyaku.config.json)',
        );
      if (this.checkedFiles.size >= MAX_FILES)
        refused('ref_too_many_files', `the contract references more than ${MAX_FILES} files`, 'merge schemas into fewer files');
      const unreadable = this.locator.unreadable(file);
      if (unreadable === 'does not exist') {
        this.checkedFiles.set(file, undefined);
        return undefined; // the parser reports a missing file, with its own words
      }
      if (unreadable !== undefined) {
        const deep = /call stack/i.test(unreadable);
        refused(
          ref === undefined ? 'spec_unreadable' : 'ref_unreadable',
          deep
            ? `${via} nests too deeply to be read (keiyaku reads up to ${MAX_DEPTH} levels)`
            : `${via} cannot be read: ${unreadable.replace(file, this.display(file))}`,
          deep
            ? 'flatten the document: move nested parts into named schemas under components/schemas'
            : 'a contract file (and every file a $ref names) must be a regular YAML or JSON file of at most 16 MiB',
          where() ?? { file: this.display(file), line: 1, column: 1, pointer: '' },
        );
      }
      const { errors, warnings } = this.locator.yamlProblems(file);
      const exhausted = errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
      if (exhausted !== undefined)
        refused(
          'nesting_too_deep',
          `${via} nests too deeply to be read (keiyaku reads up to ${MAX_DEPTH} levels)`,
          'flatten the document: move nested parts into named schemas under components/schemas',
          { file: this.display(file), line: exhausted.line, column: exhausted.column, pointer: '' },
        );
      const syntax = errors[0] ?? warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
      if (syntax !== undefined && (ref !== undefined || syntax.code === 'TAG_RESOLVE_FAILED')) {
        const tag = syntax.code === 'TAG_RESOLVE_FAILED';
        const quote = tag ? undefined : unclosedQuote(this.locator, file, syntax.line);
        if (quote !== undefined)
          refused(
            'parser',
            `${via} does not parse: the ${quote.kind} string that opens here is not closed on its line (the YAML parser reports "${syntax.message}" at line ${syntax.line})`,
            `close the string with ${quote.kind === 'double-quoted' ? '"' : "'"} on this line (or write the value without quotes)`,
            { file: this.display(file), line: quote.line, column: quote.column, pointer: '' },
          );
        refused(
          tag ? 'yaml_tag' : 'parser',
          tag ? `${syntax.message}: keiyaku reads plain YAML (the core schema) only` : `${via} does not parse: ${syntax.message}`,
          tag ? 'remove the tag; write the value as plain YAML' : 'fix the YAML/JSON syntax at this position',
          { file: this.display(file), line: syntax.line, column: syntax.column, pointer: '' },
        );
      }
      this.checkedFiles.set(file, undefined);
    }
    try {
      return this.locator.value(file);
    } catch (error) {
      const alias = error instanceof Error && /alias/i.test(error.message);
      return refused(
        alias ? 'yaml_alias_limit' : 'parser',
        alias
          ? `${ref === undefined ? `contract file ${this.display(file)}` : `the file ${this.display(file)}`}: YAML aliases expand to more than ${MAX_ALIAS_COUNT} values (an alias or merge-key bomb?)`
          : error instanceof RangeError
            ? `${via} nests too deeply to be read (keiyaku reads up to ${MAX_DEPTH} levels)`
            : `${via} does not parse: ${error instanceof Error ? error.message : String(error)}`,
        alias
          ? 'write the values out, or use fewer aliases and merge keys (<<)'
          : error instanceof RangeError
            ? 'flatten the document: move nested parts into named schemas under components/schemas'
            : 'fix the YAML/JSON syntax',
        alias
          ? { file: this.display(file), line: 1, column: 1, ...this.locator.firstAlias(file), pointer: '' }
          : (where() ?? { file: this.display(file), line: 1, column: 1, pointer: '' }),
      );
    }
  }

  /**
   * Follows the `$ref` of the object at `from` to the value it finally names: `$ref`s on the way
   * (in the pointer, or a target that is itself a `$ref`) are followed too. A chain that reaches a
   * `$ref` it already followed is a cycle with nothing in between.
   */
  follow(from: Place, ref: string): Target | undefined {
    const memo = `${from.file}\0${ref}`;
    const known = this.reached.get(memo);
    if (known !== undefined) return known;
    const chain: string[] = [];
    const seen = new Set<string>();
    let place = from;
    let current = ref;
    const cycle = (): never => {
      throw new Refused({
        severity: 'error',
        code: 'ref_cycle',
        message:
          chain.length > 0
            ? `$ref cycle with no schema in between: ${chain.join(' → ')}`
            : `$ref "${ref}" runs through more than ${MAX_HOPS} $refs on its way without reaching a schema (a cycle through its own pointer?)`,
        hint: 'make one of these $refs point at a schema (an object with type, properties, …) instead of another $ref',
        location: this.at(refPlace(place), true),
      });
    };
    if (++this.nested > MAX_HOPS) cycle();
    try {
      for (let hops = 0; ; hops++) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(current)) return undefined; // remote: the parser fetches it
        const hash = current.indexOf('#');
        const target = hash === -1 ? current : current.slice(0, hash);
        const fragment = hash === -1 ? '' : current.slice(hash + 1);
        const file = target === '' ? place.file : resolve(dirname(place.file), decodePath(target));
        chain.push(current);
        const key = `${file}#${fragment.replace(/\/$/, '')}`;
        if (seen.has(key) || hops > MAX_HOPS) cycle();
        seen.add(key);
        let value = this.fileValue(file, place, current);
        if (value === undefined) return undefined; // a missing file: the parser reports it
        let tokens: string[];
        try {
          if (fragment !== '' && !fragment.startsWith('/')) throw new Error('a JSON pointer starts with /');
          tokens = fragment === '' || fragment === '/' ? [] : fragment.slice(1).split('/').map(decodeToken);
        } catch (error) {
          throw new Refused({
            severity: 'error',
            code: 'invalid-ref',
            message: `$ref "${current}": "#${fragment}" is not a JSON pointer (${error instanceof Error ? error.message : String(error)})`,
            hint: 'write the pointer as #/path/to/node, with ~1 for / and ~0 for ~ in keys',
            location: this.at(refPlace(place), true),
          });
        }
        let valuePlace = Place.root(file);
        for (let i = 0; i < tokens.length; i++) {
          // A $ref on the way: the rest of the pointer continues from its target, unless the object
          // has the key itself (a schema whose root is `$ref: '#/definitions/X'` beside its definitions).
          while (isObject(value) && typeof value['$ref'] === 'string' && !Object.hasOwn(value, tokens[i]!)) {
            const next = this.follow(valuePlace, value['$ref']);
            if (next === undefined) return undefined;
            value = next.value;
            valuePlace = next.place;
          }
          const token = tokens[i]!;
          let child: unknown;
          let found = false;
          if (Array.isArray(value) && /^\d+$/.test(token) && Number(token) < value.length) {
            child = value[Number(token)];
            found = true;
          } else if (isObject(value) && Object.hasOwn(value, token)) {
            child = value[token];
            found = true;
          }
          if (!found) {
            const missingPointer = pointerOf(tokens);
            const inFile = this.display(file);
            const close = isObject(value) ? didYouMean(token, Object.keys(value)) : undefined;
            throw new Refused({
              severity: 'error',
              code: 'invalid-ref',
              message: `$ref "${current}": the pointer ${missingPointer} does not exist in ${inFile}`,
              hint:
                target === ''
                  ? `a "#/…" pointer is resolved in the file that contains the $ref (${inFile}): point it at an existing node there, or name the file (./other.json#/…)`
                  : `point it at an existing node of ${inFile}${close ? ` (did you mean "${close}"?)` : ''}, or at another file`,
              location: this.at(refPlace(place), true),
            });
          }
          value = child;
          valuePlace = valuePlace.child(token);
        }
        if (isObject(value) && typeof value['$ref'] === 'string') {
          place = valuePlace;
          current = value['$ref'];
          continue;
        }
        const found = { value, place: valuePlace };
        this.reached.set(memo, found);
        return found;
      }
    } finally {
      this.nested--;
    }
  }

  tooDeep(place: Place, resolved: boolean): never {
    throw new Refused({
      severity: 'error',
      code: 'nesting_too_deep',
      message: resolved
        ? `the contract nests more than ${MAX_DEPTH} levels deep from here once its $refs are followed (objects and lists)`
        : `the contract nests more than ${MAX_DEPTH} levels deep here (objects and lists, $refs included)`,
      hint: 'flatten the schema: move nested parts into named schemas under components/schemas',
      location: this.at(place),
    });
  }

  /** Walks `value` (written at `place`, `depth` levels down the walk) and returns how deep it nests. */
  walk(value: unknown, place: Place, depth: number): number {
    if (typeof value !== 'object' || value === null) return 0;
    const known = this.heights.get(value);
    if (known !== undefined) return known;
    if (this.active.has(value)) return 0;
    if (!Array.isArray(value) && !isPlain(value))
      throw new Refused({
        severity: 'error',
        code: 'yaml_tag',
        message: `${describe(value)}: keiyaku reads plain YAML (mappings, lists, strings, numbers, booleans, null) only`,
        hint: 'remove the tag (!!set, !!omap, !!binary, !!timestamp, …); write the value as plain YAML',
        location: this.at(place),
      });
    if (depth > MAX_DEPTH) this.tooDeep(place, false);
    this.active.add(value);
    let below = 0;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        if (typeof item === 'object' && item !== null) below = Math.max(below, this.walk(item, place.child(String(i)), depth + 1));
      }
    } else {
      const record = value as Json;
      const ref = record['$ref'];
      if (typeof ref === 'string') {
        const target = this.follow(place, ref);
        if (target !== undefined && typeof target.value === 'object' && target.value !== null) {
          if (this.active.has(target.value) && !recursiveSchema(target.value)) {
            throw new Refused({
              severity: 'error',
              code: 'ref_cycle',
              message: `$ref "${ref}" points back at an object that contains it (${this.display(target.place.file)}#${pointerOf(target.place.tokens)}), which is not a schema: the contract would never end`,
              hint: 'point the $ref at a schema (components/schemas/…) instead of a document, channel or message',
              location: this.at(refPlace(place), true),
            });
          }
          below = this.walk(target.value, target.place, depth + 1);
        }
      }
      for (const key in record) {
        if (key.length > MAX_KEY_LENGTH)
          throw new Refused({
            severity: 'error',
            code: 'key_too_long',
            message: `a key of ${key.length} characters ("${key.slice(0, 20)}…"); keiyaku accepts keys of up to ${MAX_KEY_LENGTH}`,
            hint: 'use a shorter property or key name',
            location: this.at(place),
          });
        if (key === '$ref') continue;
        const child = record[key];
        if (typeof child === 'object' && child !== null) below = Math.max(below, this.walk(child, place.child(key), depth + 1));
      }
    }
    const height = below + 1;
    if (height > MAX_DEPTH) this.tooDeep(place, true);
    this.active.delete(value);
    this.heights.set(value, height);
    return height;
  }

  /** The value at `place` with a `$ref` followed (the walk checked every `$ref` already). */
  settle(value: unknown, place: Place): { value: unknown; place: Place } {
    if (!isObject(value) || typeof value['$ref'] !== 'string') return { value, place };
    const target = this.follow(place, value['$ref']);
    return target === undefined ? { value: {}, place } : target;
  }

  /**
   * The mappings the AsyncAPI parser walks before it validates anything (channels, operations,
   * components and their entries, a channel's messages and operations): a null, a list or a
   * scalar there crashes it, so each is reported here, at its place (all of them, in one pass).
   */
  checkShape(root: Json, version: string): void {
    const major = version.split('.')[0];
    const mapping = (parent: { value: unknown; place: Place }, key: string, what: string): { value: Json; place: Place } | undefined => {
      if (!isObject(parent.value) || !Object.hasOwn(parent.value, key)) return undefined;
      const place = parent.place.child(key);
      const settled = this.settle(parent.value[key], place);
      if (isObject(settled.value)) return { value: settled.value, place: settled.place };
      const location = this.at(settled.place);
      if (this.diagnostics.some((d) => d.location?.file === location.file && d.location.pointer === location.pointer)) return undefined;
      this.diagnostics.push({
        severity: 'error',
        code: 'asyncapi-document-resolved',
        message: `${what} must be a mapping (an object), not ${describe(settled.value, 'null')}`,
        hint: settled.value === null ? 'give it content, or remove the key' : 'write it as "key: value" lines',
        location,
      });
      return undefined;
    };
    const entries = (
      map: { value: Json; place: Place } | undefined,
      what: (key: string) => string,
      inner?: (entry: { value: Json; place: Place }, key: string) => void,
    ): void => {
      if (map === undefined) return;
      for (const key of Object.keys(map.value)) {
        if (key.startsWith('x-')) continue;
        const entry = mapping(map, key, what(key));
        if (entry !== undefined) inner?.(entry, key);
      }
    };
    /** A schema position (payload, headers, a component schema) may hold a schema or a boolean, never null. */
    const notNull = (parent: { value: Json; place: Place }, key: string, what: string): void => {
      if (!Object.hasOwn(parent.value, key)) return;
      const settled = this.settle(parent.value[key], parent.place.child(key));
      if (settled.value !== null) return;
      const location = this.at(settled.place);
      if (this.diagnostics.some((d) => d.location?.file === location.file && d.location.pointer === location.pointer)) return;
      this.diagnostics.push({
        severity: 'error',
        code: 'asyncapi-document-resolved',
        message: `${what} is null: it must be a schema`,
        hint: 'write the schema (or a $ref to one), or remove the key',
        location,
      });
    };
    /** A 3.x message: its payload and headers are schemas, not null. */
    const message = (entry: { value: Json; place: Place }, what: string): void => {
      if (major !== '3') return;
      notNull(entry, 'payload', `the payload of ${what}`);
      notNull(entry, 'headers', `the headers of ${what}`);
      const headers = entry.value['headers'];
      if (isObject(headers))
        for (const key of Object.keys(headers))
          notNull({ value: headers, place: entry.place.child('headers') }, key, `headers.${key} of ${what}`);
    };
    const top = { value: root as unknown, place: Place.root(this.rootFile) };
    mapping(top, 'info', '`info`');
    const components = mapping(top, 'components', '`components`');
    const channel = (entry: { value: Json; place: Place }, id: string): void => {
      if (major === '3')
        entries(
          mapping(entry, 'messages', `the messages of channel "${id}"`),
          (key) => `message "${key}" of channel "${id}"`,
          (m, key) => message(m, `message "${key}" of channel "${id}"`),
        );
      else
        for (const action of ['publish', 'subscribe']) {
          const operation = mapping(entry, action, `the ${action} operation of channel "${id}"`);
          if (operation !== undefined) mapping(operation, 'message', `the message of the ${action} operation of channel "${id}"`);
        }
    };
    entries(mapping(top, 'channels', '`channels`'), (key) => `channel "${key}"`, channel);
    if (major === '3') entries(mapping(top, 'operations', '`operations`'), (key) => `operation "${key}"`);
    if (components === undefined) return;
    for (const kind of ['messages', 'operations', 'channels', 'parameters', 'messageTraits', 'operationTraits', 'servers']) {
      entries(
        mapping(components, kind, `components.${kind}`),
        (key) => `components.${kind}.${key}`,
        kind === 'channels' ? channel : kind === 'messages' ? (m, key) => message(m, `components.messages.${key}`) : undefined,
      );
    }
    const schemas = mapping(components, 'schemas', 'components.schemas');
    if (schemas !== undefined) for (const key of Object.keys(schemas.value)) notNull(schemas, key, `components.schemas.${key}`);
  }
}

/** A `$ref`'s file part is a URI reference: `%20` is a space. */
function decodePath(path: string): string {
  try {
    return path.includes('%') ? decodeURIComponent(path) : path;
  } catch {
    return path;
  }
}

function decodeToken(token: string): string {
  return unescapeToken(token.includes('%') ? decodeURIComponent(token) : token);
}
