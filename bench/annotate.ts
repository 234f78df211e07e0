/**
 * canvas_annotate throughput (issue 15: the bench only reports it; the performance issue sets goals): N
 * molecules staged as a table (RDKit's NCI first_5K.smi when present, else the bench workload repeated),
 * annotated through the real worker pool, one group of kinds at a time, calls repeated until complete.
 * Prints rows/s per group.
 *
 *   npm run build && node build/bench/annotate.js        (BENCH_ANNOTATE_N to change the size)
 */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { CanvasManager } from "../src/domain/canvas/canvas.js";
import { createCanvasAnnotateTool } from "../src/tools/canvas_annotate.js";
import { McpServer } from "../src/server/server.js";
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

const GROUPS: Array<{ label: string; columns: unknown[] }> = [
  { label: "mw, logp, tpsa, qed (calc_properties once)", columns: ["mw", "logp", "tpsa", "qed"] },
  { label: "pains, brenk", columns: ["pains", "brenk"] },
  { label: "murcko_scaffold, generic_scaffold", columns: ["murcko_scaffold", "generic_scaffold"] },
  { label: "inchikey", columns: ["inchikey"] },
  { label: "sa_score", columns: ["sa_score"] },
  { label: "esol_logs (admet_profile)", columns: ["esol_logs"] },
  { label: "ecfp4_similarity", columns: [{ kind: "ecfp4_similarity", query_smiles: "CC(=O)Oc1ccccc1C(=O)O", as: "sim" }] },
];

const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100_000 });
const pool = new WorkerPool();
const server = new McpServer({ tools: [createCanvasAnnotateTool(() => manager)], pool, info: { name: "bench", version: "0" }, logger });
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
    process.stdout.write(
      `${group.label.padEnd(48)} ${seconds.toFixed(2).padStart(7)} s  ${(N / seconds).toFixed(0).padStart(6)} rows/s  (${calls} call${calls > 1 ? "s" : ""})\n`,
    );
  }
} finally {
  await pool.close();
  await manager.close();
}
