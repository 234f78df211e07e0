/**
 * Entry point of a chemistry worker thread. Owns one RDKit instance and runs one tool call at a time,
 * so the main thread only speaks protocol. Messages: start (load RDKit; the pool staggers this so the
 * first worker is not slowed by the others), run a job, report heap stats.
 *
 * Loading is RDKit's WASM and the chemistry tools' modules side by side: the engine's load begins before the
 * tools are imported (a dynamic import), so its file read and compilation overlap their parsing. A worker
 * created with workerData.eager (the prestarted first worker) begins at once, before its start message,
 * but says it is ready only after that message (so the pool is listening).
 */
import { parentPort, workerData } from "node:worker_threads";
import { checkEngineStack, engineStackInfo } from "../domain/chem/engine-stack.js";
import { loadRDKit, wasmHeapBytes, type RDKit } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import type { Done, ItemOutcome, ToMain, ToWorker, WorkerData } from "./pool-messages.js";
import type { DomainErrorPayload } from "../domain/errors.js";

if (!parentPort) throw new Error("worker.ts must run as a worker thread");
const port = parentPort;
type ChemTools = ReturnType<(typeof import("../tools/index.js"))["chemToolsByName"]>;
let tools: ChemTools = new Map();
type Held = Exclude<ToWorker, { type: "start" }>;
let rdkit: RDKit | undefined;
let loading: Promise<RDKit> | undefined;
let told = false;
/** Shared with the pool: a job sent ahead carries an index here, and runs only if the worker claims it. */
let claims: Int32Array | undefined;
/**
 * Set once an answer asked for this worker's replacement (the engine's state cannot be trusted): jobs
 * already queued in its port are not run; the pool gives them to another worker.
 */
let broken = false;
/** Messages that arrive before RDKit is loaded, handled in order once it is. */
const early: Held[] = [];

/**
 * A failure inside the WASM engine rather than in our code: a trap (WebAssembly.RuntimeError), a C++
 * exception that escaped RDKit (WebAssembly.Exception), or the thread's own stack exhausted by RDKit's
 * recursion (RangeError). Each unwinds through C++ frames without their destructors, so the engine's
 * state cannot be trusted afterwards.
 */
function isWasmFailure(e: unknown): boolean {
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly ?? {};
  if (e instanceof RangeError && /call stack/i.test(e.message)) return true;
  return [wasm.RuntimeError, wasm.Exception].some((ctor) => typeof ctor === "function" && e instanceof (ctor as new () => object));
}

/**
 * The answer to a call whose input broke the engine: a typed error for the caller, and a new worker, since
 * the engine's C++ state cannot be trusted afterwards.
 */
function engineFailure(jobId: number, message: string, engineMessage: string): Done {
  const error = new ToolError(
    "MOLECULE_TOO_LARGE",
    message,
    { reason: "engine_stack_exhausted", engine_message: engineMessage },
    "Send a smaller molecule or pattern, or split it into fragments.",
  );
  return { type: "done", jobId, ok: false, error: error.toPayload(), replaceWorker: true };
}

function post(message: ToMain): void {
  port.postMessage(message);
}

/** Loads RDKit and the chemistry tools (once); a failure rejects unhandled: the worker exits, the pool replaces it. */
function load(): Promise<RDKit> {
  if (loading) return loading;
  const { engineStackBytes } = (workerData ?? {}) as WorkerData;
  const engine = loadRDKit({ stackBytes: engineStackBytes });
  const toolModules = import("../tools/index.js");
  loading = Promise.all([engine, toolModules]).then(([loaded, mod]) => {
    tools = mod.chemToolsByName();
    // RDKit's first parse costs about 110 ms (its one-time initialisation and cold WASM code; the next
    // takes a few): paid here, while the worker loads, rather than by the first call.
    const first = loaded.get_mol("c1ccccc1O");
    first?.get_smiles();
    first?.delete();
    return loaded;
  });
  return loading;
}

if (((workerData ?? {}) as WorkerData).eager) void load();

// One listener for the worker's whole life, attached at once, so that no message is ever dropped.
port.on("message", (message: ToWorker) => {
  if (message.type === "start") {
    if (!told) {
      told = true;
      claims = new Int32Array(message.claims);
      void load().then((engine) => {
        rdkit = engine;
        const stack = engineStackInfo();
        post({ type: "ready", heapBytes: wasmHeapBytes(), engineStackProblem: stack.installed ? undefined : stack.reason });
        for (const held of early.splice(0)) handle(engine, held);
      });
    }
    return;
  }
  if (rdkit) handle(rdkit, message);
  else early.push(message);
});

function handle(rdkit: RDKit, message: Held): void {
  if (message.type === "stats") {
    post({ type: "stats", requestId: message.requestId, heapBytes: wasmHeapBytes() });
    return;
  }
  if (broken) return;
  if (message.type === "runList") {
    runList(rdkit, message);
    return;
  }
  const { jobId, tool: name, args } = message;
  // A job sent ahead that the pool took back (to run it on a worker that came free first) is not run.
  if (message.claim !== undefined && (!claims || Atomics.compareExchange(claims, message.claim, jobId, 0) !== jobId)) return;
  const tool = tools.get(name);
  let answer: Done;
  try {
    if (!tool) throw new Error(`no chemistry tool named ${name} in this worker`);
    const value = tool.run(args, {
      rdkit,
      progress: (progress, total, text) => post({ type: "progress", jobId, progress, total, message: text }),
    });
    answer = { type: "done", jobId, ok: true, value };
  } catch (e) {
    if (e instanceof ToolError) {
      answer = { type: "done", jobId, ok: false, error: e.toPayload() };
    } else if (isWasmFailure(e)) {
      // The input drove the engine into a trap or past the thread's stack: the caller gets a typed error.
      answer = engineFailure(
        jobId,
        "RDKit could not process this input: its WASM engine failed on it (this happens with extremely long chains, huge ring systems or deeply nested patterns)",
        String((e as Error).message),
      );
    } else {
      const err = e as Error;
      answer = { type: "done", jobId, ok: false, internal: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}\n${err?.stack ?? ""}` };
    }
  }
  // Checked after every call, whatever it answered (it also resets the stack pointer after a trap). A
  // call whose recursion reached the end of the engine's stack may have written over the memory below it:
  // neither its answer nor the engine can be trusted (engine-stack.ts).
  const alreadyReplacing = !answer.ok && answer.replaceWorker === true;
  if (!checkEngineStack().sound && !alreadyReplacing) {
    answer = engineFailure(
      jobId,
      "RDKit could not process this input safely: it used the whole stack of the WASM engine (this happens with extremely long chains, huge ring systems or deeply nested patterns)",
      "engine stack exhausted (its guard was overwritten)",
    );
  }
  if (!answer.ok && answer.replaceWorker === true) broken = true;
  post({ ...answer, heapBytes: wasmHeapBytes() });
}

/**
 * A list chunk: each entry run as its own call would be. An entry that broke the engine answers
 * MOLECULE_TOO_LARGE and ends the chunk (the worker is replaced; the entries after it come back skipped and
 * the pool runs them elsewhere); past the deadline no entry is started.
 */
function runList(rdkit: RDKit, message: Extract<Held, { type: "runList" }>): void {
  const { jobId, tool: name, items, deadline } = message;
  const tool = tools.get(name);
  const outcomes: ItemOutcome[] = [];
  let replaceWorker = false;
  const progress = () => {};
  for (const args of items) {
    if (replaceWorker || !tool || Date.now() >= deadline) {
      outcomes.push({ ok: false, skipped: true });
      continue;
    }
    try {
      outcomes.push({ ok: true, value: tool.run(args, { rdkit, progress }) });
    } catch (e) {
      if (e instanceof ToolError) outcomes.push({ ok: false, error: e.toPayload() });
      else if (isWasmFailure(e)) {
        const failure = engineFailure(jobId, "RDKit could not process this input: its WASM engine failed on it", String((e as Error).message));
        outcomes.push({ ok: false, error: (failure as { error: DomainErrorPayload }).error });
        replaceWorker = true;
      } else {
        const err = e as Error;
        post({
          type: "done",
          jobId,
          ok: false,
          internal: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}\n${err?.stack ?? ""}`,
          heapBytes: wasmHeapBytes(),
        });
        return;
      }
    }
    if (!replaceWorker && !checkEngineStack().sound) {
      outcomes[outcomes.length - 1] = {
        ok: false,
        error: new ToolError(
          "MOLECULE_TOO_LARGE",
          "RDKit could not process this input safely: it used the whole stack of the WASM engine",
          { reason: "engine_stack_exhausted" },
          "Send a smaller molecule or pattern, or split it into fragments.",
        ).toPayload(),
      };
      replaceWorker = true;
    }
  }
  if (!tool) {
    post({ type: "done", jobId, ok: false, internal: `no chemistry tool named ${name} in this worker`, heapBytes: wasmHeapBytes() });
    return;
  }
  if (replaceWorker) broken = true;
  post({ type: "done", jobId, ok: true, value: outcomes, heapBytes: wasmHeapBytes(), ...(replaceWorker ? { replaceWorker: true } : {}) });
}
