/**
 * The machine's parallel ceiling for a piece of chemistry, measured in the run that uses it: the same work
 * split over `threads` plain loops on worker threads (bench/lib/loop-worker.ts), started together once
 * each has loaded RDKit and warmed up. On this project's 2-core development VM the two cores gave two
 * threads anywhere from 0.9x to 2.2x one thread's rate from one minute to the next (other guests on the
 * host), so a pool's speed-up is read against this, not against the core count.
 */
import { Worker } from "node:worker_threads";
import type { LoopJob } from "./loop-worker.js";

const LOOP_WORKER = new URL("./loop-worker.js", import.meta.url);

/** Items per second of `threads` threads together running `tool` over `args` (split evenly). */
export async function parallelLoopRate(tool: string, args: Record<string, unknown>[], threads: number): Promise<number> {
  const parts = Array.from({ length: threads }, (_, k) => args.filter((_, i) => i % threads === k));
  const workers = parts.map((part) => new Worker(LOOP_WORKER, { workerData: { tool, args: part } satisfies LoopJob }));
  try {
    await Promise.all(workers.map((w) => new Promise<void>((resolve, reject) => w.once("message", () => resolve()).once("error", reject))));
    const start = performance.now();
    await Promise.all(workers.map((w) => new Promise<number>((resolve, reject) => w.once("message", resolve).once("error", reject).postMessage("go"))));
    return args.length / ((performance.now() - start) / 1000);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
