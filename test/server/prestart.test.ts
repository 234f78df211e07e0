/**
 * The prestarted first worker (server/prestart.ts): the serving entry starts it before the server is
 * imported, and the pool takes it as its first worker, once; a pool whose workers need another engine stack
 * does not take it, and a prestarted worker that has exited is never handed out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { prestartWorker, takePrestartedWorker } from "../../src/server/prestart.js";
import { WorkerPool } from "../../src/server/pool.js";

test("the pool takes the prestarted worker as its first, once, and it answers", async () => {
  prestartWorker();
  const pool = new WorkerPool({ size: 1, output: () => {} });
  try {
    assert.equal(takePrestartedWorker(undefined), undefined, "taken by the pool");
    const answer = (await pool.run("canonical_smiles", { smiles: "OCC" }, { budgetMs: 60_000 })) as { canonical: string };
    assert.equal(answer.canonical, "CCO");
  } finally {
    await pool.close();
  }
});

test("a pool with its own engine stack size does not take it; an exited prestarted worker is not handed out", async () => {
  prestartWorker();
  assert.equal(takePrestartedWorker(1 << 20), undefined, "another stack size: not taken");
  const worker = takePrestartedWorker(undefined);
  assert.ok(worker, "still there for a default pool");
  await worker.terminate();
  // A prestarted worker that stops before anyone takes it (as a crash would) is not handed out.
  const doomed = prestartWorker();
  const exited = new Promise((resolve) => doomed.once("exit", resolve));
  await doomed.terminate();
  await exited;
  assert.equal(takePrestartedWorker(undefined), undefined, "an exited worker is not handed out");
  assert.equal(takePrestartedWorker(undefined), undefined, "nor anything after it");
});

test("the served command answers its first call through the prestarted worker (and --version starts none)", () => {
  const cli = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
  const version = spawnSync(process.execPath, [cli, "--version"], { encoding: "utf8" });
  assert.equal(version.status, 0);
  const lines = [
    { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "canonical_smiles", arguments: { smiles: "OCC" } } },
  ];
  const served = spawnSync(process.execPath, [cli], {
    input: lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    encoding: "utf8",
    env: { ...process.env, CHEMATIC_LOG_LEVEL: "error" },
    timeout: 60_000,
  });
  assert.equal(served.status, 0, served.stderr);
  const answers = served.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: number; result?: { content?: Array<{ text?: string }> } });
  const text = answers.find((a) => a.id === 1)?.result?.content?.[0]?.text ?? "{}";
  assert.equal((JSON.parse(text) as { canonical?: string }).canonical, "CCO");
});
