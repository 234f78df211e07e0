/**
 * Waiting on events, not on the clock (issue 38 item 6): a condition is asked again each time something it
 * depends on happens (a line read, a log line, a request received, a socket closed), and the wait ends the
 * moment it holds. The timeout is only an upper bound; its timer also keeps the event loop alive meanwhile (a
 * promise alone does not, and the thing waited for may run on unref'd timers).
 */

/** Something that changes, and the waits for a condition on it. Call notify() after every change. */
export class Changes {
  private readonly waiting = new Set<() => void>();

  notify(): void {
    for (const check of [...this.waiting]) check();
  }

  /** Resolves once `check()` holds: asked now and at each notify(). Rejects naming `what` after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(done);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiting.add(done);
    });
  }
}

/** `promise`, or a rejection naming `what` once `ms` have passed (the upper bound). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
