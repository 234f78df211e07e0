/**
 * RDKit MinimalLib (WASM) access for one worker thread.
 *
 * The WASM heap is not garbage-collected: every Mol/MolList/qmol handle must be deleted on every path,
 * errors included. All access goes through the `with*` helpers below, which own that rule.
 */
import type { MainModule, Mol } from "@rdkit/rdkit";
import { ToolError } from "../errors.js";
import { DEFAULT_ENGINE_STACK_BYTES, installEngineStack } from "./engine-stack.js";
import { inputFormatOf, isInchi, molblockAtomCount, molblockEnds, molblockTitle } from "./input-format.js";

export type RDKit = MainModule;
export type RDKitMol = Mol;

/** The general atom cap of every SMILES tool (a tool may set a lower one). */
export const MAX_ATOMS = 10_000;

let modulePromise: Promise<RDKit> | undefined;

/**
 * Loads the WASM module once per thread and gives it a stack of `stackBytes` (see engine-stack.ts; only
 * the first call's value counts). RDKit never writes to stdout (checked in tests).
 */
export function loadRDKit(options: { stackBytes?: number } = {}): Promise<RDKit> {
  // The glue (about 100 KB of JavaScript, ~50 ms to load) is imported here, not at the top: the main thread
  // imports this module for its helpers' types and constants but never loads RDKit itself.
  modulePromise ??= import("@rdkit/rdkit").then(async ({ default: initRDKitModule }) => {
    const rdkit = await (initRDKitModule as unknown as () => Promise<RDKit>)();
    installEngineStack(wasmExports, wasmMemory, options.stackBytes ?? DEFAULT_ENGINE_STACK_BYTES);
    // Keep error messages for INVALID_SMILES; silence warnings and info, which would go to stderr.
    rdkit.disable_logging();
    return rdkit;
  });
  return modulePromise;
}

/** Runs `fn` with RDKit's error log captured, returning what RDKit logged alongside the result. */
export function withErrorLog<T>(rdkit: RDKit, fn: () => T): { value: T; log: string } {
  const log = rdkit.set_log_capture("rdApp.error");
  try {
    const value = fn();
    return { value, log: log ? log.get_buffer() : "" };
  } finally {
    if (log) {
      log.clear_buffer();
      log.delete();
    }
    rdkit.disable_logging("rdApp.error");
  }
}

/**
 * RDKit's own explanation from its error log, without timestamps and without the lines that only echo the
 * input back (the input is already in our message), e.g. "syntax error while parsing: C1CC((; check for
 * mistakes around position 6".
 */
function firstLogLine(log: string): string {
  const parts: string[] = [];
  for (const raw of log.split("\n")) {
    const line = raw.replace(/^\[[0-9:.]+\]\s*/, "").trim();
    if (line.length === 0 || /^[*~^ ]+$/.test(line) || /^Failed parsing/.test(line.replace(/^\w+ Parse Error: /, ""))) continue;
    const text = line.replace(/^(SMILES|SMARTS) Parse Error: /, "").replace(/:$/, "");
    if (!line.includes("Parse Error") && parts.length > 0) continue; // echo of the input under the caret
    parts.push(text);
    if (parts.length === 2) break;
  }
  return parts.join("; ");
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Quick upper bound of atoms in a SMILES, so a huge input is refused before RDKit builds it. */
function estimateSmilesAtoms(smiles: string): number {
  let count = 0;
  for (let i = 0; i < smiles.length; i++) {
    const c = smiles.charCodeAt(i);
    if (c === 91 /* [ */) {
      const close = smiles.indexOf("]", i);
      count++;
      i = close < 0 ? smiles.length : close;
    } else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 42 /* * */) {
      // Two-letter organic-subset symbols (Cl, Br) count once: skip the lowercase second letter.
      const next = smiles.charCodeAt(i + 1);
      if ((c === 67 && next === 108) || (c === 66 && next === 114)) i++;
      count++;
    }
  }
  return count;
}

/** Quick upper bound of atoms in a molecule string of any input format: a molblock's counts line, the SMILES part of a CXSMILES. */
export function estimateInputAtoms(text: string): number {
  if (inputFormatOf(text) === "molblock") return molblockAtomCount(text) ?? 0;
  return estimateSmilesAtoms(text.trim().split(/\s/)[0] ?? "");
}

export interface ParseOptions {
  /** Atom cap for this tool (default MAX_ATOMS). */
  maxAtoms?: number;
  /** Argument name used in messages (default "smiles"). */
  argName?: string;
}

/** The longest SMILES or CXSMILES read (a molblock may be longer, up to the codec's string limit). */
export const SMILES_MAX_LENGTH = 100_000;

/** The hint of an InChI input: RDKit MinimalLib has no InChI reader. */
const INCHI_HINT =
  "RDKit here cannot read InChI: resolve it to a SMILES with name_to_smiles (it sends InChI= strings to PubChem's InChI lookup), then call again.";

/**
 * Parses a molecule string: SMILES, a molblock (V2000/V3000) or CXSMILES (see input-format.ts), all through
 * RDKit's get_mol, so each gives the same molecule graph its SMILES would (a molblock's explicit hydrogens
 * removed, as native RDKit's MolFromMolBlock does). Throws INVALID_SMILES with RDKit's message (also for an
 * InChI, or several molblocks), MOLECULE_TOO_LARGE, or INVALID_ARGUMENTS for a SMILES over SMILES_MAX_LENGTH.
 * Caller deletes.
 */
export function parseSmiles(rdkit: RDKit, smiles: string, options: ParseOptions = {}): RDKitMol {
  const maxAtoms = options.maxAtoms ?? MAX_ATOMS;
  const argName = options.argName ?? "smiles";
  if (smiles.trim().length === 0) {
    throw new ToolError("INVALID_SMILES", `Invalid SMILES in '${argName}': the string is empty`, { argument: argName });
  }
  const format = inputFormatOf(smiles);
  if (format !== "molblock" && isInchi(smiles)) {
    throw new ToolError("INVALID_SMILES", `'${preview(smiles)}' is an InChI, not a SMILES`, { argument: argName, input_format: "inchi" }, INCHI_HINT);
  }
  if (format !== "molblock" && smiles.length > SMILES_MAX_LENGTH) {
    throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments: ${argName} is a SMILES of ${smiles.length} characters; at most ${SMILES_MAX_LENGTH}`, {
      argument: argName,
      length: smiles.length,
      max_length: SMILES_MAX_LENGTH,
    });
  }
  if (format === "molblock" && molblockEnds(smiles) > 1) {
    throw new ToolError(
      "INVALID_SMILES",
      `Invalid molblock in '${argName}': it holds ${molblockEnds(smiles)} records (M  END lines); one molecule has one`,
      { argument: argName, input_format: "molblock" },
      "Send one record, or send the records as sdf (each becomes a list entry).",
    );
  }
  const estimate = estimateInputAtoms(smiles);
  if (estimate > maxAtoms * 2) {
    throw new ToolError("MOLECULE_TOO_LARGE", `Molecule has more than ${maxAtoms} atoms`, {
      argument: argName,
      atom_count_estimate: estimate,
      max_atoms: maxAtoms,
    });
  }
  const { value: mol, log } = withErrorLog(rdkit, () => (format === "molblock" ? rdkit.get_mol(smiles, MOLBLOCK_DETAILS) : rdkit.get_mol(smiles)));
  // A failed RDKit invariant (e.g. an unknown element symbol) is logged, yet MinimalLib may still answer a molecule (with a dummy atom).
  const violated = format === "molblock" && /Violation/.test(log);
  if (!mol || !mol.is_valid() || violated) {
    mol?.delete();
    const reason = (violated ? violationLine(log) : firstLogLine(log)) || "RDKit could not parse it";
    if (format === "molblock") {
      const title = molblockTitle(smiles);
      throw new ToolError(
        "INVALID_SMILES",
        `Invalid molblock${title ? ` '${preview(title)}'` : ""}: ${reason}`,
        { argument: argName, input_format: "molblock", rdkit_message: reason },
        "Check the molblock: three header lines (the first may be empty), the counts line, atom and bond blocks, then M  END; or send a SMILES.",
      );
    }
    throw new ToolError("INVALID_SMILES", `Invalid ${format === "cxsmiles" ? "CXSMILES" : "SMILES"} '${preview(smiles)}': ${reason}`, {
      argument: argName,
      ...(format === "cxsmiles" ? { input_format: "cxsmiles" } : {}),
      rdkit_message: reason,
    });
  }
  const atoms = mol.get_num_atoms();
  if (atoms > maxAtoms) {
    mol.delete();
    throw new ToolError("MOLECULE_TOO_LARGE", `Molecule has ${atoms} atoms; this tool accepts at most ${maxAtoms}`, {
      argument: argName,
      atom_count: atoms,
      max_atoms: maxAtoms,
    });
  }
  return mol;
}

/** Native RDKit's MolFromMolBlock defaults: sanitise, and remove the explicit hydrogens (MinimalLib keeps them unless told). */
const MOLBLOCK_DETAILS = JSON.stringify({ removeHs: true });

/** The line of an RDKit invariant violation that says what failed (e.g. "Element 'Xx' not found"). */
function violationLine(log: string): string {
  const lines = log.split("\n").map((l) => l.replace(/^\[[0-9:.]+\]\s*/, "").trim());
  const at = lines.findIndex((l) => /Violation$/.test(l));
  return at >= 0 ? (lines[at + 1] ?? "") : "";
}

/**
 * The canonical SMILES RDKit writes for a SMILES it reads back (perception and clean-up run again), or undefined
 * when RDKit does not read or sanitise it. The handle is freed either way.
 */
export function rewrittenSmiles(rdkit: RDKit, smiles: string): string | undefined {
  const mol = rdkit.get_mol(smiles);
  if (mol === null) return undefined;
  try {
    return mol.is_valid() ? mol.get_smiles() : undefined;
  } finally {
    mol.delete();
  }
}

/**
 * The one writer of SMILES the server answers that it built (scaffolds, cores and substituents, MMP parts, parents,
 * fragments): written, read back and written again, so the answer equals canonical_smiles of itself. A stereo mark
 * on a bond or atom that stopped being stereogenic when the molecule was cut is dropped, and ring stereo is written
 * the one way canonical_smiles writes it, so two stereo forms of a series give one scaffold. A SMILES RDKit cannot
 * read back is answered as written.
 */
export function canonicalOutput(rdkit: RDKit, smiles: string): string {
  return smiles === "" ? "" : (rewrittenSmiles(rdkit, smiles) ?? smiles);
}

/** Parses, runs `fn`, and always deletes the molecule. */
export function withMol<T>(rdkit: RDKit, smiles: string, fn: (mol: RDKitMol) => T, options?: ParseOptions): T {
  const mol = parseSmiles(rdkit, smiles, options);
  try {
    return fn(mol);
  } finally {
    mol.delete();
  }
}

/** Compiles a SMARTS query, runs `fn`, and always deletes the query. Throws INVALID_SMARTS. */
export function withQuery<T>(rdkit: RDKit, smarts: string, fn: (query: RDKitMol) => T, argName = "smarts"): T {
  const { value: query, log } = withErrorLog(rdkit, () => rdkit.get_qmol(smarts));
  if (!query || !query.is_valid()) {
    query?.delete();
    const reason = firstLogLine(log) || "RDKit could not parse it";
    throw new ToolError("INVALID_SMARTS", `Invalid SMARTS '${preview(smarts)}': ${reason}`, {
      argument: argName,
      rdkit_message: reason,
    });
  }
  try {
    return fn(query);
  } finally {
    query.delete();
  }
}

/** The subset of get_descriptors() keys this project reads. */
export interface RDKitDescriptors {
  amw: number;
  exactmw: number;
  CrippenClogP: number;
  tpsa: number;
  NumHBD: number;
  NumHBA: number;
  lipinskiHBD: number;
  lipinskiHBA: number;
  NumRotatableBonds: number;
  NumHeavyAtoms: number;
  NumAtoms: number;
  NumHeteroatoms: number;
  NumRings: number;
  NumAromaticRings: number;
  FractionCSP3: number;
  NumAtomStereoCenters: number;
  NumUnspecifiedAtomStereoCenters: number;
  NumSpiroAtoms: number;
  NumBridgeheadAtoms: number;
  [key: string]: number;
}

export function descriptorsOf(mol: RDKitMol): RDKitDescriptors {
  return JSON.parse(mol.get_descriptors()) as RDKitDescriptors;
}

/** Substructure match lists (query-ordered atom indices); MinimalLib answers "{}" when nothing matches. */
export function substructMatches(mol: RDKitMol, query: RDKitMol, maxMatches?: number): number[][] {
  const raw = maxMatches === undefined ? mol.get_substruct_matches(query) : mol.get_substruct_matches(query, JSON.stringify({ maxMatches }));
  const parsed = JSON.parse(raw) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed.map((m) => (m as { atoms: number[] }).atoms);
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * The WASM linear memory and exports of this thread's RDKit, captured while the module instantiates: the
 * memory so tests and operators can see that the heap stays flat (it never shrinks, so growth means a
 * leak), the exports for engine-stack.ts.
 * (TypeScript's WebAssembly types live in lib.dom, which a Node project does not load: hence the local ones.)
 */
interface WasmMemoryLike {
  buffer: ArrayBuffer;
}
interface WasmApi {
  Memory: abstract new (...args: never[]) => WasmMemoryLike;
  Instance: abstract new (...args: never[]) => { exports: Record<string, unknown> };
  instantiate: (source: unknown, imports?: Record<string, Record<string, unknown>>) => Promise<unknown>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
let wasmMemory: WasmMemoryLike | undefined;
let wasmExports: Record<string, unknown> | undefined;

function captureMemory(result: unknown, imports?: Record<string, Record<string, unknown>>): void {
  const instance = (result instanceof wasm.Instance ? result : (result as { instance?: unknown }).instance) as { exports: Record<string, unknown> } | undefined;
  if (instance) wasmExports = instance.exports;
  for (const value of Object.values(instance?.exports ?? {})) {
    if (value instanceof wasm.Memory) wasmMemory = value;
  }
  for (const ns of Object.values(imports ?? {})) {
    for (const value of Object.values(ns)) {
      if (value instanceof wasm.Memory) wasmMemory ??= value;
    }
  }
}

const originalInstantiate = wasm.instantiate.bind(wasm);
// Wrapped once per thread; the wrapper only observes, everything passes through unchanged.
wasm.instantiate = async (source, imports) => {
  const result = await originalInstantiate(source, imports);
  captureMemory(result, imports);
  return result;
};

/** Bytes of WASM heap in use by this thread's RDKit (0 before it loads). */
export function wasmHeapBytes(): number {
  return wasmMemory ? wasmMemory.buffer.byteLength : 0;
}
