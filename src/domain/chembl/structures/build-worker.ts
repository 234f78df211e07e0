/**
 * One thread of the structure index build (build.ts): its own read-only handle on the dump and its own
 * RDKit. For each molregno range the coordinator sends, it reads compound_structures.canonical_smiles with
 * molecule_dictionary's chembl_id and max_phase, and answers per structure the ECFP4 bit vector (the ecfp4
 * and tanimoto tools' own morganBitVector), the pattern fingerprint and the RDKit pickle. A structure RDKit
 * cannot parse is skipped and counted. Every RDKit object is deleted on every path.
 *
 * An input that breaks the WebAssembly engine (a trap, or its stack overrun: engine-stack.ts) ends the
 * range there: the answer says which molregno, and the coordinator replaces this thread and sends the rest.
 */
import { parentPort, workerData } from "node:worker_threads";
import { checkEngineStack } from "../../chem/engine-stack.js";
import { morganBitVector, popcount, fingerprintWords } from "../../chem/morgan.js";
import { loadRDKit, parseSmiles, type RDKit } from "../../chem/rdkit.js";
import { ToolError } from "../../errors.js";
import { ECFP_PARAMS, FP_BYTES, PATTERN_PARAMS } from "./format.js";

export interface BuildWorkerSetup {
  dump: string;
  driver: string;
}

export interface ChunkTask {
  kind: "chunk";
  id: number;
  lo: number;
  hi: number;
}

export interface ChunkDone {
  kind: "chunk";
  id: number;
  /** compound_structures rows read (indexed or skipped). */
  rows: number;
  molregno: Uint32Array;
  popcount: Uint16Array;
  maxPhase: Float64Array;
  chemblIds: string[];
  ecfp: Uint8Array;
  pattern: Uint8Array;
  /** n + 1 offsets into molBytes. */
  molOffsets: Uint32Array;
  molBytes: Uint8Array;
  skipped: Array<{ chembl_id: string; reason: string }>;
  /** The engine broke on this molregno (counted as skipped): the range after it is still to do, on a new thread. */
  broken?: { molregno: number; message: string };
}

export type BuildWorkerMessage = { kind: "ready" } | { kind: "fatal"; message: string } | ChunkDone;

interface Statement {
  all(...params: unknown[]): unknown[];
}
interface Database {
  prepare(sql: string): Statement;
}
type Driver = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => Database;

const setup = workerData as BuildWorkerSetup;
const port = parentPort!;
const ECFP_DETAILS = ECFP_PARAMS;
const PATTERN_DETAILS = JSON.stringify(PATTERN_PARAMS);

interface Row {
  molregno: number;
  smiles: string | null;
  chembl_id: string | null;
  max_phase: number | null;
}

/** A growable byte buffer. */
class Bytes {
  buf = new Uint8Array(1 << 16);
  length = 0;
  push(b: Uint8Array): void {
    if (this.length + b.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + b.length));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  take(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function run(rdkit: RDKit, select: Statement, task: ChunkTask): ChunkDone {
  const rows = select.all(task.lo, task.hi) as Row[];
  const n = rows.length;
  const molregno = new Uint32Array(n);
  const counts = new Uint16Array(n);
  const maxPhase = new Float64Array(n);
  const chemblIds: string[] = [];
  const ecfp = new Uint8Array(n * FP_BYTES);
  const pattern = new Uint8Array(n * FP_BYTES);
  const molOffsets: number[] = [0];
  const molBytes = new Bytes();
  const skipped: ChunkDone["skipped"] = [];
  let k = 0;
  let read = 0;
  let broken: ChunkDone["broken"];
  for (const row of rows) {
    read++;
    const id = row.chembl_id ?? `molregno ${row.molregno}`;
    if (row.chembl_id === null) {
      skipped.push({ chembl_id: id, reason: "no molecule_dictionary row" });
      continue;
    }
    if (row.smiles === null || row.smiles.trim() === "") {
      skipped.push({ chembl_id: id, reason: "no canonical_smiles" });
      continue;
    }
    let failure: unknown;
    let added = false;
    let mol;
    try {
      mol = parseSmiles(rdkit, row.smiles, { argName: "canonical_smiles" });
      const e = morganBitVector(mol, ECFP_DETAILS);
      const p = mol.get_pattern_fp_as_uint8array(PATTERN_DETAILS) as Uint8Array;
      const pickle = mol.get_as_uint8array() as Uint8Array;
      if (p.length !== FP_BYTES) throw new ToolError("INVALID_SMILES", `RDKit answered a pattern fingerprint of ${p.length} bytes`, {});
      ecfp.set(e, k * FP_BYTES);
      pattern.set(p, k * FP_BYTES);
      counts[k] = popcount(fingerprintWords(e));
      molregno[k] = row.molregno;
      maxPhase[k] = row.max_phase === null || row.max_phase === undefined ? NaN : Number(row.max_phase);
      chemblIds.push(row.chembl_id);
      molBytes.push(pickle);
      molOffsets.push(molBytes.length);
      k++;
      added = true;
    } catch (e) {
      failure = e;
    } finally {
      mol?.delete();
    }
    // A molecule that used the whole engine stack may have overwritten memory: its values and the engine
    // cannot be trusted (engine-stack.ts), so it is taken back and this thread ends its range.
    if (failure === undefined && !checkEngineStack().sound) {
      failure = new Error("it used the whole stack of RDKit's engine");
      if (added) {
        k--;
        chemblIds.pop();
        molOffsets.pop();
        molBytes.length = molOffsets[molOffsets.length - 1]!;
      }
    }
    if (failure === undefined) continue;
    if (failure instanceof ToolError) {
      skipped.push({ chembl_id: id, reason: failure.message });
      continue;
    }
    broken = { molregno: row.molregno, message: String((failure as Error)?.message ?? failure) };
    skipped.push({ chembl_id: id, reason: `RDKit's engine failed on it (${broken.message})` });
    break;
  }
  return {
    kind: "chunk",
    id: task.id,
    rows: read,
    molregno: molregno.slice(0, k),
    popcount: counts.slice(0, k),
    maxPhase: maxPhase.slice(0, k),
    chemblIds,
    ecfp: ecfp.slice(0, k * FP_BYTES),
    pattern: pattern.slice(0, k * FP_BYTES),
    molOffsets: Uint32Array.from(molOffsets),
    molBytes: molBytes.take(),
    skipped,
    ...(broken ? { broken } : {}),
  };
}

async function start(): Promise<{ rdkit: RDKit; select: Statement }> {
  const Driver = ((await import(setup.driver)) as { default: Driver }).default;
  const db = new Driver(setup.dump, { readonly: true, fileMustExist: true });
  const select = db.prepare(
    `SELECT s.molregno AS molregno, s.canonical_smiles AS smiles, m.chembl_id AS chembl_id, m.max_phase AS max_phase
     FROM compound_structures s LEFT JOIN molecule_dictionary m ON m.molregno = s.molregno
     WHERE s.molregno BETWEEN ? AND ? ORDER BY s.molregno`,
  );
  const rdkit = await loadRDKit();
  return { rdkit, select };
}

const started = start();
started.then(
  () => port.postMessage({ kind: "ready" } satisfies BuildWorkerMessage),
  (e: Error) => port.postMessage({ kind: "fatal", message: e.message } satisfies BuildWorkerMessage),
);

port.on("message", (task: ChunkTask) => {
  void started.then(({ rdkit, select }) => {
    let done: ChunkDone;
    try {
      done = run(rdkit, select, task);
    } catch (e) {
      port.postMessage({ kind: "fatal", message: (e as Error).message } satisfies BuildWorkerMessage);
      return;
    }
    port.postMessage(done, [
      done.molregno.buffer,
      done.popcount.buffer,
      done.maxPhase.buffer,
      done.ecfp.buffer,
      done.pattern.buffer,
      done.molOffsets.buffer,
      done.molBytes.buffer,
    ] as ArrayBuffer[]);
  });
});
