/**
 * canvas_annotate throughput (issue 15: the bench only reports it; the performance issue sets goals): N
 * molecules staged as a table (RDKit's NCI first_5K.smi when present, else the bench workload repeated),
 * annotated through the real worker pool, one group of kinds at a time, calls repeated until complete.
 * Prints rows/s per group, and its ratio to the reference measured in the same run: the same values asked of
 * the single-molecule tools that answer them, as smiles_list calls with `fields` (the answers then travel to
 * the agent instead of staying on the canvas). A group without such a tool has no ratio.
 *
 *   npm run build && node build/bench/annotate.js        (BENCH_ANNOTATE_N to change the size)
 */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { CanvasManager } from "../src/domain/canvas/manager.js";
import { createCanvasAnnotateTool } from "../src/tools/canvas_annotate.js";
import { McpServer } from "../src/server/server.js";
import { allTools } from "../src/tools/index.js";
import { WorkerPool } from "../src/server/pool.js";
import { silentLogger } from "../src/logger.js";
const logger = process.env.BENCH_DEBUG ? { ...silentLogger, error: (m: string, f?: unknown) => console.error(m, JSON.stringify(f)) } : silentLogger;
import { MOLECULES } from "./lib/workload.js";

const N = Number(process.env.BENCH_ANNOTATE_N ?? 5_000);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const source = existsSync(NCI)
  ? readFileSync(NCI, "utf8")
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0] ?? "")
      .filter((s) => s.length > 0)
  : MOLECULES;
const smiles = Array.from({ length: N }, (_, i) => source[i % source.length]!);

const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";
/** Each group's kinds, and the list calls of the single-molecule tools that answer the same values (the reference). */
const GROUPS: Array<{ label: string; columns: unknown[]; reference: Array<[string, Record<string, unknown>]> }> = [
  {
    label: "mw, logp, tpsa, qed (calc_properties once)",
    columns: ["mw", "logp", "tpsa", "qed"],
    reference: [["calc_properties", { fields: ["mw", "logp", "tpsa", "qed"] }]],
  },
  {
    label: "pains, brenk",
    columns: ["pains", "brenk"],
    reference: [
      ["pains_check", { fields: ["alert_count", "alerts"] }],
      ["brenk_check", { fields: ["alert_count", "alerts"] }],
    ],
  },
  { label: "murcko_scaffold, generic_scaffold", columns: ["murcko_scaffold", "generic_scaffold"], reference: [] },
  { label: "inchikey", columns: ["inchikey"], reference: [["representation_router", { formats: ["inchikey"], fields: ["representations"] }]] },
  { label: "sa_score", columns: ["sa_score"], reference: [["sa_score", { fields: ["sa_score"] }]] },
  { label: "esol_logs (admet_profile)", columns: ["esol_logs"], reference: [["admet_profile", { fields: ["esol_logs"] }]] },
  {
    label: "ecfp4_similarity",
    columns: [{ kind: "ecfp4_similarity", query_smiles: ASPIRIN, as: "sim" }],
    // tanimoto ranks every molecule of the list; it returns at most 1,000 (its top_k cap).
    reference: [["tanimoto", { smiles: ASPIRIN, top_k: Math.min(N, 1_000) }]],
  },
];

const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100_000 });
const pool = new WorkerPool();
const tools = allTools({}).map((t) => (t.name === "canvas_annotate" ? createCanvasAnnotateTool(() => manager) : t));
const server = new McpServer({ tools, pool, info: { name: "bench", version: "0" }, logger });
/** Seconds for the reference: each list call over all N molecules, 10,000 entries (a list's cap) at a time. */
async function reference(calls: Array<[string, Record<string, unknown>]>): Promise<number> {
  const start = performance.now();
  for (const [tool, args] of calls) {
    for (let from = 0; from < N; from += 10_000) {
      const outcome = await server.runTool(tool, { ...args, smiles_list: smiles.slice(from, from + 10_000) }, { signal: new AbortController().signal });
      if (!outcome.ok) throw new Error(`${tool}: ${outcome.error.code} ${outcome.error.message}`);
    }
  }
  return (performance.now() - start) / 1000;
}
try {
  const { canvas } = await manager.stageOnNewCanvas(
    "library",
    [{ name: "smiles", type: "VARCHAR", description: "" }],
    smiles.map((s) => [s]),
    {},
  );
  // Workers loaded before timing.
  await server.runTool(
    "canvas_annotate",
    { canvas_id: canvas.id, table: "library", columns: [{ kind: "heavy_atom_count", as: "warm" }] },
    { signal: new AbortController().signal },
  );
  process.stdout.write(
    `canvas_annotate, ${N} molecules (${existsSync(NCI) ? "NCI first_5K" : "bench workload"}), ${pool.size} workers, ${availableParallelism()} cores\n`,
  );
  for (const group of GROUPS) {
    const start = performance.now();
    let calls = 0;
    for (;;) {
      calls++;
      const outcome = await server.runTool(
        "canvas_annotate",
        { canvas_id: canvas.id, table: "library", columns: group.columns },
        { signal: new AbortController().signal },
      );
      if (!outcome.ok) throw new Error(`${group.label}: ${outcome.error.code} ${outcome.error.message}`);
      if ((outcome.value as { complete: boolean }).complete) break;
    }
    const seconds = (performance.now() - start) / 1000;
    const ref = group.reference.length > 0 ? await reference(group.reference) : undefined;
    process.stdout.write(
      `${group.label.padEnd(48)} ${seconds.toFixed(2).padStart(7)} s  ${(N / seconds).toFixed(0).padStart(6)} rows/s  (${calls} call${calls > 1 ? "s" : ""})` +
        (ref === undefined
          ? "  no single-molecule tool to compare\n"
          : `  list calls ${ref.toFixed(2)} s: ${(ref / seconds).toFixed(2)}x their speed (${group.reference.map(([t]) => t).join(" + ")})\n`),
    );
  }
} finally {
  await pool.close();
  await manager.close();
}
