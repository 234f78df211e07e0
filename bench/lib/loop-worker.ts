/**
 * A plain loop on a worker thread: loads RDKit, runs one chemistry tool's `run` (canvas_annotate's row
 * function included) on each argument object it is given, and posts the seconds the loop took (after a
 * warm-up). Two of these side by side measure what the machine's cores give two threads of the same work in
 * the same run: the ceiling a pool of two workers can reach, whatever else the host is running.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { allTools } from "../../src/tools/index.js";
import { canvasAnnotateRowTool } from "../../src/tools/canvas_annotate.js";
import type { ChemTool } from "../../src/contract/tool.js";

export interface LoopJob {
  tool: string;
  args: Record<string, unknown>[];
}

const job = workerData as LoopJob;
const rdkit = await loadRDKit();
const tool = (job.tool === canvasAnnotateRowTool.name ? canvasAnnotateRowTool : allTools({}).find((t) => t.kind === "chem" && t.name === job.tool)) as
  ChemTool | undefined;
if (!tool) throw new Error(`no chemistry tool ${job.tool}`);
const ctx = { rdkit, progress: () => {} };
const run = (args: Record<string, unknown>) => {
  try {
    tool.run(args, ctx);
  } catch {
    // a row that does not parse costs what it costs in the server too
  }
};
for (let i = 0; i < Math.min(200, job.args.length); i++) run(job.args[i]!);
parentPort!.postMessage("ready");
parentPort!.once("message", () => {
  const start = performance.now();
  for (const args of job.args) run(args);
  parentPort!.postMessage((performance.now() - start) / 1000);
});
