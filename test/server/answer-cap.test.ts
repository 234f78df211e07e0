/**
 * Answers a host passes on (src/server/answer-cap.ts): an answer whose text or structured result would pass
 * MAX_ANSWER_BYTES has its largest list staged whole on a canvas, or cut with next_index without one; through the
 * real server the staged table holds every entry, readable with chembl_dataframe_query.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { capAnswer, entriesAsTable, MAX_ANSWER_BYTES, type RowStager } from "../../src/server/answer-cap.js";
import { createApp } from "../../src/app.js";

const signal = new AbortController().signal;
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

function listAnswer(n: number): Record<string, unknown> {
  const results = Array.from({ length: n }, (_, index) => ({ index, result: { mw: 100 + index, formula: "C".repeat(40), flags: [index % 2 === 0] } }));
  return { results, summary: { count: n, succeeded: n, failed: 0 } };
}

test("an answer within the bound is returned as it is", async () => {
  const value = listAnswer(10);
  assert.equal(await capAnswer(value, { tool: "t", signal }), value);
});

test("a list answer past the bound is staged whole, the entries as sent in its input column; the answer shows the first that fit", async () => {
  const value = listAnswer(2_000);
  assert.ok(bytes(value) > MAX_ANSWER_BYTES);
  let seen: Parameters<RowStager>[0] | undefined;
  const stage: RowStager = (request) => {
    seen = request;
    return Promise.resolve({ canvasId: "cv_test_x", table: request.table });
  };
  const inputs = Array.from({ length: 2_000 }, (_, i) => `C${i}`);
  const out = await capAnswer(value, { tool: "calc_properties", stage, inputs, owner: "alice", signal });
  assert.ok(bytes(out) <= MAX_ANSWER_BYTES);
  assert.equal(seen!.rows.length, 2_000);
  assert.equal(seen!.owner, "alice");
  assert.deepEqual(
    seen!.columns.map((c) => [c.name, c.type]),
    [
      ["index", "BIGINT"],
      ["input", "VARCHAR"],
      ["mw", "BIGINT"],
      ["formula", "VARCHAR"],
      ["flags", "VARCHAR"],
    ],
  );
  assert.deepEqual(seen!.rows[7], [7, "C7", 107, "C".repeat(40), "[false]"]);
  const overflow = out.overflow as Record<string, unknown>;
  assert.equal(overflow.canvas_id, "cv_test_x");
  assert.equal(overflow.table, "calc_properties_results");
  assert.equal(overflow.rows, 2_000);
  assert.equal(overflow.returned, (out.results as unknown[]).length);
  assert.equal((out.summary as Record<string, unknown>).next_index, undefined, "staged: nothing to send again");
});

test("without a canvas, or when staging fails, the list is cut with next_index and says why", async () => {
  const value = listAnswer(2_000);
  const cut = await capAnswer(value, { tool: "t", signal });
  const shown = (cut.results as unknown[]).length;
  assert.ok(shown > 100 && shown < 2_000 && bytes(cut) <= MAX_ANSWER_BYTES);
  assert.deepEqual(cut.summary, { count: 2_000, succeeded: 2_000, failed: 0, returned: shown, next_index: shown });
  assert.match(String(cut.note), new RegExp(`Send the entries from index ${shown} on`));
  const failing: RowStager = () => Promise.reject(new Error("the canvas is full"));
  const refused = await capAnswer(value, { tool: "t", stage: failing, signal });
  assert.match((refused.overflow as { note: string }).note, /could not be staged \(the canvas is full\)/);
  // Another tool's list: no summary to set, the overflow says where the rest starts.
  const clusters = { clusters: Array.from({ length: 3_000 }, (_, i) => ({ centroid: i, members: [i, i + 1, i + 2] })), cluster_count: 3_000 };
  const other = await capAnswer(clusters, { tool: "cluster_molecules", signal });
  assert.equal((other.overflow as { next_index: number }).next_index, (other.clusters as unknown[]).length);
  assert.equal(other.cluster_count, 3_000);
});

test("a text rendering heavier than the JSON is held to the bound too; an answer heavy outside its list is left alone", async () => {
  const value = listAnswer(1_000);
  const textBytes = (v: Record<string, unknown>) => 3 * bytes(v);
  const out = await capAnswer(value, { tool: "t", textBytes, signal });
  assert.ok(textBytes(out) <= MAX_ANSWER_BYTES);
  const heavy = { svg: "x".repeat(200_000), entries: [{ a: 1 }, { a: 2 }] };
  assert.equal(await capAnswer(heavy, { tool: "depict", signal }), heavy);
});

test("entriesAsTable: numbers that are not all whole are DOUBLE, mixed values text, missing cells NULL", () => {
  const t = entriesAsTable([{ a: 1, b: "x" }, { a: 1.5, b: 2 }, { c: true }]);
  assert.deepEqual(
    t.columns.map((c) => [c.name, c.type]),
    [
      ["a", "DOUBLE"],
      ["b", "VARCHAR"],
      ["c", "BOOLEAN"],
    ],
  );
  assert.deepEqual(t.rows, [
    [1, "x", null],
    [1.5, "2", null],
    [null, null, true],
  ]);
});

const app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" }, {}, { lazyWorkers: true });
after(() => app.close());

test("through the real server, a 1,500-molecule calc_properties list is staged: the table holds every entry with its input and values", async () => {
  const smiles = Array.from({ length: 1_500 }, (_, i) => `${"C".repeat((i % 40) + 1)}O`);
  const outcome = await app.server.runTool("calc_properties", { smiles_list: smiles }, { signal });
  assert.ok(outcome.ok, outcome.ok ? "" : outcome.error.message);
  const value = outcome.value;
  assert.ok(bytes(value) <= MAX_ANSWER_BYTES);
  const overflow = value.overflow as { canvas_id: string; table: string; rows: number; returned: number };
  assert.equal(overflow.rows, 1_500);
  const query = await app.server.runTool(
    "chembl_dataframe_query",
    {
      canvas_id: overflow.canvas_id,
      sql: `SELECT count(*) AS n, count(DISTINCT input) AS inputs, min(mw) AS lightest, max("index") AS last FROM ${overflow.table}`,
    },
    { signal },
  );
  assert.ok(query.ok, query.ok ? "" : query.error.message);
  const row = (query.value.rows as Array<Record<string, unknown>>)[0]!;
  assert.deepEqual(row, { n: 1_500, inputs: 40, lightest: 32.042, last: 1_499 });
  // The shown entries equal the staged ones.
  const shown = (value.results as Array<{ index: number; result: { mw: number } }>)[5]!;
  const same = await app.server.runTool(
    "chembl_dataframe_query",
    { canvas_id: overflow.canvas_id, sql: `SELECT mw FROM ${overflow.table} WHERE "index" = 5` },
    { signal },
  );
  assert.ok(same.ok);
  assert.equal((same.value.rows as Array<{ mw: number }>)[0]!.mw, shown.result.mw);
});

test("a caller's oversize answers share one canvas, each in a table of its own", async () => {
  const smiles = Array.from({ length: 1_200 }, (_, i) => `${"C".repeat((i % 30) + 1)}N`);
  const first = await app.server.runTool("calc_properties", { smiles_list: smiles }, { signal });
  const second = await app.server.runTool("calc_properties", { smiles_list: smiles.slice(0, 1_100) }, { signal });
  assert.ok(first.ok && second.ok);
  const a = first.value.overflow as { canvas_id: string; table: string };
  const b = second.value.overflow as { canvas_id: string; table: string; rows: number };
  assert.equal(b.canvas_id, a.canvas_id, "one canvas for the caller's answers");
  assert.notEqual(b.table, a.table, "each answer its own table");
  const count = await app.server.runTool("chembl_dataframe_query", { canvas_id: b.canvas_id, sql: `SELECT count(*) AS n FROM ${b.table}` }, { signal });
  assert.ok(count.ok);
  assert.deepEqual(count.value.rows, [{ n: 1_100 }]);
});
