/**
 * A bounded in-memory cache of upstream answers (ChEMBL marks them cacheable for a year; a release
 * changes them, so entries expire after `ttlMs`). Least recently used entries go first when either the
 * entry count or the byte budget is exceeded. Values are parsed JSON, shared between callers: readers
 * must not mutate them (the normalisers only read).
 */
interface Entry {
  value: unknown;
  bytes: number;
  expires: number;
}

export interface CacheOptions {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly options: CacheOptions) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now = Date.now()): unknown {
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= now) {
      if (entry) this.delete(key);
      this.misses++;
      return undefined;
    }
    // Re-insert: Map order is recency order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry.value;
  }

  set(key: string, value: unknown, bytes: number, now = Date.now()): void {
    if (bytes > this.options.maxBytes / 4) return; // one answer may not take over the cache
    this.delete(key);
    this.entries.set(key, { value, bytes, expires: now + this.options.ttlMs });
    this.bytes += bytes;
    while (this.entries.size > this.options.maxEntries || this.bytes > this.options.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
