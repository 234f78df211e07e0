/**
 * An offline similarity or substructure search over a dump's structure index, planned on the main thread
 * and scanned in the chemistry pool. The pool is reached through a StructureScanner the tool layer passes
 * in (ChemRunner.runList with the worker-only tool chembl_structure_scan): the domain does not know the
 * pool, and the ChEMBL service keeps the whole search (its filters, ceilings, paging and rows) in one place.
 *
 *  - similarity: the query's ECFP4 popcount |q| and the threshold t bound the records worth reading to the
 *    popcount window [ceil(t |q|), floor(|q| / t)] (Swamidass & Baldi 2007), one contiguous range of the
 *    index, split into shards over the workers; hits are ranked by Tanimoto, ties by molregno.
 *  - substructure: the index is walked in its order (ECFP4 popcount, then molregno) in waves of shards;
 *    each wave's shard size follows the hit rate seen so far, and the walk stops at ChEMBL's ceiling of
 *    30,000 hits, so a query matching everything ends after a few waves; hits stay in the index's order.
 * A complete ranking is kept in a small memo, so the next page of the same search does not scan again.
 * The scan never runs past the call's deadline: shards stop at it and say how far they got.
 */
import { ToolError, type DomainErrorPayload } from "../../errors.js";
import type { IndexHeader } from "./format.js";
import type { QueryItem, QueryPrints, ShardHits, SimilarityShard, SubstructureShard } from "./scan.js";

export type ScanItem = QueryItem | SimilarityShard | SubstructureShard;
export type ScanOutcome = { ok: true; value: unknown } | { ok: false; error: DomainErrorPayload };
/** Runs scan items over the chemistry pool (one outcome per item, in order) within `budgetMs`. */
export type StructureScanner = (items: ScanItem[], budgetMs: number) => Promise<ScanOutcome[]>;

/** A search's hits, best first (similarity) or in the index's order (substructure), before any filter. */
export interface RankedHits {
  rec: number[];
  chembl_id: string[];
  molregno: number[];
  max_phase: Array<number | null>;
  /** Similarity: Tanimoto, 0 to 1. */
  sim?: number[];
  /** Substructure: the walk stopped at the ceiling. */
  capped: boolean;
  /** Every record the search needed was scanned (false: the deadline stopped it; the hits are an exact prefix). */
  complete: boolean;
  /** Records scanned, of those the search needed. */
  scanned: number;
  needed: number;
}

export interface StructureSearchRequest {
  index: string;
  header: IndexHeader;
  type: "similarity" | "substructure";
  smiles: string;
  /** Similarity: percent, 40 to 100. */
  threshold?: number;
  /** Substructure: stop after this many hits. */
  ceiling: number;
  scan: StructureScanner;
  /** Epoch ms by which the scan must have ended. */
  deadline: number;
  signal?: AbortSignal;
  /** Records in each shard of the first substructure wave (default 2,048; a test makes it small to get many shards). */
  firstShard?: number;
}

/**
 * Shards per similarity search and the smallest one (records): enough to spread the window over a few
 * workers, few enough that the pool's round trips per shard stay a small part of a search.
 */
const SIMILARITY_SHARDS = 8;
const MIN_SHARD = 8_192;
/** Substructure waves: shards per wave, and shard sizes (records). */
const WAVE_SHARDS = 8;
const FIRST_SHARD = 2_048;
const MAX_SHARD = 65_536;
/** Time kept between the shards' deadline and the pool's own cut. */
const SHARD_MARGIN_MS = 150;

const MEMO_ENTRIES = 8;
/** A ranking with more hits than this is not kept (a page of it is re-scanned). */
const MEMO_MAX_HITS = 200_000;
const memo = new Map<string, RankedHits>();

function memoKey(r: StructureSearchRequest): string {
  return JSON.stringify([r.index, r.header.build_id, r.type, r.smiles, r.threshold ?? null, r.ceiling]);
}

function unwrap<T>(outcome: ScanOutcome | undefined): T | undefined {
  if (!outcome) return undefined;
  if (outcome.ok) return outcome.value as T;
  // An item the pool's budget left undone: the scan stopped there (the caller sees an incomplete search).
  if (outcome.error.code === "TIMEOUT") return undefined;
  throw ToolError.fromPayload(outcome.error);
}

function shardDeadline(deadline: number): number {
  return deadline - SHARD_MARGIN_MS;
}

function budgetOf(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function checkTime(r: StructureSearchRequest): void {
  if (r.signal?.aborted) throw r.signal.reason instanceof Error ? r.signal.reason : new Error("cancelled");
}

/** The query's fingerprints (and a similarity search's popcount window), from a worker: RDKit is not loaded on this thread. */
async function prints(r: StructureSearchRequest): Promise<QueryPrints> {
  const item: QueryItem = {
    kind: "query",
    smiles: r.smiles,
    ...(r.type === "similarity" ? { index: r.index, build_id: r.header.build_id, threshold: r.threshold ?? 70 } : {}),
  };
  const [outcome] = await r.scan([item], budgetOf(r.deadline));
  const q = unwrap<QueryPrints>(outcome);
  if (!q) throw scanTimeout(r, 0, 1);
  return q;
}

function scanTimeout(r: StructureSearchRequest, scanned: number, needed: number): ToolError {
  return new ToolError(
    "DEADLINE_EXCEEDED",
    `The offline ${r.type} search did not finish within this call's deadline (${scanned.toLocaleString("en-US")} of ${needed.toLocaleString("en-US")} structures scanned)`,
    { source: "sqlite", reason: "scan_deadline", scanned, needed },
    r.type === "similarity"
      ? "Raise similarity_threshold (fewer structures to compare), or retry: a second scan reads the index from the OS page cache."
      : "Use a larger, more specific substructure (fewer candidates pass the screen), or retry: a second scan reads the index from the OS page cache.",
  );
}

async function similarity(r: StructureSearchRequest): Promise<RankedHits> {
  const q = await prints(r);
  const t = r.threshold ?? 70;
  const [from, to] = q.window ?? [0, r.header.count];
  const needed = Math.max(0, to - from);
  const size = Math.max(MIN_SHARD, Math.ceil(needed / SIMILARITY_SHARDS));
  const shards: SimilarityShard[] = [];
  const deadline = shardDeadline(r.deadline);
  for (let a = from; a < to; a += size) {
    shards.push({
      kind: "similarity",
      index: r.index,
      build_id: r.header.build_id,
      from: a,
      to: Math.min(to, a + size),
      query: q.ecfp,
      threshold: t,
      deadline,
    });
  }
  checkTime(r);
  const outcomes = shards.length > 0 ? await r.scan(shards, budgetOf(r.deadline)) : [];
  const hits: Array<{ rec: number; chembl_id: string; molregno: number; max_phase: number | null; sim: number }> = [];
  let scanned = 0;
  let complete = true;
  shards.forEach((shard, i) => {
    const h = unwrap<ShardHits>(outcomes[i]);
    if (!h) {
      complete = false;
      return;
    }
    scanned += h.scanned_to - shard.from;
    if (!h.complete) complete = false;
    h.rec.forEach((rec, k) => hits.push({ rec, chembl_id: h.chembl_id[k]!, molregno: h.molregno[k]!, max_phase: h.max_phase[k]!, sim: h.sim![k]! }));
  });
  if (!complete) throw scanTimeout(r, scanned, needed);
  hits.sort((a, b) => b.sim - a.sim || a.molregno - b.molregno);
  return {
    rec: hits.map((h) => h.rec),
    chembl_id: hits.map((h) => h.chembl_id),
    molregno: hits.map((h) => h.molregno),
    max_phase: hits.map((h) => h.max_phase),
    sim: hits.map((h) => h.sim),
    capped: false,
    complete: true,
    scanned,
    needed,
  };
}

async function substructure(r: StructureSearchRequest): Promise<RankedHits> {
  const q = await prints(r);
  const total = r.header.count;
  const out: RankedHits = { rec: [], chembl_id: [], molregno: [], max_phase: [], capped: false, complete: true, scanned: 0, needed: total };
  let cursor = 0;
  let size = r.firstShard ?? FIRST_SHARD;
  const deadline = shardDeadline(r.deadline);
  while (cursor < total && out.rec.length < r.ceiling) {
    checkTime(r);
    if (Date.now() >= deadline) {
      out.complete = false;
      break;
    }
    const cap = r.ceiling - out.rec.length;
    const wave: SubstructureShard[] = [];
    for (let a = cursor, k = 0; a < total && k < WAVE_SHARDS; a += size, k++) {
      wave.push({
        kind: "substructure",
        index: r.index,
        build_id: r.header.build_id,
        from: a,
        to: Math.min(total, a + size),
        smiles: r.smiles,
        pattern: q.pattern,
        cap,
        deadline,
      });
    }
    const outcomes = await r.scan(wave, budgetOf(r.deadline));
    let waveHits = 0;
    let waveScanned = 0;
    let stopped = false;
    for (let i = 0; i < wave.length && !stopped; i++) {
      const shard = wave[i]!;
      const h = unwrap<ShardHits>(outcomes[i]);
      const reached = h ? h.scanned_to : shard.from;
      // Hits of this shard count only up to the ceiling; a shard that stopped early ends the walk here
      // (its cap was what the ceiling left, or the deadline came): the later shards' hits are not in order.
      if (h) {
        const room = r.ceiling - out.rec.length;
        const take = Math.min(room, h.rec.length);
        for (let k = 0; k < take; k++) {
          out.rec.push(h.rec[k]!);
          out.chembl_id.push(h.chembl_id[k]!);
          out.molregno.push(h.molregno[k]!);
          out.max_phase.push(h.max_phase[k]!);
        }
        waveHits += take;
      }
      waveScanned += reached - shard.from;
      cursor = reached;
      if (!h || !h.complete) stopped = true;
    }
    out.scanned += waveScanned;
    if (out.rec.length >= r.ceiling) {
      out.capped = true;
      break;
    }
    if (stopped && cursor < total) {
      out.complete = false;
      break;
    }
    // The next wave: bigger while hits are rare, sized to what the ceiling still needs when they are not.
    const rate = waveScanned > 0 ? waveHits / waveScanned : 0;
    const need = r.ceiling - out.rec.length;
    size = rate > 0 ? Math.min(MAX_SHARD, Math.max(size, Math.ceil((need / rate / WAVE_SHARDS) * 1.25))) : Math.min(MAX_SHARD, size * 4);
  }
  return out;
}

/** Runs one search (or answers it from the memo). */
export async function structureSearch(r: StructureSearchRequest): Promise<RankedHits> {
  const key = memoKey(r);
  const hit = memo.get(key);
  if (hit) {
    memo.delete(key);
    memo.set(key, hit);
    return hit;
  }
  const ranked = r.type === "similarity" ? await similarity(r) : await substructure(r);
  if (ranked.complete && ranked.rec.length <= MEMO_MAX_HITS) {
    memo.set(key, ranked);
    if (memo.size > MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  }
  return ranked;
}

/** Empties the memo (tests). */
export function clearStructureSearchMemo(): void {
  memo.clear();
}
