/**
 * The WASM heap does not garbage-collect and never shrinks, so a forgotten delete() shows as growth.
 * 10,000 calls through the worker pool (valid molecules and every error path) must grow each worker's
 * heap by less than 5 MiB after warm-up.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { WorkerPool } from "../../src/server/pool.js";

const MOLECULES = [
  "CC(=O)Oc1ccccc1C(=O)O",
  "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",
  "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
  "CC(=O)Nc1ccc(O)cc1",
  "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1",
  "COc1ccc2[nH]cc(CCN(C)C)c2c1",
  "C[C@H](N)C(=O)O",
  "O=C(O)C[C@@H](O)C(=O)O.[Na+]",
  "c1ccc2c(c1)ccc1ccccc12",
  "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O",
];
const INVALID = ["C1CC", "c1cccc1", "C(((", "[Xx]", "N(C)(C)(C)(C)C"];
const TOOLS = ["parse_smiles", "canonical_smiles", "calc_properties", "lipinski_check"];

test("10,000 calls grow the WASM heap by less than 5 MiB per worker", { timeout: 240_000 }, async (t) => {
  const pool = new WorkerPool({ size: 2, maxQueue: 100_000 });
  try {
    await pool.ready();
    let i = 0;
    const call = async () => {
      const n = i++;
      const tool = TOOLS[n % TOOLS.length]!;
      const smiles = n % 7 === 0 ? INVALID[n % INVALID.length]! : MOLECULES[n % MOLECULES.length]!;
      await pool.run(tool, { smiles }, { budgetMs: 30_000 }).catch((e: Error) => {
        if (e.name !== "ToolError") throw e;
      });
    };
    const batch = async (count: number) => {
      const inFlight = 8;
      let started = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (started < count) {
            started++;
            await call();
          }
        }),
      );
    };
    await batch(1_000); // warm-up: first-use allocations, query caches
    const before = await pool.heapBytes();
    await batch(10_000);
    const after = await pool.heapBytes();
    const growth = after.map((a, k) => a - before[k]!);
    t.diagnostic(`heap before ${before.map((b) => (b / 2 ** 20).toFixed(1))} MiB, after ${after.map((a) => (a / 2 ** 20).toFixed(1))} MiB`);
    for (const g of growth) assert.ok(g < 5 * 2 ** 20, `heap grew ${(g / 2 ** 20).toFixed(2)} MiB`);
    assert.ok(
      before.every((b) => b > 0),
      "the heap size was captured",
    );
  } finally {
    await pool.close();
  }
});
