/**
 * The lexical lock of chembl_dataframe_query: what it accepts, what it refuses and why (details.reason),
 * including comment and string-literal tricks. DuckDB's own checks are tested in canvas.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../../src/domain/errors.js";
import { MAX_SQL_LENGTH, checkReadOnlySql, tokenize } from "../../../src/domain/canvas/sql-guard.js";

function refused(sql: string): { reason: string; message: string } {
  try {
    checkReadOnlySql(sql);
  } catch (e) {
    assert.ok(e instanceof ToolError, String(e));
    assert.equal(e.code, "QUERY_REFUSED", sql);
    return { reason: e.details.reason as string, message: e.message };
  }
  assert.fail(`accepted: ${sql}`);
}

test("one SELECT or WITH is accepted; a trailing semicolon and comments are dropped from what runs", () => {
  for (const sql of [
    "SELECT 1",
    "select * from bioactivities where standard_type = 'IC50' order by pchembl_value desc limit 5",
    "WITH t AS (SELECT * FROM bioactivities) SELECT count(*) FROM t",
    "(SELECT 1) UNION ALL (SELECT 2)",
    "SELECT 'it''s; ATTACH COPY read_csv(' AS s",
    'SELECT "set", "copy" FROM bioactivities',
    "SELECT 1 -- ; ATTACH 'x'\n",
    "SELECT /* COPY t TO 'x' */ 1",
    "SELECT 1;",
    "SELECT 1; -- trailing comment",
    "SELECT count(*) FILTER (WHERE activity_comment ILIKE '%not active%') FROM bioactivities_null_potency",
    "SELECT 1.5e-3, .5, 10",
    "SELECT 'µM' AS unit",
  ]) {
    assert.doesNotThrow(() => checkReadOnlySql(sql), sql);
  }
  assert.equal(checkReadOnlySql("SELECT 1;  -- done").sql, "SELECT 1");
  assert.equal(checkReadOnlySql("SELECT 2").sql, "SELECT 2");
});

test("stacked statements are refused, whatever hides the second one", () => {
  for (const sql of [
    "SELECT 1; SELECT 2",
    "SELECT 1; DROP TABLE bioactivities",
    "SELECT 1 /* x */; ATTACH 'evil.db'",
    "SELECT 1 --x\n; COPY bioactivities TO '/tmp/x.csv'",
    "SELECT ';'; INSTALL httpfs",
  ]) {
    assert.equal(refused(sql).reason, "multiple_statements", sql);
  }
});

test("only SELECT and WITH may start the statement", () => {
  for (const sql of [
    "ATTACH 'x.db' AS x",
    "COPY bioactivities TO '/tmp/out.csv'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "PRAGMA version",
    "DESCRIBE bioactivities",
    "FROM bioactivities",
    "VALUES (1)",
    "CALL pragma_version()",
    "EXPLAIN SELECT 1",
    "/* SELECT */ COPY t TO 'x'",
    "-- SELECT\nATTACH 'x'",
  ]) {
    assert.equal(refused(sql).reason, "not_select", sql);
  }
});

test("statement keywords are refused anywhere outside literals", () => {
  for (const [sql, keyword] of [
    ["WITH x AS (SELECT 1) INSERT INTO bioactivities SELECT * FROM x", "INSERT"],
    ["SELECT * FROM bioactivities WHERE 1 = 1 UNION SELECT * FROM (ATTACH 'x')", "ATTACH"],
    ["SELECT 1 INTO t", "INTO"],
    ["SELECT (SELECT 1) AS a, set FROM t", "SET"],
    ["SELECT * FROM bioactivities PIVOT (count(*) FOR standard_type IN ('IC50'))", "PIVOT"],
    ["SELECT 1 WHERE EXISTS (COPY t TO 'x')", "COPY"],
  ]) {
    const r = refused(sql!);
    assert.equal(r.reason, "forbidden_keyword", sql);
    assert.match(r.message, new RegExp(`^${keyword}`));
  }
});

test("file readers and server-state functions are refused, qualified or spaced", () => {
  for (const [sql, fn] of [
    ["SELECT * FROM read_csv('/etc/passwd')", "read_csv"],
    ["SELECT * FROM read_text('/etc/passwd')", "read_text"],
    ["SELECT * FROM read_parquet('x.parquet')", "read_parquet"],
    ["SELECT * FROM glob('/etc/*')", "glob"],
    ["SELECT * FROM Read_Csv_Auto ('/etc/passwd')", "read_csv_auto"],
    ["SELECT * FROM system.main.read_blob('/etc/hostname')", "read_blob"],
    ["SELECT * FROM parquet_scan('x')", "parquet_scan"],
    ["SELECT * FROM query('SELECT 1')", "query"],
    ["SELECT * FROM query_table('bioactivities')", "query_table"],
    ["SELECT * FROM duckdb_settings()", "duckdb_settings"],
    ["SELECT * FROM duckdb_databases()", "duckdb_databases"],
    ["SELECT * FROM pragma_database_list()", "pragma_database_list"],
    ["SELECT current_setting('temp_directory')", "current_setting"],
    ["SELECT getenv('HOME')", "getenv"],
    ["SELECT * FROM sniff_csv('/etc/passwd')", "sniff_csv"],
    ["SELECT * FROM read_csv/**/('/etc/passwd')", "read_csv"],
    ["SELECT * FROM read_csv -- x\n ('/etc/passwd')", "read_csv"],
  ]) {
    const r = refused(sql!);
    assert.equal(r.reason, "forbidden_function", sql);
    assert.match(r.message, new RegExp(`^${fn}\\(\\)`), sql);
  }
  assert.equal(refused("SELECT * FROM \"read_csv\"('/etc/passwd')").reason, "forbidden_function");
});

test("a string literal where a table belongs is refused (replacement scans read files)", () => {
  for (const sql of [
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM bioactivities JOIN '/etc/hosts' ON true",
    "select * from\n'data.csv'",
    "SELECT * FROM /* c */ 'x.parquet'",
  ]) {
    assert.equal(refused(sql).reason, "file_path_as_table", sql);
  }
});

test("lexical forms the checker will not second-guess DuckDB on are refused", () => {
  for (const sql of [
    "SELECT E'\\' ; ATTACH \\''",
    "SELECT x'41'",
    "SELECT $$a$$",
    "SELECT $1",
    "SELECT `x` FROM t",
    "SELECT 1 /* nested /* comment */ ATTACH 'x' */",
    "SELECT 1 /* unterminated",
    "SELECT 'unterminated",
    'SELECT "unterminated',
    "SELECT\u00a01",
    "SELECT 1\u0000",
    "SELECT ｓelect",
  ]) {
    assert.equal(refused(sql).reason, "unsupported_syntax", JSON.stringify(sql));
  }
});

test("empty and overlong input", () => {
  assert.equal(refused("").reason, "empty");
  assert.equal(refused("  -- nothing\n /* here */ ").reason, "empty");
  assert.equal(refused(";").reason, "empty");
  assert.equal(refused(`SELECT ${"1+".repeat(MAX_SQL_LENGTH)}1`).reason, "too_long");
});

test("the tokenizer reads doubled quotes and keeps literals apart from words", () => {
  const tokens = tokenize(`SELECT 'a''b' AS "c""d", e FROM t`);
  assert.deepEqual(
    tokens.map((t) => [t.kind, t.value]),
    [
      ["word", "SELECT"],
      ["string", "a'b"],
      ["word", "AS"],
      ["quoted", 'c"d'],
      ["punct", ","],
      ["word", "E"],
      ["word", "FROM"],
      ["word", "T"],
    ],
  );
});

test("a keyword used as a name (SELECT 1 AS load, t.load) is a name; the statements themselves stay refused", () => {
  for (const sql of ["SELECT 1 AS load", "SELECT 1 AS LOAD, 2 AS set, 3 AS copy", "SELECT b.load FROM bioactivities AS b", "SELECT 1 AS load;"]) {
    assert.doesNotThrow(() => checkReadOnlySql(sql), sql);
  }
  assert.equal(refused("LOAD httpfs").reason, "not_select");
  assert.equal(refused("SELECT 1; LOAD httpfs").reason, "multiple_statements");
  for (const sql of [
    "SELECT load FROM bioactivities",
    "SELECT 1 FROM bioactivities WHERE x IN (LOAD httpfs)",
    "WITH t AS (LOAD httpfs) SELECT 1",
    "SELECT 1 AS x LOAD y",
  ]) {
    assert.equal(refused(sql).reason, "forbidden_keyword", sql);
  }
});
