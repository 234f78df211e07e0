/**
 * The streaming spill (src/domain/canvas/spill.ts): pages are staged while the walk goes on, a failed or
 * cancelled walk leaves no partial table (and the view's earlier table as it was), a staging failure
 * (CANVAS_FULL) stops the walk, and the appender's chunks never exceed 2,048 rows.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CANVAS_DEFAULTS } from "../../../src/domain/canvas/settings.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import type { CellValue, ColumnSpec } from "../../../src/domain/canvas/tables.js";
import { spillActivities, type SpillRequest } from "../../../src/domain/canvas/spill.js";
import type { ChemblService } from "../../../src/domain/chembl/service.js";
import { ToolError } from "../../../src/domain/errors.js";
import { BULK_TARGET, addBulkActivities } from "../../fixtures/chembl/bulk.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { testService } from "../../fixtures/chembl/harness.js";

const RANKED = 5_000;
let fake: FakeChembl;
let removeBulk: () => void;
/** Every chunk the canvas appends (appender data chunks and bulk-insert statements), by row count. */
const chunks: Array<{ rows: number; how: "appender" | "bulk" }> = [];
const onChunk = (rows: number, how: "appender" | "bulk") => void chunks.push({ rows, how });
let manager: CanvasManager;

before(async () => {
  fake = await new FakeChembl("new").start();
  removeBulk = addBulkActivities(RANKED, 10);
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 }, { onChunk });
  assert.equal(await manager.available(), true);
});
after(async () => {
  removeBulk();
  await manager.close();
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  chunks.length = 0;
});

/** A spill of the bulk target's ranked view (5,000 rows), in pages of `pageSize`, `concurrency` in flight. */
function spill(service: ChemblService, extra: Partial<SpillRequest> = {}, m: CanvasManager = manager) {
  return spillActivities(service, m, {
    query: { targetChemblId: BULK_TARGET, view: "potency_ranked" },
    inlineLimit: 25,
    target: undefined,
    deadline: Date.now() + 60_000,
    progressTracked: false,
    signal: new AbortController().signal,
    appliedFilters: () => ({ target_chembl_id: BULK_TARGET }),
    ...extra,
  });
}

function staged(result: Awaited<ReturnType<typeof spill>>) {
  assert.ok(typeof result === "object" && result.staged, "the spill staged a table");
  return result.staged;
}

async function tablesOf(canvas: { inspect(): Promise<Array<{ table_name: string }>> }): Promise<string[]> {
  return [...new Set((await canvas.inspect()).map((c) => c.table_name))].sort();
}

describe("the streaming spill", () => {
  test("staging begins before the walk ends: rows are in DuckDB while later pages are still being fetched", async () => {
    // Each page after the first is answered only once the page before it is staged (an event, not a pause): staging
    // that keeps up with the walk is what this test shows, and a loaded machine must not make it look otherwise.
    let stagedPages = 0;
    let answered = 0;
    const waiting: Array<{ page: number; go: () => void }> = [];
    fake.beforeAnswer = (path) => {
      if (path !== "activity") return Promise.resolve();
      const page = answered++;
      if (page <= stagedPages) return Promise.resolve();
      return new Promise<void>((go) => waiting.push({ page, go }));
    };
    const service = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1, deadlineMs: 30_000 });
    const events: Array<["fetched" | "staged", number]> = [];
    const result = await spill(service, {
      onProgress: (fetched) => events.push(["fetched", fetched]),
      onStaged: (rows) => {
        events.push(["staged", rows]);
        stagedPages++;
        for (const w of waiting.filter((w) => w.page <= stagedPages)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.go();
        }
      },
    });
    fake.beforeAnswer = undefined;
    const { canvas, table } = staged(result);
    assert.equal(table.row_count, RANKED);
    const lastFetch = events.map(([kind]) => kind).lastIndexOf("fetched");
    const firstStage = events.findIndex(([kind]) => kind === "staged");
    assert.ok(firstStage >= 0 && firstStage < lastFetch, `a page was staged before the last page arrived: ${JSON.stringify(events)}`);
    const stagedBeforeEnd = events.slice(0, lastFetch).filter(([kind]) => kind === "staged");
    assert.ok(stagedBeforeEnd.length >= 5, `most pages were staged while the walk went on (${stagedBeforeEnd.length} of 10)`);
    assert.deepEqual(
      events.filter(([kind]) => kind === "staged").map(([, n]) => n),
      Array.from({ length: 10 }, (_, i) => (i + 1) * 500),
      "one append per page, in view order",
    );
    const rows = await canvas.query("SELECT min(view_position) AS lo, max(view_position) AS hi, count(DISTINCT view_position) AS n FROM bioactivities", {
      maxRows: 10,
      maxBytes: 10_000,
    });
    assert.deepEqual(rows.rows, [{ lo: 1, hi: RANKED, n: RANKED }]);
    assert.deepEqual(await tablesOf(canvas), ["bioactivities"], "no staging table is left");
    await manager.release(canvas.id);
  });

  test("a failed walk leaves no partial table, the view's earlier table intact, and no canvas of its own", async () => {
    const service = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1 });
    const { canvas, table: earlier } = staged(await spill(service));
    const before = manager.size;
    const failing = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1, deadlineMs: 1_500, requestTimeoutMs: 300 });
    fake.delayMs = 0;
    for (const target of [canvas, undefined]) {
      let stagedRows = 0;
      await assert.rejects(
        spill(failing, {
          target,
          // Pages after the first two come slowly, so staging reaches 1,000 rows (and breaks the upstream) before the
          // walk can fetch the rest: on a loaded machine staging lagged the fetches and the walk finished first (CI).
          onProgress: (fetched) => {
            if (fetched >= 1_000 && fake.fault === undefined) fake.delayMs = 400;
          },
          onStaged: (rows) => {
            stagedRows = rows;
            // The upstream breaks once the first pages are staged.
            if (rows >= 1_000) fake.fault = { mode: "500-html" };
          },
        }),
        (e: unknown) => e instanceof ToolError && e.code === "UPSTREAM_UNAVAILABLE",
      );
      fake.fault = undefined;
      fake.delayMs = 0;
      assert.ok(stagedRows >= 1_000, "pages had been staged when the walk failed");
    }
    assert.equal(manager.size, before, "the failed spill onto a new canvas released it");
    assert.deepEqual(await tablesOf(canvas), ["bioactivities"], "no staging table is left");
    assert.equal(canvas.tables.get("bioactivities"), earlier, "the earlier table's record is untouched");
    const count = await canvas.query("SELECT count(*) AS n FROM bioactivities", { maxRows: 1, maxBytes: 1_000 });
    assert.deepEqual(count.rows, [{ n: RANKED }]);
    await manager.release(canvas.id);
  });

  test("a cancelled walk leaves no partial table and the view's earlier table intact", async () => {
    fake.delayMs = 20;
    const service = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1, deadlineMs: 30_000 });
    const { canvas, table: earlier } = staged(await spill(service, { query: { targetChemblId: BULK_TARGET, view: "potency_ranked", pchemblMin: 5 } }));
    const before = manager.size;
    for (const target of [canvas, undefined]) {
      const controller = new AbortController();
      let stagedRows = 0;
      await assert.rejects(
        spill(service, {
          target,
          signal: controller.signal,
          onStaged: (rows) => {
            stagedRows = rows;
            if (rows >= 1_000) controller.abort();
          },
        }),
      );
      assert.ok(stagedRows >= 1_000 && stagedRows < RANKED, `the walk was cancelled part way (${stagedRows} rows staged)`);
    }
    assert.equal(manager.size, before);
    assert.deepEqual(await tablesOf(canvas), ["bioactivities"], "no staging table is left");
    assert.equal(canvas.tables.get("bioactivities"), earlier);
    const count = await canvas.query("SELECT count(*) AS n FROM bioactivities", { maxRows: 1, maxBytes: 1_000 });
    assert.deepEqual(count.rows, [{ n: earlier.row_count }]);
    await manager.release(canvas.id);
  });

  test("CANVAS_FULL while staging stops the walk and leaves nothing behind", async () => {
    const small = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000, maxBytes: 1_500_000 }, { onChunk });
    try {
      fake.delayMs = 10;
      const service = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1, deadlineMs: 30_000 });
      await assert.rejects(spill(service, {}, small), (e: unknown) => e instanceof ToolError && e.code === "CANVAS_FULL");
      assert.equal(small.size, 0, "the canvas made for the spill is released");
      const pages = fake.requestsTo("activity").length;
      assert.ok(pages < RANKED / 500, `the walk stopped early (${pages} of 10 pages requested)`);
    } finally {
      await small.close();
    }
  });

  test(`chunks never exceed ${CANVAS_DEFAULTS.appendChunkRows} rows: a spill's bulk inserts and a stage's appender chunks`, async () => {
    const service = testService(fake, { maxPageSize: 1000, maxConcurrentPages: 4 });
    const { canvas } = staged(await spill(service));
    const sum = (list: typeof chunks) => list.reduce((n, c) => n + c.rows, 0);
    assert.equal(sum(chunks), RANKED);
    assert.ok(
      chunks.every((c) => c.how === "bulk" && c.rows > 0 && c.rows <= 2_048),
      `spill chunks: ${JSON.stringify(chunks)}`,
    );
    chunks.length = 0;
    const columns: ColumnSpec[] = [
      { name: "id", type: "BIGINT", description: "" },
      { name: "label", type: "VARCHAR", description: "" },
    ];
    const rows: CellValue[][] = Array.from({ length: 10_000 }, (_, i) => [i, `row ${i}`]);
    await canvas.stage("big", columns, rows, {});
    assert.equal(sum(chunks), 10_000);
    assert.ok(
      chunks.every((c) => c.how === "appender" && c.rows <= 2_048),
      `stage chunks: ${JSON.stringify(chunks)}`,
    );
    assert.equal(Math.max(...chunks.map((c) => c.rows)), 2_048);
    await manager.release(canvas.id);
  });

  test("the bulk insert stores exactly what the appender stores (awkward text, extreme doubles, NULLs; a lone surrogate falls back)", async () => {
    const canvas = await manager.create();
    const columns: ColumnSpec[] = [
      { name: "i", type: "BIGINT", description: "" },
      { name: "n", type: "INTEGER", description: "" },
      { name: "x", type: "DOUBLE", description: "" },
      { name: "t", type: "VARCHAR", description: "" },
      { name: "b", type: "BOOLEAN", description: "" },
    ];
    const texts = ["plain", 'it\'s "quoted"', "back\\slash", "line\nbreak\ttab", "émoji 🧪 ünï", "", "\u0000nul", "'; DROP TABLE x; --", null];
    const doubles = [0.1, 5e-324, 1.7976931348623157e308, 6.02214076e23, 1 / 3, -123.456, null];
    const rows: CellValue[][] = Array.from({ length: 3_000 }, (_, k) => [
      k === 0 ? 2 ** 53 - 1 : k - 1_500,
      k % 7 === 0 ? null : k,
      doubles[k % doubles.length]!,
      texts[k % texts.length]!,
      k % 3 === 0 ? null : k % 2 === 0,
    ]);
    await canvas.stage("by_appender", columns, rows, {});
    const writer = canvas.openStage("by_bulk", columns);
    await writer.append(rows.slice(0, 1_000));
    await writer.append(rows.slice(1_000));
    await writer.commit({});
    const read = (table: string) =>
      canvas.query(`SELECT i, n, CAST(x AS VARCHAR) AS x, t, b FROM ${table} ORDER BY i`, { maxRows: 5_000, maxBytes: 10_000_000 }).then((r) => r.rows);
    const [a, b] = await Promise.all([read("by_appender"), read("by_bulk")]);
    assert.equal(b.length, 3_000);
    assert.deepEqual(b, a);
    chunks.length = 0;
    const odd = canvas.openStage("odd", columns);
    await odd.append([
      [1, 1, 1.5, "lone \ud800 surrogate", true],
      [2, 2, 2.5, "fine", false],
    ]);
    await odd.append([
      [3, 3, -0, "minus zero", true],
      [4, 4, Number.NaN, "NaN", null],
      [5, 5, Number.NEGATIVE_INFINITY, "-inf", null],
    ]);
    await odd.commit({});
    assert.deepEqual(
      chunks.map((c) => c.how),
      ["bulk", "appender", "appender"],
      "the refused bulk insert, and the values JSON cannot carry, went through the appender",
    );
    const back = await canvas.query("SELECT i, CAST(x AS VARCHAR) AS x FROM odd ORDER BY i", { maxRows: 10, maxBytes: 10_000 });
    assert.deepEqual(
      back.rows.map((r) => r.x),
      ["1.5", "2.5", "-0.0", "nan", "-inf"],
    );
    await manager.release(canvas.id);
  });
});
