/**
 * Concurrency over one stdio connection: a slow call never blocks a fast one, a call past its budget is
 * answered TIMEOUT while the server keeps serving, cancellation suppresses the answer, the queue is
 * bounded (BUSY), a crashing handler is -32603 without leaking details, and EOF finishes in-flight work.
 * Uses the test-only tools (CHEMATIC_TEST_TOOLS=1): test_sleep keeps a worker busy like a slow RDKit call.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";

const TEST_ENV = { CHEMATIC_TEST_TOOLS: "1" };

/** Until the call sent with progress token `token` is running: test_sleep's first progress notification says so. */
async function runningNow(s: ServerProcess, token: string): Promise<void> {
  await s.waitFor((m) => m.method === "notifications/progress" && m.params?.progressToken === token);
}

type Err = { error: { code: string; details: Record<string, unknown> } };

test("a fast call is answered while a slow call is still running", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "2" });
  try {
    // Warm both workers (two calls at once land on both): a cold worker loading RDKit on a busy machine must
    // not be what makes the fast call slow.
    await Promise.all([s.modernCall(0, "parse_smiles", { smiles: "C" }), s.modernCall(10, "parse_smiles", { smiles: "N" })]);
    const slow = s.modernCall(1, "test_sleep", { ms: 1200 });
    const fast = s.modernCall(2, "parse_smiles", { smiles: "CCO" });
    const first = await Promise.race([slow.then(() => "slow"), fast.then(() => "fast")]);
    assert.equal(first, "fast");
    const slowRes = await slow;
    assert.ok((slowRes.result!.structuredContent as { slept_ms: number }).slept_ms >= 1200);
    const order = s.messages.filter((m) => m.id === 1 || m.id === 2).map((m) => m.id);
    assert.deepEqual(order, [2, 1]);
  } finally {
    await s.close();
  }
});

test("a call past its budget gets TIMEOUT and its worker is replaced; the server keeps serving", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  try {
    const started = Date.now();
    const r = await s.modernCall(1, "test_sleep", { ms: 30_000 });
    const elapsed = Date.now() - started;
    assert.equal(r.result!.isError, true);
    assert.equal((r.result!.structuredContent as Err).error.code, "TIMEOUT");
    assert.equal((r.result!.structuredContent as Err).error.details.budget_ms, 1500);
    // The budget (1.5 s) cut a 30 s call short; the margin is generous for a loaded machine.
    assert.ok(elapsed < 15_000, `TIMEOUT answered after ${elapsed} ms`);
    const after = await s.modernCall(2, "parse_smiles", { smiles: "c1ccccc1" });
    assert.equal((after.result!.structuredContent as { atoms: number }).atoms, 6);
  } finally {
    assert.equal(await s.close(), 0);
  }
});

test("notifications/cancelled stops the work and suppresses the answer", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  try {
    await s.modernCall(0, "parse_smiles", { smiles: "C" });
    s.send({
      jsonrpc: "2.0",
      id: "slow",
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: "slow" }, name: "test_sleep", arguments: { ms: 1000 } },
    });
    await runningNow(s, "slow");
    s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow", reason: "user gave up" } });
    // The single worker was stopped, so a new call is served well before the cancelled one would have ended.
    const next = await s.modernCall(1, "parse_smiles", { smiles: "CC" });
    assert.ok(next.result);
    // Seeing that no answer comes needs a window, not an event: past the moment the cancelled call would have ended.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(s.messages.filter((m) => m.id === "slow").length, 0, "no answer for a cancelled request");
  } finally {
    await s.close();
  }
});

test("past the queue bound a call gets BUSY at once", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1", CHEMATIC_MAX_QUEUE: "1" });
  try {
    await s.modernCall(0, "parse_smiles", { smiles: "C" });
    const running = s.modernCall(1, "test_sleep", { ms: 800 });
    const queued = s.modernCall(2, "test_sleep", { ms: 10 });
    const started = Date.now();
    const busy = await s.modernCall(3, "parse_smiles", { smiles: "CCO" });
    assert.ok(Date.now() - started < 700, "BUSY is immediate");
    const err = (busy.result!.structuredContent as Err).error;
    assert.equal(err.code, "BUSY");
    assert.equal(err.details.max_queue, 1);
    assert.ok((await running).result!.structuredContent);
    assert.ok((await queued).result!.structuredContent);
  } finally {
    await s.close();
  }
});

test("a handler exception and a schema-breaking output are -32603 with a generic message", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  try {
    const thrown = await s.modernCall(1, "test_crash", { mode: "throw" });
    assert.equal(thrown.error!.code, -32603);
    assert.equal(thrown.error!.message, "Internal error");
    assert.doesNotMatch(JSON.stringify(thrown), /secret/);
    const bad = await s.modernCall(2, "test_crash", { mode: "bad_output" });
    assert.equal(bad.error!.code, -32603);
    const noisy = await s.modernCall(4, "test_crash", { mode: "stdout" });
    assert.equal((noisy.result!.structuredContent as { ok: boolean }).ok, true);
    assert.ok((await s.modernCall(3, "parse_smiles", { smiles: "N" })).result);
  } finally {
    await s.close();
  }
  assert.match(s.stderr, /secret/, "details go to stderr");
  assert.match(s.stderr, /stray output from a worker/, "a worker's stdout goes to stderr");
  for (const line of s.lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0", `stdout carries protocol only: ${line}`);
});

test("progress notifications increase and carry the request's token", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  try {
    const r = await s.modernCall(1, "test_sleep", { ms: 600 }, { progressToken: "tok" });
    assert.ok(r.result);
    const progress = s.messages.filter((m) => m.method === "notifications/progress").map((m) => m.params!);
    assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
    for (const p of progress) assert.equal(p.progressToken, "tok");
    const values = progress.map((p) => p.progress as number);
    assert.deepEqual(
      [...values].sort((a, b) => a - b),
      values,
    );
    assert.equal(new Set(values).size, values.length);
    const answerIndex = s.messages.findIndex((m) => m.id === 1);
    assert.ok(s.messages.findIndex((m) => m.method === "notifications/progress") < answerIndex);
  } finally {
    await s.close();
  }
});

test("at stdin EOF the server finishes in-flight calls, then exits 0", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  s.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: MODERN_META, name: "test_sleep", arguments: { ms: 700 } } });
  const code = await s.close();
  assert.equal(code, 0);
  const answer = s.messages.find((m) => m.id === 1);
  assert.ok(answer?.result, "the in-flight call was answered before exit");
});

test("a duplicate id in flight is refused without disturbing the first", async () => {
  const s = new ServerProcess({ ...TEST_ENV, CHEMATIC_WORKERS: "1" });
  try {
    await s.modernCall(0, "parse_smiles", { smiles: "C" }); // warm-up: the worker's start-up is not in the budget
    // Both lines in one write, and a call long enough to be certainly in flight when the second is read.
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: MODERN_META, name: "test_sleep", arguments: { ms: 700 } } };
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    s.sendRaw(`${JSON.stringify(call)}\n${JSON.stringify(list)}\n`);
    await s.waitFor(() => s.messages.filter((m) => m.id === 1).length === 2);
    const answers = s.messages.filter((m) => m.id === 1);
    assert.equal(answers.filter((m) => m.error?.code === -32600).length, 1, "the duplicate is refused");
    const slept = answers.find((m) => m.result)?.result?.structuredContent as { slept_ms: number } | undefined;
    assert.ok(slept && slept.slept_ms >= 700, "the first call still answers");
  } finally {
    await s.close();
  }
});

test("a long chain is answered, a molecule over the atom cap gets MOLECULE_TOO_LARGE, and the server keeps serving", async () => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "1" });
  try {
    // 1,500 chained atoms: past RDKit's linked 64 KiB stack, inside the 8 MiB the workers give it.
    const chain = await s.modernCall(1, "parse_smiles", { smiles: "C".repeat(1_500) });
    assert.equal((chain.result!.structuredContent as { atoms: number }).atoms, 1_500);
    const huge = await s.modernCall(2, "parse_smiles", { smiles: "C(C)".repeat(12_000).slice(0, 99_999) });
    const hugeErr = (huge.result!.structuredContent as Err).error;
    assert.equal(hugeErr.code, "MOLECULE_TOO_LARGE");
    const ok = await s.modernCall(3, "calc_properties", { smiles: "CCO" });
    assert.equal((ok.result!.structuredContent as { heavy_atom_count: number }).heavy_atom_count, 3);
  } finally {
    assert.equal(await s.close(), 0);
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} on stdio drains the calls in flight, as stdin EOF does, then exits 0`, async () => {
    const s = new ServerProcess({ CHEMATIC_TEST_TOOLS: "1", CHEMATIC_WORKERS: "1" });
    await s.request("warm", "tools/call", { _meta: MODERN_META, name: "canonical_smiles", arguments: { smiles: "CCO" } });
    s.send({
      jsonrpc: "2.0",
      id: "slow",
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: "slow" }, name: "test_sleep", arguments: { ms: 800 } },
    });
    await runningNow(s, "slow");
    s.child.kill(signal);
    const answer = await s.response("slow");
    assert.ok(answer.result, `the call in flight is answered: ${JSON.stringify(answer)}`);
    assert.equal(await s.exited, 0);
  });
}

test("SIGHUP on stdio (a host or terminal closing) neither ends the process nor loses the call in flight; stdin's end does (issue 37 item 6)", async () => {
  const s = new ServerProcess({ CHEMATIC_TEST_TOOLS: "1", CHEMATIC_WORKERS: "1" });
  await s.request("warm", "tools/call", { _meta: MODERN_META, name: "canonical_smiles", arguments: { smiles: "CCO" } });
  s.send({
    jsonrpc: "2.0",
    id: "slow",
    method: "tools/call",
    params: { _meta: { ...MODERN_META, progressToken: "slow" }, name: "test_sleep", arguments: { ms: 800 } },
  });
  await runningNow(s, "slow");
  s.child.kill("SIGHUP");
  const answer = await s.response("slow");
  assert.ok(answer.result, `the call in flight is answered: ${JSON.stringify(answer)}`);
  const after = await s.request("after", "tools/call", { _meta: MODERN_META, name: "canonical_smiles", arguments: { smiles: "OCC" } });
  assert.ok(after.result, "still serving after SIGHUP");
  assert.equal(await s.close(), 0, "stdin's end ends the session");
});
