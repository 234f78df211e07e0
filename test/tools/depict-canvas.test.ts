/**
 * depict's canvas form (issue 15, item 4): canvas_id + sql draws the query's rows (column smiles, optional
 * legend) as the grid, the query resolved on the main thread before the worker draws; typed errors for more
 * than 48 rows, no smiles column, no rows, a refused query and an unknown canvas.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { initCanvasManager, type CanvasManager } from "../../src/domain/canvas/manager.js";
import { newCanvasId } from "../../src/domain/canvas/ids.js";
import { depictTool } from "../../src/tools/depict.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import type { ToolOutcome } from "../../src/server/shape.js";
import { stageSmiles } from "../helpers/annotate.js";
import { testCanvasConfig } from "../helpers/canvas-config.js";

type Row = Record<string, unknown>;
let manager: CanvasManager;
let pool: WorkerPool;
let server: McpServer;
let canvasId: string;
const SMILES = Array.from({ length: 60 }, (_, i) => `${"C".repeat((i % 6) + 1)}c1ccccc1`);

async function call(args: Row): Promise<ToolOutcome> {
  return server.runTool("depict", args, { signal: new AbortController().signal });
}

before(async () => {
  manager = initCanvasManager(testCanvasConfig());
  pool = new WorkerPool({ size: 1 });
  server = new McpServer({ tools: [depictTool], pool, info: { name: "test", version: "0" }, logger: silentLogger });
  canvasId = await stageSmiles(manager, SMILES);
});
after(async () => {
  await pool.close();
  await manager.close();
});

describe("depict with canvas_id + sql", () => {
  test("draws the query's rows as the grid, in order, with the legend column as captions", async () => {
    const outcome = await call({ canvas_id: canvasId, sql: "SELECT smiles, 'row ' || id AS legend FROM library ORDER BY id LIMIT 5", format: "svg" });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const value = outcome.value;
    assert.equal(value.count, 5);
    assert.equal(value.failed, 0);
    assert.deepEqual(
      (value.entries as Row[]).map((e) => e.input),
      SMILES.slice(0, 5),
    );
    assert.match(String(value.svg), /row 4/);
    const png = await call({ canvas_id: canvasId, sql: "SELECT smiles FROM library WHERE id < 48" });
    assert.ok(png.ok);
    assert.equal(png.value.count, 48);
    assert.equal(png.extra?.[0]?.type, "image");
  });

  test("typed errors: more than 48 rows, no smiles column, no rows, a refused query, an unknown canvas", async () => {
    const expect = async (args: Row, code: string, pattern: RegExp) => {
      const outcome = await call(args);
      assert.ok(!outcome.ok, JSON.stringify(args));
      assert.equal(outcome.error.code, code);
      assert.match(`${outcome.error.message} ${outcome.error.hint}`, pattern);
    };
    await expect({ canvas_id: canvasId, sql: "SELECT smiles FROM library" }, "INVALID_ARGUMENTS", /more than 48 rows.*LIMIT 48/);
    await expect({ canvas_id: canvasId, sql: "SELECT id FROM library LIMIT 3" }, "INVALID_ARGUMENTS", /no column named smiles \(it has id\)/);
    await expect({ canvas_id: canvasId, sql: "SELECT smiles FROM library WHERE id < 0" }, "INVALID_ARGUMENTS", /no rows/);
    await expect({ canvas_id: canvasId, sql: "DELETE FROM library" }, "QUERY_REFUSED", /./);
    await expect({ canvas_id: newCanvasId(manager.origin), sql: "SELECT 'C' AS smiles" }, "CANVAS_NOT_FOUND", /is unknown/);
    const both = await call({ canvas_id: canvasId, sql: "SELECT smiles FROM library LIMIT 2", smiles_list: ["C"] });
    assert.ok(!both.ok);
    assert.equal(both.error.code, "INVALID_ARGUMENTS");
  });
});
