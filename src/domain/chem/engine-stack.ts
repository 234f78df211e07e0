/**
 * The C++ stack of RDKit's WASM engine, made large and watched.
 *
 * Emscripten keeps C++ stack frames on a "shadow stack" inside the WASM linear memory. RDKit MinimalLib
 * links it at 64 KiB and checks nothing per call (only a cookie at exit). Recursive code walks molecules
 * atom by atom: writing the SMILES of a plain chain takes about 112 bytes per atom, so a chain of ~600
 * atoms runs past the end and silently writes over the engine's static data just below it. Found by the
 * giant-molecule fuzzer: after `parse_smiles CCCC…` (600 carbons) every reaction SMARTS failed to compile,
 * while a small parse-and-write still answered right, so a known-answer check after the call missed it.
 *
 * So, once per thread, right after the module loads:
 * - the stack moves to a block of its own from the engine's malloc (8 MiB by default: a 10,000-atom
 *   chain, the atom cap, needs about 1.1 MiB); `emscripten_stack_restore` is the engine's own way to set
 *   the stack pointer, and nothing in the glue depends on the old bounds (the cookie is read at exit only);
 * - the lowest GUARD_BYTES of the block are painted with a pattern. After every call `checkEngineStack`
 *   looks at the paint: if a frame reached it, the stack came within GUARD_BYTES of its end, and what lies
 *   below may have been overwritten; the caller must then treat the engine as unsound (the worker answers
 *   MOLECULE_TOO_LARGE and is replaced). A frame skipping the whole guard unwritten would need a single
 *   frame larger than the guard, which RDKit's recursive functions do not have.
 *
 * The check also puts the stack pointer back at the top after an exception: a trap or a JS stack overflow
 * unwinds through WASM frames without running their epilogues, and the frames' bytes would otherwise be
 * lost for every later call.
 *
 * The export names are minified (`wasmExports["fa"]`): they are read from the module's own glue code,
 * where each is assigned to its readable name. Should an RDKit release change that, the stack stays as
 * linked and `engineStackInfo()` says so (a test fails, so an upgrade cannot lose this silently).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export const DEFAULT_ENGINE_STACK_BYTES = 8 * 1024 * 1024;
/** Painted bytes at the bottom of the stack block; a call that touches them is treated as an overflow. */
export const GUARD_BYTES = 16 * 1024;
const PAINT = 0x5eadbeef;

interface MemoryLike {
  buffer: ArrayBuffer;
}
type ExportFn = (...args: number[]) => number;

interface StackExports {
  malloc: ExportFn;
  restore: ExportFn;
  current: ExportFn;
}

interface Installed {
  memory: MemoryLike;
  fns: StackExports;
  /** Lowest usable address of the block (16-byte aligned). */
  bottom: number;
  /** Initial stack pointer: the stack grows down from here. */
  top: number;
}

let installed: Installed | undefined;
let unavailable: string | undefined;
const NOT_LOADED = "RDKit is not loaded in this thread";

/** Readable name → minified export key, from the glue's `_malloc=wasmExports["$"]` assignments. */
function glueExportNames(): Map<string, string> {
  const require = createRequire(import.meta.url);
  const glue = readFileSync(require.resolve("@rdkit/rdkit"), "utf8");
  const names = new Map<string, string>();
  for (const m of glue.matchAll(/([A-Za-z_$][\w$]*)=wasmExports\["([^"]+)"\]/g)) names.set(m[1]!, m[2]!);
  return names;
}

function stackExports(exports: Record<string, unknown>): StackExports | string {
  let names: Map<string, string>;
  try {
    names = glueExportNames();
  } catch (e) {
    return `the RDKit glue code could not be read (${(e as Error).message})`;
  }
  const fn = (readable: string): ExportFn | undefined => {
    const key = names.get(readable);
    const value = key === undefined ? undefined : exports[key];
    return typeof value === "function" ? (value as ExportFn) : undefined;
  };
  const malloc = fn("_malloc");
  const restore = fn("__emscripten_stack_restore");
  const current = fn("_emscripten_stack_get_current");
  if (!malloc || !restore || !current) return "this RDKit build does not export malloc and the stack pointer functions under the names expected";
  return { malloc, restore, current };
}

/**
 * Moves this thread's engine stack to a block of `bytes` and paints its guard. Called once, by loadRDKit,
 * before any other call into the engine; `exports` and `memory` are those of the engine's instance.
 */
export function installEngineStack(exports: Record<string, unknown> | undefined, memory: MemoryLike | undefined, bytes: number): void {
  if (installed || unavailable) return;
  if (!exports || !memory) {
    unavailable = "the engine's WASM instance was not seen while it loaded";
    return;
  }
  const fns = stackExports(exports);
  if (typeof fns === "string") {
    unavailable = fns;
    return;
  }
  const size = Math.max(bytes, 2 * GUARD_BYTES);
  const block = fns.malloc(size + 32);
  if (!block) {
    unavailable = `the engine could not allocate a ${size}-byte stack`;
    return;
  }
  const bottom = (block + 15) & ~15;
  const top = (bottom + size) & ~15;
  installed = { memory, fns, bottom, top };
  paint(bottom, bottom + GUARD_BYTES);
  fns.restore(top);
}

function words(from: number, to: number): Uint32Array {
  return new Uint32Array(installed!.memory.buffer, from, (to - from) >>> 2);
}

function paint(from: number, to: number): void {
  words(from, to).fill(PAINT);
}

/** Whether the last call left the guard as painted; also puts the stack pointer back at the top. */
export function checkEngineStack(): { sound: boolean } {
  if (!installed) return { sound: true };
  const { fns, top, bottom } = installed;
  if (fns.current() !== top) fns.restore(top);
  const guard = words(bottom, bottom + GUARD_BYTES);
  for (let i = 0; i < guard.length; i++) if (guard[i] !== PAINT) return { sound: false };
  return { sound: true };
}

/** Where the engine stack is, or why it stayed as linked (for `doctor`, logs and tests). */
export function engineStackInfo(): { installed: true; bytes: number; guardBytes: number } | { installed: false; reason: string } {
  if (installed) return { installed: true, bytes: installed.top - installed.bottom, guardBytes: GUARD_BYTES };
  return { installed: false, reason: unavailable ?? NOT_LOADED };
}

/**
 * Bytes of engine stack `fn` uses at its deepest (the whole block is painted first): for tests and for
 * sizing the stack, not for the per-call path.
 */
export function measureEngineStack<T>(fn: () => T): { value: T; bytes: number } {
  if (!installed) throw new Error(`the engine stack is not installed: ${unavailable ?? NOT_LOADED}`);
  const { bottom, top } = installed;
  paint(bottom, top - 64);
  try {
    const value = fn();
    const all = words(bottom, top - 64);
    let lowest = 0;
    while (lowest < all.length && all[lowest] === PAINT) lowest++;
    return { value, bytes: top - (bottom + lowest * 4) };
  } finally {
    paint(bottom, bottom + GUARD_BYTES);
  }
}
