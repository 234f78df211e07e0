/**
 * chembl_get_bioactivities with the canvas, against the fake ChEMBL server: when a view spills and when
 * it does not, the honest staged_row_count / truncated / truncated_by (row cap and time budget), progress,
 * a supplied canvas_id re-staged on every non-cursor call (both views side by side, the same view
 * replaced), a failed spill leaving the earlier table and holding no canvas, cursor pages never staging,
 * and the canvas off (CHEMATIC_CANVAS=off or no DuckDB binding) answering inline with nextCursor.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { newCanvasId } from "../../src/domain/canvas/ids.js";
import { ChemblService } from "../../src/domain/chembl/service.js";
import { createChemblGetBioactivitiesTool } from "../../src/tools/chembl_get_bioactivities.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { createChemblDataframeDescribeTool } from "../../src/tools/chembl_dataframe_describe.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { BULK_FIRST_ID, BULK_TARGET, addBulkActivities } from "../fixtures/chembl/bulk.js";
import { fails, ok, serviceContext, testService } from "../fixtures/chembl/harness.js";

type Row = Record<string, unknown>;

let fake: FakeChembl;
let service: ChemblService;
let manager: CanvasManager;
let removeBulk: () => void;
const bio = (m: CanvasManager = manager, s: ChemblService = service) =>
  createChemblGetBioactivitiesTool(
    () => s,
    () => m,
  );
const query = (m: CanvasManager = manager) => createChemblDataframeQueryTool(() => m);

async function sql(canvasId: unknown, text: string, m: CanvasManager = manager): Promise<Row[]> {
  return (await ok(query(m), { canvas_id: canvasId, sql: text, max_rows: 1000 })).value.rows as Row[];
}

before(async () => {
  fake = await new FakeChembl("new").start();
  // 2,500 ranked rows and 40 others on a target of their own: three pages of 1,000.
  removeBulk = addBulkActivities(2_500, 40);
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
});
after(async () => {
  removeBulk();
  await manager.close();
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  service = testService(fake);
});

describe("when a view spills", () => {
  test("a view that fits one page answers inline and creates no canvas", async () => {
    const before = manager.size;
    const { value } = await ok(bio(), { target_chembl_id: "CHEMBL203" });
    assert.equal(value.returned, 6);
    assert.deepEqual(
      [value.canvas_id, value.table_name, value.staged_row_count, value.truncated, value.truncated_by, value.nextCursor],
      [null, null, null, false, null, null],
    );
    assert.equal(manager.size, before);
  });

  test("a view larger than one page is staged whole, with the first page shown and progress reported", async () => {
    const progress: Array<[number, number | undefined, string | undefined]> = [];
    const ctx = serviceContext(20_000, { progress: (p: number, t?: number, m?: string) => progress.push([p, t, m]) });
    const { value, text } = await ok(bio(), { target_chembl_id: BULK_TARGET, limit: 5 }, ctx);
    assert.equal(value.total_count, 2_500);
    assert.equal(value.staged_row_count, 2_500);
    assert.equal(value.table_name, "bioactivities");
    assert.deepEqual([value.truncated, value.truncated_by, value.nextCursor, value.returned], [false, null, null, 5]);
    assert.deepEqual(
      (value.activities as Row[]).map((a) => a.activity_id),
      [0, 1, 2, 3, 4].map((i) => BULK_FIRST_ID + i),
    );
    assert.deepEqual(value.standard_types, ["IC50", "Ki"], "over the whole staged table");
    assert.match(value.notice as string, /mixes standard types/);
    assert.match(value.notice as string, /Staged 2500 of 2500 rows as table bioactivities on canvas cv_/);
    for (const field of [value.canvas_id, "bioactivities", "staged_row_count: 2500", "truncated: false"])
      assert.ok(text.includes(String(field)), `markdown carries ${field}`);
    assert.deepEqual(progress.at(-1)!.slice(0, 2), [2_500, 2_500]);
    assert.match(progress[0]![2]!, /fetched 1000 of 2500 rows/);
    const offsets = fake.requestsTo("activity").map((r) => [r.query.get("offset"), r.query.get("limit")]);
    assert.deepEqual(offsets.sort(), [
      ["0", "1000"],
      ["1000", "1000"],
      ["2000", "500"],
    ]);
    const [stats] = await sql(
      value.canvas_id,
      "SELECT count(*) AS n, min(view_position) AS lo, max(view_position) AS hi, count(*) FILTER (WHERE pchembl_value IS NULL) AS no_potency FROM bioactivities",
    );
    assert.deepEqual(stats, { n: 2_500, lo: 1, hi: 2_500, no_potency: 0 });
    const described = await ok(
      createChemblDataframeDescribeTool(() => manager),
      { canvas_id: value.canvas_id },
    );
    const [t] = described.value.tables as Row[];
    assert.equal((t!.applied_filters as Row).target_chembl_id, BULK_TARGET);
    assert.match((t!.source as Row).attribution as string, /CC BY-SA 3\.0/);
    const types = Object.fromEntries((t!.columns as Array<{ name: string; type: string }>).map((c) => [c.name, c.type]));
    assert.deepEqual(
      [types.activity_id, types.standard_value, types.pchembl_value, types.document_year, types.potential_duplicate, types.molecule_chembl_id],
      ["BIGINT", "DOUBLE", "DOUBLE", "INTEGER", "BOOLEAN", "VARCHAR"],
    );
  });

  test("the row cap stops the walk and says so", async () => {
    const capped = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1_500 });
    try {
      const { value } = await ok(bio(capped), { target_chembl_id: BULK_TARGET, limit: 10 });
      assert.deepEqual([value.staged_row_count, value.truncated, value.truncated_by, value.total_count], [1_500, true, "row_cap", 2_500]);
      assert.match(value.notice as string, /row cap \(CHEMBL_MAX_SPILL_ROWS=1500\)/);
      assert.deepEqual(
        fake
          .requestsTo("activity")
          .map((r) => r.query.get("limit"))
          .sort(),
        ["1000", "500"],
        "no page past the cap",
      );
      const [n] = await sql(value.canvas_id, "SELECT count(*) AS n, max(activity_id) AS last FROM bioactivities", capped);
      assert.deepEqual(n, { n: 1_500, last: BULK_FIRST_ID + 1_499 }, "the first rows of the view");
    } finally {
      await capped.close();
    }
  });

  test("the time budget stops the walk: the fetched prefix is staged and says so", async () => {
    // A slow upstream: the first page lands, the others cannot before the walk's deadline.
    fake.delayMs = 700;
    // The spill walk has CHEMBL_SPILL_DEADLINE_MS (in place of CHEMBL_DEADLINE_MS).
    const slow = testService(fake, { spillDeadlineMs: 1_200, requestTimeoutMs: 2_000 });
    const started = Date.now();
    const { value } = await ok(bio(manager, slow), { target_chembl_id: BULK_TARGET, limit: 10 });
    assert.ok(Date.now() - started < 5_000);
    assert.deepEqual([value.staged_row_count, value.truncated, value.truncated_by, value.total_count], [1_000, true, "time_budget", 2_500]);
    assert.match(value.notice as string, /ran out of time/);
    const [n] = await sql(value.canvas_id, "SELECT count(*) AS n, max(view_position) AS hi FROM bioactivities");
    assert.deepEqual(n, { n: 1_000, hi: 1_000 });
  });
});

describe("a supplied canvas_id", () => {
  test("both views stage side by side; a later call replaces only its own view's table", async () => {
    const first = await ok(bio(), { target_chembl_id: "CHEMBL203", limit: 2 });
    const id = first.value.canvas_id as string;
    assert.equal(first.value.staged_row_count, 6);
    // The null-potency view fits one page, but a supplied canvas is re-staged all the same.
    const second = await ok(bio(), { target_chembl_id: "CHEMBL203", potency_view: "null_potency", canvas_id: ` ${id} ` });
    assert.deepEqual([second.value.canvas_id, second.value.table_name, second.value.staged_row_count], [id, "bioactivities_null_potency", 4]);
    const [both] = await sql(
      id,
      "SELECT (SELECT count(*) FROM bioactivities) AS ranked, (SELECT count(*) FROM bioactivities_null_potency) AS unranked, (SELECT count(*) FROM (SELECT * FROM bioactivities UNION ALL SELECT * FROM bioactivities_null_potency)) AS whole",
    );
    assert.deepEqual(both, { ranked: 6, unranked: 4, whole: 10 });
    const ki = await ok(bio(), { target_chembl_id: "CHEMBL203", standard_type: "Ki", canvas_id: id });
    assert.equal(ki.value.staged_row_count, 1);
    const [after] = await sql(id, "SELECT (SELECT count(*) FROM bioactivities) AS ranked, (SELECT count(*) FROM bioactivities_null_potency) AS unranked");
    assert.deepEqual(after, { ranked: 1, unranked: 4 });
    const none = await ok(bio(), { target_chembl_id: "CHEMBL203", standard_type: "EC50", canvas_id: id });
    assert.deepEqual([none.value.returned, none.value.staged_row_count], [0, 0], "a zero match re-stages an empty table");
    assert.deepEqual(await sql(id, "SELECT count(*) AS n FROM bioactivities"), [{ n: 0 }]);
  });

  test("a failed spill leaves the earlier table and creates no canvas", async () => {
    const first = await ok(bio(), { target_chembl_id: BULK_TARGET, limit: 10 });
    const id = first.value.canvas_id as string;
    const canvases = manager.size;
    const failing = testService(fake, { deadlineMs: 1_500, requestTimeoutMs: 300 });
    fake.fault = { mode: "500-html" };
    const onSame = await fails(bio(manager, failing), { target_chembl_id: BULK_TARGET, potency_view: "potency_ranked", standard_type: "Ki", canvas_id: id });
    assert.equal(onSame.code, "UPSTREAM_UNAVAILABLE");
    const onNew = await fails(bio(manager, failing), { target_chembl_id: BULK_TARGET, limit: 10 });
    assert.equal(onNew.code, "UPSTREAM_UNAVAILABLE");
    fake.fault = undefined;
    assert.equal(manager.size, canvases, "no canvas was created for the failed spill");
    assert.deepEqual(await sql(id, "SELECT count(*) AS n, count(DISTINCT standard_type) AS types FROM bioactivities"), [{ n: 2_500, types: 2 }]);
  });

  test("an unknown or expired canvas_id is CANVAS_NOT_FOUND before any upstream request", async () => {
    const e = await fails(bio(), { target_chembl_id: BULK_TARGET, canvas_id: newCanvasId() });
    assert.equal(e.code, "CANVAS_NOT_FOUND");
    assert.match(e.hint, /without canvas_id/);
    assert.equal(fake.requestsTo("activity").length, 0);
  });

  test("a cursor page is served inline and leaves the canvas untouched", async () => {
    const staged = await ok(bio(), { target_chembl_id: "CHEMBL235", limit: 20 });
    const id = staged.value.canvas_id as string;
    assert.equal(staged.value.staged_row_count, 57);
    const off = new CanvasManager({ enabled: false, dir: null, maxSpillRows: 50_000 });
    const firstPage = await ok(bio(off), { target_chembl_id: "CHEMBL235", limit: 20 });
    const canvases = manager.size;
    const second = await ok(bio(), { target_chembl_id: "CHEMBL235", limit: 20, cursor: firstPage.value.nextCursor, canvas_id: id });
    assert.deepEqual([second.value.offset, second.value.returned, second.value.canvas_id, second.value.staged_row_count], [20, 20, null, null]);
    assert.ok(second.value.nextCursor);
    assert.match(second.value.notice as string, /left untouched/);
    assert.equal(manager.size, canvases);
    assert.deepEqual(await sql(id, "SELECT count(*) AS n FROM bioactivities"), [{ n: 57 }]);
  });
});

describe("canvas off", () => {
  for (const [what, make] of [
    ["CHEMATIC_CANVAS=off", () => new CanvasManager({ enabled: false, dir: null, maxSpillRows: 50_000 })],
    [
      "no DuckDB binding",
      () =>
        new CanvasManager(
          { enabled: true, dir: null, maxSpillRows: 50_000 },
          { loader: () => Promise.reject(new Error("Cannot find module '@duckdb/node-api'")) },
        ),
    ],
  ] as const) {
    test(`${what}: pages come inline with nextCursor; a canvas_id is ignored; the dataframe tools say CANVAS_DISABLED`, async () => {
      const m = make();
      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const { value } = await ok(bio(m), { target_chembl_id: "CHEMBL235", limit: 25, ...(cursor ? { cursor } : {}) });
        assert.deepEqual([value.canvas_id, value.staged_row_count, value.truncated], [null, null, false]);
        seen.push(...(value.activities as Row[]).map((a) => a.activity_id as number));
        cursor = (value.nextCursor as string | null) ?? undefined;
      } while (cursor);
      assert.equal(new Set(seen).size, 57);
      const ignored = await ok(bio(m), { target_chembl_id: "CHEMBL235", limit: 25, canvas_id: newCanvasId() });
      assert.match(ignored.value.notice as string, /canvas is off/);
      assert.ok(ignored.value.nextCursor);
      const e = await fails(query(m), { canvas_id: newCanvasId(), sql: "SELECT 1" });
      assert.equal(e.code, "CANVAS_DISABLED");
    });
  }
});
