/**
 * Generic canvas writes (issue 15): appendRows (new columns, widened types, the swap), and the bounds in
 * rows per table and estimated bytes per canvas (CANVAS_FULL before anything is written).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../../src/domain/errors.js";
import { loadCanvasConfig } from "../../../src/config.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { estimateBytes, widenType, type ColumnSpec } from "../../../src/domain/canvas/tables.js";

let manager: CanvasManager;
before(() => {
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 10, maxTableRows: 50, maxBytes: 4_000 });
});
after(() => manager.close());

const cols = (spec: Array<[string, ColumnSpec["type"]]>): ColumnSpec[] => spec.map(([name, type]) => ({ name, type, description: name }));

describe("appendRows", () => {
  test("adds rows, adds new columns (earlier rows NULL), widens a column's type and keeps provenance merged", async () => {
    const canvas = await manager.create();
    await canvas.stage(
      "lib",
      cols([
        ["id", "BIGINT"],
        ["v", "BIGINT"],
      ]),
      [
        [1, 10],
        [2, 20],
      ],
      { source: "a" },
    );
    const meta = await canvas.appendRows(
      "lib",
      cols([
        ["v", "DOUBLE"],
        ["tag", "VARCHAR"],
      ]),
      [[1.5, "x"]],
      { calls: 2 },
    );
    assert.equal(meta.row_count, 3);
    assert.deepEqual(
      meta.columns.map((c) => [c.name, c.type]),
      [
        ["id", "BIGINT"],
        ["v", "DOUBLE"],
        ["tag", "VARCHAR"],
      ],
    );
    assert.deepEqual(meta.provenance, { source: "a", calls: 2 });
    const r = await canvas.query("SELECT id, v, tag FROM lib ORDER BY v", { maxRows: 10, maxBytes: 10_000 });
    assert.deepEqual(r.rows, [
      { id: null, v: 1.5, tag: "x" },
      { id: 1, v: 10, tag: null },
      { id: 2, v: 20, tag: null },
    ]);
    const inspected = (await canvas.inspect()).filter((c) => c.table_name === "lib").map((c) => c.data_type);
    assert.deepEqual(inspected, ["BIGINT", "DOUBLE", "VARCHAR"]);
    // Text into a numeric column makes it VARCHAR; the earlier numbers become their text.
    const again = await canvas.appendRows("lib", cols([["v", "VARCHAR"]]), [["n/a"]]);
    assert.equal(again.columns.find((c) => c.name === "v")!.type, "VARCHAR");
    const v = await canvas.query("SELECT v FROM lib WHERE id = 2", { maxRows: 10, maxBytes: 10_000 });
    assert.deepEqual(v.rows, [{ v: "20.0" }]);
  });

  test("an unknown table is INVALID_ARGUMENTS naming the tables", async () => {
    const canvas = await manager.create();
    await assert.rejects(
      canvas.appendRows("nope", cols([["a", "VARCHAR"]]), [["x"]]),
      (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENTS",
    );
  });

  test("widenType: integers widen to DOUBLE, other mixes to VARCHAR", () => {
    assert.equal(widenType("BIGINT", "DOUBLE"), "DOUBLE");
    assert.equal(widenType("INTEGER", "BIGINT"), "BIGINT");
    assert.equal(widenType("BOOLEAN", "BIGINT"), "VARCHAR");
    assert.equal(widenType("VARCHAR", "VARCHAR"), "VARCHAR");
  });
});

describe("canvas bounds", () => {
  test("rows per table: a stage or an append past the cap is CANVAS_FULL and leaves the table as it was", async () => {
    const canvas = await manager.create();
    const c = cols([["n", "BIGINT"]]);
    await canvas.stage(
      "t",
      c,
      Array.from({ length: 40 }, (_, i) => [i]),
      {},
    );
    await assert.rejects(
      canvas.appendRows(
        "t",
        c,
        Array.from({ length: 11 }, (_, i) => [i]),
      ),
      (e: unknown) => {
        assert.ok(e instanceof ToolError && e.code === "CANVAS_FULL");
        assert.equal(e.details.max_table_rows, 50);
        return true;
      },
    );
    await assert.rejects(
      canvas.stage(
        "u",
        c,
        Array.from({ length: 51 }, (_, i) => [i]),
        {},
      ),
      (e: unknown) => e instanceof ToolError && e.code === "CANVAS_FULL",
    );
    assert.equal(canvas.tables.get("t")!.row_count, 40);
    assert.equal(canvas.tables.has("u"), false);
    const r = await canvas.query("SELECT count(*) AS n FROM t", { maxRows: 1, maxBytes: 1000 });
    assert.deepEqual(r.rows, [{ n: 40 }]);
  });

  test("bytes per canvas: tables together past the cap is CANVAS_FULL; replacing a table counts only the new one", async () => {
    const canvas = await manager.create();
    const c = cols([["s", "VARCHAR"]]);
    const rowsOf = (n: number) => Array.from({ length: n }, () => ["x".repeat(96)]);
    assert.equal(estimateBytes(rowsOf(1)), 100);
    await canvas.stage("a", c, rowsOf(25), {});
    await assert.rejects(canvas.stage("b", c, rowsOf(20), {}), (e: unknown) => {
      assert.ok(e instanceof ToolError && e.code === "CANVAS_FULL");
      assert.equal(e.details.max_bytes, 4_000);
      return true;
    });
    await canvas.stage("a", c, rowsOf(39), {});
    assert.equal(canvas.usedBytes(), 3_900);
  });

  test("the caps come from CHEMATIC_CANVAS_MAX_TABLE_ROWS and CHEMATIC_CANVAS_MAX_MB; a spill's cap always fits a table", () => {
    const config = loadCanvasConfig({});
    assert.equal(config.maxTableRows, 100_000);
    assert.equal(config.maxBytes, 256 * 1024 * 1024);
    const set = loadCanvasConfig({ CHEMATIC_CANVAS_MAX_TABLE_ROWS: "2000", CHEMATIC_CANVAS_MAX_MB: "16" });
    assert.equal(set.maxTableRows, 2000);
    assert.equal(set.maxBytes, 16 * 1024 * 1024);
    assert.throws(() => loadCanvasConfig({ CHEMATIC_CANVAS_MAX_MB: "0" }));
    const spill = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 300_000, maxTableRows: 100_000 });
    assert.equal(spill.maxTableRows, 300_000);
  });
});
