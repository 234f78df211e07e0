/** Messages between the main thread and a chemistry worker. */
import type { DomainErrorPayload } from "../domain/errors.js";

/** Given to each worker when it is created. */
export interface WorkerData {
  /** Bytes of C++ stack for RDKit (default: engine-stack.ts). */
  engineStackBytes?: number | undefined;
  /** Begin loading RDKit and the tools at once, before the start message (the prestarted worker, prestart.ts). */
  eager?: boolean | undefined;
}

export type ToWorker =
  /**
   * `claim`: the job was sent while the worker was busy (queued in its port, see WorkerPool.prePost); the
   * worker runs it only if it can take claims[claim] from jobId to 0 first, else the pool took it back.
   */
  | { type: "run"; jobId: number; tool: string; args: Record<string, unknown>; claim?: number }
  /**
   * Run one tool on each entry of a list chunk, in order. The worker starts no entry past `deadline`
   * (epoch ms) and stops at the first entry that broke the engine: entries not run come back as { skipped }.
   */
  | { type: "runList"; jobId: number; tool: string; items: Record<string, unknown>[]; deadline: number }
  | { type: "stats"; requestId: number }
  /**
   * Load RDKit now. A worker holds every other message until it has. `claims`: the Int32Array's buffer
   * through which it claims jobs sent ahead (one per WorkerPool slot, CLAIM_SLOTS entries).
   */
  | { type: "start"; claims: SharedArrayBuffer };

export type ToMain =
  /** `engineStackProblem`: why RDKit kept its linked 64 KiB stack, when it did (engine-stack.ts). */
  | { type: "ready"; heapBytes: number; engineStackProblem?: string | undefined }
  | { type: "progress"; jobId: number; progress: number; total?: number | undefined; message?: string | undefined }
  /** `heapBytes`: the worker's WASM heap after the call (the pool recycles a worker whose heap grew too big). */
  | { type: "done"; jobId: number; ok: true; value: unknown; heapBytes?: number; replaceWorker?: boolean }
  | { type: "done"; jobId: number; ok: false; error?: DomainErrorPayload; internal?: string; replaceWorker?: boolean; heapBytes?: number }
  | { type: "stats"; requestId: number; heapBytes: number };

/** Entries of a worker's claim array: more than the jobs that can be outstanding ahead of it (two). */
export const CLAIM_SLOTS = 4;

/** One list entry's outcome, as a worker answers it (the value of a runList "done"). */
export type ItemOutcome = { ok: true; value: unknown } | { ok: false; error: DomainErrorPayload } | { ok: false; skipped: true };

/** A worker's answer to one call. */
export type Done = Extract<ToMain, { type: "done" }>;
