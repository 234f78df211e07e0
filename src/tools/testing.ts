/**
 * Test-only tools, registered only when CHEMATIC_TEST_TOOLS is on. They exist so tests can prove what
 * the real tools cannot show on demand: a slow call, a call past its budget, a crashing handler.
 */
import { threadId } from "node:worker_threads";
import { wasmHeapBytes } from "../domain/chem/rdkit.js";
import type { ChemTool } from "../contract/tool.js";

const NO_SIDE_EFFECTS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export const testSleepTool: ChemTool<{ ms: number }> = {
  kind: "chem",
  toolset: "chem",
  name: "test_sleep",
  title: "Test: busy wait",
  description: "Test fixture: keeps its worker busy for `ms` milliseconds (CPU-bound, like a slow chemistry call), then answers.",
  annotations: NO_SIDE_EFFECTS,
  inputSchema: {
    type: "object",
    properties: { ms: { type: "integer", minimum: 0, maximum: 60_000, description: "How long to stay busy." } },
    required: ["ms"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { slept_ms: { type: "integer", description: "Milliseconds spent." } },
    required: ["slept_ms"],
    additionalProperties: false,
  },
  errors: [],
  budgetMs: 1_500,
  testOnly: true,
  run({ ms }, { progress }) {
    const start = Date.now();
    let reported = 0;
    while (Date.now() - start < ms) {
      // Every quarter passed is reported, also when a loaded machine deschedules this thread past several of them.
      const step = Math.min(3, Math.floor(((Date.now() - start) / ms) * 4));
      while (reported < step) progress(++reported, 4, "sleeping");
    }
    return { slept_ms: Date.now() - start };
  },
};

export const testCrashTool: ChemTool<{ mode: "throw" | "bad_output" | "stdout" }> = {
  kind: "chem",
  toolset: "chem",
  name: "test_crash",
  title: "Test: failing handler",
  description:
    "Test fixture: throws an unexpected exception (mode throw), returns output that breaks its outputSchema (mode bad_output), " +
    "or prints to its own stdout before answering (mode stdout), which must never reach the protocol channel.",
  annotations: NO_SIDE_EFFECTS,
  inputSchema: {
    type: "object",
    properties: { mode: { type: "string", enum: ["throw", "bad_output", "stdout"], description: "How to fail." } },
    required: ["mode"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { ok: { type: "boolean", description: "Never sent." } },
    required: ["ok"],
    additionalProperties: false,
  },
  errors: [],
  budgetMs: 5_000,
  testOnly: true,
  run({ mode }) {
    if (mode === "throw") throw new Error("deliberate failure with a secret path /etc/secret");
    if (mode === "stdout") {
      process.stdout.write("stray output from a worker\n");
      return { ok: true };
    }
    return { ok: "not a boolean" };
  },
};

/**
 * Memory of the worker that runs the call, for the benchmark and the soak (bench/): the WASM heap of its
 * RDKit, its own JS heap, and the process RSS. `hold_ms` keeps the worker busy for that long first, so
 * that as many concurrent calls as there are workers land on distinct workers (the pool gives a call to
 * an idle worker first) and together cover the whole pool.
 */
export const testMemoryTool: ChemTool<{ hold_ms?: number }> = {
  kind: "chem",
  toolset: "chem",
  name: "test_memory",
  title: "Test: worker memory",
  description: "Test fixture: reports the WASM heap and JS heap of the worker that ran it, the process RSS, and the worker's thread id.",
  annotations: NO_SIDE_EFFECTS,
  inputSchema: {
    type: "object",
    properties: { hold_ms: { type: "integer", minimum: 0, maximum: 1_000, description: "Stay busy this long before answering (default 0)." } },
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      thread_id: { type: "integer", description: "The worker thread's id." },
      wasm_heap_bytes: { type: "integer", minimum: 0, description: "Size of this worker's RDKit WASM linear memory." },
      js_heap_used_bytes: { type: "integer", minimum: 0, description: "JS heap in use in this worker." },
      rss_bytes: { type: "integer", minimum: 0, description: "Resident set size of the whole process." },
    },
    required: ["thread_id", "wasm_heap_bytes", "js_heap_used_bytes", "rss_bytes"],
    additionalProperties: false,
  },
  errors: [],
  budgetMs: 5_000,
  testOnly: true,
  run({ hold_ms = 0 }) {
    const until = Date.now() + hold_ms;
    while (Date.now() < until) {
      // busy: the worker stays taken, so a concurrent call goes to another one
    }
    const memory = process.memoryUsage();
    return { thread_id: threadId, wasm_heap_bytes: wasmHeapBytes(), js_heap_used_bytes: memory.heapUsed, rss_bytes: memory.rss };
  },
};
