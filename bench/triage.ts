/**
 * Canvas triage at 100,000 rows against native RDKit (issue 31's acceptance), each step beside the same work done
 * by native RDKit in ONE long-lived /usr/bin/python3 (scripts/bench-triage.py; its interpreter start, imports and
 * FilterCatalog builds are not timed), step by step in the same run:
 *
 *   import     canvas_import of a 100,000-line .smi by `path` (one call with a progress token, as an agent
 *              imports a file that size), against parse + canonical SMILES of every line;
 *   annotate   canvas_annotate with mw, logp, tpsa, hbd, hba, rotatable_bonds, qed, pains, brenk and
 *              murcko_scaffold, called again while it answers complete: false (its 50 s budget), the calls' times
 *              summed as an agent waits for them, against the same ten values per molecule natively;
 *   cluster    cluster_molecules' canvas form on a 10,000-row table (its cap: every pair is compared), against
 *              Morgan r2 2048-bit fingerprints, the distance list and Butina.ClusterData on the same molecules.
 *              Native Butina on 100,000 would need a 5e9-entry distance list, so both sides are measured at the cap;
 *   standardise on import: see IMPORT_VARIANTS (and its TODO);
 *   export     canvas_export of the annotated table (every column) to CHEMATIC_EXPORT_DIR (a temporary directory,
 *              removed at the end), one call each with a progress token (its 300 s budget): as .sdf (every row's
 *              SMILES drawn as a molblock with 2D coordinates in the workers, every column a data item), as .parquet
 *              and as .csv. Native writes the same rows (our CSV export of the table, read into the python process
 *              untimed, so the same columns and values) with Chem.SDWriter (MolFromSmiles, SetProp per cell; SDWriter
 *              computes the 2D coordinates) and csv.writer; Parquet has no native writer here (no pandas or pyarrow
 *              in /usr/bin/python3), so ours is printed alone. File sizes of both sides are printed; then (untimed)
 *              native RDKit reads our SDF back: records, molblocks it cannot read, and every 100th record's title,
 *              data items and canonical SMILES against the row.
 *
 * BENCH_TRIAGE_STEPS picks steps (comma list of import, standardize, annotate, cluster, export; default all). The
 * import always runs (every other step reads its table); export without annotate first annotates two cheap columns
 * (mw, logp) untimed, so `BENCH_TRIAGE_STEPS=import,export` times the exports in a few minutes instead of the
 * annotate step's ten.
 *
 * Ours is the real server (build/src/cli.js) over stdio with a worker per core and an in-memory canvas; its time
 * is the round trip each call takes. Peak RSS of each step: VmHWM of the server process (main thread, workers,
 * DuckDB) and of the python process, each reset before the step through /proc/<pid>/clear_refs (Linux).
 *
 * The molecule set (scripts/bench-triage.py `library`): every molecule of RDKit's data files (NCI first_5K, the
 * PAINS test set wehi_mols, the FreeWilson and fraggle ChEMBL sets, four SDFs; 16,773 distinct), then rounds of
 * light variations of each (one H on a carbon replaced by C, F, Cl, O or N) until 100,000 distinct canonical
 * SMILES; cached in the temporary directory by the script's hash.
 *
 *   npm run build && node build/bench/triage.js     (BENCH_TRIAGE_N rows, default 100000; BENCH_TRIAGE_CLUSTER_N, 10000;
 *                                                     BENCH_TRIAGE_STEPS, all)
 *
 * `runTriageBench()` is exported for bench/bench.ts (section "triage").
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { canvasImportTool } from "../src/tools/canvas_import.js";
import { fixed, table } from "./lib/stats.js";
import { StdioClient, type RpcMessage } from "./lib/stdio-client.js";
import { MODERN_META } from "./lib/workload.js";

const PYTHON = "/usr/bin/python3";
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const NATIVE_SCRIPT = fileURLToPath(new URL("../../scripts/bench-triage.py", import.meta.url));
const ANNOTATE_COLUMNS = ["mw", "logp", "tpsa", "hbd", "hba", "rotatable_bonds", "qed", "pains", "brenk", "murcko_scaffold"];
/** Columns annotated (untimed) before the exports when the annotate step does not run. */
const EXPORT_CHEAP_COLUMNS = ["mw", "logp"];
/** Every how many records of our SDF native RDKit checks title, data items and canonical SMILES against the row. */
const CHECK_EVERY = 100;
const STEPS = ["import", "standardize", "annotate", "cluster", "export"] as const;
type Step = (typeof STEPS)[number];
const THRESHOLD = 0.4;
const GOAL = 1.5;

/**
 * The canvas_import variants timed on the whole set, each beside its native equivalent. A variant whose `needs`
 * arguments canvas_import's input schema lacks is skipped (and said so).
 */
interface ImportVariant {
  step: Step;
  label: string;
  table: string;
  args: Record<string, unknown>;
  native: Record<string, unknown>;
  needs?: string[];
}
const IMPORT_VARIANTS: ImportVariant[] = [
  { step: "import", label: "import (canvas_import path .smi)", table: "library", args: {}, native: { op: "import" } },
  // TODO(lead, after merging the standardize-on-import branch): canvas_import's `standardize: true, dedupe: true`.
  // This line already runs it once canvas_import's input schema has both arguments; check the label and the native
  // side (rdMolStandardize Cleanup, SaltRemover, LargestFragmentChooser, Uncharger, Cleanup; one row per parent)
  // against what the branch does. Until then the standardize tool's list form stands in (standInStandardize).
  {
    step: "standardize",
    label: "import + standardize + dedupe",
    table: "library_std",
    args: { standardize: true, dedupe: true },
    native: { op: "import_standardized", dedupe: true },
    needs: ["standardize", "dedupe"],
  },
];

interface NativeAnswer {
  ms?: number;
  peak_kib?: number;
  peak_reset?: boolean;
  error?: string;
  [k: string]: unknown;
}

export interface TriageStep {
  step: string;
  rows: number;
  oursMs: number;
  calls: number;
  nativeMs: number;
  oursPeakMiB: number;
  nativePeakMiB: number;
  note: string;
  /** An export step: the file sizes in bytes (native's absent where it has no writer for the format). */
  files?: { format: string; ours: number; native?: number };
  /** false: the ratio is printed but not held to the goal (native's side is not the same work). */
  goal?: boolean;
}

export interface TriageResult {
  markdown: string;
  steps: TriageStep[];
}

/** One long-lived native RDKit process answering scripts/bench-triage.py requests line by line. */
class Native {
  readonly child = spawn(PYTHON, [NATIVE_SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
  private readonly waiting: ((line: string) => void)[] = [];
  constructor() {
    createInterface({ input: this.child.stdout }).on("line", (line) => this.waiting.shift()?.(line));
  }
  async ask(request: Record<string, unknown>): Promise<NativeAnswer> {
    const answer = await new Promise<NativeAnswer>((resolve) => {
      this.waiting.push((line) => resolve(JSON.parse(line) as NativeAnswer));
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
    if (answer.error !== undefined) throw new Error(`native ${String(request.op)}: ${answer.error}`);
    return answer;
  }
  close(): void {
    this.child.stdin.end();
  }
}

/** Resets a process's peak RSS (VmHWM) to its current RSS; false where /proc does not allow it. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

function peakMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The molecule set as a .smi file, made once per script version and size (the script is deterministic). */
function library(n: number, log: (m: string) => void): { path: string; summary: string } {
  const hash = createHash("sha256").update(readFileSync(NATIVE_SCRIPT)).digest("hex").slice(0, 12);
  const path = join(tmpdir(), `chematic-bench-triage-${hash}-${n}.smi`);
  const meta = `${path}.json`;
  if (!existsSync(path) || !existsSync(meta)) {
    log(`making the ${n}-molecule set (once; about a minute)`);
    const made = spawnSync(PYTHON, [NATIVE_SCRIPT, "library", String(n), path], { encoding: "utf8", timeout: 30 * 60_000 });
    if (made.status !== 0) throw new Error(`the molecule set could not be made: ${made.stderr || made.error?.message}`);
    writeFileSync(meta, made.stdout);
  }
  const info = JSON.parse(readFileSync(meta, "utf8")) as { written: number; bases: number; sources: Record<string, number> };
  const sources = Object.entries(info.sources)
    .map(([file, count]) => `${file} (${count})`)
    .join(", ");
  return {
    path,
    summary:
      `${info.written.toLocaleString("en-US")} distinct molecules (distinct canonical SMILES): the ${info.bases.toLocaleString("en-US")} distinct ones that parse from RDKit's data files ` +
      `(${sources}), then rounds of light variations of each in turn (one hydrogen on a carbon replaced by C, F, Cl, O or N), ` +
      "variations written in the molecule's own atom order (scripts/bench-triage.py)",
  };
}

function failure(m: RpcMessage): string | undefined {
  if (m.error) return `JSON-RPC ${m.error.code}: ${m.error.message}`;
  if (!m.result?.isError) return undefined;
  return JSON.stringify(m.result.structuredContent ?? m.result).slice(0, 400);
}

/** The steps a run takes (BENCH_TRIAGE_STEPS, or all); the import always runs. */
function wantedSteps(spec: string | undefined): Set<Step> {
  if (spec === undefined || spec.trim() === "") return new Set(STEPS);
  const given = spec.split(",").map((s) => s.trim());
  const unknown = given.filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`BENCH_TRIAGE_STEPS: no step ${unknown.join(", ")} (steps: ${STEPS.join(", ")})`);
  return new Set([...(given as Step[]), "import"]);
}

export async function runTriageBench(options: { n?: number; clusterN?: number; steps?: string; log?: (m: string) => void } = {}): Promise<TriageResult> {
  const log = options.log ?? ((m: string) => process.stderr.write(`[triage] ${m}\n`));
  const want = wantedSteps(options.steps ?? process.env.BENCH_TRIAGE_STEPS);
  const n = options.n ?? Number(process.env.BENCH_TRIAGE_N ?? 100_000);
  const clusterN = Math.min(n, options.clusterN ?? Number(process.env.BENCH_TRIAGE_CLUSTER_N ?? 10_000));
  const probe = spawnSync(PYTHON, ["-c", "from rdkit.Chem.MolStandardize import rdMolStandardize"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) throw new Error(`${PYTHON} cannot import rdkit: the triage bench needs native RDKit`);
  const loadAtStart = loadavg();
  const set = library(n, log);
  const dir = mkdtempSync(join(tmpdir(), "chematic-bench-triage-import-"));
  const lines = readFileSync(set.path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  copyFileSync(set.path, join(dir, "library.smi"));
  writeFileSync(join(dir, "cluster.smi"), `${lines.slice(0, clusterN).join("\n")}\n`);
  // Exports: ours in CHEMATIC_EXPORT_DIR, native's beside it (both inside `dir`, removed at the end).
  const exportDir = join(dir, "export");
  const nativeDir = join(dir, "native");
  mkdirSync(exportDir);
  mkdirSync(nativeDir);
  const workers = availableParallelism();
  const ours = new StdioClient("ours-triage", [CLI], { CHEMATIC_OFFLINE: "1", CHEMATIC_IMPORT_DIR: dir, CHEMATIC_EXPORT_DIR: exportDir });
  const native = new Native();
  const steps: TriageStep[] = [];
  let resettable = true;
  let tokens = 0;
  /** A tools/call with a progress token (a path import then gets its 300 s budget); throws on an error answer. */
  const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const m = await ours.request("tools/call", { _meta: { ...MODERN_META, progressToken: `triage-${++tokens}` }, name, arguments: args });
    const error = failure(m);
    if (error !== undefined) throw new Error(`${name}: ${error}`);
    return m.result!.structuredContent ?? {};
  };
  /** Runs our side of a step, then the native side (none when `nativeRequest` is null), each with its peak RSS reset before it. */
  const measure = async <O extends { calls: number; note?: string }>(
    step: string,
    rows: number,
    oursWork: () => Promise<O>,
    nativeRequest: Record<string, unknown> | null,
    note: (o: O, nat: NativeAnswer) => string,
  ): Promise<{ row: TriageStep; ours: O; native: NativeAnswer }> => {
    log(`${step}: ours`);
    resettable = resetPeak(ours.pid) && resettable;
    const t = performance.now();
    const o = await oursWork();
    const oursMs = performance.now() - t;
    const oursPeakMiB = peakMiB(ours.pid);
    log(`${step}: ours ${fixed(oursMs / 1000, 1)} s${nativeRequest === null ? " (no native side)" : "; native"}`);
    const nat = nativeRequest === null ? {} : await native.ask(nativeRequest);
    if (nativeRequest !== null) resettable = nat.peak_reset === true && resettable;
    const row: TriageStep = {
      step,
      rows,
      oursMs,
      calls: o.calls,
      nativeMs: nat.ms ?? NaN,
      oursPeakMiB,
      nativePeakMiB: (nat.peak_kib ?? NaN) / 1024,
      note: note(o, nat),
    };
    if (nativeRequest !== null) log(`${step}: native ${fixed(row.nativeMs / 1000, 1)} s: ${fixed(row.oursMs / row.nativeMs, 2)}x`);
    steps.push(row);
    return { row, ours: o, native: nat };
  };
  /** canvas_annotate of `columns` on the library table, called again while it answers complete: false. */
  const annotateAll = async (canvasId: string, columns: string[]) => {
    let calls = 0;
    let invalid = 0; // invalid_smiles_rows counts the rows of each call
    for (;;) {
      calls++;
      const r = await call("canvas_annotate", { canvas_id: canvasId, table: "library", columns });
      invalid += r.invalid_smiles_rows as number;
      if (r.complete === true) return { calls, invalid };
    }
  };
  /**
   * The export steps on the library table: SDF, Parquet, CSV, each one canvas_export call. Native writes the rows
   * our CSV export of the table holds (exported and read into the python process untimed, so both sides write the
   * same columns and values), then reads our SDF back (untimed).
   */
  const exportSteps = async (canvasId: string, annotated: boolean) => {
    if (!annotated) {
      log(`export: annotating ${EXPORT_CHEAP_COLUMNS.join(", ")} first (untimed; the annotate step is not in BENCH_TRIAGE_STEPS)`);
      await annotateAll(canvasId, EXPORT_CHEAP_COLUMNS);
    }
    const source = await call("canvas_export", { canvas_id: canvasId, table: "library", file: "native-source.csv" });
    const loaded = await native.ask({ op: "load_rows", path: join(exportDir, "native-source.csv") });
    const columns = source.columns as string[];
    log(`export: ${String(loaded.rows)} rows of ${columns.length} columns (${columns.join(", ")}) loaded natively`);
    const exported = (format: string) => async () => {
      const r = await call("canvas_export", { canvas_id: canvasId, table: "library", file: `library.${format}` });
      return {
        calls: 1,
        rows: r.rows as number,
        bytes: r.bytes as number,
        elapsedMs: r.elapsed_ms as number,
        failed: r.molecules_failed as number | undefined,
      };
    };
    const what = `${columns.length} columns`;
    const sdf = await measure(
      `export SDF (canvas_export .sdf, ${what})`,
      n,
      exported("sdf"),
      { op: "export_sdf", out: join(nativeDir, "library.sdf"), smiles_column: "smiles" },
      (o, nat) =>
        `ours: ${o.rows} records, ${String(o.failed)} without a molecule (empty molblock), elapsed_ms ${o.elapsedMs} in the server; ` +
        `native (Chem.SDWriter, RDKit 2022.09): ${String(nat.rows)} records, ${String(nat.failed)} without a molecule`,
    );
    sdf.row.files = { format: "SDF", ours: sdf.ours.bytes, native: sdf.native.bytes as number };
    log("export: native RDKit reads our SDF back (untimed)");
    const check = await native.ask({ op: "check_sdf", path: join(exportDir, "library.sdf"), smiles_column: "smiles", every: CHECK_EVERY });
    sdf.row.note +=
      `. Read back by native RDKit (SDMolSupplier): ${String(check.records)} records (${String(check.terminators)} $$$$ lines, ${String(check.rows)} rows), ` +
      `${String(check.unreadable)} molblocks it cannot read; every ${CHECK_EVERY}th record (${String(check.sampled)}): title, data items and canonical SMILES against the row, ` +
      `${String(check.mismatches)} mismatches (${String(check.empty_items)} items with an empty text, e.g. the scaffold of an acyclic molecule, where the CSV has an empty cell: not compared)${(check.examples as unknown[]).length > 0 ? ` (${JSON.stringify(check.examples).slice(0, 600)})` : ""}`;
    const parquet = await measure(
      `export Parquet (canvas_export .parquet, ${what})`,
      n,
      exported("parquet"),
      null,
      (o) => `ours: ${o.rows} rows, elapsed_ms ${o.elapsedMs} in the server; native: no Parquet writer in /usr/bin/python3 (no pandas, pyarrow)`,
    );
    parquet.row.files = { format: "Parquet", ours: parquet.ours.bytes };
    const csv = await measure(
      `export CSV (canvas_export .csv, ${what})`,
      n,
      exported("csv"),
      { op: "export_csv", out: join(nativeDir, "library.csv") },
      (o, nat) =>
        `ours: ${o.rows} rows, elapsed_ms ${o.elapsedMs} in the server; native: csv.writer of the loaded rows, ${String(nat.rows)} rows. ` +
        "Not held to the goal: native's rows are already text in memory, ours are read from DuckDB and each value formatted",
    );
    csv.row.files = { format: "CSV", ours: csv.ours.bytes, native: csv.native.bytes as number };
    csv.row.goal = false;
  };
  try {
    // Warm-up (not timed): workers load RDKit, compile the alert catalogues and QED's tables; DuckDB loads.
    log(`warming up (${workers} workers)`);
    const warm = await call("canvas_import", { smiles_list: lines.slice(0, 200).map((l) => l.split(/\s+/)[0]!), table: "warm" });
    await call("canvas_annotate", { canvas_id: warm.canvas_id, table: "warm", columns: ANNOTATE_COLUMNS });
    await call("cluster_molecules", { canvas_id: warm.canvas_id, table: "warm" });
    if (want.has("export"))
      for (const ext of ["sdf", "parquet", "csv"]) await call("canvas_export", { canvas_id: warm.canvas_id, table: "warm", file: `warm.${ext}` });

    let canvasId = "";
    const properties = (canvasImportTool.inputSchema.properties ?? {}) as Record<string, unknown>;
    for (const variant of IMPORT_VARIANTS) {
      if (!want.has(variant.step)) continue;
      const missing = (variant.needs ?? []).filter((a) => properties[a] === undefined);
      if (missing.length > 0) {
        log(`${variant.label}: skipped (canvas_import has no ${missing.join(", ")} argument on this build)`);
        continue;
      }
      await measure(
        variant.label,
        n,
        async () => {
          const args: Record<string, unknown> = { path: "library.smi", table: variant.table, ...variant.args };
          if (canvasId !== "") args.canvas_id = canvasId;
          const r = await call("canvas_import", args);
          canvasId ||= r.canvas_id as string;
          // Where ours fails and native parses: RDKit MinimalLib (newer than the native 2022.09) refuses the neutral
          // hexacoordinate Al, Si and P some NCI salts are written with (F[Si](F)(F)(F)(F)F, 19 rows of the 100,000).
          const counts = r.counts as { rows: number; parsed: number; failed: number; table_rows: number };
          return { calls: 1, note: `ours: ${counts.parsed} parsed, ${counts.failed} failed, ${counts.table_rows} rows` };
        },
        { ...variant.native, path: join(dir, "library.smi") },
        (o, nat) =>
          `${o.note}; native: ${String(nat.parsed)} parsed, ${String(nat.failed)} failed${nat.rows !== undefined ? `, ${String(nat.rows)} rows` : ""}`,
      );
    }
    if (canvasId === "") throw new Error("no import ran: nothing to annotate");
    if (want.has("standardize") && IMPORT_VARIANTS.some((v) => v.step === "standardize" && (v.needs ?? []).some((a) => properties[a] === undefined)))
      await standInStandardize(
        lines.map((l) => l.split(/\s+/)[0]!),
        join(dir, "library.smi"),
        call,
        measure,
      );

    if (want.has("annotate"))
      await measure(
        `annotate (${ANNOTATE_COLUMNS.length} columns)`,
        n,
        async () => {
          const { calls, invalid } = await annotateAll(canvasId, ANNOTATE_COLUMNS);
          return { calls, note: `ours: ${invalid} rows without a SMILES (NULL columns)` };
        },
        { op: "annotate" },
        (o, nat) => `${o.calls} calls (complete: false past each 50 s budget, called again); ${o.note}; native: ${String(nat.invalid)} invalid`,
      );

    if (want.has("export")) await exportSteps(canvasId, want.has("annotate"));

    // Clustering at cluster_molecules' cap: the first clusterN molecules as their own table (imported untimed).
    if (want.has("cluster")) await call("canvas_import", { path: "cluster.smi", table: "cluster", canvas_id: canvasId });
    if (want.has("cluster"))
      await measure(
        `cluster (Butina, ECFP4, at the ${clusterN.toLocaleString("en-US")} cap)`,
        clusterN,
        async () => {
          const r = await call("cluster_molecules", { canvas_id: canvasId, table: "cluster", threshold: THRESHOLD });
          const clustered = (r.rows_clustered as number) - (r.invalid_smiles_rows as number);
          return { calls: 1, note: `ours: ${String(r.cluster_count)} clusters of ${clustered}` };
        },
        { op: "cluster", n: clusterN, threshold: THRESHOLD },
        (o, nat) =>
          `${o.note}; native: ${String(nat.clusters)} clusters of ${String(nat.clustered)}. At the cap on both sides: cluster_molecules compares all pairs ` +
          `(at most 10,000 molecules a call), and native Butina on ${n.toLocaleString("en-US")} would need a ${((n * (n - 1)) / 2).toExponential(1)}-entry distance list`,
      );
  } finally {
    native.close();
    await ours.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { steps, markdown: render(steps, { n, workers, summary: set.summary, resettable, loadAtStart, loadAtEnd: loadavg() }) };
}

/** Entries of one standardize list call in the stand-in: about 10 s of work on a loaded 2-core machine. */
const STAND_IN_CHUNK = 1_000;

/** Stand-in for standardise-on-import until canvas_import has it: the standardize tool's list form over the set, STAND_IN_CHUNK a call. */
async function standInStandardize(
  smiles: string[],
  path: string,
  call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  measure: (
    step: string,
    rows: number,
    oursWork: () => Promise<{ calls: number; note?: string }>,
    nativeRequest: Record<string, unknown>,
    note: (o: { calls: number; note?: string }, nat: NativeAnswer) => string,
  ) => Promise<unknown>,
): Promise<void> {
  await measure(
    "standardize list form (stand-in for import + standardize)",
    smiles.length,
    async () => {
      let calls = 0;
      let failed = 0;
      for (let from = 0; from < smiles.length; from += STAND_IN_CHUNK) {
        calls++;
        const r = await call("standardize", { smiles_list: smiles.slice(from, from + STAND_IN_CHUNK), fields: ["parent_smiles"] });
        failed += (r.summary as { failed: number }).failed;
      }
      return { calls, note: `ours: ${failed} failed` };
    },
    { op: "import_standardized", path, dedupe: false },
    (o, nat) =>
      `canvas_import has no standardize argument on this build: ${o.calls} standardize list calls of ${STAND_IN_CHUNK.toLocaleString("en-US")} (no dedupe; ` +
      `calls small enough to end well within the list's 50 s budget and for most answers to fit a host's 80,000 bytes); ${o.note}; ` +
      `native: parse, Cleanup, SaltRemover, LargestFragmentChooser, Uncharger, Cleanup, canonical SMILES (${String(nat.failed)} failed)`,
  );
}

function render(
  steps: TriageStep[],
  facts: { n: number; workers: number; summary: string; resettable: boolean; loadAtStart: number[]; loadAtEnd: number[] },
): string {
  const body = steps.map((s) => {
    const r = s.oursMs / s.nativeMs;
    const native = Number.isFinite(s.nativeMs);
    return [
      s.step,
      s.rows.toLocaleString("en-US"),
      fixed(s.oursMs / 1000, 1),
      String(s.calls),
      native ? fixed(s.nativeMs / 1000, 1) : "—",
      !native ? "—" : r <= GOAL || s.goal === false ? fixed(r, 2) : `**${fixed(r, 2)}**`,
      fixed(s.oursPeakMiB, 0),
      native ? fixed(s.nativePeakMiB, 0) : "—",
    ];
  });
  const mb = (bytes: number | undefined) => (bytes === undefined ? "—" : fixed(bytes / 1e6, 1));
  const files = steps.flatMap((s) =>
    s.files === undefined
      ? []
      : [[s.files.format, mb(s.files.ours), mb(s.files.native), s.files.native === undefined ? "—" : fixed(s.files.ours / s.files.native, 2)]],
  );
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(", ");
  return [
    `### Canvas triage at ${facts.n.toLocaleString("en-US")} rows vs native RDKit`,
    "",
    `Ours: the server over stdio, ${facts.workers} workers (one per core), in-memory canvas; wall time = the calls' round trips. ` +
      "Native: the same work in one /usr/bin/python3 with RDKit (scripts/bench-triage.py), timed inside it, one thread. " +
      `Peak RSS: VmHWM of each process over the step (${facts.resettable ? "reset before each step" : "/proc/<pid>/clear_refs refused: peaks since each process started"}). Goal: ours within ${GOAL}x native (ratios in bold miss it).`,
    "",
    `Molecules: ${facts.summary}.`,
    "",
    table(["step", "rows", "ours, s", "calls", "native, s", "ours ÷ native", "ours peak RSS, MiB", "native peak RSS, MiB"], body),
    "",
    ...(files.length === 0 ? [] : ["Exported files:", "", table(["format", "ours, MB", "native, MB", "ours ÷ native"], files), ""]),
    ...steps.map((s) => `- ${s.step}: ${s.note}.`),
    "",
    `Load average (1, 5, 15 min) at start ${load(facts.loadAtStart)}, at end ${load(facts.loadAtEnd)}: ours uses every core, native one, ` +
      "so on a machine shared with other work both figures move, ours more.",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runTriageBench().then(
    (r) => process.stdout.write(`${r.markdown}\n`),
    (e: unknown) => {
      process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`);
      process.exitCode = 1;
    },
  );
}
