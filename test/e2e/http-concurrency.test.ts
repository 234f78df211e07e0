/**
 * Overload: 64 clients at once against `--max-concurrency 16`. Every client gets an answer (no hung
 * connection), each a 200 or a 503 with Retry-After: 1, and the server serves normally afterwards.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META } from "../helpers/server-process.js";
import { HttpServerProcess, httpSend, modernHeaders, modernPost } from "../helpers/http.js";

test("64 concurrent clients against --max-concurrency 16: only 200s and 503s with Retry-After, none hung, normal service after", async (t) => {
  const s = new HttpServerProcess(["--max-concurrency", "16"], { CHEMATIC_TEST_TOOLS: "1", CHEMATIC_WORKERS: "4" });
  try {
    const url = await s.url;
    // Warm the workers so every call below starts at once.
    assert.equal((await modernPost(url, 0, "tools/call", { name: "parse_smiles", arguments: { smiles: "C" } })).status, 200);
    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        httpSend(
          url,
          JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { _meta: MODERN_META, name: "test_sleep", arguments: { ms: 100 } } }),
          {
            headers: modernHeaders({ method: "tools/call", params: { name: "test_sleep" } }),
            timeoutMs: 15_000, // a hung connection fails the test here
          },
        ),
      ),
    );
    const statuses = replies.map((r) => r.status);
    assert.deepEqual([...new Set(statuses)].sort(), [200, 503], `statuses: ${statuses.join(",")}`);
    const ok = replies.filter((r) => r.status === 200);
    const busy = replies.filter((r) => r.status === 503);
    assert.ok(ok.length >= 16 && ok.length < 64, `${ok.length} served`);
    for (const r of busy) {
      assert.equal(r.headers["retry-after"], "1");
      assert.equal((JSON.parse(r.text) as { id: unknown }).id, null);
    }
    // Admitted calls are answered (a call that queued past its budget is a TIMEOUT result, still a 200).
    for (const r of ok) assert.equal(typeof (JSON.parse(r.text) as { result: object }).result, "object");
    t.diagnostic(`${ok.length} served, ${busy.length} refused with 503 in ${Date.now() - started} ms`);
    // Afterwards the server answers normally.
    const after = await Promise.all([1, 2, 3].map((i) => modernPost(url, 100 + i, "tools/call", { name: "canonical_smiles", arguments: { smiles: "OCC" } })));
    for (const r of after)
      assert.equal((JSON.parse(r.text) as { result: { structuredContent: { canonical: string } } }).result.structuredContent.canonical, "CCO");
  } finally {
    assert.equal(await s.stop(), 0);
  }
});
