/**
 * A bounded least-recently-used map, and the coalescing of concurrent loads of one key: the ids
 * and schemas the registry client caches, each asked of the registry once however many callers
 * want it at the same moment.
 */
export class BoundedCache<K, V> {
  readonly #max: number;
  readonly #entries = new Map<K, V>();
  readonly #loading = new Map<K, Promise<V>>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a cache holds at least one entry (got ${max})`);
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value (and marks it recently used), or undefined. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    // The oldest entry is the Map's first: insertion order is use order.
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  /** The cached value, else the one load of `key` in flight, else a new load (cached when it resolves; a failure is not). */
  load(key: K, loader: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let loading = this.#loading.get(key);
    if (loading === undefined) {
      loading = loader().then(
        (value) => {
          this.#loading.delete(key);
          this.set(key, value);
          return value;
        },
        (error: unknown) => {
          this.#loading.delete(key);
          throw error;
        },
      );
      this.#loading.set(key, loading);
    }
    return loading;
  }

  clear(): void {
    this.#entries.clear();
  }
}
