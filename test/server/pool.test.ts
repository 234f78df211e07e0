/**
 * Worker pool dispatch: calls go only to workers that have loaded RDKit, calls sent while the workers load
 * are answered in order, a replacement worker does not hold up calls a loaded worker can take, and at start
 * the workers load RDKit in two steps (one core left to the main thread).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { WorkerPool } from "../../src/server/pool.js";
import { ToolError } from "../../src/domain/errors.js";

// Workers copy the environment when they start: the test-only tools (test_sleep, test_memory) join theirs.
process.env.CHEMATIC_TEST_TOOLS = "1";

const threadOf = async (pool: WorkerPool, holdMs = 0) => ((await pool.run("test_memory", { hold_ms: holdMs }, { budgetMs: 60_000 })) as { thread_id: number }).thread_id;

test("at start one worker per core but one loads RDKit; the rest start when it is ready", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 3 });
  try {
    assert.equal(pool.startedWorkers, Math.max(1, Math.min(3, availableParallelism() - 1)));
    await pool.ready();
    assert.equal(pool.startedWorkers, 3);
  } finally {
    await pool.close();
  }
});

test("calls sent while the workers load RDKit are all answered, each with its own result", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 2, maxQueue: 0 });
  try {
    // With no queue, two calls still fit at start: one per loading worker.
    const answers = await Promise.all(["OCC", "C1=CC=CC=C1"].map((smiles) => pool.run("canonical_smiles", { smiles }, { budgetMs: 60_000 })));
    assert.deepEqual(
      answers.map((a) => (a as { canonical: string }).canonical),
      ["CCO", "c1ccccc1"],
    );
  } finally {
    await pool.close();
  }
});

test("while a replaced worker loads RDKit, calls go to the loaded one", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    await pool.ready();
    // Both threads, each held busy so the two calls land on different workers.
    const before = new Set(await Promise.all([threadOf(pool, 300), threadOf(pool, 300)]));
    assert.equal(before.size, 2);
    // A call past its budget: its worker is terminated and a fresh one starts loading RDKit.
    await assert.rejects(pool.run("test_sleep", { ms: 10_000 }, { budgetMs: 300 }), (e: unknown) => e instanceof ToolError && e.code === "TIMEOUT");
    // Sent at once, while the replacement loads (hundreds of ms): the loaded worker answers it.
    const next = await threadOf(pool);
    assert.ok(before.has(next), "answered by a worker that was already loaded, not queued behind the replacement's load");
    // The replacement does serve once loaded.
    await pool.ready();
    const after = new Set(await Promise.all([threadOf(pool, 300), threadOf(pool, 300)]));
    assert.equal(after.size, 2);
    assert.equal([...after].filter((t) => !before.has(t)).length, 1, "one of the two workers is the replacement");
  } finally {
    await pool.close();
  }
});

test("a long chain that overwrites the engine's memory is refused, and the next call is answered right", { timeout: 120_000 }, async () => {
  // ~600-atom chains with double bonds overflow RDKit's WASM shadow stack without a trap (found by the
  // giant-molecule fuzzer): unchecked, the next call on that worker failed with "null function or function
  // signature mismatch". The worker checks the engine after large inputs and is replaced when it is unsound.
  const pool = new WorkerPool({ size: 1 });
  try {
    for (const smiles of [`F${"C=C".repeat(300)}F`, `F${"/C=C/C".repeat(200)}F`, `F${"C=CC".repeat(200)}F`]) {
      for (const tool of ["parse_smiles", "calc_properties"]) {
        const outcome = await pool.run(tool, { smiles }, { budgetMs: 60_000 }).then(
          () => "ok",
          (e: unknown) => (e instanceof ToolError ? e.code : String(e)),
        );
        assert.ok(outcome === "ok" || outcome === "MOLECULE_TOO_LARGE", `${tool} on a ${smiles.length}-character chain: ${outcome}`);
        const next = (await pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 60_000 })) as { canonical: string };
        assert.equal(next.canonical, "CCO", `the call after ${tool} on a ${smiles.length}-character chain`);
      }
    }
  } finally {
    await pool.close();
  }
});

test("close answers running calls and leaves no worker behind, even when a call's budget ends after it", { timeout: 60_000 }, async () => {
  // A running call's budget timer used to outlive close(): when it fired, the pool started a replacement
  // worker that nothing terminated, and the test process never exited (a CI run hung on it).
  const pool = new WorkerPool({ size: 2 });
  await pool.ready();
  // Two running (one per worker) and one queued; each outcome is caught as it happens.
  const calls = [1, 2, 3].map(() =>
    pool.run("test_sleep", { ms: 5_000 }, { budgetMs: 400 }).then(
      () => "answered",
      (e: unknown) => (e instanceof ToolError ? e.code : String(e)),
    ),
  );
  await new Promise((r) => setTimeout(r, 100));
  await pool.close();
  assert.deepEqual(await Promise.all(calls), ["BUSY", "BUSY", "BUSY"]);
  assert.equal(pool.liveWorkers, 0, "every worker exited when close resolved");
  // Past every budget: no timer may start a worker now.
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(pool.liveWorkers, 0, "no worker started after close");
  assert.deepEqual(await pool.heapBytes(), [0, 0]);
  await assert.rejects(pool.run("canonical_smiles", { smiles: "C" }, { budgetMs: 1_000 }), (e: unknown) => e instanceof ToolError && e.code === "BUSY");
});
