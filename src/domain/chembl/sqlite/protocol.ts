/** The messages between the main thread (source.ts) and the dump's worker thread (worker.ts). */
import type { Packed } from "./columnar.js";
import type { StructureIndexStatus } from "../structures/format.js";

export interface WorkerSetup {
  dump: string;
  /** Where the sidecar may live, tried in order (next to the dump, then a cache directory). */
  sidecarDirs: string[];
  sidecarName: string;
  /** The driver's module name (tests name a missing one). */
  driver: string;
}

export interface WorkerRequest {
  id: number;
  /** The API path after the base URL, without ".json" (e.g. "molecule/CHEMBL25"). */
  path: string;
  /** The query string. */
  query: string;
}

export interface WorkerReply {
  id: number;
  status: number;
  /** The answer's JSON text; empty when it comes packed. */
  body: string;
  /** A 2xx answer packed column-wise (columnar.ts), with its JSON text's length estimated. */
  packed?: Packed;
  bytes?: number;
  error?: string;
}

/** What doctor and the answers' provenance say about the dump. */
export interface DumpInfo {
  path: string;
  release: string | null;
  release_date: string | null;
  size_bytes: number;
  /** The sidecar file of lookup keys and names, or null (lookups then scan the dump where it has no index). */
  sidecar: string | null;
  /**
   * The similarity/substructure index (present, stale or missing: structures/format.ts). The dump's worker
   * leaves it null; the main thread looks it up (ChemblService.dumpInfo, doctor), and every search looks
   * again, since `chematic-mcp chembl index` may build it while the server runs.
   */
  structure_index: StructureIndexStatus | null;
}

export type WorkerMessage =
  | { kind: "ready"; info: DumpInfo }
  | { kind: "fatal"; reason: string; message: string }
  /** The first open builds the lookup sidecar: one message per step. */
  | { kind: "progress"; message: string }
  | ({ kind: "answer" } & WorkerReply);
