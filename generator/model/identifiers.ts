/**
 * Safe, unique TypeScript identifiers from untrusted contract names.
 *
 * Every identifier that generated code declares passes through a {@link NameAllocator}
 * scoped to one generate run: it strips what is not an identifier character, avoids
 * reserved words and globals, and makes names unique after case-folding (two files
 * or types that differ only in case collide on case-insensitive file systems).
 */

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'as implements interface let package private protected public static yield any boolean number string symbol ' +
    'unknown never object bigint undefined type keyof readonly infer is asserts declare abstract async await ' +
    'constructor get set module namespace require global of arguments eval NaN Infinity ' +
    'Array Boolean Date Error Function JSON Map Math Number Object Promise Proxy Record Reflect RegExp Set String ' +
    'Symbol Uint8Array Partial Required Readonly Pick Omit Exclude Extract ' +
    // globals of Node and the web platform a generated type must not shadow
    'Headers Request Response URL Event Buffer Blob File FormData AbortSignal TextEncoder TextDecoder ReadableStream'
  ).split(' '),
);

function words(raw: string): string[] {
  return raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** `book.borrowed-v2` → `BookBorrowedV2`. Empty when the text has no letters or digits. */
export function pascalCase(raw: string): string {
  // Letters and digits only: the words start where the case changes, so only the first letter changes.
  if (/^[A-Za-z0-9]+$/.test(raw)) return raw[0]!.toUpperCase() + raw.slice(1);
  return words(raw)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** `BookBorrowed` → `bookBorrowed`. */
export function camelCase(raw: string): string {
  const pascal = pascalCase(raw);
  return pascal.length === 0 ? '' : pascal[0]!.toLowerCase() + pascal.slice(1);
}

/** `BookBorrowed` → `book-borrowed`. */
export function kebabCase(raw: string): string {
  return words(raw)
    .map((w) => w.toLowerCase())
    .join('-');
}

/** Makes `candidate` a legal identifier that is not a reserved word. */
export function safeIdentifier(candidate: string, fallback: string): string {
  let name = candidate.length > 0 ? candidate : fallback;
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (RESERVED.has(name)) name = `${name}_`;
  return name;
}

/** Hands out unique names within one scope (a generated file set, a module, a file system folder). */
export class NameAllocator {
  readonly #taken = new Set<string>();
  /** Who took a name (case-folded), when the taker said. */
  readonly #owners = new Map<string, string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.#taken.add(name.toLowerCase());
  }

  isTaken(name: string): boolean {
    return this.#taken.has(name.toLowerCase());
  }

  /** Reserve `name` exactly for `owner`; false when it (case-folded) is already taken. */
  reserve(name: string, owner?: string): boolean {
    const key = name.toLowerCase();
    if (this.#taken.has(key)) return false;
    this.#taken.add(key);
    if (owner !== undefined) this.#owners.set(key, owner);
    return true;
  }

  /** Who took `name` (case-folded): the owner given when it was reserved, or `a reserved name`. */
  ownerOf(name: string): string {
    return this.#owners.get(name.toLowerCase()) ?? 'a name keiyaku reserves';
  }

  /** `base`, or `base2`, `base3`, … the first one free after case-folding. */
  allocate(base: string, owner?: string): string {
    if (this.reserve(base, owner)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}${n}`;
      if (this.reserve(candidate, owner)) return candidate;
    }
  }
}

/** Allocates `base` such that every `base + suffix` and `prefix + base` is free, and reserves them all for `owner`. */
export function allocateFamily(
  allocator: NameAllocator,
  base: string,
  suffixes: readonly string[],
  prefixes: readonly string[],
  owner: string,
): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}${n}`;
    const names = [...suffixes.map((s) => candidate + s), ...prefixes.map((p) => p + candidate)];
    if (names.every((name) => !allocator.isTaken(name))) {
      for (const name of names) allocator.reserve(name, owner);
      return candidate;
    }
  }
}
