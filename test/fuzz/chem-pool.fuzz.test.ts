/**
 * Fuzzing every chemistry tool straight through the worker pool (no protocol: many calls per second):
 * random and mutated SMILES and SMARTS in arguments built from each tool's own inputSchema (and kept
 * only when the schema accepts them, as the server would). Every call must answer a result matching the
 * outputSchema or a declared ToolError (outcomes.ts), and the pool must keep answering afterwards.
 * Tools are found in the registry, so tools added later are fuzzed too; the whole file shares one time
 * budget (FUZZ_POOL_MS, default 24 s, times FUZZ_SCALE), split evenly across the tools.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import type { ChemTool } from "../../src/contract/tool.js";
import { anySmarts, anySmiles, argsFor, fuzzParams, timeBox, type StringSources } from "./arbitraries.js";
import { checkedRun, moljsonSource, smilesArgs, validatorsOf } from "./outcomes.js";

const TOOLS = allTools({}).filter((t): t is ChemTool => t.kind === "chem" && !t.testOnly);
const TOTAL_MS = Number(process.env.FUZZ_POOL_MS ?? 14_000);
const WORKERS = 2;
/** Two tools are fuzzed at a time, one per worker. */
const PER_TOOL_MS = Math.max(300, (TOTAL_MS * WORKERS) / Math.max(1, TOOLS.length));
const CALL_BUDGET_MS = 8_000;

describe("random and mutated SMILES and SMARTS through every chemistry tool (worker pool)", { concurrency: WORKERS }, () => {
  let pool: WorkerPool;
  let sources: StringSources;

  before(async () => {
    pool = new WorkerPool({ size: WORKERS, maxQueue: 1_000, log: () => {} });
    await pool.ready();
    sources = { smiles: anySmiles(), smarts: anySmarts(), json: await moljsonSource(pool, new Map(TOOLS.map((t) => [t.name, t]))) };
  });

  after(async () => {
    try {
      // The pool still answers after everything the fuzzing sent (traps replace workers; nothing leaks a dead one).
      const value = (await pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 20_000 })) as { canonical: string };
      assert.equal(value.canonical, "CCO");
    } finally {
      await pool.close(); // live worker threads would keep the test process from exiting
    }
  });

  test("the registry has chemistry tools to fuzz", () => assert.ok(TOOLS.length >= 10, `${TOOLS.length} chemistry tools`));

  test("inputs earlier fuzz runs failed on, through every tool that takes a SMILES", { timeout: 120_000 }, async () => {
    const found = [
      // An isotope past MolJSON's old 999 cap (RDKit keeps 16 bits); charges past ±15 and the radicals
      // RDKit derives for them (RDKit keeps a charge in 8 bits: [C+999] reads as [C-25]).
      "[1013CH3][N+](C)(C)C.[Cl-]",
      "[65535CH4]",
      "[C+15]",
      "[C-16]",
      "[C+100]",
      // An aromatic atom with a triple bond: RDKit reads it, but standardize finds no sanitisable parent.
      "\u0000O=S(=O)(N)c#1ccc(cc1)C(F)(F)F",
      // A secondary phosphine: RDKit keeps its tag with two bonded atoms, a hydrogen and the lone pair.
      "C([P@H]C)C",
    ];
    for (const tool of TOOLS) {
      for (const smiles of found) {
        const args = smilesArgs(tool, smiles);
        if (args) await checkedRun(pool, tool, args, CALL_BUDGET_MS);
      }
    }
  });

  for (const tool of TOOLS) {
    test(tool.name, { timeout: PER_TOOL_MS + 60_000 }, async (t) => {
      const { input } = validatorsOf(tool);
      const args = argsFor(tool.inputSchema, sources).filter((a) => input(a));
      const seen = { ok: 0, errors: new Map<string, number>() };
      const box = timeBox(PER_TOOL_MS);
      await fc.assert(
        fc.asyncProperty(args, (a) =>
          box(async () => {
            const outcome = await checkedRun(pool, tool, a, CALL_BUDGET_MS);
            if (outcome.ok) seen.ok++;
            else seen.errors.set(outcome.code, (seen.errors.get(outcome.code) ?? 0) + 1);
          }),
        ),
        fuzzParams(300),
      );
      const total = seen.ok + [...seen.errors.values()].reduce((a, b) => a + b, 0);
      assert.ok(total > 0, `${tool.name}: no call made`);
      t.diagnostic(`${total} calls: ${seen.ok} results, errors ${JSON.stringify(Object.fromEntries(seen.errors))}`);
    });
  }
});
