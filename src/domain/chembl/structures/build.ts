/**
 * Builds a dump's structure index (format.ts) for `chematic-mcp chembl index`: the molregnos of
 * compound_structures are split into ranges, and worker threads (build-worker.ts, one a core, each with
 * its own read-only handle on the dump and its own RDKit) compute the fingerprints and pickles of each
 * range. Their answers are appended, as they come, to temporary section files beside the index; the
 * records are then sorted by (ECFP4 popcount, molregno) and the index is written to a temporary name and
 * renamed into place, so a reader never sees half a file. The dump is only read.
 *
 * The coordinator keeps per record only what the sort needs (about 26 bytes: molregno, popcount,
 * max_phase, two offsets); fingerprints and pickles stay on disk. Peak disk use is about twice the index.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fdatasyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { Worker } from "node:worker_threads";
import {
  ECFP_PARAMS,
  FP_BYTES,
  HEADER_BYTES,
  PATTERN_PARAMS,
  SECTIONS,
  STRUCTURE_INDEX_FORMAT,
  dumpStamp,
  encodeHeader,
  rdkitPackageVersion,
  type IndexHeader,
  type SectionName,
} from "./format.js";
import { locateStructureIndex, structureIndexCandidates } from "./place.js";
import type { BuildWorkerMessage, BuildWorkerSetup, ChunkDone, ChunkTask } from "./build-worker.js";

const WORKER_URL = new URL("./build-worker.js", import.meta.url);
/** compound_structures rows per task: about a second of work, so progress moves and the load evens out. */
const CHUNK_ROWS = 1_000;
/** Skipped structures named in the header and the command's output (the rest are counted). */
const SKIPPED_EXAMPLES = 20;

export class StructureIndexError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = "StructureIndexError";
  }
}

export interface BuildOptions {
  dump: string;
  /** The dump's release (its version table), part of the stamp. */
  release: string | null;
  /** The cache directory: the second place tried when the dump's folder is not writable. */
  cacheDir: string;
  /** The SQLite driver's module name (better-sqlite3). */
  driver?: string;
  /** Worker threads (default: one a core). */
  workers?: number;
  chunkRows?: number;
  /** Structures done of all (compound_structures rows), after each range. */
  onProgress?: (done: number, total: number) => void;
  /** Steps (sorting, writing). */
  onStep?: (message: string) => void;
  signal?: AbortSignal;
}

export interface BuildResult {
  path: string;
  /** An index already there was fresh: nothing was built. */
  reused: boolean;
  count: number;
  skipped: number;
  skipped_examples: Array<{ chembl_id: string; reason: string }>;
  size_bytes: number;
  seconds: number;
}

interface SqlHandle {
  prepare(sql: string): { iterate(...a: unknown[]): Iterable<Record<string, unknown>>; get(...a: unknown[]): unknown };
  close(): void;
}
type Driver = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => SqlHandle;

/** The molregno ranges of compound_structures (read from its primary key's index) and the row count. */
function planRanges(driver: string, dump: string, chunkRows: number): { ranges: Array<[number, number]>; rows: number } {
  const Db = createRequire(import.meta.url)(driver) as Driver;
  const db = new Db(dump, { readonly: true, fileMustExist: true });
  try {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = 'compound_structures'").get();
    if (!has)
      throw new StructureIndexError(
        `${dump} has no compound_structures table`,
        "Point CHEMBL_SQLITE at a full ChEMBL dump: the structures are in compound_structures.",
      );
    const ranges: Array<[number, number]> = [];
    let rows = 0;
    let lo = 0;
    let last = 0;
    for (const r of db.prepare("SELECT molregno FROM compound_structures ORDER BY molregno").iterate()) {
      const m = Number(r.molregno);
      if (rows % chunkRows === 0) lo = m;
      rows++;
      last = m;
      if (rows % chunkRows === 0) ranges.push([lo, m]);
    }
    if (rows % chunkRows !== 0) ranges.push([lo, last]);
    return { ranges, rows };
  } finally {
    db.close();
  }
}

/** Growable typed arrays of the per-record facts the sort and the offsets need. */
class Column<T extends Uint32Array | Uint16Array | Float64Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(values: ArrayLike<number>): void {
    if (this.length + values.length > this.data.length) {
      const next = this.make(Math.max(this.data.length * 2, this.length + values.length));
      next.set(this.data.subarray(0, this.length));
      this.data = next;
    }
    this.data.set(values, this.length);
    this.length += values.length;
  }
  get(i: number): number {
    return this.data[i]!;
  }
}

/** Sequential writes through a 1 MiB buffer. */
class Writer {
  private readonly buf = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  constructor(
    private readonly fd: number,
    public position: number,
  ) {}
  write(bytes: Uint8Array): void {
    if (bytes.length > this.buf.length - this.used) this.flush();
    if (bytes.length > this.buf.length) {
      writeSync(this.fd, bytes, 0, bytes.length, this.position);
      this.position += bytes.length;
      return;
    }
    this.buf.set(bytes, this.used);
    this.used += bytes.length;
  }
  flush(): void {
    if (this.used === 0) return;
    writeSync(this.fd, this.buf, 0, this.used, this.position);
    this.position += this.used;
    this.used = 0;
  }
  /** Zero bytes up to the next multiple of 8 of the file position. */
  align(): void {
    const pos = this.position + this.used;
    const pad = (8 - (pos % 8)) % 8;
    if (pad > 0) this.write(new Uint8Array(pad));
  }
  get offset(): number {
    return this.position + this.used;
  }
}

/** The temporary section files of one build, appended to as ranges come back. */
interface Spool {
  paths: string[];
  ecfp: number;
  pattern: number;
  ids: number;
  mols: number;
  idBytes: number;
  molBytes: number;
}

function openSpool(final: string): Spool {
  const base = `${final}.tmp-${process.pid}`;
  const paths = ["ecfp", "pattern", "ids", "mols"].map((s) => `${base}.${s}`);
  const fds = paths.map((p) => openSync(p, "w+"));
  return { paths, ecfp: fds[0]!, pattern: fds[1]!, ids: fds[2]!, mols: fds[3]!, idBytes: 0, molBytes: 0 };
}

function closeSpool(spool: Spool): void {
  for (const fd of [spool.ecfp, spool.pattern, spool.ids, spool.mols]) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
  for (const p of spool.paths) rmSync(p, { force: true });
}

/** The first of the candidate places where the spool files can be created (the dump's folder, then the cache). */
function placeIndex(candidates: string[]): { final: string; spool: Spool } {
  const failures: string[] = [];
  for (const final of candidates) {
    try {
      mkdirSync(dirname(final), { recursive: true });
      return { final, spool: openSpool(final) };
    } catch (e) {
      failures.push(`${dirname(final)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  throw new StructureIndexError(
    `no writable place for the structure index (${failures.join("; ")})`,
    "Make the dump's folder or the cache directory (XDG_CACHE_HOME) writable.",
  );
}

/** Computes every range's fingerprints on worker threads, appending them to the spool; resolves with the per-record facts. */
function computeRanges(
  options: BuildOptions,
  ranges: Array<[number, number]>,
  totalRows: number,
  spool: Spool,
): Promise<{
  molregno: Column<Uint32Array>;
  popcount: Column<Uint16Array>;
  maxPhase: Column<Float64Array>;
  idOffsets: Column<Float64Array>;
  molOffsets: Column<Float64Array>;
  skipped: number;
  examples: BuildResult["skipped_examples"];
}> {
  const molregno = new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
  const popcount = new Column(new Uint16Array(1024), (n) => new Uint16Array(n));
  const maxPhase = new Column(new Float64Array(1024), (n) => new Float64Array(n));
  const idOffsets = new Column(new Float64Array(1024), (n) => new Float64Array(n));
  const molOffsets = new Column(new Float64Array(1024), (n) => new Float64Array(n));
  idOffsets.push([0]);
  molOffsets.push([0]);
  let skipped = 0;
  const examples: BuildResult["skipped_examples"] = [];
  let doneRows = 0;
  const tasks: ChunkTask[] = ranges.map(([lo, hi], id) => ({ kind: "chunk", id, lo, hi }));
  let nextId = tasks.length;
  const want = Math.max(1, Math.min(options.workers ?? availableParallelism(), tasks.length));
  const setup: BuildWorkerSetup = { dump: options.dump, driver: options.driver ?? "better-sqlite3" };
  const workers = new Set<Worker>();
  let inFlight = 0;

  const append = (d: ChunkDone) => {
    const n = d.molregno.length;
    writeSync(spool.ecfp, d.ecfp, 0, d.ecfp.length, null);
    writeSync(spool.pattern, d.pattern, 0, d.pattern.length, null);
    writeSync(spool.mols, d.molBytes, 0, d.molBytes.length, null);
    const ids = Buffer.from(d.chemblIds.join(""), "latin1");
    writeSync(spool.ids, ids, 0, ids.length, null);
    molregno.push(d.molregno);
    popcount.push(d.popcount);
    maxPhase.push(d.maxPhase);
    const idEnds = new Float64Array(n);
    let at = spool.idBytes;
    for (let i = 0; i < n; i++) idEnds[i] = at += d.chemblIds[i]!.length;
    spool.idBytes = at;
    idOffsets.push(idEnds);
    const molEnds = new Float64Array(n);
    for (let i = 0; i < n; i++) molEnds[i] = spool.molBytes + d.molOffsets[i + 1]!;
    spool.molBytes += d.molBytes.length;
    molOffsets.push(molEnds);
    skipped += d.skipped.length;
    for (const s of d.skipped) if (examples.length < SKIPPED_EXAMPLES) examples.push(s);
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener("abort", onAbort);
      for (const w of workers) void w.terminate();
      workers.clear();
      if (error) reject(error);
      else resolve({ molregno, popcount, maxPhase, idOffsets, molOffsets, skipped, examples });
    };
    const onAbort = () => finish(new StructureIndexError("the build was interrupted", "Run chematic-mcp chembl index again: it starts over."));
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const feed = (w: Worker) => {
      const task = tasks.shift();
      if (!task) {
        if (inFlight === 0) finish();
        return;
      }
      inFlight++;
      w.postMessage(task);
    };
    const spawn = () => {
      const w = new Worker(WORKER_URL, { workerData: setup, stdout: true });
      w.stdout.pipe(process.stderr, { end: false });
      workers.add(w);
      let current: ChunkTask | undefined;
      const send = () => {
        current = tasks[0];
        feed(w);
      };
      w.on("message", (m: BuildWorkerMessage) => {
        if (settled) return;
        if (m.kind === "ready") return send();
        if (m.kind === "fatal")
          return finish(
            new StructureIndexError(`a build thread failed: ${m.message}`, "Check that the dump is a readable ChEMBL SQLite file (chematic-mcp doctor)."),
          );
        inFlight--;
        try {
          append(m);
        } catch (e) {
          return finish(new StructureIndexError(`writing the index failed: ${(e as Error).message}`, "Check the free disk space where the index is written."));
        }
        doneRows += m.rows;
        options.onProgress?.(Math.min(doneRows, totalRows), totalRows);
        if (m.broken) {
          // The engine broke on one structure (skipped): the rest of the range goes to a new thread.
          const rest =
            current && m.broken.molregno < current.hi ? { kind: "chunk" as const, id: nextId++, lo: m.broken.molregno + 1, hi: current.hi } : undefined;
          if (rest) tasks.unshift(rest);
          workers.delete(w);
          void w.terminate();
          spawn();
          return;
        }
        send();
      });
      w.on("error", (e) =>
        finish(new StructureIndexError(`a build thread failed: ${e.message}`, "Run the command again; if it fails the same way, report it.")),
      );
    };
    for (let i = 0; i < want; i++) spawn();
  });
}

/** Builds the index (or finds a fresh one); throws StructureIndexError with what to do. */
export async function buildStructureIndex(options: BuildOptions): Promise<BuildResult> {
  const started = Date.now();
  const present = locateStructureIndex(options.dump, options.release, options.cacheDir);
  if (present.state === "present" && present.header) {
    return {
      path: present.path!,
      reused: true,
      count: present.header.count,
      skipped: present.header.skipped,
      skipped_examples: present.header.skipped_examples,
      size_bytes: present.size_bytes ?? 0,
      seconds: 0,
    };
  }
  const driver = options.driver ?? "better-sqlite3";
  const stamp = dumpStamp(options.dump, options.release);
  const { ranges, rows } = planRanges(driver, options.dump, options.chunkRows ?? CHUNK_ROWS);
  const { final, spool } = placeIndex(structureIndexCandidates(options.dump, options.cacheDir));
  const temp = `${final}.tmp-${process.pid}`;
  try {
    options.onProgress?.(0, rows);
    const facts = ranges.length > 0 ? await computeRanges(options, ranges, rows, spool) : await emptyFacts();
    options.onStep?.(`sorting ${facts.molregno.length.toLocaleString("en-US")} structures by ECFP4 popcount and writing ${final}`);
    const header = writeIndex(temp, spool, facts, stamp);
    renameSync(temp, final);
    return {
      path: final,
      reused: false,
      count: header.count,
      skipped: header.skipped,
      skipped_examples: header.skipped_examples,
      size_bytes: statSync(final).size,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    closeSpool(spool);
    rmSync(temp, { force: true });
  }
}

function emptyFacts(): ReturnType<typeof computeRanges> {
  const col64 = () => new Column(new Float64Array(1), (n) => new Float64Array(n));
  const idOffsets = col64();
  idOffsets.push([0]);
  const molOffsets = col64();
  molOffsets.push([0]);
  return Promise.resolve({
    molregno: new Column(new Uint32Array(1), (n) => new Uint32Array(n)),
    popcount: new Column(new Uint16Array(1), (n) => new Uint16Array(n)),
    maxPhase: col64(),
    idOffsets,
    molOffsets,
    skipped: 0,
    examples: [],
  });
}

/** Sorts the spooled records by (popcount, molregno) and writes the index file `path` (header last). */
function writeIndex(path: string, spool: Spool, facts: Awaited<ReturnType<typeof computeRanges>>, stamp: IndexHeader["stamp"]): IndexHeader {
  const n = facts.molregno.length;
  const nBits = ECFP_PARAMS.nBits;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const pc = facts.popcount.data;
  const mr = facts.molregno.data;
  order.sort((a, b) => pc[a]! - pc[b]! || mr[a]! - mr[b]!);

  const fd = openSync(path, "w");
  try {
    const out = new Writer(fd, HEADER_BYTES);
    const sections = {} as IndexHeader["sections"];
    const section = (name: SectionName, body: () => void) => {
      out.align();
      const offset = out.offset;
      body();
      sections[name] = { offset, length: out.offset - offset };
    };
    const u32 = new Uint32Array(1);
    const f64 = new Float64Array(1);
    const u32b = new Uint8Array(u32.buffer);
    const f64b = new Uint8Array(f64.buffer);
    section("molregno", () => {
      for (let i = 0; i < n; i++) {
        u32[0] = mr[order[i]!]!;
        out.write(u32b);
      }
    });
    section("max_phase", () => {
      for (let i = 0; i < n; i++) {
        f64[0] = facts.maxPhase.get(order[i]!);
        out.write(f64b);
      }
    });
    section("popcount_start", () => {
      const start = new Uint32Array(nBits + 2);
      for (let i = 0; i < n; i++) start[pc[i]! + 1]!++;
      for (let p = 1; p < start.length; p++) start[p]! += start[p - 1]!;
      out.write(new Uint8Array(start.buffer));
    });
    const variable = (offsets: Column<Float64Array>, fdIn: number, offsetsName: SectionName, bytesName: SectionName, asFloat: boolean) => {
      section(offsetsName, () => {
        let at = 0;
        const put = (v: number) => {
          if (asFloat) {
            f64[0] = v;
            out.write(f64b);
          } else {
            u32[0] = v;
            out.write(u32b);
          }
        };
        put(0);
        for (let i = 0; i < n; i++) {
          const src = order[i]!;
          at += offsets.get(src + 1) - offsets.get(src);
          put(at);
        }
      });
      section(bytesName, () => {
        let buf = Buffer.allocUnsafe(4096);
        for (let i = 0; i < n; i++) {
          const src = order[i]!;
          const from = offsets.get(src);
          const length = offsets.get(src + 1) - from;
          if (length > buf.length) buf = Buffer.allocUnsafe(length);
          readSync(fdIn, buf, 0, length, from);
          out.write(buf.subarray(0, length));
        }
      });
    };
    variable(facts.idOffsets, spool.ids, "chembl_id_offsets", "chembl_id_bytes", false);
    const fixed = (name: SectionName, fdIn: number) =>
      section(name, () => {
        const buf = Buffer.allocUnsafe(FP_BYTES);
        for (let i = 0; i < n; i++) {
          readSync(fdIn, buf, 0, FP_BYTES, order[i]! * FP_BYTES);
          out.write(buf);
        }
      });
    fixed("ecfp", spool.ecfp);
    fixed("pattern", spool.pattern);
    variable(facts.molOffsets, spool.mols, "mol_offsets", "mol_bytes", true);
    out.flush();
    for (const name of SECTIONS) if (!sections[name]) throw new Error(`section ${name} not written`);
    const header: IndexHeader = {
      format: STRUCTURE_INDEX_FORMAT,
      stamp,
      rdkit: rdkitPackageVersion(),
      fingerprints: { ecfp: ECFP_PARAMS, pattern: PATTERN_PARAMS },
      count: n,
      skipped: facts.skipped,
      skipped_examples: facts.examples,
      built_at: new Date().toISOString(),
      build_id: randomBytes(8).toString("hex"),
      order: "ECFP4 popcount ascending, then molregno",
      sections,
    };
    writeSync(fd, encodeHeader(header), 0, HEADER_BYTES, 0);
    fdatasyncSync(fd);
    return header;
  } finally {
    closeSync(fd);
  }
}
