/**
 * A Map with a size cap for enrichment caches (user agents, addresses). When full it starts
 * over: cheaper than LRU bookkeeping on every hit, and real traffic refills the hot entries
 * within a flush or two.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
