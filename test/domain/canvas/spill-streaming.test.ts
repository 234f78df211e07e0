/**
 * The streaming spill (src/domain/canvas/spill.ts): pages are staged while the walk goes on, a failed or
 * cancelled walk leaves no partial table (and the view's earlier table as it was), a staging failure
 * (CANVAS_FULL) stops the walk, and the appender's chunks never exceed 2,048 rows.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CANVAS_DEFAULTS, CanvasManager, type CellValue, type ColumnSpec } from "../../../src/domain/canvas/canvas.js";
import { loadDuckDb, type DuckDbModule } from "../../../src/domain/canvas/duckdb.js";
import { spillActivities, type SpillRequest } from "../../../src/domain/canvas/spill.js";
import type { ChemblService } from "../../../src/domain/chembl/service.js";
import { ToolError } from "../../../src/domain/errors.js";
import { BULK_TARGET, addBulkActivities } from "../../fixtures/chembl/bulk.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { testService } from "../../fixtures/chembl/harness.js";

const RANKED = 5_000;
let fake: FakeChembl;
let removeBulk: () => void;
/** Every DuckDBDataChunk the canvas creates, by row count (the loader below wraps DuckDB's). */
const chunkSizes: number[] = [];
const countingLoader = async (): Promise<DuckDbModule> => {
  const real = await loadDuckDb();
  const create = real.DuckDBDataChunk.create.bind(real.DuckDBDataChunk);
  const DuckDBDataChunk = Object.assign(Object.create(real.DuckDBDataChunk) as typeof real.DuckDBDataChunk, {
    create: (types: Parameters<typeof create>[0], rowCount?: number) => {
      chunkSizes.push(rowCount ?? 0);
      return create(types, rowCount);
    },
  });
  return { ...real, DuckDBDataChunk };
};
let manager: CanvasManager;

before(async () => {
  fake = await new FakeChembl("new").start();
  removeBulk = addBulkActivities(RANKED, 10);
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 }, { loader: countingLoader });
  assert.equal(await manager.available(), true);
});
after(async () => {
  removeBulk();
  await manager.close();
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  chunkSizes.length = 0;
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
    fake.delayMs = 40;
    const service = testService(fake, { maxPageSize: 500, maxConcurrentPages: 1, deadlineMs: 30_000 });
    const events: Array<["fetched" | "staged", number]> = [];
    const result = await spill(service, {
      onProgress: (fetched) => events.push(["fetched", fetched]),
      onStaged: (rows) => events.push(["staged", rows]),
    });
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
    for (const target of [canvas, undefined]) {
      let stagedRows = 0;
      await assert.rejects(
        spill(failing, {
          target,
          onStaged: (rows) => {
            stagedRows = rows;
            // The upstream breaks once the first pages are staged.
            if (rows >= 1_000) fake.fault = { mode: "500-html" };
          },
        }),
        (e: unknown) => e instanceof ToolError && e.code === "UPSTREAM_UNAVAILABLE",
      );
      fake.fault = undefined;
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
    const small = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000, maxBytes: 1_500_000 }, { loader: countingLoader });
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

  test(`the appender's chunks never exceed ${CANVAS_DEFAULTS.appendChunkRows} rows (a spill's pages, and one large stage)`, async () => {
    const service = testService(fake, { maxPageSize: 1000, maxConcurrentPages: 4 });
    const { canvas } = staged(await spill(service));
    assert.equal(
      chunkSizes.reduce((a, b) => a + b, 0),
      RANKED,
    );
    assert.ok(
      chunkSizes.every((n) => n > 0 && n <= 2_048),
      `spill chunks: ${chunkSizes.join(", ")}`,
    );
    chunkSizes.length = 0;
    const columns: ColumnSpec[] = [
      { name: "id", type: "BIGINT", description: "" },
      { name: "label", type: "VARCHAR", description: "" },
    ];
    const rows: CellValue[][] = Array.from({ length: 10_000 }, (_, i) => [i, `row ${i}`]);
    await canvas.stage("big", columns, rows, {});
    assert.equal(
      chunkSizes.reduce((a, b) => a + b, 0),
      10_000,
    );
    assert.ok(
      chunkSizes.every((n) => n <= 2_048),
      `stage chunks: ${chunkSizes.join(", ")}`,
    );
    assert.equal(Math.max(...chunkSizes), 2_048);
    await manager.release(canvas.id);
  });
});
