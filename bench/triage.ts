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
 *   standardise on import: see IMPORT_VARIANTS (and its TODO).
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
 *   npm run build && node build/bench/triage.js     (BENCH_TRIAGE_N rows, default 100000; BENCH_TRIAGE_CLUSTER_N, 10000)
 *
 * `runTriageBench()` is exported for bench/bench.ts (section "triage").
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const THRESHOLD = 0.4;
const GOAL = 1.5;

/**
 * The canvas_import variants timed on the whole set, each beside its native equivalent. A variant whose `needs`
 * arguments canvas_import's input schema lacks is skipped (and said so).
 */
interface ImportVariant {
  label: string;
  table: string;
  args: Record<string, unknown>;
  native: Record<string, unknown>;
  needs?: string[];
}
const IMPORT_VARIANTS: ImportVariant[] = [
  { label: "import (canvas_import path .smi)", table: "library", args: {}, native: { op: "import" } },
  // TODO(lead, after merging the standardize-on-import branch): canvas_import's `standardize: true, dedupe: true`.
  // This line already runs it once canvas_import's input schema has both arguments; check the label and the native
  // side (rdMolStandardize Cleanup, SaltRemover, LargestFragmentChooser, Uncharger, Cleanup; one row per parent)
  // against what the branch does. Until then the standardize tool's list form stands in (standInStandardize).
  {
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

export async function runTriageBench(options: { n?: number; clusterN?: number; log?: (m: string) => void } = {}): Promise<TriageResult> {
  const log = options.log ?? ((m: string) => process.stderr.write(`[triage] ${m}\n`));
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
  const workers = availableParallelism();
  const ours = new StdioClient("ours-triage", [CLI], { CHEMATIC_OFFLINE: "1", CHEMATIC_IMPORT_DIR: dir });
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
  /** Runs our side of a step, then the native side, each with its peak RSS reset before it. */
  const measure = async (
    step: string,
    rows: number,
    oursWork: () => Promise<{ calls: number; note?: string }>,
    nativeRequest: Record<string, unknown>,
    note: (o: { calls: number; note?: string }, nat: NativeAnswer) => string,
  ) => {
    log(`${step}: ours`);
    resettable = resetPeak(ours.pid) && resettable;
    const t = performance.now();
    const o = await oursWork();
    const oursMs = performance.now() - t;
    const oursPeakMiB = peakMiB(ours.pid);
    log(`${step}: ours ${fixed(oursMs / 1000, 1)} s; native`);
    const nat = await native.ask(nativeRequest);
    resettable = nat.peak_reset === true && resettable;
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
    log(`${step}: native ${fixed(row.nativeMs / 1000, 1)} s: ${fixed(row.oursMs / row.nativeMs, 2)}x`);
    steps.push(row);
  };
  try {
    // Warm-up (not timed): workers load RDKit, compile the alert catalogues and QED's tables; DuckDB loads.
    log(`warming up (${workers} workers)`);
    const warm = await call("canvas_import", { smiles_list: lines.slice(0, 200).map((l) => l.split(/\s+/)[0]!), table: "warm" });
    await call("canvas_annotate", { canvas_id: warm.canvas_id, table: "warm", columns: ANNOTATE_COLUMNS });
    await call("cluster_molecules", { canvas_id: warm.canvas_id, table: "warm" });

    let canvasId = "";
    const properties = (canvasImportTool.inputSchema.properties ?? {}) as Record<string, unknown>;
    for (const variant of IMPORT_VARIANTS) {
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
    if (IMPORT_VARIANTS.some((v) => (v.needs ?? []).some((a) => properties[a] === undefined)))
      await standInStandardize(
        lines.map((l) => l.split(/\s+/)[0]!),
        join(dir, "library.smi"),
        call,
        measure,
      );

    await measure(
      `annotate (${ANNOTATE_COLUMNS.length} columns)`,
      n,
      async () => {
        let calls = 0;
        let invalid = 0; // invalid_smiles_rows counts the rows of each call
        for (;;) {
          calls++;
          const r = await call("canvas_annotate", { canvas_id: canvasId, table: "library", columns: ANNOTATE_COLUMNS });
          invalid += r.invalid_smiles_rows as number;
          if (r.complete === true) return { calls, note: `ours: ${invalid} rows without a SMILES (NULL columns)` };
        }
      },
      { op: "annotate" },
      (o, nat) => `${o.calls} calls (complete: false past each 50 s budget, called again); ${o.note}; native: ${String(nat.invalid)} invalid`,
    );

    // Clustering at cluster_molecules' cap: the first clusterN molecules as their own table (imported untimed).
    await call("canvas_import", { path: "cluster.smi", table: "cluster", canvas_id: canvasId });
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
  ) => Promise<void>,
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
    return [
      s.step,
      s.rows.toLocaleString("en-US"),
      fixed(s.oursMs / 1000, 1),
      String(s.calls),
      fixed(s.nativeMs / 1000, 1),
      `${r <= GOAL ? "" : "**"}${fixed(r, 2)}${r <= GOAL ? "" : "**"}`,
      fixed(s.oursPeakMiB, 0),
      fixed(s.nativePeakMiB, 0),
    ];
  });
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(", ");
  return [
    `### Canvas triage at ${facts.n.toLocaleString("en-US")} rows vs native RDKit`,
    "",
    `Ours: the server over stdio, ${facts.workers} workers (one per core), in-memory canvas; wall time = the calls' round trips. ` +
      "Native: the same work in one /usr/bin/python3 with RDKit (scripts/bench-triage.py), timed inside it, one thread. " +
      `Peak RSS: VmHWM of each process over the step (${facts.resettable ? "reset before each step" : "/proc/<pid>/clear_refs refused: peaks since each process started"}). Goal: ours within ${GOAL}x native.`,
    "",
    `Molecules: ${facts.summary}.`,
    "",
    table(["step", "rows", "ours, s", "calls", "native, s", "ours ÷ native", "ours peak RSS, MiB", "native peak RSS, MiB"], body),
    "",
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
