/**
 * Worker pool dispatch: calls go only to workers that have loaded RDKit, calls sent while the workers load
 * are answered in order, a replacement worker does not hold up calls a loaded worker can take, and at start
 * the workers load RDKit in two steps (one core left to the main thread), and a call sent ahead to a busy
 * worker is taken back, cancelled, re-queued or budgeted as a waiting call would be.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { WorkerPool } from "../../src/server/pool.js";
import { ToolError } from "../../src/domain/errors.js";
import { CancelledError } from "../../src/contract/errors.js";

// Workers copy the environment when they start: the test-only tools (test_sleep, test_memory) join theirs.
process.env.CHEMATIC_TEST_TOOLS = "1";

const threadOf = async (pool: WorkerPool, holdMs = 0) =>
  ((await pool.run("test_memory", { hold_ms: holdMs }, { budgetMs: 60_000 })) as { thread_id: number }).thread_id;

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

test("long chains that overflowed RDKit's linked 64 KiB stack are answered right on the enlarged one", { timeout: 120_000 }, async () => {
  // ~600-atom chains overflowed RDKit's 64 KiB WASM stack without a trap (found by the giant-molecule
  // fuzzer) and overwrote the engine's static data: the next call failed, or a reaction no longer
  // compiled. The workers now give RDKit an 8 MiB stack (engine-stack.ts).
  const pool = new WorkerPool({ size: 1 });
  try {
    for (const [smiles, atoms] of [
      ["C".repeat(1_000), 1_000],
      [`F${"C=C".repeat(300)}F`, 602],
      [`F${"/C=C/C".repeat(200)}F`, 602],
      ["C".repeat(2_000), 2_000],
    ] as const) {
      const parsed = (await pool.run("parse_smiles", { smiles }, { budgetMs: 60_000 })) as { atoms: number };
      assert.equal(parsed.atoms, atoms);
      const props = (await pool.run("calc_properties", { smiles }, { budgetMs: 60_000 })) as Record<string, unknown>;
      assert.ok(Object.keys(props).length > 0, `calc_properties on a ${atoms}-atom chain`);
    }
    assert.equal(
      ((await pool.run("canonical_smiles", { smiles: "C".repeat(1_000) }, { budgetMs: 60_000 })) as { canonical: string }).canonical,
      "C".repeat(1_000),
    );
    // A reaction still compiles (standardize's nitro normalisation), the first casualty of the overflow.
    const std = (await pool.run("standardize", { smiles: "CN(=O)=O" }, { budgetMs: 60_000 })) as { parent_smiles: string };
    assert.equal(std.parent_smiles, "C[N+](=O)[O-]");
  } finally {
    await pool.close();
  }
});

test(
  "a call that reaches the end of the engine's stack is refused, its worker replaced, and the next call is answered right",
  { timeout: 120_000 },
  async () => {
    // RDKit's own 64 KiB: a 600-atom chain runs past it while writing its SMILES. The guard at the bottom
    // of the stack is overwritten, so the call answers MOLECULE_TOO_LARGE and a fresh worker takes its place.
    const pool = new WorkerPool({ size: 1, engineStackBytes: 64 * 1024 });
    try {
      await pool.ready();
      const before = await threadOf(pool);
      for (const smiles of ["C".repeat(600), `F${"C=C".repeat(300)}F`]) {
        await assert.rejects(
          pool.run("canonical_smiles", { smiles }, { budgetMs: 60_000 }),
          (e: unknown) => e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE" && e.details?.reason === "engine_stack_exhausted",
        );
        const std = (await pool.run("standardize", { smiles: "CN(=O)=O" }, { budgetMs: 60_000 })) as { parent_smiles: string };
        assert.equal(std.parent_smiles, "C[N+](=O)[O-]", "a reaction compiles on the next call");
      }
      assert.notEqual(await threadOf(pool), before, "the worker was replaced");
      // Below the guard, nothing is refused: 300 atoms need about 34 KiB.
      assert.equal(
        ((await pool.run("canonical_smiles", { smiles: "C".repeat(300) }, { budgetMs: 60_000 })) as { canonical: string }).canonical,
        "C".repeat(300),
      );
    } finally {
      await pool.close();
    }
  },
);

test("a worker whose WASM heap grew past the recycling size is replaced after its answer", { timeout: 120_000 }, async () => {
  // RDKit's descriptors of a 3,000-atom chain grow the heap by about 30 MiB, which WASM never gives back.
  const pool = new WorkerPool({ size: 1, recycleHeapBytes: 40 * 2 ** 20 });
  try {
    await pool.ready();
    const [start] = await pool.heapBytes();
    assert.ok(start! < 40 * 2 ** 20, `a fresh worker starts below the recycling size (${start} bytes)`);
    const before = await threadOf(pool);
    assert.equal(await threadOf(pool), before, "small calls do not recycle");
    const props = (await pool.run("calc_properties", { smiles: "C".repeat(3_000) }, { budgetMs: 60_000 })) as Record<string, unknown>;
    assert.ok(Object.keys(props).length > 0, "the big call is answered");
    const after = await threadOf(pool);
    assert.notEqual(after, before, "the grown worker was replaced");
    const [fresh] = await pool.heapBytes();
    assert.ok(fresh! < 40 * 2 ** 20, `its replacement starts small again (${fresh} bytes)`);
  } finally {
    await pool.close();
  }
});

test("close answers running calls and leaves no worker behind, even when a call's budget ends after it", { timeout: 60_000 }, async () => {
  // A running call's budget timer used to outlive close(): when it fired, the pool started a replacement
  // worker that nothing terminated, and the test process never exited (a CI run hung on it).
  const pool = new WorkerPool({ size: 2 });
  await pool.ready();
  // Two running (one per worker) and one queued; each outcome is caught as it happens. With both workers ready, run()
  // starts a call (its budget timer armed) or sends it ahead before it returns: nothing to wait for.
  const calls = [1, 2, 3].map(() =>
    pool.run("test_sleep", { ms: 5_000 }, { budgetMs: 400 }).then(
      () => "answered",
      (e: unknown) => (e instanceof ToolError ? e.code : String(e)),
    ),
  );
  assert.equal(pool.pending, 1, "two calls running, the third waiting");
  await pool.close();
  assert.deepEqual(await Promise.all(calls), ["BUSY", "BUSY", "BUSY"]);
  assert.equal(pool.liveWorkers, 0, "every worker exited when close resolved");
  // Past every budget: no timer may start a worker now. This pause is the point of the test, not a wait for an
  // event: the bug was a budget timer (400 ms) firing after close, so the time must pass the budgets to see none does.
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(pool.liveWorkers, 0, "no worker started after close");
  assert.deepEqual(await pool.heapBytes(), [0, 0]);
  await assert.rejects(pool.run("canonical_smiles", { smiles: "C" }, { budgetMs: 1_000 }), (e: unknown) => e instanceof ToolError && e.code === "BUSY");
});

test("a call's budget counts from when it starts running: a quick call queued behind a slow one is answered", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.ready();
    const slow = pool.run("test_sleep", { ms: 1_500 }, { budgetMs: 10_000 });
    // Queued for about 1.5 s behind the slow call, with a 1 s budget of its own (it used to be TIMEOUT at 1 s).
    const quick = pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 1_000 });
    assert.equal(((await quick) as { canonical: string }).canonical, "CCO");
    await slow;
  } finally {
    await pool.close();
  }
});

test("every answer lands within the horizon of its arrival: a call that waited runs only for what is left", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1, horizonMs: 800 });
  try {
    await pool.ready();
    const started = Date.now();
    const running = pool.run("test_sleep", { ms: 5_000 }, { budgetMs: 5_000 });
    const waiting = pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 5_000 });
    const [r, w] = await Promise.allSettled([running, waiting]);
    const ms = Date.now() - started;
    assert.ok(r.status === "rejected" && r.reason instanceof ToolError && r.reason.code === "TIMEOUT", "the running call ends at the horizon");
    assert.ok(w.status === "rejected" && w.reason instanceof ToolError && w.reason.code === "TIMEOUT", "the waiting call cannot start in time");
    assert.match(w.reason.message, /waited \d+ ms for a chemistry worker/);
    assert.ok(ms < 3_000, `both answered near the 800 ms horizon, not at the 5 s budget (${ms} ms)`);
  } finally {
    await pool.close();
  }
});

// Calls sent ahead: a busy worker gets its next single call before it is done (WorkerPool.sendAhead).

test("a call sent ahead to a busy worker is taken back by a worker that comes free first", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    await pool.ready();
    const slowThread = (await pool.run("test_memory", { hold_ms: 0 }, { budgetMs: 60_000 })) as { thread_id: number };
    // The first idle worker takes the slow call, the second the 300 ms one; the third call is sent ahead to
    // the first busy worker found: the slow one.
    const started = Date.now();
    const slow = pool.run("test_memory", { hold_ms: 2_500 }, { budgetMs: 60_000 }) as Promise<{ thread_id: number }>;
    const medium = threadOf(pool, 300);
    const quick = threadOf(pool).then((thread) => ({ thread, ms: Date.now() - started }));
    const [s, m, q] = await Promise.all([slow, medium, quick]);
    assert.equal(s.thread_id, slowThread.thread_id, "the slow call ran on the first worker");
    assert.notEqual(m, s.thread_id);
    assert.equal(q.thread, m, "the quick call was answered by the worker that came free, not behind the slow call");
    assert.ok(q.ms < 2_000, `answered after the 300 ms call, not after the 2.5 s one (${q.ms} ms)`);
  } finally {
    await pool.close();
  }
});

test("a call sent ahead and cancelled before it starts is not run, and its worker is kept", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.ready();
    const thread = await threadOf(pool);
    const running = threadOf(pool, 600);
    const abort = new AbortController();
    const ahead = pool.run("test_sleep", { ms: 5_000 }, { budgetMs: 10_000, signal: abort.signal });
    // run() has sent it ahead to the busy worker before returning: cancel it there, before it starts.
    assert.equal(pool.pending, 1, "the call is sent ahead");
    abort.abort();
    await assert.rejects(ahead, (e: unknown) => e instanceof CancelledError);
    assert.equal(await running, thread, "the running call is answered");
    const started = Date.now();
    assert.equal(await threadOf(pool), thread, "the same worker serves on: it was not replaced");
    assert.ok(Date.now() - started < 2_000, "and it did not run the cancelled 5 s call");
  } finally {
    await pool.close();
  }
});

test("a call sent ahead to a worker that is then replaced runs on the replacement", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.ready();
    const thread = await threadOf(pool);
    const stuck = pool.run("test_sleep", { ms: 10_000 }, { budgetMs: 400 });
    const ahead = pool.run("test_memory", { hold_ms: 0 }, { budgetMs: 20_000 }) as Promise<{ thread_id: number }>;
    await assert.rejects(stuck, (e: unknown) => e instanceof ToolError && e.code === "TIMEOUT");
    const answer = await ahead;
    assert.notEqual(answer.thread_id, thread, "answered by the replacement worker");
  } finally {
    await pool.close();
  }
});

test("the budget of a call sent ahead starts when the call before it is answered", { timeout: 120_000 }, async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.ready();
    const first = pool.run("test_sleep", { ms: 800 }, { budgetMs: 10_000 });
    // 500 ms of work with a 700 ms budget, sent ahead at once: counted from its post it would end at 700 ms.
    const second = pool.run("test_sleep", { ms: 500 }, { budgetMs: 700 });
    await Promise.all([first, second]);
  } finally {
    await pool.close();
  }
});

test("waiting calls are taken round-robin across callers: bob's call runs after one of alice's slow calls, not after all (issue 37 item 3)", async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.run("parse_smiles", { smiles: "C" }, { budgetMs: 10_000 }); // warm
    const done: string[] = [];
    const alice = Array.from({ length: 4 }, (_, i) =>
      pool.run("test_sleep", { ms: 300 }, { budgetMs: 20_000, caller: "alice" }).then(() => done.push(`alice${i}`)),
    );
    // run() has placed each of alice's calls before returning (one running, one sent ahead, two queued): bob comes after.
    assert.equal(pool.pending, 3, "alice's calls wait before bob's arrives");
    const bob = pool.run("parse_smiles", { smiles: "CCO" }, { budgetMs: 20_000, caller: "bob" }).then(() => done.push("bob"));
    await Promise.all([...alice, bob]);
    // One worker: alice0 runs (alice1 may already be sent ahead to it); bob comes next, before alice's others.
    assert.ok(done.indexOf("bob") <= 2, `bob's call is taken before the rest of alice's: ${done.join(", ")}`);
  } finally {
    await pool.close();
  }
});

test(
  "a list run takes the budget its caller gives past the single-call horizon (a progress-tracked path import), and still ends at that budget",
  { timeout: 120_000 },
  async () => {
    const pool = new WorkerPool({ size: 1, horizonMs: 300 });
    try {
      await pool.ready();
      const long = await pool.runList("test_sleep", [{ ms: 500 }, { ms: 500 }], { budgetMs: 5_000 });
      assert.deepEqual(
        long.map((o) => o.ok),
        [true, true],
        "entries past the 300 ms horizon ran within the list's own 5 s budget",
      );
      const cut = await pool.runList("test_sleep", [{ ms: 400 }, { ms: 400 }, { ms: 400 }], { budgetMs: 600 });
      assert.ok(
        cut.some((o) => !o.ok && o.error.code === "TIMEOUT"),
        "the list's budget still cuts it",
      );
    } finally {
      await pool.close();
    }
  },
);
