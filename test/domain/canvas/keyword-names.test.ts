/**
 * A table or column a tool made with a name that is also a statement keyword (canvas_import's `secret`, `load`, a
 * data item `copy`) is read by its plain name (issue 34 item 3): the lexical lock reads such a keyword as the name
 * it is on this canvas, and DuckDB's parse still decides the statement is one SELECT over the canvas's tables. On a
 * canvas holding those names, every attack of the refusal set is still refused and nothing escapes (no file
 * written, the tables intact).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { ToolError } from "../../../src/domain/errors.js";
import type { Canvas } from "../../../src/domain/canvas/canvas.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";

const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1_000 });
let canvas: Canvas;
const CAPS = { maxRows: 100, maxBytes: 60_000 };

before(async () => {
  canvas = await manager.create();
  const columns = [
    { name: "id", type: "INTEGER" as const, description: "" },
    { name: "copy", type: "DOUBLE" as const, description: "" },
    { name: "smiles", type: "VARCHAR" as const, description: "" },
  ];
  const rows = [
    [1, 2.5, "CCO"],
    [2, 0.5, "c1ccccc1"],
  ];
  await canvas.stage("secret", columns, rows, {});
  await canvas.stage("load", columns, rows, {});
});
after(() => manager.close());

test("tables named secret and load, and a column named copy, are read by their plain names", async () => {
  assert.deepEqual((await canvas.query("SELECT * FROM secret ORDER BY id", CAPS)).rows, [
    { id: 1, copy: 2.5, smiles: "CCO" },
    { id: 2, copy: 0.5, smiles: "c1ccccc1" },
  ]);
  assert.deepEqual((await canvas.query("SELECT copy FROM load WHERE copy > 1", CAPS)).rows, [{ copy: 2.5 }]);
  assert.deepEqual((await canvas.query("SELECT count(*) AS n FROM secret s JOIN load l USING (id)", CAPS)).rows, [{ n: 2 }]);
  // A keyword that names nothing on this canvas is refused as before.
  await assert.rejects(canvas.query("SELECT * FROM install", CAPS), (e: unknown) => e instanceof ToolError && e.details.reason === "forbidden_keyword");
});

test("on a canvas holding those names, the refusal set is still refused and nothing escapes", async () => {
  const attacks = [
    "COPY secret TO '/tmp/chematic-kw-1.csv'",
    "SELECT 1 FROM (COPY secret TO '/tmp/chematic-kw-2.csv')",
    "SELECT * FROM secret; COPY load TO '/tmp/chematic-kw-3.csv'",
    "LOAD httpfs",
    "SELECT * FROM load, '/tmp/chematic-kw-4.csv'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "ATTACH '/tmp/chematic-kw-5.db' AS secret",
    "SELECT * FROM secret WHERE id IN (SELECT 1 FROM duckdb_secrets())",
    'WITH copy AS (SELECT 1) SELECT * FROM copy, "/etc/passwd"',
    "SELECT copy FROM load UNION ALL SELECT * FROM glob('/etc/*')",
    "SET enable_external_access = true",
    "SELECT * FROM pg_catalog.pg_settings",
  ];
  for (const sql of attacks) {
    await assert.rejects(
      canvas.query(sql, CAPS),
      (e: unknown) => e instanceof ToolError && (e.code === "QUERY_REFUSED" || e.code === "INVALID_ARGUMENTS"),
      sql,
    );
  }
  for (let i = 1; i <= 5; i++) assert.ok(!existsSync(`/tmp/chematic-kw-${i}.csv`) && !existsSync(`/tmp/chematic-kw-${i}.db`));
  assert.deepEqual((await canvas.query("SELECT (SELECT count(*) FROM secret) AS a, (SELECT count(*) FROM load) AS b", CAPS)).rows, [{ a: 2, b: 2 }]);
});
