/**
 * A counting semaphore: at most `size` holders at once. A waiter gives up when its wait passes (it gets null) or its
 * signal aborts (it rejects with the signal's reason), and never holds a slot it did not get. The ChEMBL pacer and
 * the canvas query slots are both this.
 *
 * Waiters may name their caller (`key`): a freed slot then goes to a caller holding no slot before one holding
 * some, and among those round-robin from the caller served last, first come first served within a caller. So one
 * caller's four long queries cannot keep another's one-row query waiting behind all of them, and a caller holds at
 * most one slot while others wait. Without keys (one caller) it is first come, first served.
 */
interface Waiter {
  grant: () => void;
  key: string;
}

export class Semaphore {
  private used = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly size: number) {}

  /** Slots held now. */
  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is free, or null when `waitMs` passes first; rejects when `signal` aborts. */
  acquire(waitMs: number, signal?: AbortSignal, key = ""): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve(this.releaser(key));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        grant: () => {
          cleanup();
          resolve(this.releaser(key));
        },
      };
      const leave = (settle: () => void) => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        cleanup();
        settle();
      };
      const onAbort = () => leave(() => reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted")));
      const timer = setTimeout(() => leave(() => resolve(null)), Math.max(0, waitMs));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Slots held by each caller now. */
  private readonly held = new Map<string, number>();
  /** The caller served last (round-robin starts after it). */
  private lastKey: string | undefined;

  private releaser(key: string): () => void {
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left === 0) this.held.delete(key);
      else this.held.set(key, left);
      const next = this.next();
      // The slot passes straight to the next waiter, so `used` stays the same.
      if (next) next.grant();
      else this.used--;
    };
  }

  /** The waiter a freed slot goes to (see the first comment), taken out of the queue. */
  private next(): Waiter | undefined {
    if (this.queue.length === 0) return undefined;
    // Callers in order of their first waiter, rotated to start after the caller served last.
    const keys = [...new Set(this.queue.map((w) => w.key))];
    const after = this.lastKey === undefined ? -1 : keys.indexOf(this.lastKey);
    const ring = after < 0 ? keys : [...keys.slice(after + 1), ...keys.slice(0, after + 1)];
    const key = ring.find((k) => !this.held.has(k)) ?? ring[0]!;
    const i = this.queue.findIndex((w) => w.key === key);
    this.lastKey = key;
    return this.queue.splice(i, 1)[0];
  }
}
