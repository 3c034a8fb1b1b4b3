/**
 * Finds where a node of the resolved contract was written: file, line and column.
 *
 * `@asyncapi/parser` dereferences `$ref`s, so a pointer into the resolved document
 * (`/channels/books/messages/borrowed/payload/properties/id`) may run through several
 * files. The locator walks the raw YAML/JSON of each file alongside the pointer and
 * follows `$ref`s the same way, so positions survive multi-file contracts.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document as YamlDocument, type Node as YamlNode } from 'yaml';
import type { SourceLocation } from '../diagnostics.js';
import { JsonIndex, keysParsed, LineIndex, scanJson } from './json-positions.js';

/** A file read as YAML (the syntax tree carries positions). */
interface YamlFile {
  readonly kind: 'yaml';
  readonly root: YamlNode | null;
  readonly lines: LineCounter;
  readonly document: YamlDocument;
  readonly text: string;
}

/** A file that is valid JSON: its value from JSON.parse, positions read on demand. */
interface JsonFile {
  readonly kind: 'json';
  readonly root: JsonIndex;
  readonly lines: LineIndex;
  readonly value: unknown;
  readonly duplicateKeys: boolean;
  /** Its `$ref`s as written (the value is resolved in place by the loader). */
  readonly refs: readonly string[];
}

type ParsedFile = YamlFile | JsonFile;

/** The plain value of a contract file, and whether a reader could take it as is. */
export interface FileValue {
  readonly value: unknown;
  /**
   * False when the file has a syntax error or warning, a repeated key, an alias or a merge key
   * (`<<`): readers differ on those, so the caller lets the AsyncAPI parser read and report it.
   */
  readonly plain: boolean;
}

import { escapeToken, tokensFromPointer } from '../pointer.js';

export { escapeToken, pointerFromTokens, tokensFromPointer, unescapeToken } from '../pointer.js';

/** The largest contract file keiyaku reads (a `$ref` to a device or a huge file is refused, not read until memory runs out). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The most one contract's files may hold together. */
export const MAX_CONTRACT_BYTES = 64 * 1024 * 1024;
/** How many values YAML aliases may expand to (the `yaml` package's maxAliasCount): alias and merge-key bombs stop here. */
export const MAX_ALIAS_COUNT = 100;

/**
 * The text of a contract file, read only when it is a regular file of at most
 * {@link MAX_FILE_BYTES}: the descriptor is checked before anything is read, so `/dev/zero`, a FIFO or a
 * directory is refused at once. Throws an Error that says why not.
 */
export function readContractFile(file: string): string {
  // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever.
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    if (stat.size > MAX_FILE_BYTES)
      throw new Error(`${file} is ${stat.size} bytes; keiyaku reads contract files of up to ${MAX_FILE_BYTES} bytes`);
    const buffer = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * A `.proto` file (a Protobuf payload's `$ref`) is no YAML or JSON: it is read as one string, its
 * text, which the Protobuf path of the generator compiles like an inline schema.
 */
export function isProtoFile(file: string): boolean {
  return /\.proto$/i.test(file);
}

export class SourceLocator {
  readonly #files = new Map<string, ParsedFile | null>();
  /** Why a file could not be read (not found, not a regular file, too large). */
  readonly #unreadable = new Map<string, string>();
  readonly #values = new Map<string, FileValue | null>();
  readonly #plainValues = new Map<string, unknown>();
  /** Characters read so far, over every file. */
  #bytes = 0;
  readonly #displayed = new Map<string, string>();
  /** Key → value index per YAML map, so each pointer step is one lookup. */
  readonly #mapIndex = new WeakMap<object, Map<string, YamlNode | null>>();
  readonly #cwd: string;
  readonly #rootFile: string;

  constructor(rootFile: string, cwd: string) {
    this.#cwd = cwd;
    this.#rootFile = resolve(cwd, rootFile);
  }

  /** {@link displayPath} of the files located in, computed once each. */
  #display(file: string): string {
    let shown = this.#displayed.get(file);
    if (shown === undefined) {
      shown = this.displayPath(file);
      this.#displayed.set(file, shown);
    }
    return shown;
  }

  /** The absolute path of `file` as {@link displayPath} (or any path relative to the working directory) names it. */
  resolvePath(file: string): string {
    return resolve(this.#cwd, file);
  }

  /** A path for messages: relative to the working directory when inside it. */
  displayPath(file: string): string {
    const rel = relative(this.#cwd, resolve(this.#cwd, file));
    return rel.startsWith('..') ? resolve(this.#cwd, file) : rel;
  }

  /** The contract and every file it references through `$ref`, transitively (absolute, sorted). */
  files(): string[] {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const parsed = this.#parse(file);
      if (parsed === null) return;
      const targets = parsed.kind === 'json' ? jsonFileRefs(parsed.refs) : fileRefs(parsed.root);
      for (const target of targets) visit(resolve(dirname(file), target));
    };
    visit(this.#rootFile);
    return [...seen].filter((f) => this.#files.get(f) !== null).sort();
  }

  #parse(file: string): ParsedFile | null {
    if (!this.#files.has(file)) {
      try {
        const text = readContractFile(file);
        this.#bytes += text.length;
        if (this.#bytes > MAX_CONTRACT_BYTES)
          throw new Error(`the contract's files hold more than ${MAX_CONTRACT_BYTES} bytes together; keiyaku reads no more`);
        this.#files.set(file, parseText(isProtoFile(file) ? JSON.stringify(text) : text));
      } catch (error) {
        this.#files.set(file, null);
        const code = (error as NodeJS.ErrnoException).code;
        this.#unreadable.set(file, code === 'ENOENT' ? 'does not exist' : error instanceof Error ? error.message : String(error));
      }
    }
    return this.#files.get(file) ?? null;
  }

  /**
   * The plain value of `file` (absolute), read once per locator: the same read serves loading
   * and locating (positions come from the syntax tree or scan, never from this value, which the
   * loader resolves in place). Null when the file cannot be read.
   */
  read(file: string): FileValue | null {
    if (!this.#values.has(file)) {
      const parsed = this.#parse(file);
      let value: FileValue | null = null;
      if (parsed?.kind === 'json') value = { value: parsed.value, plain: !parsed.duplicateKeys };
      else if (parsed?.kind === 'yaml') {
        const { document } = parsed;
        const plain = document.errors.length === 0 && document.warnings.length === 0 && plainYaml(parsed.root);
        value = { value: plain ? this.value(file) : undefined, plain };
      }
      this.#values.set(file, value);
    }
    return this.#values.get(file) ?? null;
  }

  /**
   * Why `file` (absolute) could not be read, or undefined when it was read: `does not exist`, or an
   * error that says it is not a regular file or is too large.
   */
  unreadable(file: string): string | undefined {
    this.#parse(file);
    return this.#unreadable.get(file);
  }

  /**
   * The value of `file` as written (`$ref`s not followed), read once: YAML aliases are expanded up
   * to {@link MAX_ALIAS_COUNT} (beyond it this throws the `yaml` package's error). Undefined when
   * the file cannot be read. Shared with {@link read}: callers must not change it.
   */
  value(file: string): unknown {
    if (!this.#plainValues.has(file)) {
      const parsed = this.#parse(file);
      const value =
        parsed === null ? undefined : parsed.kind === 'json' ? parsed.value : parsed.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
      this.#plainValues.set(file, value);
    }
    return this.#plainValues.get(file);
  }

  /** Where the first YAML alias (`*name`) of `file` is written, if it has one. */
  firstAlias(file: string): { readonly line: number; readonly column: number } | undefined {
    const parsed = this.#parse(file);
    if (parsed?.kind !== 'yaml') return undefined;
    let found: number | undefined;
    const walk = (node: unknown): void => {
      if (found !== undefined) return;
      if (isAlias(node)) found = node.range?.[0];
      else if (isMap(node))
        for (const pair of node.items) {
          walk(pair.key);
          walk(pair.value);
        }
      else if (isSeq(node)) for (const item of node.items) walk(item);
    };
    try {
      walk(parsed.root);
    } catch {
      // a tree too deep to walk: no position to give
    }
    if (found === undefined) return undefined;
    const pos = parsed.lines.linePos(found);
    return { line: pos.line, column: pos.col };
  }

  /** The YAML syntax errors and warnings of `file` (none for JSON), with 1-based positions. */
  yamlProblems(file: string): { readonly errors: YamlProblem[]; readonly warnings: YamlProblem[] } {
    const parsed = this.#parse(file);
    if (parsed?.kind !== 'yaml') return { errors: [], warnings: [] };
    const problem = (e: { code: string; message: string; pos: [number, number] }): YamlProblem => {
      const pos = parsed.lines.linePos(e.pos[0]);
      return {
        code: e.code,
        message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
        line: pos.line,
        column: pos.col,
      };
    };
    return { errors: parsed.document.errors.map(problem), warnings: parsed.document.warnings.map(problem) };
  }

  /** The quoted YAML scalars of `file` (none for JSON): where each starts and the text it spans. */
  quotedScalars(file: string): { readonly line: number; readonly column: number; readonly source: string }[] {
    const parsed = this.#parse(file);
    if (parsed?.kind !== 'yaml') return [];
    const out: { line: number; column: number; source: string }[] = [];
    const walk = (node: unknown): void => {
      if (isScalar(node)) {
        if ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && node.range !== undefined && node.range !== null) {
          const pos = parsed.lines.linePos(node.range[0]);
          out.push({ line: pos.line, column: pos.col, source: parsed.text.slice(node.range[0], node.range[1]) });
        }
      } else if (isMap(node)) {
        for (const pair of node.items) {
          walk(pair.key);
          walk(pair.value);
        }
      } else if (isSeq(node)) for (const item of node.items) walk(item);
    };
    try {
      walk(parsed.root);
    } catch {
      // a tree too deep to walk: the strings found so far
    }
    return out;
  }

  /**
   * Location of the node at `tokens` of `file` as written: `$ref`s on the way are not followed.
   * `text`: a quoted string is located at its first character, not at its quote.
   */
  locateWritten(file: string, tokens: readonly (string | number)[], text = false): SourceLocation {
    // A cursor that has taken its 64 hops follows no more $refs.
    const cursor = this.step({ ...this.#start(file), hops: 64 }, tokens);
    const location = this.location(cursor);
    if (!text || cursor.state !== 'open' || location.line === 0) return location;
    const quoted =
      cursor.parsed?.kind === 'json'
        ? typeof cursor.at === 'number'
        : isScalar(cursor.at) && (cursor.at.type === 'QUOTE_DOUBLE' || cursor.at.type === 'QUOTE_SINGLE');
    return quoted ? { ...location, column: location.column + 1 } : location;
  }

  /** Location of a node given its position in a file (e.g. a parser diagnostic's source + path). */
  locateInFile(file: string, tokens: readonly (string | number)[]): SourceLocation {
    return this.location(this.step(this.#start(resolve(this.#cwd, file)), tokens));
  }

  /** Location of the node at `tokens` of the resolved (dereferenced) document. */
  locate(tokens: readonly (string | number)[]): SourceLocation {
    return this.location(this.step(this.#start(this.#rootFile), tokens));
  }

  /** Where the resolved document's root was written: a cursor to {@link step} from. */
  start(): SourceCursor {
    return this.#start(this.#rootFile);
  }

  #start(file: string): SourceCursor {
    const parsed = this.#parse(file);
    const at = parsed === null ? undefined : parsed.kind === 'json' ? parsed.root.root : parsed.root;
    return { file, parsed, at: at ?? null, parent: null, pointer: '', hops: 0, state: parsed === null || at === null ? 'unread' : 'open' };
  }

  /**
   * The cursor `tokens` further down the resolved document from `from`, following `$ref`s in the
   * files as written: `step(step(start(), a), b)` is where `[...a, ...b]` was written, so a walk
   * of a whole tree locates each node in the length of its own path.
   */
  step(from: SourceCursor, tokens: readonly (string | number)[]): SourceCursor {
    if (from.state === 'stopped') return from;
    if (from.state === 'unread') {
      let pointer = from.pointer;
      for (const token of tokens) pointer += `/${escapeToken(String(token))}`;
      return { ...from, pointer };
    }
    let { file, parsed, at, parent, pointer, hops } = from;
    let queue = tokens;
    let index = 0;
    let jsonNode: ReturnType<JsonIndex['node']> | undefined;
    const childAt = (token: string): number | YamlNode | null | undefined => {
      if (jsonNode === undefined) return childOf(this.#mapIndex, at as YamlNode | null, token);
      return (
        jsonNode.members?.get(token) ?? (jsonNode.items !== undefined && /^\d+$/.test(token) ? jsonNode.items[Number(token)] : undefined)
      );
    };
    while (true) {
      // A JSON node is looked up once per step: its `$ref`, then its members.
      jsonNode = parsed!.kind === 'json' ? (parsed as JsonFile).root.node(at as number) : undefined;
      const ref = jsonNode !== undefined ? jsonNode.ref : refOf(at as YamlNode | null);
      // A $ref is followed unless the path goes on into a key of its own object (a schema whose
      // root is `$ref: '#/definitions/X'` beside those definitions).
      if (ref !== undefined && hops < 64 && (index >= queue.length || childAt(String(queue[index])) == null)) {
        const [target = '', fragment = ''] = ref.split('#');
        const next = this.#start(target ? resolve(dirname(file), target) : file);
        queue = [...tokensFromPointer(fragment), ...queue.slice(index)];
        index = 0;
        if (next.state === 'unread') return this.step({ ...next, hops: hops + 1 }, queue);
        ({ file, parsed, at, parent, pointer } = next);
        hops++;
        continue;
      }
      if (index >= queue.length) return { file, parsed, at, parent, pointer, hops, state: 'open' };
      const token = String(queue[index]);
      const child = childAt(token);
      if (child === undefined || child === null) return { file, parsed, at, parent, pointer, hops, state: 'stopped' };
      parent = at;
      at = child;
      pointer += `/${escapeToken(token)}`;
      index++;
    }
  }

  /** File, line and column of where a cursor stands. */
  location(cursor: SourceCursor): SourceLocation {
    const { parsed, at, parent, pointer } = cursor;
    const file = this.#display(cursor.file);
    if (cursor.state === 'unread' || parsed === null) return { file, line: 0, column: 0, pointer };
    if (parsed.kind === 'json') {
      const pos = parsed.lines.linePos(parsed.root.node(at as number).start);
      return { file, line: pos.line, column: pos.col, pointer };
    }
    // A block mapping or sequence starts on the line after its key: it is located at its key
    // (where a reader looks). A scalar or a flow collection is located where it starts.
    const node = at as YamlNode | null;
    const keyed =
      (isMap(node) || isSeq(node)) && !node.flow && isMap(parent) ? parent.items.find((pair) => pair.value === node)?.key : undefined;
    const offset = (isScalar(keyed) ? keyed.range?.[0] : undefined) ?? node?.range?.[0];
    if (offset === undefined) return { file, line: 0, column: 0, pointer };
    const pos = parsed.lines.linePos(offset);
    return { file, line: pos.line, column: pos.col, pointer };
  }
}

/** A YAML syntax error or warning of a contract file, at a 1-based line and column. */
export interface YamlProblem {
  readonly code: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A position in a contract file's tree reached by {@link SourceLocator.step}: opaque outside the
 * locator. `open`: at a node; `stopped`: a token named no child, so later tokens change nothing;
 * `unread`: the file could not be read or parsed (the location names it at line 0).
 */
export interface SourceCursor {
  readonly file: string;
  readonly parsed: ParsedFile | null;
  /** The node: an offset in a JSON file, a syntax node in a YAML file. */
  readonly at: number | YamlNode | null;
  readonly parent: number | YamlNode | null;
  readonly pointer: string;
  readonly hops: number;
  readonly state: 'open' | 'stopped' | 'unread';
}

function parseText(text: string): ParsedFile {
  const first = /\S/.exec(text)?.[0];
  if (first === '{' || first === '[') {
    let value: unknown;
    let valid = true;
    try {
      value = JSON.parse(text);
    } catch {
      valid = false;
    }
    if (valid) {
      const refs: string[] = [];
      const scan = scanJson(text);
      const duplicateKeys = keysParsed(value, refs) !== scan.keys;
      return { kind: 'json', root: new JsonIndex(text, scan), lines: new LineIndex(text), value, duplicateKeys, refs };
    }
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, strict: false, uniqueKeys: false, logLevel: 'error' });
  return { kind: 'yaml', root: document.contents as YamlNode | null, lines, document, text };
}

/** No repeated key, alias or merge key anywhere under `node` (readers differ on those). */
function plainYaml(node: unknown): boolean {
  if (isAlias(node)) return false;
  if (isMap(node)) {
    const keys = new Set<unknown>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) return false;
      const key = pair.key.value;
      if (key === '<<' || keys.has(key)) return false;
      keys.add(key);
      if (!plainYaml(pair.value)) return false;
    }
    return true;
  }
  if (isSeq(node)) return node.items.every(plainYaml);
  return true;
}

/** The files a contract file's text references through `$ref`, as written (see {@link fileRefs}); JSON is scanned, not parsed as YAML. */
export function referencedFiles(text: string): string[] {
  const parsed = parseText(text);
  return parsed.kind === 'json' ? jsonFileRefs(parsed.refs) : fileRefs(parsed.root);
}

/** The `$ref`s of a JSON file that point at other files (as {@link fileRefs}). */
function jsonFileRefs(refs: readonly string[]): string[] {
  return refs.map((ref) => ref.split('#')[0] ?? '').filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * The files that the `$ref`s under `root` point at, as written (relative to the file that holds
 * them): references within the same file (`#/…`) and URLs (`https://…`) are left out.
 */
export function fileRefs(root: YamlNode | null): string[] {
  const refs: string[] = [];
  collectRefs(root, refs);
  return refs.map((ref) => ref.split('#')[0] ?? '').filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function collectRefs(node: YamlNode | null, out: string[]): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key) && pair.key.value === '$ref' && isScalar(pair.value) && typeof pair.value.value === 'string')
        out.push(pair.value.value);
      else collectRefs(pair.value as YamlNode | null, out);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) collectRefs(item as YamlNode | null, out);
  }
}

function refOf(node: YamlNode | null): string | undefined {
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    if (isScalar(pair.key) && pair.key.value === '$ref' && isScalar(pair.value) && typeof pair.value.value === 'string') {
      return pair.value.value;
    }
  }
  return undefined;
}

function childOf(mapIndex: WeakMap<object, Map<string, YamlNode | null>>, node: YamlNode | null, token: string): YamlNode | null {
  if (isMap(node)) {
    let index = mapIndex.get(node);
    if (index === undefined) {
      index = new Map();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key !== undefined && !index.has(key)) index.set(key, (pair.value as YamlNode | null) ?? null);
      }
      mapIndex.set(node, index);
    }
    return index.get(token) ?? null;
  }
  if (isSeq(node)) {
    const index = Number(token);
    return Number.isInteger(index) ? ((node.items[index] as YamlNode | undefined) ?? null) : null;
  }
  return null;
}
