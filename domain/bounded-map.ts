/**
 * A map of at most `max` entries, each with its own expiry (epoch ms): what the api's in-memory caches
 * keep (api/auth/auth-cache.ts, api/auth/bearer.ts, db/account-state-cache.ts). `Map` keeps insertion
 * order and a `set` re-inserts, so the first key is the least recently written; past `max` it goes first.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, { value: V; expiresAt: number }>();
  constructor(private readonly max: number) {}

  /** The live entry of `key` (an expired one is dropped and missed). */
  get(key: string): { value: V } | undefined {
    const hit = this.map.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit;
    if (hit) this.map.delete(key);
    return undefined;
  }

  /** Keeps `value` under `key` until `expiresAt` (epoch ms), dropping the oldest entry when full. */
  set(key: string, value: V, expiresAt: number): void {
    this.map.delete(key);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}
