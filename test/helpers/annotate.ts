/**
 * Helpers for canvas_annotate tests: an in-process chemistry runner (the tools run on this thread with one
 * RDKit, as a worker would run them) that can cut a list short the way a budget does, and a canvas with a
 * SMILES table staged directly.
 */
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import type { CanvasManager } from "../../src/domain/canvas/manager.js";
import type { ChemListOutcome, ChemRunner, ChemTool } from "../../src/contract/tool.js";

export interface LocalRunner extends ChemRunner {
  /** Entries run by runList so far (not counting canvas_annotate's parameter checks). */
  listEntries: number;
  /** When set, runList answers TIMEOUT for entries past this many in one call (a budget cut). */
  cutAfter?: number;
}

export async function localRunner(rdkit?: RDKit): Promise<LocalRunner> {
  const engine = rdkit ?? (await loadRDKit());
  const runner: LocalRunner = {
    listEntries: 0,
    run: <A, R>(tool: ChemTool<A, R>, args: A) => Promise.resolve().then(() => tool.run(args, { rdkit: engine, progress: () => {} })),
    runList: <A, R>(tool: ChemTool<A, R>, items: A[], options: { budgetMs: number; onChunk?: (done: number, total: number) => void }) => {
      const out: ChemListOutcome<R>[] = items.map((args, i) => {
        if (runner.cutAfter !== undefined && i >= runner.cutAfter) {
          return {
            ok: false,
            error: new ToolError("TIMEOUT", "this entry was not done within the list's budget", { budget_ms: options.budgetMs }).toPayload(),
          };
        }
        if ((args as { check?: boolean }).check !== true) runner.listEntries++;
        try {
          return { ok: true, value: tool.run(args, { rdkit: engine, progress: () => {} }) };
        } catch (e) {
          if (e instanceof ToolError) return { ok: false, error: e.toPayload() };
          throw e;
        }
      });
      options.onChunk?.(items.length, items.length);
      return Promise.resolve(out);
    },
  };
  return runner;
}

/** A new canvas holding `table` with one VARCHAR column `column` (default smiles) and an integer id. */
export async function stageSmiles(manager: CanvasManager, smiles: readonly (string | null)[], table = "library", column = "smiles"): Promise<string> {
  const { canvas } = await manager.stageOnNewCanvas(
    table,
    [
      { name: "id", type: "INTEGER", description: "Row id." },
      { name: column, type: "VARCHAR", description: "SMILES." },
    ],
    smiles.map((s, i) => [i, s]),
    { source: { kind: "test" } },
  );
  return canvas.id;
}
