/**
 * A counting semaphore: at most `size` holders at once, waiters served first come, first served. A waiter
 * gives up when its wait passes (it gets null) or its signal aborts (it rejects with the signal's reason),
 * and never holds a slot it did not get. The ChEMBL pacer and the canvas query slots are both this.
 */
interface Waiter {
  grant: () => void;
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
  acquire(waitMs: number, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          cleanup();
          resolve(this.releaser());
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

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so `used` stays the same.
      if (next) next.grant();
      else this.used--;
    };
  }
}
