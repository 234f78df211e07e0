/**
 * The structure index of a ChEMBL SQLite dump: one file beside the dump (or in the cache directory, like
 * the lookup sidecar), built by `chematic-mcp chembl index` (build.ts), read by byte range by the offline
 * similarity and substructure searches (scan.ts), never written into the dump.
 *
 * Layout (little-endian):
 *   bytes 0..23     MAGIC
 *   bytes 24..27    length of the JSON header that follows (IndexHeader: stamp, parameters, section table)
 *   HEADER_BYTES..  the sections, each 8-byte aligned, every per-record section in ONE record order:
 *                   ascending ECFP4 popcount, then molregno
 *     molregno           u32 x N
 *     max_phase          f64 x N (NaN: null), so max_phase_min filters without the dump
 *     popcount_start     u32 x (nBits + 2): records with popcount p are [start[p], start[p + 1])
 *     chembl_id_offsets  u32 x (N + 1), into chembl_id_bytes (ASCII)
 *     chembl_id_bytes
 *     ecfp               256 bytes x N: RDKit Morgan bit vector, radius 2, 2048 bits (the ecfp4/tanimoto tools')
 *     pattern            256 bytes x N: RDKit pattern fingerprint, 2048 bits (the substructure screen)
 *     mol_offsets        f64 x (N + 1), into mol_bytes
 *     mol_bytes          RDKit binary molecules (pickles): a candidate is matched from its pickle, about 4x
 *                        faster than from SMILES (measured: 59 against 277 us a molecule)
 *
 * Why one order by popcount: a similarity scan at threshold t reads only the records whose popcount lies in
 * [ceil(t |q|), floor(|q| / t)] (Swamidass & Baldi, J. Chem. Inf. Model. 2007, 47, 302-317), one contiguous
 * byte range; and the substructure search walks the same order (fewest ECFP4 bits first: roughly the
 * smallest, least decorated molecules first), so its first 30,000 hits are a prefix of it.
 *
 * The header's stamp ties the file to the dump (size, mtime, release), the RDKit build that computed the
 * fingerprints and their parameters; a file whose stamp differs is stale and never used.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DEFAULT_MORGAN_OPTIONS } from "../../chem/morgan.js";

export const STRUCTURE_INDEX_FORMAT = 1;
const MAGIC = "CHEMATIC_STRUCTURE_INDEX";
export const HEADER_BYTES = 8192;
/** Bytes of one fingerprint (2048 bits). */
export const FP_BYTES = 256;
export const FP_WORDS = FP_BYTES / 4;

/** ECFP4 exactly as the ecfp4 and tanimoto tools compute it (morgan.ts, DEFAULT_MORGAN_OPTIONS). */
export const ECFP_PARAMS = { ...DEFAULT_MORGAN_OPTIONS };
/** MinimalLib's get_pattern_fp_as_uint8array details: RDKit's PatternFingerprintMol defaults, said explicitly. */
export const PATTERN_PARAMS = { nBits: 2048, tautomericFingerprint: false };

export const SECTIONS = [
  "molregno",
  "max_phase",
  "popcount_start",
  "chembl_id_offsets",
  "chembl_id_bytes",
  "ecfp",
  "pattern",
  "mol_offsets",
  "mol_bytes",
] as const;
export type SectionName = (typeof SECTIONS)[number];

/** What ties an index to its dump: the same facts the lookup sidecar is stamped with. */
export interface DumpStamp {
  dump_size: number;
  dump_mtime_ms: number;
  release: string | null;
}

export interface IndexHeader {
  format: number;
  stamp: DumpStamp;
  /** The @rdkit/rdkit package version that computed the fingerprints and pickles. */
  rdkit: string;
  fingerprints: { ecfp: typeof ECFP_PARAMS; pattern: typeof PATTERN_PARAMS };
  /** Structures indexed. */
  count: number;
  /** compound_structures rows left out: no SMILES, or one RDKit cannot parse (counted, with a few examples). */
  skipped: number;
  skipped_examples: Array<{ chembl_id: string; reason: string }>;
  built_at: string;
  /** Changes with every build: a scan checks it, so a plan made on one build never reads another. */
  build_id: string;
  order: string;
  sections: Record<SectionName, { offset: number; length: number }>;
}

let rdkitVersion: string | undefined;

/** The @rdkit/rdkit package version, read from its package.json without loading the WebAssembly module. */
export function rdkitPackageVersion(): string {
  if (rdkitVersion === undefined) {
    const main = createRequire(import.meta.url).resolve("@rdkit/rdkit");
    const pkg = JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")) as { version?: string };
    rdkitVersion = pkg.version ?? "unknown";
  }
  return rdkitVersion;
}

/** The stamp of the dump as it is now. */
export function dumpStamp(dump: string, release: string | null): DumpStamp {
  const st = statSync(dump);
  return { dump_size: st.size, dump_mtime_ms: Math.round(st.mtimeMs), release };
}

/** Reads and checks the header of an index file; throws an Error saying what is wrong with the file. */
export function readHeader(path: string): IndexHeader {
  const fd = openSync(path, "r");
  try {
    return readHeaderFd(fd);
  } finally {
    closeSync(fd);
  }
}

export function readHeaderFd(fd: number): IndexHeader {
  const head = Buffer.alloc(HEADER_BYTES);
  const n = readSync(fd, head, 0, HEADER_BYTES, 0);
  if (n < MAGIC.length + 4 || head.toString("latin1", 0, MAGIC.length) !== MAGIC) throw new Error("not a chematic structure index");
  const length = head.readUInt32LE(MAGIC.length);
  if (length <= 0 || MAGIC.length + 4 + length > n) throw new Error("truncated header");
  return JSON.parse(head.toString("utf8", MAGIC.length + 4, MAGIC.length + 4 + length)) as IndexHeader;
}

/** The header as bytes (HEADER_BYTES long). */
export function encodeHeader(header: IndexHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  if (MAGIC.length + 4 + json.length > HEADER_BYTES) throw new Error("structure index header too large");
  const out = Buffer.alloc(HEADER_BYTES);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, MAGIC.length);
  json.copy(out, MAGIC.length + 4);
  return out;
}

/** Why a header does not fit the dump and this build of the server, or null when it does. */
export function staleReason(header: IndexHeader, stamp: DumpStamp): string | null {
  if (header.format !== STRUCTURE_INDEX_FORMAT) return `built in format ${header.format}; this version reads format ${STRUCTURE_INDEX_FORMAT}`;
  if (header.stamp.dump_size !== stamp.dump_size || header.stamp.dump_mtime_ms !== stamp.dump_mtime_ms)
    return "the dump file changed since the index was built (size or modification time)";
  if (header.stamp.release !== stamp.release) return `built for release ${header.stamp.release ?? "(none)"}, the dump is ${stamp.release ?? "(none)"}`;
  if (header.rdkit !== rdkitPackageVersion()) return `built with RDKit ${header.rdkit}; this server runs RDKit ${rdkitPackageVersion()}`;
  if (JSON.stringify(header.fingerprints) !== JSON.stringify({ ecfp: ECFP_PARAMS, pattern: PATTERN_PARAMS })) return "built with other fingerprint parameters";
  return null;
}

/** What doctor and the searches know about a dump's structure index. */
export interface StructureIndexStatus {
  state: "present" | "stale" | "missing";
  /** The file (present or stale), or null. */
  path: string | null;
  size_bytes?: number;
  count?: number;
  skipped?: number;
  built_at?: string;
  /** Why a stale index cannot be used. */
  reason?: string;
  /** A present index's header (for the scans). */
  header?: IndexHeader;
}
