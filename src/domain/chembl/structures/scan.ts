/**
 * One shard of an offline structure search, run in a chemistry worker (the worker-only tool
 * chembl_structure_scan): a range of the index's records (format.ts), read by byte range from the file,
 * so no thread holds the whole index.
 *
 *  - the query: its ECFP4 bit vector and pattern fingerprint, computed once per search (queryPrints);
 *  - similarity: Tanimoto of ECFP4 over a range of the popcount window, hits at or above the threshold
 *    (percent, compared exactly: 100 * common >= threshold * union);
 *  - substructure: the pattern screen (every query bit set in the molecule) and then RDKit's substructure
 *    match of the query molecule on each candidate's pickle, up to `cap` hits.
 * A shard stops at its deadline and says how far it got (scanned_to), so a search can answer in budget.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { fingerprintWords, morganBitVector, popcount } from "../../chem/morgan.js";
import { parseSmiles, type RDKit, type RDKitMol } from "../../chem/rdkit.js";
import { ToolError } from "../../errors.js";
import { ECFP_PARAMS, FP_BYTES, FP_WORDS, PATTERN_PARAMS, readHeaderFd, type IndexHeader, type SectionName } from "./format.js";

export interface QueryPrints {
  /** ECFP4 as 64 32-bit words. */
  ecfp: number[];
  popcount: number;
  /** The pattern fingerprint as 64 32-bit words. */
  pattern: number[];
  /** With an index and a threshold: the records [from, to) whose popcount a hit can have. */
  window?: [number, number];
}

/** The first step of a search: the query's fingerprints, and for a similarity search the index's popcount window. */
export interface QueryItem {
  kind: "query";
  smiles: string;
  index?: string;
  build_id?: string;
  /** Percent: with `index`, the answer carries the popcount window of this threshold. */
  threshold?: number;
}

interface ShardBase {
  /** The index file and the build the plan was made on. */
  index: string;
  build_id: string;
  /** Records [from, to) in the index's order. */
  from: number;
  to: number;
  /** Epoch ms: the shard stops starting records past it. */
  deadline: number;
}

export interface SimilarityShard extends ShardBase {
  kind: "similarity";
  query: number[];
  /** Percent, 40 to 100. */
  threshold: number;
}

export interface SubstructureShard extends ShardBase {
  kind: "substructure";
  smiles: string;
  pattern: number[];
  /** Stop after this many hits. */
  cap: number;
}

export interface ShardHits {
  /** Record positions of the hits, ascending. */
  rec: number[];
  molregno: number[];
  /** max_phase of each hit (null when the dump has none). */
  max_phase: Array<number | null>;
  /** Similarity: Tanimoto of each hit (0 to 1). */
  sim?: number[];
  /** ChEMBL ID of each hit. */
  chembl_id: string[];
  /** Records looked at: [from, scanned_to). */
  scanned_to: number;
  /** The whole range was scanned (not stopped by the cap or the deadline). */
  complete: boolean;
  /** Substructure: candidates the screen passed, and how many were matched with RDKit. */
  candidates?: number;
  matched?: number;
}

/** Fingerprints of the query, exactly as the index's were computed (build-worker.ts). */
export function queryPrints(rdkit: RDKit, smiles: string): QueryPrints {
  const mol = parseSmiles(rdkit, smiles, { argName: "smiles" });
  try {
    const ecfp = fingerprintWords(morganBitVector(mol, ECFP_PARAMS));
    const pattern = fingerprintWords((mol.get_pattern_fp_as_uint8array(JSON.stringify(PATTERN_PARAMS)) as Uint8Array).slice());
    return { ecfp: Array.from(ecfp), popcount: popcount(ecfp), pattern: Array.from(pattern) };
  } finally {
    mol.delete();
  }
}

/**
 * The query step: its fingerprints and, for a similarity search, the records worth reading. Tanimoto >= t
 * needs min(|q|, |m|) / max(|q|, |m|) >= t, so |m| in [ceil(t |q|), floor(|q| / t)] (Swamidass & Baldi
 * 2007): records [start[lo], start[hi + 1]) of the popcount table.
 */
export function queryStep(rdkit: RDKit, item: QueryItem): QueryPrints {
  const prints = queryPrints(rdkit, item.smiles);
  if (item.index === undefined || item.build_id === undefined || item.threshold === undefined) return prints;
  const reader = new IndexReader(item.index, item.build_id);
  try {
    const nBits = ECFP_PARAMS.nBits;
    const start = new Uint32Array(reader.read("popcount_start", 0, nBits + 2, 4).buffer);
    const lo = Math.ceil((item.threshold * prints.popcount) / 100);
    const hi = Math.min(nBits, Math.floor((100 * prints.popcount) / item.threshold));
    return { ...prints, window: [start[lo]!, start[hi + 1]!] };
  } finally {
    reader.close();
  }
}

/** Records read at once: 4096 x 256 bytes = 1 MiB of fingerprints. */
const BLOCK = 4096;
/** How often (in screened or matched records) the deadline is looked at. */
const CLOCK_EVERY = 64;

/** A read-only handle on one index file for the length of a shard. */
class IndexReader {
  readonly fd: number;
  readonly header: IndexHeader;

  constructor(
    private readonly path: string,
    buildId: string,
  ) {
    try {
      this.fd = openSync(path, "r");
    } catch (e) {
      throw indexGone(path, (e as Error).message);
    }
    try {
      this.header = readHeaderFd(this.fd);
    } catch (e) {
      closeSync(this.fd);
      throw indexGone(path, (e as Error).message);
    }
    if (this.header.build_id !== buildId) {
      closeSync(this.fd);
      throw indexGone(path, "it was rebuilt while the search ran");
    }
  }

  /** `count` items of `size` bytes of a section from item `first`, into a fresh buffer (offset 0). */
  read(section: SectionName, first: number, count: number, size: number): Uint8Array {
    const bytes = new Uint8Array(count * size);
    const at = this.header.sections[section].offset + first * size;
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(this.fd, bytes, done, bytes.length - done, at + done);
      if (n <= 0) throw indexGone(this.path, `section ${section} is truncated`);
      done += n;
    }
    return bytes;
  }

  readAt(section: SectionName, offset: number, length: number): Uint8Array {
    const bytes = new Uint8Array(length);
    const n = readSync(this.fd, bytes, 0, length, this.header.sections[section].offset + offset);
    if (n !== length) throw indexGone(this.path, `section ${section} is truncated`);
    return bytes;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function indexGone(path: string, why: string): ToolError {
  return new ToolError(
    "UPSTREAM_UNAVAILABLE",
    `The structure index could not be read: ${why}`,
    { source: "sqlite", reason: "structure_index_changed", path },
    "Retry the search; if the index was being rebuilt, wait for chematic-mcp chembl index to finish.",
  );
}

/** molregno, max_phase and ChEMBL ID of the hits (each section read once, over the hits' range). */
function hitFacts(reader: IndexReader, rec: number[]): { molregno: number[]; max_phase: Array<number | null>; chembl_id: string[] } {
  if (rec.length === 0) return { molregno: [], max_phase: [], chembl_id: [] };
  const lo = rec[0]!;
  const hi = rec[rec.length - 1]! + 1;
  const m = new Uint32Array(reader.read("molregno", lo, hi - lo, 4).buffer);
  const p = new Float64Array(reader.read("max_phase", lo, hi - lo, 8).buffer);
  const off = new Uint32Array(reader.read("chembl_id_offsets", lo, hi - lo + 1, 4).buffer);
  const bytes = reader.readAt("chembl_id_bytes", off[0]!, off[hi - lo]! - off[0]!);
  const ids = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return {
    molregno: rec.map((r) => m[r - lo]!),
    max_phase: rec.map((r) => (Number.isNaN(p[r - lo]!) ? null : p[r - lo]!)),
    chembl_id: rec.map((r) => ids.toString("latin1", off[r - lo]! - off[0]!, off[r - lo + 1]! - off[0]!)),
  };
}

function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

export function scanSimilarity(shard: SimilarityShard): ShardHits {
  const reader = new IndexReader(shard.index, shard.build_id);
  try {
    const q = Uint32Array.from(shard.query);
    // Only the query's set words can hold common bits; a record's own bit count is its popcount bucket's.
    const qIdx: number[] = [];
    let qCount = 0;
    for (let w = 0; w < FP_WORDS; w++) {
      if (q[w] === 0) continue;
      qIdx.push(w);
      qCount += popcount32(q[w]!);
    }
    const start = new Uint32Array(reader.read("popcount_start", 0, ECFP_PARAMS.nBits + 2, 4).buffer);
    let bucket = 0;
    while (bucket + 1 < start.length && start[bucket + 1]! <= shard.from) bucket++;
    const t = shard.threshold;
    const rec: number[] = [];
    const sim: number[] = [];
    let at = shard.from;
    while (at < shard.to) {
      if (Date.now() >= shard.deadline) break;
      const count = Math.min(BLOCK, shard.to - at);
      const words = new Uint32Array(reader.read("ecfp", at, count, FP_BYTES).buffer);
      for (let i = 0; i < count; i++) {
        const r = at + i;
        while (start[bucket + 1]! <= r) bucket++;
        const base = i * FP_WORDS;
        let common = 0;
        for (const w of qIdx) {
          const m = words[base + w]!;
          if (m !== 0) common += popcount32(m & q[w]!);
        }
        const union = qCount + bucket - common;
        // Both empty: 1, as RDKit's TanimotoSimilarity (and the tanimoto tool) say.
        if (union === 0 ? t <= 100 : 100 * common >= t * union) {
          rec.push(r);
          sim.push(union === 0 ? 1 : common / union);
        }
      }
      at += count;
    }
    return { rec, sim, ...hitFacts(reader, rec), scanned_to: at, complete: at >= shard.to };
  } finally {
    reader.close();
  }
}

export function scanSubstructure(rdkit: RDKit, shard: SubstructureShard): ShardHits {
  const reader = new IndexReader(shard.index, shard.build_id);
  let query: RDKitMol | undefined;
  try {
    query = parseSmiles(rdkit, shard.smiles, { argName: "smiles" });
    const q = Uint32Array.from(shard.pattern);
    // The query's set words only: a molecule fails the screen at the first of them it lacks.
    const qWords: number[] = [];
    for (let w = 0; w < FP_WORDS; w++) if (q[w] !== 0) qWords.push(w);
    const rec: number[] = [];
    let candidates = 0;
    let matched = 0;
    let at = shard.from;
    let stopped = false;
    outer: while (at < shard.to) {
      const count = Math.min(BLOCK, shard.to - at);
      const words = new Uint32Array(reader.read("pattern", at, count, FP_BYTES).buffer);
      const passed: number[] = [];
      for (let i = 0; i < count; i++) {
        const base = i * FP_WORDS;
        let ok = true;
        for (const w of qWords) {
          // A query bit the molecule lacks (bitwise results are signed 32-bit: compare with zero).
          if ((q[w]! & ~words[base + w]!) !== 0) {
            ok = false;
            break;
          }
        }
        if (ok) passed.push(i);
      }
      candidates += passed.length;
      if (passed.length > 0) {
        // The pickles of this block's candidates: their offsets, then each one's bytes.
        const offsets = new Float64Array(reader.read("mol_offsets", at, count + 1, 8).buffer);
        for (let k = 0; k < passed.length; k++) {
          if (k % CLOCK_EVERY === 0 && Date.now() >= shard.deadline) {
            at += passed[k]!;
            stopped = true;
            break outer;
          }
          const i = passed[k]!;
          const start = offsets[i]!;
          const pickle = reader.readAt("mol_bytes", start, offsets[i + 1]! - start);
          const mol = rdkit.get_mol_from_uint8array(pickle);
          if (!mol) continue;
          try {
            matched++;
            if (mol.get_substruct_match(query) !== "{}") rec.push(at + i);
          } finally {
            mol.delete();
          }
          if (rec.length >= shard.cap) {
            at += i + 1;
            stopped = true;
            break outer;
          }
        }
      } else if (Date.now() >= shard.deadline) {
        at += count;
        stopped = true;
        break;
      }
      at += count;
    }
    const scannedTo = Math.min(at, shard.to);
    return { rec, ...hitFacts(reader, rec), scanned_to: scannedTo, complete: !stopped || scannedTo >= shard.to, candidates, matched };
  } finally {
    query?.delete();
    reader.close();
  }
}
