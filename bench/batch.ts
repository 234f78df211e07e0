/**
 * Batch and canvas throughput against one thread (the performance issue, item 5), same run:
 *
 * - a calc_properties list of BENCH_BATCH_LIST molecules (default 10,000) as one call over stdio to our server
 *   (a worker per core), against the same molecules through calc_properties' `run` in a plain loop on the
 *   bench's own thread;
 * - canvas_annotate of a BENCH_BATCH_ROWS-row table (default 50,000; NCI first_5K.smi repeated when present,
 *   else the bench workload) with the kinds mw, logp, tpsa, hbd and hba, through the real worker pool, against
 *   the same rows' cells computed by canvas_annotate's row function in a plain loop on one thread.
 *
 *   npm run build && node build/bench/batch.js        (run by `npm run bench` as its "batch" section)
 */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { RDKit } from "../src/domain/chem/rdkit.js";
import { CanvasManager } from "../src/domain/canvas/manager.js";
import { canvasAnnotateRowTool, createCanvasAnnotateTool, planColumns } from "../src/tools/canvas_annotate.js";
import { McpServer } from "../src/server/server.js";
import { WorkerPool } from "../src/server/pool.js";
import { allTools } from "../src/tools/index.js";
import { silentLogger } from "../src/logger.js";
import type { ChemTool } from "../src/contract/tool.js";
import { parallelLoopRate } from "./lib/ceiling.js";
import { fixed, table } from "./lib/stats.js";
import { StdioClient } from "./lib/stdio-client.js";
import { MOLECULES } from "./lib/workload.js";

const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const ANNOTATE_COLUMNS = ["mw", "logp", "tpsa", "hbd", "hba"] as const;

export interface BatchResult {
  markdown: string;
  /** The list call's molecules/s over the one-thread loop's. */
  listRatio: number;
  /** canvas_annotate's rows/s over the one-thread loop's. */
  annotateRatio: number;
  /** Two plain loops on two threads over one (the machine's ceiling in this run), for each. */
  listCeiling: number;
  annotateCeiling: number;
  listN: number;
  annotateRows: number;
  workers: number;
}

function library(n: number): { smiles: string[]; source: string } {
  const source = existsSync(NCI)
    ? readFileSync(NCI, "utf8")
        .split("\n")
        .map((l) => l.trim().split(/\s+/)[0] ?? "")
        .filter((s) => s.length > 0)
    : [...MOLECULES];
  return { smiles: Array.from({ length: n }, (_, i) => source[i % source.length]!), source: existsSync(NCI) ? "NCI first_5K.smi" : "the bench workload" };
}

const signal = () => new AbortController().signal;

export async function runBatchBench(rdkit: RDKit, options: { log?: (m: string) => void; listN?: number; annotateRows?: number } = {}): Promise<BatchResult> {
  const log = options.log ?? ((m: string) => process.stderr.write(`[batch] ${m}\n`));
  const listN = options.listN ?? Number(process.env.BENCH_BATCH_LIST ?? 10_000);
  const annotateRows = options.annotateRows ?? Number(process.env.BENCH_BATCH_ROWS ?? 50_000);
  const progress = () => {};
  const tools = allTools({});
  const calc = tools.find((t): t is ChemTool => t.kind === "chem" && t.name === "calc_properties")!;

  // calc_properties: one list call over stdio against one thread.
  const molecules = Array.from({ length: listN }, (_, i) => MOLECULES[i % MOLECULES.length]!);
  const client = new StdioClient("ours-batch", [CLI], { CHEMATIC_OFFLINE: "1" });
  let listSeconds: number;
  let loopSeconds: number;
  const workers = availableParallelism();
  let listCeiling: number;
  try {
    await client.callOk("calc_properties", { smiles_list: molecules.slice(0, 500) }); // workers loaded, validators compiled
    for (let i = 0; i < 300; i++) calc.run({ smiles: molecules[i]! }, { rdkit, progress }); // JIT warm
    let t = performance.now();
    for (const smiles of molecules) calc.run({ smiles }, { rdkit, progress });
    loopSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    const value = await client.callOk("calc_properties", { smiles_list: molecules });
    listSeconds = (performance.now() - t) / 1000;
    const summary = value.summary as { succeeded: number };
    if (summary.succeeded !== listN) throw new Error(`the list did ${summary.succeeded} of ${listN} within its budget`);
    log(`calc_properties: loop ${fixed(listN / loopSeconds, 0)}/s, one list call ${fixed(listN / listSeconds, 0)}/s`);
    listCeiling =
      (await parallelLoopRate(
        "calc_properties",
        molecules.map((smiles) => ({ smiles })),
        workers,
      )) /
      (listN / loopSeconds);
  } finally {
    await client.close();
  }

  // canvas_annotate: the real pool and canvas in this process, against the row function on this thread.
  const { smiles: rows, source } = library(annotateRows);
  const kinds = planColumns([...ANNOTATE_COLUMNS]).kinds;
  for (let i = 0; i < 300; i++) canvasAnnotateRowTool.run({ smiles: rows[i]!, kinds }, { rdkit, progress });
  let t = performance.now();
  let failed = 0;
  for (const smiles of rows) {
    try {
      canvasAnnotateRowTool.run({ smiles, kinds }, { rdkit, progress });
    } catch {
      failed++;
    }
  }
  const annotateLoopSeconds = (performance.now() - t) / 1000;
  const annotateCeiling =
    (await parallelLoopRate(
      canvasAnnotateRowTool.name,
      rows.map((smiles) => ({ smiles, kinds })),
      workers,
    )) /
    (annotateRows / annotateLoopSeconds);
  const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: Math.max(100_000, annotateRows) });
  const pool = new WorkerPool({ size: workers });
  const server = new McpServer({
    tools: tools.map((tool) => (tool.name === "canvas_annotate" ? createCanvasAnnotateTool(() => manager) : tool)),
    pool,
    info: { name: "bench", version: "0" },
    logger: silentLogger,
  });
  let annotateSeconds: number;
  let calls = 0;
  try {
    const { canvas } = await manager.stageOnNewCanvas(
      "library",
      [{ name: "smiles", type: "VARCHAR", description: "" }],
      rows.map((s) => [s]),
      {},
    );
    await server.runTool(
      "canvas_annotate",
      { canvas_id: canvas.id, table: "library", columns: [{ kind: "heavy_atom_count", as: "warm" }] },
      { signal: signal() },
    );
    t = performance.now();
    for (;;) {
      calls++;
      const outcome = await server.runTool("canvas_annotate", { canvas_id: canvas.id, table: "library", columns: [...ANNOTATE_COLUMNS] }, { signal: signal() });
      if (!outcome.ok) throw new Error(`canvas_annotate: ${outcome.error.code} ${outcome.error.message}`);
      if ((outcome.value as { complete: boolean }).complete) break;
    }
    annotateSeconds = (performance.now() - t) / 1000;
    log(
      `canvas_annotate: loop ${fixed(annotateRows / annotateLoopSeconds, 0)} rows/s, ours ${fixed(annotateRows / annotateSeconds, 0)} rows/s (${calls} calls)`,
    );
  } finally {
    await pool.close();
    await manager.close();
  }

  const listRatio = loopSeconds / listSeconds;
  const annotateRatio = annotateLoopSeconds / annotateSeconds;
  const markdown = [
    table(
      ["work", "one thread (plain loop), per s", "ours, per s", "ours, s", "÷ one thread", `${workers} plain loops on ${workers} threads ÷ one (the ceiling)`],
      [
        [
          `calc_properties on ${listN.toLocaleString("en-US")} molecules: one smiles_list call over stdio`,
          fixed(listN / loopSeconds, 0),
          fixed(listN / listSeconds, 0),
          fixed(listSeconds, 2),
          fixed(listRatio, 2),
          fixed(listCeiling, 2),
        ],
        [
          `canvas_annotate of a ${annotateRows.toLocaleString("en-US")}-row table (${ANNOTATE_COLUMNS.join(", ")}; ${calls} call${calls === 1 ? "" : "s"})`,
          fixed(annotateRows / annotateLoopSeconds, 0),
          fixed(annotateRows / annotateSeconds, 0),
          fixed(annotateSeconds, 2),
          fixed(annotateRatio, 2),
          fixed(annotateCeiling, 2),
        ],
      ],
    ),
    "",
    `${workers} workers. The one-thread loop calls the same code on the bench's own thread with nothing around it (calc_properties' \`run\`; ` +
      `canvas_annotate's row function on each row, without DuckDB). The list's molecules cycle through the ten bench molecules; the table's rows are ${source}` +
      `${failed > 0 ? ` (${failed} rows do not parse and answer NULL cells in both)` : ""}. Ours includes the JSON of the list's answer (cut at the 1 MiB ` +
      "response limit after every entry is computed) and, for the canvas, reading the rows from DuckDB and writing the new columns back. " +
      `The last column is what ${workers} threads of the same plain loop reach together on this machine in this run (bench/lib/ceiling.ts): ` +
      "no pool of that many workers can beat it.",
  ].join("\n");
  return { markdown, listRatio, annotateRatio, listCeiling, annotateCeiling, listN, annotateRows, workers };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { loadRDKit } = await import("../src/domain/chem/rdkit.js");
  const result = await runBatchBench(await loadRDKit());
  process.stdout.write(`${result.markdown}\n`);
}
