/**
 * Entry point of a chemistry worker thread. Owns one RDKit instance and runs one tool call at a time,
 * so the main thread only speaks protocol. Messages: start (load RDKit; the pool staggers this so the
 * first worker is not slowed by the others), run a job, report heap stats.
 */
import { parentPort } from "node:worker_threads";
import { estimateSmilesAtoms, loadRDKit, wasmHeapBytes, withMol, type RDKit } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { chemToolsByName } from "../tools/index.js";
import type { ToMain, ToWorker } from "./pool-messages.js";

if (!parentPort) throw new Error("worker.ts must run as a worker thread");
const port = parentPort;
const tools = chemToolsByName();
type Held = Exclude<ToWorker, { type: "start" }>;
let rdkit: RDKit | undefined;
let starting = false;
/** Messages that arrive before RDKit is loaded, handled in order once it is. */
const early: Held[] = [];

/**
 * A failure inside the WASM engine rather than in our code: a trap (WebAssembly.RuntimeError, e.g. the
 * SMILES parser's recursion exhausting the WASM stack) or a C++ exception that escaped RDKit
 * (WebAssembly.Exception, seen on long chains of ~600 atoms).
 */
function isWasmFailure(e: unknown): boolean {
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly ?? {};
  return [wasm.RuntimeError, wasm.Exception].some((ctor) => typeof ctor === "function" && e instanceof (ctor as new () => object));
}

/**
 * Inputs this large get an engine check after their call. Long chains with double bonds (about 600 atoms,
 * found by the giant-molecule fuzzer) overflow RDKit's WASM shadow stack without a trap: the overflow
 * writes over the engine's own memory and the *next* call fails ("null function or function signature
 * mismatch") or could answer wrongly. Below this size no input has been seen to do it.
 */
const CHECK_ENGINE_ABOVE_ATOMS = 200;

function isLargeInput(args: Record<string, unknown>): boolean {
  const large = (v: unknown) => typeof v === "string" && v.length > CHECK_ENGINE_ABOVE_ATOMS && estimateSmilesAtoms(v) > CHECK_ENGINE_ABOVE_ATOMS;
  return Object.values(args).some((v) => large(v) || (Array.isArray(v) && v.some(large)));
}

/**
 * A small known answer from the engine, through the same path every tool takes (parse with RDKit's error
 * log captured, then write a SMILES): false if the engine's memory is no longer sound.
 */
function engineIsSound(rdkit: RDKit): boolean {
  try {
    return withMol(rdkit, "OCC", (mol) => mol.get_smiles()) === "CCO";
  } catch {
    return false;
  }
}

/**
 * The answer to a call whose input broke the engine: a typed error for the caller, and a new worker, since
 * the engine's C++ state cannot be trusted afterwards.
 */
function engineFailure(jobId: number, message: string, engineMessage: string): ToMain {
  const error = new ToolError("MOLECULE_TOO_LARGE", message, { reason: "engine_stack_exhausted", engine_message: engineMessage }, "Send a smaller molecule or pattern, or split it into fragments.");
  return { type: "done", jobId, ok: false, error: error.toPayload(), replaceWorker: true };
}

function post(message: ToMain): void {
  port.postMessage(message);
}

// One listener for the worker's whole life, attached at once, so that no message is ever dropped.
port.on("message", (message: ToWorker) => {
  if (message.type === "start") {
    if (!starting) {
      starting = true;
      // A failure to load rejects unhandled: the worker exits with an error and the pool replaces it.
      void loadRDKit().then((engine) => {
        rdkit = engine;
        post({ type: "ready", heapBytes: wasmHeapBytes() });
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
  const { jobId, tool: name, args } = message;
  const tool = tools.get(name);
  let answer: ToMain;
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
      // A WASM trap (e.g. the SMILES parser's recursion exhausting the WASM stack on a long unbranched
      // chain of ~900 atoms). The input caused it, so the caller gets a typed error.
      post(
        engineFailure(
          jobId,
          "RDKit could not process this input: its WASM engine ran out of stack (this happens with very long unbranched chains, huge ring systems or deeply nested patterns)",
          String((e as Error).message),
        ),
      );
      return;
    } else {
      const err = e as Error;
      post({ type: "done", jobId, ok: false, internal: `${err?.name ?? "Error"}: ${err?.message ?? String(e)}\n${err?.stack ?? ""}` });
      return;
    }
  }
  // A result or a domain error from a call that overwrote the engine's memory cannot be trusted either.
  if (isLargeInput(args) && !engineIsSound(rdkit)) {
    answer = engineFailure(
      jobId,
      "RDKit could not process this input safely: it overflowed the WASM engine's stack (this happens with chains of several hundred atoms with double bonds, huge ring systems or deeply nested patterns)",
      "engine memory overwritten (detected by a check after the call)",
    );
  }
  post(answer);
}
