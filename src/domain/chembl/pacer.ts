/**
 * A service-wide pacer: at most `maxConcurrent` upstream requests in flight (CHEMBL_MAX_CONCURRENT_PAGES).
 * Waiters are served first come, first served; a waiter gives up when its call is cancelled or its
 * deadline passes, and never holds a slot it did not get (the semaphore in domain/semaphore.ts).
 */
import { Semaphore } from "../semaphore.js";

export class PacerTimeout extends Error {
  constructor() {
    super("timed out waiting for an upstream request slot");
    this.name = "PacerTimeout";
  }
}

export class Pacer {
  private readonly slots: Semaphore;

  constructor(readonly maxConcurrent: number) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new Error("Pacer needs maxConcurrent >= 1");
    this.slots = new Semaphore(maxConcurrent);
  }

  /** Requests in flight now (for tests and diagnostics). */
  get inFlight(): number {
    return this.slots.inUse;
  }

  get waiting(): number {
    return this.slots.waiting;
  }

  /**
   * Resolves with a release function once a slot is free. Rejects with the signal's reason when the call
   * is cancelled, or PacerTimeout when `deadlineAt` (epoch ms) passes first.
   */
  async acquire(signal: AbortSignal, deadlineAt: number): Promise<() => void> {
    const release = await this.slots.acquire(deadlineAt - Date.now(), signal);
    if (!release) throw new PacerTimeout();
    return release;
  }
}
