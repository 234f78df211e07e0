/**
 * The canvas itself, on a real DuckDB: the locked-down instance refuses what the lexical check would
 * let through, queries through chembl_dataframe_query are refused with typed errors, a runaway query is
 * cut at its timeout while the staged table stays intact, values serialise to valid JSON, output is
 * capped, writes are serialised and staged-then-swapped, canvases are isolated, expire, are capped, and
 * file-backed ones stay inside CHEMATIC_CANVAS_DIR.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "../../../src/domain/errors.js";
import { ConfigError, loadCanvasConfig, loadConfig, parseCanvasDir } from "../../../src/config.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { isCanvasId, newCanvasId } from "../../../src/domain/canvas/ids.js";
import type { Canvas } from "../../../src/domain/canvas/canvas.js";
import type { ColumnSpec } from "../../../src/domain/canvas/tables.js";
import { loadDuckDb } from "../../../src/domain/canvas/duckdb.js";
import { leadingName, lockedDownOptions } from "../../../src/domain/canvas/sql-guard.js";
import { PathGuardError, safeJoin } from "../../../src/domain/canvas/paths.js";
import { jsonInteger, jsonNumber } from "../../../src/domain/canvas/values.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";
import { createChemblDataframeDescribeTool } from "../../../src/tools/chembl_dataframe_describe.js";
import { createChemblDataframeDropTool } from "../../../src/tools/chembl_dataframe_drop.js";
import { allTools } from "../../../src/tools/index.js";
import { createAjv } from "../../../src/server/registry.js";
import { callTool, fails, ok } from "../../fixtures/chembl/harness.js";

const COLUMNS: ColumnSpec[] = [
  { name: "activity_id", type: "BIGINT", description: "id" },
  { name: "molecule_chembl_id", type: "VARCHAR", description: "molecule" },
  { name: "standard_type", type: "VARCHAR", description: "type" },
  { name: "pchembl_value", type: "DOUBLE", description: "potency" },
  { name: "document_year", type: "INTEGER", description: "year" },
  { name: "potential_duplicate", type: "BOOLEAN", description: "dup" },
];

function rows(n: number, offset = 0): Array<Array<string | number | boolean | null>> {
  return Array.from({ length: n }, (_, i) => [
    offset + i + 1,
    `CHEMBL${1000 + ((offset + i) % 97)}`,
    i % 3 === 0 ? "Ki" : "IC50",
    i % 5 === 0 ? null : 5 + (i % 40) / 10,
    2000 + (i % 20),
    i % 7 === 0,
  ]);
}

let manager: CanvasManager;
let canvas: Canvas;
const tools = () => ({
  query: createChemblDataframeQueryTool(() => manager),
  describe: createChemblDataframeDescribeTool(() => manager),
  drop: createChemblDataframeDropTool(() => manager),
});

before(async () => {
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 }, { queryTimeoutMs: 700 });
  canvas = await manager.create();
  await canvas.stage("bioactivities", COLUMNS, rows(3000), { potency_view: "potency_ranked", total_count: 3000, truncated: false, truncated_by: null });
});
after(() => manager.close());

async function count(c: Canvas, table = "bioactivities"): Promise<number> {
  const r = await c.query(`SELECT count(*) AS n FROM ${table}`, { maxRows: 1, maxBytes: 1000 });
  return r.rows[0]!.n as number;
}

describe("the DuckDB instance is locked down", () => {
  test("its options switch external access off, lock the configuration last and keep an in-memory canvas off disk", () => {
    const o = lockedDownOptions({ memoryLimitMb: 256, threads: 2, inMemory: true });
    assert.equal(o.enable_external_access, "false");
    assert.equal(o.autoinstall_known_extensions, "false");
    assert.equal(o.autoload_known_extensions, "false");
    assert.equal(o.temp_directory, "");
    assert.equal(o.memory_limit, "256MB");
    assert.equal(Object.keys(o).at(-1), "lock_configuration");
    assert.ok(Object.keys(o).indexOf("temp_directory") < Object.keys(o).indexOf("enable_external_access"));
  });

  test("past the SQL check, DuckDB itself refuses files, extensions, settings and attachments", async () => {
    // A raw connection to the same kind of instance, with no lexical check in front: the third lock alone.
    const duckdb = await loadDuckDb();
    const instance = await duckdb.DuckDBInstance.create(":memory:", lockedDownOptions({ memoryLimitMb: 64, threads: 1, inMemory: true }));
    const c = await instance.connect();
    try {
      for (const sql of [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM '/etc/passwd'",
        `COPY (SELECT 1) TO '${join(tmpdir(), "chematic-canvas-never.csv")}'`,
        `ATTACH '${join(tmpdir(), "chematic-canvas-never.duckdb")}' AS x`,
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "SET memory_limit = '8GB'",
        "RESET enable_external_access",
      ]) {
        await assert.rejects(c.run(sql), (e: Error) => /Permission Error|locked|Catalog Error|disabled/i.test(e.message), sql);
      }
      assert.ok(!existsSync(join(tmpdir(), "chematic-canvas-never.csv")));
      const setting = await c.runAndReadAll("SELECT value FROM duckdb_settings() WHERE name = 'enable_external_access'");
      assert.equal(setting.getRowsJson()[0]![0], "false");
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });
});

describe("chembl_dataframe_query refuses with typed errors", () => {
  const attempts: Array<[string, string, string]> = [
    ["read_csv", "SELECT * FROM read_csv('/etc/passwd')", "forbidden_function"],
    ["read_text", "SELECT * FROM read_text('/etc/passwd')", "forbidden_function"],
    ["glob", "SELECT * FROM glob('/etc/*')", "forbidden_function"],
    ["a quoted path as a table", "SELECT * FROM '/etc/passwd'", "file_path_as_table"],
    ["a double-quoted path as a table", 'SELECT * FROM "/etc/passwd"', "not_a_canvas_table"],
    ["a path after a comma", "SELECT * FROM bioactivities, '/etc/passwd'", "not_a_canvas_table"],
    ["a dotted file name", "SELECT * FROM data.csv", "not_a_canvas_table"],
    ["COPY ... TO", "COPY bioactivities TO '/tmp/stolen.csv'", "not_select"],
    ["COPY inside a SELECT", "SELECT 1 FROM (COPY bioactivities TO '/tmp/x.csv')", "forbidden_keyword"],
    ["ATTACH", "ATTACH ':memory:' AS other", "not_select"],
    ["INSTALL", "INSTALL httpfs", "not_select"],
    ["LOAD", "LOAD httpfs", "not_select"],
    ["SET", "SET enable_external_access = true", "not_select"],
    ["PRAGMA", "PRAGMA database_list", "not_select"],
    ["stacked statements", "SELECT 1; DROP TABLE bioactivities", "multiple_statements"],
    ["a statement after a line comment", "SELECT 1 -- x\n; ATTACH ':memory:' AS x", "multiple_statements"],
    ["a nested block comment", "SELECT 1 /* /* */ ; DROP TABLE bioactivities; /* */", "unsupported_syntax"],
    ["an escape-string trick", "SELECT E'\\'; DROP TABLE bioactivities; --'", "unsupported_syntax"],
    ["settings", "SELECT * FROM duckdb_settings()", "forbidden_function"],
    ["another catalog", "SELECT * FROM other_db.main.bioactivities", "not_a_canvas_table"],
    ["a system table", "SELECT * FROM system.main.some_table", "not_a_canvas_table"],
    ["a system view (database paths)", "SELECT path FROM duckdb_databases", "system_catalog"],
    ["a quoted system view", 'SELECT * FROM bioactivities WHERE activity_id IN (SELECT 1 FROM "pragma_database_list")', "system_catalog"],
    ["settings through pg_catalog", "SELECT * FROM pg_catalog.pg_settings", "system_catalog"],
    ["information_schema", "SELECT * FROM information_schema.columns", "not_a_canvas_table"],
    ["a table function that is not a row generator", "SELECT * FROM test_all_types()", "forbidden_function"],
    ["a CTE cannot shadow its way to a file", 'WITH t AS (SELECT 1) SELECT * FROM t, "data.csv"', "not_a_canvas_table"],
  ];
  for (const [what, sql, reason] of attempts) {
    test(what, async () => {
      const e = await fails(tools().query, { canvas_id: canvas.id, sql });
      assert.equal(e.code, "QUERY_REFUSED", `${what}: ${e.message}`);
      assert.equal(e.details.reason, reason, `${what}: ${e.message}`);
      assert.ok(e.hint.length > 20);
    });
  }

  test("string-literal and comment tricks stay data or comments: nothing they spell runs", async () => {
    const { value } = await ok(tools().query, {
      canvas_id: canvas.id,
      sql: "SELECT 'x''; ATTACH ''/tmp/x.db'' AS x; --' AS s, /* ; COPY bioactivities TO '/tmp/y.csv' */ count(*) AS n FROM bioactivities -- ; DROP TABLE bioactivities",
    });
    assert.deepEqual(value.rows, [{ s: "x'; ATTACH '/tmp/x.db' AS x; --", n: 3000 }]);
    assert.ok(!existsSync("/tmp/x.db") && !existsSync("/tmp/y.csv"));
  });

  test("after every refusal the staged table is intact", async () => {
    assert.equal(await count(canvas), 3000);
    assert.ok(!existsSync("/tmp/stolen.csv"));
  });

  test("a syntax or binding error is INVALID_ARGUMENTS carrying DuckDB's message; an unknown canvas CANVAS_NOT_FOUND", async () => {
    const e = await fails(tools().query, { canvas_id: canvas.id, sql: "SELECT no_such_column FROM bioactivities" });
    assert.equal(e.code, "INVALID_ARGUMENTS");
    assert.match(e.details.duckdb_error as string, /no_such_column/);
    const missing = await fails(tools().query, { canvas_id: newCanvasId(), sql: "SELECT 1" });
    assert.equal(missing.code, "CANVAS_NOT_FOUND");
    assert.match(missing.hint, /chembl_get_bioactivities/);
  });
});

describe("a runaway query", () => {
  test("is cut at its timeout; the canvas answers the next query and the table is intact", async () => {
    const started = Date.now();
    const e = await fails(tools().query, { canvas_id: canvas.id, sql: "SELECT count(*) FROM bioactivities a, bioactivities b, bioactivities c" });
    const took = Date.now() - started;
    assert.equal(e.code, "QUERY_TIMEOUT");
    assert.equal(e.details.timeout_ms, 700);
    assert.ok(took >= 650 && took < 5_000, `cut after ${took} ms`);
    const recursive = await fails(tools().query, {
      canvas_id: canvas.id,
      sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
    });
    assert.equal(recursive.code, "QUERY_TIMEOUT");
    assert.equal(await count(canvas), 3000);
    const { value } = await ok(tools().query, { canvas_id: canvas.id, sql: "SELECT sum(activity_id) AS s FROM bioactivities" });
    assert.equal((value.rows as Array<Record<string, unknown>>)[0]!.s, (3000 * 3001) / 2);
  });
});

describe("table references", () => {
  test("the canvas's own tables may be aliased, qualified, quoted and sampled", async () => {
    for (const sql of [
      "SELECT count(*) AS n FROM bioactivities a JOIN bioactivities AS b USING (activity_id)",
      'SELECT count(*) AS n FROM main.bioactivities t, "bioactivities" AS "x y" WHERE t.activity_id = "x y".activity_id',
      "SELECT count(*) AS n FROM memory.main.bioactivities",
      "WITH t AS (SELECT * FROM bioactivities) SELECT count(*) AS n FROM t",
      "SELECT count(*) AS n FROM (SELECT * FROM bioactivities TABLESAMPLE 100%)",
    ]) {
      const { value } = await ok(tools().query, { canvas_id: canvas.id, sql });
      assert.equal((value.rows as Array<Record<string, unknown>>)[0]!.n, 3000, sql);
    }
  });

  test("leadingName reads DuckDB's qualified references", () => {
    assert.deepEqual(leadingName("bioactivities AS a"), ["bioactivities"]);
    assert.deepEqual(leadingName('memory.main."bio.activities" AS "x y"'), ["memory", "main", "bio.activities"]);
    assert.deepEqual(leadingName('"/etc/passwd" AS p'), ["/etc/passwd"]);
    assert.deepEqual(leadingName('"a""b"'), ['a"b']);
  });
});

describe("results", () => {
  test("BIGINT, NaN and infinities serialise to valid JSON; types are named", async () => {
    const { value, text } = await ok(tools().query, {
      canvas_id: canvas.id,
      sql: "SELECT 9007199254740993::BIGINT AS big, 42::BIGINT AS small, 'NaN'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::FLOAT AS ninf, 1.25::DECIMAL(5,2) AS dec, [1, 2] AS list, {'a': 1} AS st, DATE '2024-01-02' AS day",
    });
    const row = (value.rows as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual(row, {
      big: "9007199254740993",
      small: 42,
      nan: "NaN",
      inf: "Infinity",
      ninf: "-Infinity",
      dec: 1.25,
      list: [1, 2],
      st: { a: 1 },
      day: "2024-01-02",
    });
    assert.deepEqual(
      (value.columns as Array<{ name: string; type: string }>).map((c) => c.type),
      ["BIGINT", "BIGINT", "DOUBLE", "DOUBLE", "FLOAT", "DECIMAL(5,2)", "INTEGER[]", 'STRUCT("a" INTEGER)', "DATE"],
    );
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(value)));
    assert.match(text, /\| big \| small \|/);
    assert.equal(jsonInteger(2n ** 64n), "18446744073709551616");
    assert.equal(jsonInteger(-5n), -5);
    assert.equal(jsonNumber(Number.NEGATIVE_INFINITY), "-Infinity");
  });

  test("SELECT 1 AS load runs: a keyword as an alias passes both the lexical and DuckDB's checks", async () => {
    const { value } = await ok(tools().query, {
      canvas_id: canvas.id,
      sql: "SELECT 1 AS load, b.activity_id AS set FROM bioactivities AS b ORDER BY 2 LIMIT 1",
    });
    assert.deepEqual(value.rows, [{ load: 1, set: 1 }]);
    assert.equal((await fails(tools().query, { canvas_id: canvas.id, sql: "LOAD httpfs" })).details.reason, "not_select");
  });

  test("output is capped in rows and in bytes, and says so", async () => {
    const byRows = await ok(tools().query, { canvas_id: canvas.id, sql: "SELECT * FROM bioactivities ORDER BY activity_id", max_rows: 10 });
    assert.equal(byRows.value.returned, 10);
    assert.equal(byRows.value.truncated, true);
    assert.equal(byRows.value.truncated_by, "row_cap");
    const all = await ok(tools().query, { canvas_id: canvas.id, sql: "SELECT activity_id FROM bioactivities ORDER BY activity_id LIMIT 5", max_rows: 10 });
    assert.deepEqual([all.value.returned, all.value.truncated, all.value.truncated_by], [5, false, null]);
    const byBytes = await ok(tools().query, { canvas_id: canvas.id, sql: "SELECT activity_id, repeat('x', 2000) AS pad FROM bioactivities", max_rows: 1000 });
    assert.equal(byBytes.value.truncated_by, "byte_cap");
    assert.ok(Buffer.byteLength(JSON.stringify(byBytes.value.rows)) <= 128 * 1024);
    assert.ok((byBytes.value.returned as number) > 10 && (byBytes.value.returned as number) < 100);
  });
});

/**
 * A manager whose connections report each statement they run before running it, so a test can cancel at
 * an exact point of a stage (the real DuckDB underneath).
 */
async function observedManager(onRun: (sql: string) => void): Promise<CanvasManager> {
  const real = await loadDuckDb();
  const bind = <T extends object>(target: T, prop: string | symbol): unknown => {
    const v = Reflect.get(target, prop) as unknown;
    return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  };
  const wrapConnection = (c: object) =>
    new Proxy(c, {
      get: (t, p) =>
        p === "run"
          ? (sql: string, ...rest: unknown[]) => {
              onRun(sql);
              return (t as { run: (...a: unknown[]) => unknown }).run(sql, ...rest);
            }
          : bind(t, p),
    });
  const wrapInstance = (i: object) =>
    new Proxy(i, { get: (t, p) => (p === "connect" ? async () => wrapConnection(await (t as { connect: () => Promise<object> }).connect()) : bind(t, p)) });
  const module = Object.create(real) as typeof real;
  Object.defineProperty(module, "DuckDBInstance", {
    value: { create: async (...a: Parameters<typeof real.DuckDBInstance.create>) => wrapInstance(await real.DuckDBInstance.create(...a)) },
  });
  return new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 }, { loader: () => Promise.resolve(module) });
}

describe("a cancellation while a table is staged", () => {
  test("one that arrives during the swap, before its COMMIT, leaves the earlier table exactly as it was", async () => {
    const cancel = new AbortController();
    let armed = false;
    const m = await observedManager((sql) => {
      if (armed && sql.startsWith("ALTER TABLE")) cancel.abort();
    });
    try {
      const c = await m.create();
      await c.stage("bioactivities", COLUMNS, rows(10), { n: 10 });
      armed = true;
      await assert.rejects(c.stage("bioactivities", COLUMNS, rows(20), { n: 20 }, cancel.signal));
      assert.equal(await count(c), 10, "the earlier table");
      assert.deepEqual(c.tables.get("bioactivities")!.provenance, { n: 10 }, "and its description");
      assert.deepEqual([...new Set((await c.inspect()).map((r) => r.table_name))], ["bioactivities"], "the staging table is gone");
    } finally {
      await m.close();
    }
  });

  test("one that arrives once COMMIT is sent finds the new table in place, and the stage answers what it did", async () => {
    const cancel = new AbortController();
    let armed = false;
    const m = await observedManager((sql) => {
      if (armed && sql === "COMMIT") cancel.abort();
    });
    try {
      const c = await m.create();
      await c.stage("bioactivities", COLUMNS, rows(10), { n: 10 });
      armed = true;
      const meta = await c.stage("bioactivities", COLUMNS, rows(20), { n: 20 }, cancel.signal);
      assert.equal(meta.row_count, 20);
      assert.equal(await count(c), 20);
      assert.deepEqual(c.tables.get("bioactivities")!.provenance, { n: 20 });
    } finally {
      await m.close();
    }
  });
});

describe("writes", () => {
  test("a failed stage leaves the earlier table; concurrent stages are serialised and the last one wins", async () => {
    const c = await manager.create();
    await c.stage("bioactivities", COLUMNS, rows(10), {});
    const bad = [...rows(5), [6, "CHEMBL1", "IC50", 5.5, 2000, true], ["not-an-integer", "CHEMBL2", "IC50", 5, 2000, false]];
    await assert.rejects(c.stage("bioactivities", COLUMNS, bad, {}), /not an integer/);
    assert.equal(await count(c), 10);
    assert.deepEqual([...new Set((await c.inspect()).map((r) => r.table_name))], ["bioactivities"], "the staging table is gone");
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(c.stage("bioactivities", COLUMNS, rows(20), {}, aborted.signal));
    assert.equal(await count(c), 10);
    const sizes = [100, 7, 300, 42];
    const order: number[] = [];
    await Promise.all(sizes.map((n) => c.stage("bioactivities", COLUMNS, rows(n), { n }).then(() => order.push(n))));
    assert.deepEqual(order, sizes, "each write took its turn");
    assert.equal(await count(c), 42);
    assert.equal(c.tables.get("bioactivities")!.row_count, 42);
  });

  test("column types are the declared ones, never inferred from the rows", async () => {
    const c = await manager.create();
    await c.stage("bioactivities", COLUMNS, [[1, "CHEMBL1", "IC50", 7, 2001, false]], {});
    assert.deepEqual(
      (await c.inspect()).map((x) => [x.column_name, x.data_type]),
      COLUMNS.map((col) => [col.name, col.type]),
    );
  });
});

describe("canvases", () => {
  test("IDs carry at least 128 random bits and match the published pattern", () => {
    const origin = { replica: "r1", run: "AbC9" };
    const ids = new Set(Array.from({ length: 1000 }, () => newCanvasId(origin)));
    assert.equal(ids.size, 1000);
    for (const id of ids) {
      assert.ok(isCanvasId(id));
      // 24 base-62 characters after the replica's name and run tag: 24 log2(62) = 142.9 bits.
      const random = /^cv_r1_AbC9([A-Za-z0-9]{24})$/.exec(id)?.[1];
      assert.ok(random !== undefined, id);
      assert.ok(random.length * Math.log2(62) >= 128);
    }
    assert.ok(!isCanvasId("cv_../../../../etc/passwd"));
    assert.ok(!isCanvasId(`${newCanvasId()}x`));
  });

  test("a canvas sees only its own tables", async () => {
    const other = await manager.create();
    await other.stage("bioactivities_null_potency", COLUMNS, rows(3), {});
    const e = await fails(tools().query, { canvas_id: canvas.id, sql: "SELECT * FROM bioactivities_null_potency" });
    assert.equal(e.details.reason, "not_a_canvas_table");
    assert.deepEqual([...new Set((await other.inspect()).map((r) => r.table_name))], ["bioactivities_null_potency"], "its instance holds nothing else");
    assert.ok(!(await canvas.inspect()).some((r) => r.table_name === "bioactivities_null_potency"));
  });

  test("describe lists tables, columns and provenance", async () => {
    const { value, text } = await ok(tools().describe, { canvas_id: ` ${canvas.id} ` });
    const [t] = value.tables as Array<Record<string, unknown>>;
    assert.equal(t!.name, "bioactivities");
    assert.equal(t!.row_count, 3000);
    assert.equal(t!.potency_view, "potency_ranked");
    assert.equal(t!.total_count, 3000);
    assert.deepEqual(
      (t!.columns as Array<{ name: string; type: string }>).map((c) => c.type),
      ["BIGINT", "VARCHAR", "VARCHAR", "DOUBLE", "INTEGER", "BOOLEAN"],
    );
    assert.equal(value.idle_expiry_minutes, 30);
    assert.match(text, /\*\*Table\*\* `bioactivities`/);
    assert.ok(text.includes(`\`${canvas.id}\``), "the ID is in a code span, copyable as is");
  });

  test("an idle canvas expires after 30 minutes; its ID then answers CANVAS_NOT_FOUND saying to re-run the spill", async () => {
    let now = 1_000_000;
    const m = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 }, { now: () => now });
    try {
      const c = await m.create();
      await c.stage("bioactivities", COLUMNS, rows(5), {});
      now += 29 * 60_000;
      assert.equal((await m.get(c.id)).id, c.id, "still there; the call touched it");
      now += 30 * 60_000 + 1;
      assert.deepEqual(m.sweep(), [c.id]);
      const e = await assert.rejects(m.get(c.id), (err: ToolError) => err.code === "CANVAS_NOT_FOUND");
      void e;
      const q = createChemblDataframeQueryTool(() => m);
      const err = await fails(q, { canvas_id: c.id, sql: "SELECT 1" });
      assert.equal(err.code, "CANVAS_NOT_FOUND");
      assert.match(err.message, /expired after 30 minutes/);
      assert.match(err.hint, /Re-run chembl_get_bioactivities/);
      assert.equal(m.size, 0);
    } finally {
      await m.close();
    }
  });

  test("at most maxCanvases exist: the least recently used idle one makes room; when all are held, BUSY", async () => {
    let now = 0;
    const m = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 }, { maxCanvases: 3, now: () => ++now });
    try {
      const [a, b, c] = [await m.create(), await m.create(), await m.create()];
      await m.get(a.id); // a is now the most recently used
      const d = await m.create();
      assert.deepEqual(m.ids().sort(), [a.id, c.id, d.id].sort(), "b (least recently used) was closed");
      assert.equal(
        (
          await fails(
            createChemblDataframeDescribeTool(() => m),
            { canvas_id: b.id },
          )
        ).message.includes("to make room"),
        true,
      );
      // Held until the test lets go (not for a fixed time): the refusal is checked while all three are in use.
      let release = () => {};
      const inUse = new Promise<void>((r) => (release = r));
      const holds = [a, c, d].map((x) => x.hold(() => inUse));
      await assert.rejects(m.create(), (e: ToolError) => e.code === "BUSY");
      release();
      await Promise.all(holds);
      assert.equal(m.memoryLimitMb, 256);
    } finally {
      await m.close();
    }
  });

  test("the canvas memory limit holds: a query over it is refused, not the server", async () => {
    const m = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 }, { memoryLimitMb: 32, queryTimeoutMs: 10_000 });
    try {
      const c = await m.create();
      await c.stage("bioactivities", COLUMNS, rows(10), {});
      const e = await fails(
        createChemblDataframeQueryTool(() => m),
        { canvas_id: c.id, sql: "SELECT list(range) AS l FROM range(100000000)" },
      );
      assert.equal(e.code, "QUERY_REFUSED");
      assert.equal(e.details.reason, "memory_limit");
      assert.equal(await count(c), 10);
    } finally {
      await m.close();
    }
  });
});

describe("chembl_dataframe_drop", () => {
  test("is not registered unless CHEMBL_DATAFRAME_DROP_ENABLED is true", () => {
    assert.ok(!allTools({}).some((t) => t.name === "chembl_dataframe_drop"));
    assert.ok(!allTools({ CHEMBL_DATAFRAME_DROP_ENABLED: "false" }).some((t) => t.name === "chembl_dataframe_drop"));
    const on = allTools({ CHEMBL_DATAFRAME_DROP_ENABLED: "true" });
    const drop = on.find((t) => t.name === "chembl_dataframe_drop");
    assert.ok(drop);
    const ajv = createAjv();
    assert.doesNotThrow(() => ajv.compile(drop.inputSchema));
    assert.doesNotThrow(() => ajv.compile(drop.outputSchema));
    assert.equal(drop.annotations.destructiveHint, true);
    for (const name of ["chembl_dataframe_query", "chembl_dataframe_describe"])
      assert.ok(
        allTools({}).some((t) => t.name === name),
        name,
      );
    assert.throws(
      () => loadConfig({ CHEMBL_DATAFRAME_DROP_ENABLED: "sure" }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith("CHEMBL_DATAFRAME_DROP_ENABLED"),
    );
  });

  test("drops a table, then the whole canvas", async () => {
    const c = await manager.create();
    await c.stage("bioactivities", COLUMNS, rows(3), {});
    await c.stage("bioactivities_null_potency", COLUMNS, rows(3), {});
    const one = await ok(tools().drop, { canvas_id: c.id, table: "bioactivities" });
    assert.deepEqual(one.value.remaining_tables, ["bioactivities_null_potency"]);
    const e = await fails(tools().query, { canvas_id: c.id, sql: "SELECT * FROM bioactivities" });
    assert.equal(e.details.reason, "not_a_canvas_table");
    const all = await ok(tools().drop, { canvas_id: c.id });
    assert.equal(all.value.dropped, "canvas");
    assert.equal((await fails(tools().describe, { canvas_id: c.id })).code, "CANVAS_NOT_FOUND");
  });
});

describe("canvas off", () => {
  test("CHEMATIC_CANVAS=off, or a DuckDB binding that cannot load: the dataframe tools answer CANVAS_DISABLED", async () => {
    const off = new CanvasManager(loadCanvasConfig({ CHEMATIC_CANVAS: "off" }));
    const missing = new CanvasManager(
      { enabled: true, dir: null, maxSpillRows: 100 },
      { loader: () => Promise.reject(new Error("Cannot find module '@duckdb/node-bindings-linux-x64'")) },
    );
    for (const [m, why] of [
      [off, /CHEMATIC_CANVAS=off/],
      [missing, /could not load/],
    ] as const) {
      assert.equal(await m.available(), false);
      for (const tool of [createChemblDataframeQueryTool(() => m), createChemblDataframeDescribeTool(() => m), createChemblDataframeDropTool(() => m)]) {
        const args = tool.name === "chembl_dataframe_query" ? { canvas_id: newCanvasId(), sql: "SELECT 1" } : { canvas_id: newCanvasId() };
        const r = await callTool(tool, args);
        assert.ok(!r.ok);
        assert.equal(r.error.code, "CANVAS_DISABLED");
        assert.match(r.error.message, why);
        assert.match(r.error.hint, /nextCursor/);
      }
    }
  });

  test("CHEMATIC_CANVAS parses strictly", () => {
    assert.equal(loadCanvasConfig({}).enabled, true);
    assert.equal(loadCanvasConfig({ CHEMATIC_CANVAS: "DuckDB" }).enabled, true);
    assert.equal(loadCanvasConfig({}).maxSpillRows, 50_000);
    assert.equal(loadCanvasConfig({ CHEMBL_MAX_SPILL_ROWS: "1000" }).maxSpillRows, 1000);
    for (const [name, value] of [
      ["CHEMATIC_CANVAS", "sqlite"],
      ["CHEMBL_MAX_SPILL_ROWS", "0"],
      ["CHEMBL_MAX_SPILL_ROWS", "lots"],
      ["CHEMATIC_CANVAS_DIR", "relative/dir"],
    ] as const) {
      assert.throws(
        () => loadCanvasConfig({ [name]: value }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith(name) && !e.message.includes("\n"),
        `${name}=${value}`,
      );
    }
  });
});

describe("CHEMATIC_CANVAS_DIR and derived paths", () => {
  let base: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), "chematic-canvas-test-"));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  test("the directory must be absolute, free of . and .. segments, existing and a directory", () => {
    mkdirSync(join(base, "real"));
    writeFileSync(join(base, "file"), "x");
    symlinkSync(join(base, "real"), join(base, "link"));
    assert.equal(parseCanvasDir("CHEMATIC_CANVAS_DIR", join(base, "link")), join(base, "real"), "the real path");
    for (const bad of [`${base}/real/../real`, `${base}/./real`, "real", `${base}/missing`, `${base}/file`, `${base}/real\u0000x`, "/"]) {
      assert.throws(
        () => parseCanvasDir("CHEMATIC_CANVAS_DIR", bad),
        (e: Error) => e instanceof ConfigError && e.message.startsWith("CHEMATIC_CANVAS_DIR"),
        bad,
      );
    }
    assert.equal(parseCanvasDir("CHEMATIC_CANVAS_DIR", ""), null);
  });

  test("safeJoin accepts one plain segment and nothing that leaves the base", () => {
    assert.equal(safeJoin(base, "cv_abc.duckdb"), join(base, "cv_abc.duckdb"));
    for (const bad of ["..", ".", "../x", "a/b", "a\\b", "/etc/passwd", "", "x\u0000", "..duckdb", "cv_x/../../y"]) {
      assert.throws(() => safeJoin(base, bad), PathGuardError, JSON.stringify(bad));
    }
    assert.throws(() => safeJoin("relative", "x"), PathGuardError);
  });

  test("file-backed canvases live directly in the directory: a drop deletes their data, the server's close keeps it", async () => {
    const dir = parseCanvasDir("CHEMATIC_CANVAS_DIR", join(base, "real"))!;
    const m = new CanvasManager({ enabled: true, dir, maxSpillRows: 100 });
    const c = await m.create();
    await c.stage("bioactivities", COLUMNS, rows(50), {});
    assert.equal(c.file, join(dir, `${c.id}.duckdb`));
    assert.ok(existsSync(c.file));
    assert.equal(await count(c), 50);
    const e = await fails(
      createChemblDataframeQueryTool(() => m),
      { canvas_id: c.id, sql: "SELECT * FROM duckdb_databases()" },
    );
    assert.equal(e.code, "QUERY_REFUSED");
    await m.release(c.id);
    assert.ok(!existsSync(c.file));
    assert.deepEqual(readdirSync(dir), [`${c.id}.json`], "a dropped canvas leaves its tombstone only");
    const c2 = await m.create();
    await m.close();
    assert.ok(existsSync(c2.file!), "the server's close leaves a file-backed canvas on disk");
    assert.ok(existsSync(join(dir, `${c2.id}.json`)));
  });
});
