/** Messages between the main thread and a chemistry worker. */
import type { DomainErrorPayload } from "../domain/errors.js";

export type ToWorker =
  | { type: "run"; jobId: number; tool: string; args: Record<string, unknown> }
  | { type: "stats"; requestId: number }
  /** Load RDKit now. A worker holds every other message until it has. */
  | { type: "start" };

export type ToMain =
  | { type: "ready"; heapBytes: number }
  | { type: "progress"; jobId: number; progress: number; total?: number | undefined; message?: string | undefined }
  | { type: "done"; jobId: number; ok: true; value: unknown }
  | { type: "done"; jobId: number; ok: false; error?: DomainErrorPayload; internal?: string; replaceWorker?: boolean }
  | { type: "stats"; requestId: number; heapBytes: number };
