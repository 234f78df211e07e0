/**
 * The worker pool shares one compiled RDKit WASM module: compiled once in the main thread, posted to every
 * worker (replacements included) before its first job. Jobs posted while a worker loads are kept and
 * answered in order.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { WorkerPool } from "../../src/server/pool.js";
import { ToolError } from "../../src/domain/errors.js";

// Workers copy the environment when they start: the test-only tools (test_sleep) join theirs.
process.env.CHEMATIC_TEST_TOOLS = "1";

test("calls posted before the workers are ready are answered, in order, by workers sharing one compiled module", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    // Sent at once: both workers are still loading RDKit, so these wait in the workers' buffers or the queue.
    const smiles = ["CCO", "c1ccccc1", "CC(=O)O", "N", "C1CC1", "O=C=O"];
    const answers = await Promise.all(smiles.map((s) => pool.run("canonical_smiles", { smiles: s }, { budgetMs: 60_000 })));
    assert.deepEqual(
      answers.map((a) => (a as { canonical: string }).canonical),
      ["CCO", "c1ccccc1", "CC(=O)O", "N", "C1CC1", "O=C=O"],
    );
    await pool.ready();
    assert.equal(pool.sharedWasmWorkers, 2, "both workers instantiated the module compiled by the main thread");
  } finally {
    await pool.close();
  }
});

test("a worker replaced after a call past its budget starts from the shared module too", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.ready();
    await assert.rejects(pool.run("test_sleep", { ms: 5_000 }, { budgetMs: 200 }), (e: unknown) => e instanceof ToolError && e.code === "TIMEOUT");
    // The next call runs on the replacement, which had to load RDKit first.
    const answer = (await pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 60_000 })) as { canonical: string };
    assert.equal(answer.canonical, "CCO");
    assert.equal(pool.sharedWasmWorkers, 1);
  } finally {
    await pool.close();
  }
});
