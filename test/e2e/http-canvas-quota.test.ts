/**
 * Canvases belong to their caller (issue 37 item 2), over HTTP with two bearer tokens: canvases were evicted least
 * recently used across everyone, so 40 canvases made by one label closed another label's. Now a caller at its
 * quota (CHEMATIC_CANVAS_PER_CALLER) loses its own oldest canvas, never another's; when the replica is full the
 * caller holding the most gives one up; and a caller over its data quota (CHEMATIC_CANVAS_CALLER_MB) loses its own
 * oldest too. Waiting is fair (item 3): the two query slots go round-robin across callers, so bob's one-row query
 * runs when the first of alice's long queries ends, not after all four; the queue wait is not charged to the query.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokenDigest } from "../../src/domain/auth/bearer.js";
import { HttpServerProcess, modernPost } from "../helpers/http.js";

const TOKENS = { alice: "alice-0123456789abcdef0123456789abcdef", bob: "bob-0123456789abcdef0123456789abcdef" };
let dir: string;
let server: HttpServerProcess;
let url: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "chematic-quota-"));
  const file = join(dir, "tokens");
  writeFileSync(file, `alice sha256:${tokenDigest(TOKENS.alice)}\nbob sha256:${tokenDigest(TOKENS.bob)}\n`);
  server = new HttpServerProcess(["--auth", "bearer"], { CHEMATIC_AUTH_TOKENS_FILE: file, CHEMATIC_CANVAS_PER_CALLER: "4", CHEMATIC_CANVAS_CALLER_MB: "1" });
  url = await server.url;
});
after(async () => {
  assert.equal(await server.stop(), 0);
  rmSync(dir, { recursive: true, force: true });
});

let id = 0;
async function call(who: keyof typeof TOKENS, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await modernPost(url, ++id, "tools/call", { name, arguments: args }, { Authorization: `Bearer ${TOKENS[who]}` });
  assert.equal(reply.status, 200, reply.text);
  const body = JSON.parse(reply.text) as { result: { structuredContent: Record<string, unknown>; isError?: boolean } };
  return body.result.isError ? { error: body.result.structuredContent.error } : body.result.structuredContent;
}
const newCanvas = async (who: keyof typeof TOKENS, smiles = ["CCO"]) => (await call(who, "canvas_import", { smiles_list: smiles })).canvas_id as string;
const alive = async (who: keyof typeof TOKENS, canvasId: string) => {
  const r = await call(who, "chembl_dataframe_describe", { canvas_id: canvasId });
  return r.error === undefined;
};

test("a caller at its quota loses its own oldest canvas, never another's; the evicted one says why", async () => {
  const bobs = [await newCanvas("bob"), await newCanvas("bob")];
  const alices: string[] = [];
  for (let i = 0; i < 10; i++) alices.push(await newCanvas("alice"));
  for (const c of bobs) assert.ok(await alive("bob", c), "bob's canvases survive alice's ten");
  const kept = [];
  for (const c of alices) if (await alive("alice", c)) kept.push(c);
  assert.deepEqual(kept, alices.slice(-4), "alice keeps her four newest");
  const gone = (await call("alice", "chembl_dataframe_describe", { canvas_id: alices[0] })).error as {
    code: string;
    message: string;
    details: { reason: string };
  };
  assert.equal(gone.code, "CANVAS_NOT_FOUND");
  assert.equal(gone.details.reason, "evicted");
  assert.match(gone.message, /your oldest canvas goes when you hold 4 canvases/);
});

test("a caller over its data quota loses its own oldest canvas when it makes a new one; another caller's canvases stay", async () => {
  const alices = [await newCanvas("alice")];
  // About 0.45 MB of SMILES text a canvas (estimated as staged): CHEMATIC_CANVAS_CALLER_MB=1.
  const big = Array.from({ length: 2_000 }, (_, i) => `C${"C".repeat(i % 200)}O`);
  const bobs: string[] = [];
  for (let i = 0; i < 4; i++) bobs.push(await newCanvas("bob", big));
  assert.equal(await alive("bob", bobs[0]!), false, "bob's oldest big canvas went once his canvases passed 1 MB");
  assert.ok(await alive("bob", bobs[3]!), "the new one is there");
  assert.ok(await alive("alice", alices[0]!), "alice's canvas is not bob's to lose");
});

test("waiting is fair: one caller's one-row query runs when the first of another's four long queries ends (issue 37 item 3)", async () => {
  const aliceCanvas = await newCanvas("alice");
  const bobCanvas = await newCanvas("bob");
  const LONG = "SELECT count(*) AS n FROM range(12000) a, range(12000) b WHERE (a.range + b.range) % 7 = 3";
  const start = Date.now();
  const done: Array<{ who: string; at: number; error?: unknown }> = [];
  const run = (who: keyof typeof TOKENS, canvasId: string, sql: string) =>
    call(who, "chembl_dataframe_query", { canvas_id: canvasId, sql }).then((r) => done.push({ who, at: Date.now() - start, error: r.error }));
  const alices = Array.from({ length: 4 }, () => run("alice", aliceCanvas, LONG));
  // Kept pause: the server tells nothing when a query starts waiting. It only lets alice's four arrive before bob's;
  // were bob's first, the check below would hold all the more, so the pause cannot fail the test, only make it useful.
  await new Promise((r) => setTimeout(r, 150));
  const bob = run("bob", bobCanvas, "SELECT 1 AS one");
  await Promise.all([...alices, bob]);
  assert.deepEqual(
    done.filter((d) => d.error !== undefined),
    [],
    "every query answered",
  );
  const aliceTimes = done.filter((d) => d.who === "alice").map((d) => d.at);
  const bobAt = done.find((d) => d.who === "bob")!.at;
  const sorted = [...aliceTimes].sort((a, b) => a - b);
  assert.ok(bobAt < sorted[2]!, `bob's query (${bobAt} ms) is answered before alice's third (${sorted.join(", ")} ms)`);
});
