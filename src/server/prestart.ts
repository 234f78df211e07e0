/**
 * The first chemistry worker, started before the rest of the server is loaded. A serving process spends
 * its first few hundred milliseconds importing the server's modules on the main thread; a worker created
 * first boots, imports the chemistry tools and compiles RDKit's WASM on the other core meanwhile, so the
 * first chemistry answer does not wait for the two one after the other (docs/performance.md, first answer).
 *
 * The worker is told to load at once (workerData.eager) but posts nothing until the pool has taken it and
 * sent its start message, so no message can arrive before the pool listens. A worker that exits before it
 * is taken is not handed out (the pool spawns a new one).
 */
import { Worker } from "node:worker_threads";
import type { WorkerData } from "./pool-messages.js";

export const WORKER_URL = new URL("./worker.js", import.meta.url);

/** The options every chemistry worker is created with (stdout and stderr read by the pool). */
export function workerOptions(workerData: WorkerData): ConstructorParameters<typeof Worker>[1] {
  return { stdout: true, stderr: true, workerData };
}

let prestarted: { worker: Worker; exited: boolean } | undefined;

/** Starts the first worker now (the serving entry calls this before importing the server); returns it. */
export function prestartWorker(): Worker {
  if (prestarted) return prestarted.worker;
  const worker = new Worker(WORKER_URL, workerOptions({ eager: true }));
  const entry = { worker, exited: false };
  worker.once("exit", () => (entry.exited = true));
  // An error before the pool takes the worker is the pool's to see through 'exit'; not an unhandled one.
  worker.once("error", () => {});
  prestarted = entry;
  return worker;
}

/** The prestarted worker for a pool whose workers take `engineStackBytes` (only the default matches), once. */
export function takePrestartedWorker(engineStackBytes: number | undefined): Worker | undefined {
  const entry = prestarted;
  if (!entry || engineStackBytes !== undefined) return undefined;
  prestarted = undefined;
  if (entry.exited) return undefined;
  return entry.worker;
}
