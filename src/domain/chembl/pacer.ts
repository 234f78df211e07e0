/**
 * A service-wide pacer: at most `maxConcurrent` upstream requests in flight (CHEMBL_MAX_CONCURRENT_PAGES).
 * Waiters are served first come, first served; a waiter gives up when its call is cancelled or its
 * deadline passes, and never holds a slot it did not get.
 */
export class PacerTimeout extends Error {
  constructor() {
    super("timed out waiting for an upstream request slot");
    this.name = "PacerTimeout";
  }
}

interface Waiter {
  grant: () => void;
}

export class Pacer {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly maxConcurrent: number) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new Error("Pacer needs maxConcurrent >= 1");
  }

  /** Requests in flight now (for tests and diagnostics). */
  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves with a release function once a slot is free. Rejects with the signal's reason when the call
   * is cancelled, or PacerTimeout when `deadlineAt` (epoch ms) passes first.
   */
  acquire(signal: AbortSignal, deadlineAt: number): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    if (this.active < this.maxConcurrent) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          cleanup();
          resolve(this.releaser());
        },
      };
      const leave = (error: unknown) => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        cleanup();
        reject(error);
      };
      const onAbort = () => leave(signal.reason ?? new Error("aborted"));
      const timer = setTimeout(() => leave(new PacerTimeout()), Math.max(0, deadlineAt - Date.now()));
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next.grant();
      else this.active--;
    };
  }
}
