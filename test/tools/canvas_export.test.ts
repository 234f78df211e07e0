/**
 * canvas_export (issue 32 item 1): a canvas table or a query's rows written as SDF, CSV or Parquet into
 * CHEMATIC_EXPORT_DIR, through the server and its real worker pool. The files are read back by other readers than
 * ours: native RDKit (SDF: every record's molecule and every data item), Python's csv module (CSV) and a fresh DuckDB
 * (Parquet). Bad input: off without the directory, a path outside it (absolute, '..', through a symlink), a name
 * taken without overwrite, a full disk (a 16 KiB tmpfs, when this process may mount one): each a typed error, and no
 * file, whole or partial, left behind.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { initCanvasManager, type CanvasManager } from "../../src/domain/canvas/manager.js";
import { createCanvasExportTool, exportUri } from "../../src/tools/canvas_export.js";
import { csvLine } from "../../src/domain/canvas/export.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";
import { createCanvasAnnotateTool } from "../../src/tools/canvas_annotate.js";
import { exportResourceProvider } from "../../src/resources/exports.js";
import { toolSuccess } from "../../src/server/shape.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../helpers/oracle.js";
import { testCanvasConfig } from "../helpers/canvas-config.js";
import { cellAsText, expectedDataItems, readBackSdf } from "../helpers/sdf-export.js";

type Row = Record<string, unknown>;
let manager: CanvasManager;
let pool: WorkerPool;
let server: McpServer;
let exportDir: string;
let canvasId: string;

/** Stereo, charges, a salt, a metal complex, a macrocycle, isotopes, an unparsable record and one without SMILES. */
const RECORDS: Array<[string, string, number | null, string]> = [
  ["A1", "C[C@H](N)C(=O)O", 5.2, "plain"],
  ["A2", "C/C=C/C(=O)O", 6.1, 'has "quotes", and a comma'],
  ["A3", "[Na+].[O-]C(=O)c1ccccc1", null, "salt"],
  ["A4", "C[N+](C)(C)CCOC(C)=O.[Cl-]", 4.4, "line one\nline two"],
  ["A5", "N.N.Cl[Pt]Cl", 7.0, " edge spaces "],
  ["A6", "O=C1CCCCCCCCCCCCCCC(=O)OCCCCCCCCCCO1", 3.3, "macrocycle"],
  ["A7", "[2H]C([2H])([2H])Oc1ccc2[nH]ccc2c1", 8.25, "isotopes"],
  ["A8", "C1CC1(", 1, "does not parse"],
  ["A9", "F[C@@H](Cl)Br", 0.000123, "$$$$ not an end"],
];

function csvOf(): string {
  const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
  return ["ID,smiles,activity,note", ...RECORDS.map(([id, s, a, n]) => [id, s, a === null ? "" : String(a), quote(n)].join(","))].join("\n");
}

before(async () => {
  exportDir = mkdtempSync(join(tmpdir(), "chematic-export-"));
  manager = initCanvasManager(testCanvasConfig({ exportDir }));
  pool = new WorkerPool({ size: 1 });
  const canvases = () => manager;
  server = new McpServer({
    tools: [createCanvasImportTool(canvases), createCanvasAnnotateTool(canvases), createCanvasExportTool(canvases)],
    pool,
    info: { name: "test", version: "0" },
    logger: silentLogger,
  });
  const imported = await call("canvas_import", { table: "library", csv: csvOf() });
  canvasId = imported.canvas_id as string;
  await call("canvas_annotate", { canvas_id: canvasId, table: "library", columns: ["mw", "logp", "hbd", "pains", "inchikey"] });
});
after(async () => {
  await pool.close();
  await manager.close();
  rmSync(exportDir, { recursive: true, force: true });
});

async function call(name: string, args: Row, owner?: string): Promise<Row> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal, ...(owner !== undefined ? { owner } : {}) });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** The table's rows as DuckDB reads them through a query of our own, as strings (what a text file holds). */
async function tableRows(): Promise<{ columns: string[]; rows: Array<Record<string, unknown>> }> {
  const canvas = await manager.get(canvasId);
  const r = await canvas.query("SELECT * FROM library ORDER BY _row", { maxRows: 1000, maxBytes: 10_000_000 });
  return { columns: r.columns.map((c) => c.name), rows: r.rows };
}

/** No temporary (or any other) file but `expected` in the export directory. */
function assertOnly(dir: string, expected: readonly string[]): void {
  assert.deepEqual(readdirSync(dir).sort(), [...expected].sort(), "files in the export directory");
}

test("SDF: every row a record (an unparsable one with an empty molblock), every non-NULL column a data item; native RDKit reads back the same molecules and values", async (t) => {
  const answer = await call("canvas_export", { canvas_id: canvasId, table: "library", file: "library.sdf" });
  const { columns, rows } = await tableRows();
  assert.equal(answer.rows, RECORDS.length);
  assert.equal(answer.format, "sdf");
  assert.equal(answer.smiles_column, "smiles");
  assert.deepEqual(answer.columns, columns);
  const path = join(exportDir, "library.sdf");
  assert.equal(answer.path, path);
  assert.equal(answer.uri, "chematic://export/library.sdf");
  const failedRows = rows.filter((r) => r.smiles === null).length;
  assert.equal(answer.molecules_failed, failedRows);
  assert.ok(failedRows >= 1, "the unparsable record has no SMILES on the canvas");
  const bytes = readFileSync(path);
  assert.equal(answer.bytes, bytes.length);
  assert.equal(bytes.toString("utf8").split("$$$$\n").length - 1, RECORDS.length);
  assertOnly(exportDir, ["library.sdf"]);

  const missing = await nativeRDKitMissing();
  if (missing) return skipOracle(t, missing);
  const native = await readBackSdf(
    path,
    rows.map((r) => (r.smiles as string | null) ?? null),
    columns,
  );
  assert.equal(native.length, rows.length);
  native.forEach((record, i) => {
    const row = rows[i]!;
    assert.equal(record.title, row.ID, `record ${i}: the title is the ID column`);
    if (row.smiles === null) assert.equal(record.atoms, 0, `record ${i}: no molecule, an empty molblock`);
    else assert.equal(record.smiles, record.expected, `record ${i}: the molecule read back is the row's (${String(row.smiles)})`);
    assert.deepEqual(record.props, expectedDataItems(row, columns), `record ${i}: every non-NULL column as a data item`);
  });
});

test("CSV: a header and one line per row, quoted where needed; Python's csv module reads back every cell", async (t) => {
  const answer = await call("canvas_export", {
    canvas_id: canvasId,
    sql: "SELECT * FROM library WHERE mw IS NOT NULL ORDER BY _row",
    file: "sub/hits.csv",
  }).catch((e: Error) => e);
  assert.ok(answer instanceof Error, "a folder that does not exist is refused");
  mkdirSync(join(exportDir, "sub"));
  const done = await call("canvas_export", { canvas_id: canvasId, sql: "SELECT * FROM library WHERE mw IS NOT NULL ORDER BY _row", file: "sub/hits.csv" });
  assert.equal(done.file, "sub/hits.csv");
  // An empty string and a NULL stay apart for readers that tell them apart (DuckDB, pandas): "" against nothing.
  assert.equal(csvLine(["", null, "a b", " edge", 'say "x"', 1.5, true, ["p", "q"]]), '"",,a b," edge","say ""x""",1.5,true,"[""p"",""q""]"\r\n');
  assert.equal(done.uri, exportUri("sub/hits.csv"));
  const { columns, rows } = await tableRows();
  const kept = rows.filter((r) => r.mw !== null);
  assert.equal(done.rows, kept.length);
  const missing = await nativeRDKitMissing("import csv");
  if (missing) return skipOracle(t, missing);
  const program = "import csv, json, sys\nprint(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))";
  const read = JSON.parse(await oracleOutput({ program }, { args: [join(exportDir, "sub", "hits.csv")] })) as string[][];
  assert.deepEqual(read[0], columns);
  assert.deepEqual(
    read.slice(1),
    kept.map((r) => columns.map((c) => cellAsText(r[c]) ?? "")),
  );
});

test("Parquet: DuckDB reads back the same rows with the same column types (lists stay lists)", async () => {
  const answer = await call("canvas_export", { canvas_id: canvasId, table: "library", file: "library.parquet" });
  assert.equal(answer.format, "parquet");
  const instance = await DuckDBInstance.create(":memory:");
  try {
    const connection = await instance.connect();
    const path = join(exportDir, "library.parquet").replace(/'/g, "''");
    const back = (await connection.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    const { rows } = await tableRows();
    assert.equal(back.length, rows.length);
    const types = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    assert.equal(types.find((t) => t.column_name === "pains_names")?.column_type, "VARCHAR[]");
    assert.equal(types.find((t) => t.column_name === "mw")?.column_type, "DOUBLE");
    for (const [i, row] of rows.entries()) {
      assert.equal(back[i]!.smiles ?? null, row.smiles ?? null);
      assert.equal(back[i]!.ID, row.ID);
      assert.equal(back[i]!.mw === null ? null : Number(back[i]!.mw), row.mw ?? null);
    }
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
});

test("the answer links the file as a resource; resources/read gives it back; versions before 2025-06-18 get the text only", async () => {
  const answer = await call("canvas_export", { canvas_id: canvasId, table: "library", file: "linked.csv" });
  const tool = createCanvasExportTool(() => manager);
  const blocks = tool.content!(answer);
  assert.equal(blocks[0]!.type, "text");
  assert.ok((blocks[0] as { text: string }).text.includes("linked.csv"));
  assert.deepEqual(blocks[1], { type: "resource_link", uri: "chematic://export/linked.csv", name: "linked.csv", mimeType: "text/csv", size: answer.bytes });
  const info = { name: "t", version: "0" };
  const modern = toolSuccess("2025-06-18", answer, info, blocks) as { content: Array<{ type: string }> };
  assert.deepEqual(
    modern.content.map((b) => b.type),
    ["text", "resource_link"],
  );
  const old = toolSuccess("2025-03-26", answer, info, blocks) as { content: Array<{ type: string }> };
  assert.deepEqual(
    old.content.map((b) => b.type),
    ["text"],
  );
  const provider = exportResourceProvider(() => manager);
  const [read] = await provider.read("chematic://export/linked.csv", {
    signal: new AbortController().signal,
    progress: () => {},
    deadline: Date.now() + 5_000,
  });
  assert.equal((read as { text: string }).text, readFileSync(join(exportDir, "linked.csv"), "utf8"));
  for (const uri of ["chematic://export/..%2F..%2Fetc%2Fpasswd", "chematic://export/nope.csv", "chematic://export/../x.csv", "chematic://export/linked.txt"]) {
    await assert.rejects(
      provider.read(uri, { signal: new AbortController().signal, progress: () => {}, deadline: Date.now() + 5_000 }),
      /NOT_FOUND|No exported file/,
    );
  }
});

test("an authenticated caller's exports go to a folder of its own, and only it reads them", async () => {
  const mine = await call("canvas_import", { table: "t", smiles_list: ["CCO", "c1ccccc1"] }, "alice");
  const answer = await call("canvas_export", { canvas_id: mine.canvas_id, table: "t", file: "t.csv" }, "alice");
  assert.equal(answer.path, undefined, "no server path for a remote caller");
  const folder = readdirSync(exportDir).find((n) => n.startsWith("caller-"));
  assert.ok(folder, "a caller folder was made");
  assert.deepEqual(readdirSync(join(exportDir, folder)), ["t.csv"]);
  const provider = exportResourceProvider(() => manager);
  const ctx = (owner?: string) => ({ signal: new AbortController().signal, progress: () => {}, deadline: Date.now() + 5_000, ...(owner ? { owner } : {}) });
  assert.equal((await provider.read("chematic://export/t.csv", ctx("alice"))).length, 1);
  await assert.rejects(provider.read("chematic://export/t.csv", ctx("bob")), /No exported file/);
  await assert.rejects(provider.read("chematic://export/t.csv", ctx()), /No exported file/);
});

test("bad input: typed errors, the table unchanged, nothing left in the export directory", async () => {
  const dir = mkdtempSync(join(tmpdir(), "chematic-export-bad-"));
  const outside = mkdtempSync(join(tmpdir(), "chematic-outside-"));
  const local = initCanvasManager(testCanvasConfig({ exportDir: dir }));
  const tool = createCanvasExportTool(() => local);
  const localServer = new McpServer({ tools: [createCanvasImportTool(() => local), tool], pool, info: { name: "t", version: "0" }, logger: silentLogger });
  const run = ({ __tool, ...args }: Row) =>
    localServer.runTool(__tool === undefined ? "canvas_export" : String(__tool), args, { signal: new AbortController().signal });
  try {
    const made = await run({ __tool: "canvas_import", table: "t", smiles_list: ["CCO", "CCN"] });
    assert.ok(made.ok);
    const id = made.value.canvas_id;
    symlinkSync(outside, join(dir, "link"));
    const cases: Array<[Row, string, string]> = [
      [{ file: join(outside, "x.sdf") }, "PATH_REFUSED", "outside"],
      [{ file: "../x.sdf" }, "PATH_REFUSED", "traversal"],
      [{ file: "a/../../x.sdf" }, "PATH_REFUSED", "traversal"],
      [{ file: "link/x.sdf" }, "PATH_REFUSED", "symlink_out"],
      [{ file: "x.txt" }, "PATH_REFUSED", "extension"],
      [{ file: ".hidden.csv" }, "PATH_REFUSED", "bad_name"],
      [{ file: "x';DROP.parquet" }, "PATH_REFUSED", "bad_name"],
      [{ file: "nope/x.csv" }, "PATH_REFUSED", "not_found"],
    ];
    for (const [args, code, reason] of cases) {
      const outcome = await run({ canvas_id: id, table: "t", ...args });
      assert.ok(!outcome.ok, JSON.stringify(args));
      assert.equal(outcome.error.code, code, JSON.stringify(args));
      assert.equal(outcome.error.details.reason, reason, JSON.stringify(args));
      assert.ok(outcome.error.hint, "a hint");
    }
    const both = await run({ canvas_id: id, table: "t", sql: "SELECT 1", file: "x.csv" });
    assert.ok(!both.ok && both.error.code === "INVALID_ARGUMENTS");
    const neither = await run({ canvas_id: id, file: "x.csv" });
    assert.ok(!neither.ok && neither.error.code === "INVALID_ARGUMENTS");
    const noTable = await run({ canvas_id: id, table: "nope", file: "x.csv" });
    assert.ok(!noTable.ok && noTable.error.code === "INVALID_ARGUMENTS");
    const badSql = await run({ canvas_id: id, sql: "DELETE FROM t", file: "x.csv" });
    assert.ok(!badSql.ok && badSql.error.code === "QUERY_REFUSED");
    const noSmiles = await run({ canvas_id: id, sql: "SELECT row_id FROM t", file: "x.sdf" });
    assert.ok(!noSmiles.ok, "no SMILES column");
    assert.equal(noSmiles.error.details.path, "/smiles_column", noSmiles.error.message);
    assertOnly(dir, ["link"]);
    // A name taken: refused without overwrite (the file untouched), replaced with it.
    writeFileSync(join(dir, "taken.csv"), "keep me\n");
    const taken = await run({ canvas_id: id, table: "t", file: "taken.csv" });
    assert.ok(!taken.ok && taken.error.code === "PATH_REFUSED" && taken.error.details.reason === "exists");
    assert.equal(readFileSync(join(dir, "taken.csv"), "utf8"), "keep me\n");
    const replaced = await run({ canvas_id: id, table: "t", file: "taken.csv", overwrite: true });
    assert.ok(replaced.ok);
    assert.match(readFileSync(join(dir, "taken.csv"), "utf8"), /^row_id,input,smiles,error\r\n1,CCO,CCO,\r\n/);
    assertOnly(dir, ["link", "taken.csv"]);
    // Off without the directory.
    const off = initCanvasManager(testCanvasConfig());
    const offServer = new McpServer({
      tools: [createCanvasImportTool(() => off), createCanvasExportTool(() => off)],
      pool,
      info: { name: "t", version: "0" },
      logger: silentLogger,
    });
    const offId = await offServer.runTool("canvas_import", { table: "t", smiles_list: ["C"] }, { signal: new AbortController().signal });
    assert.ok(offId.ok);
    const disabled = await offServer.runTool(
      "canvas_export",
      { canvas_id: offId.value.canvas_id, table: "t", file: "x.csv" },
      { signal: new AbortController().signal },
    );
    assert.ok(!disabled.ok && disabled.error.code === "TOOL_DISABLED" && disabled.error.details.setting === "CHEMATIC_EXPORT_DIR");
    await off.close();
  } finally {
    await local.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("a full disk (a 16 KiB tmpfs): WRITE_FAILED disk_full for SDF, CSV and Parquet, and no file left, whole or partial", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "chematic-export-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", dir], { stdio: "ignore" });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    t.skip("this process may not mount a tmpfs (not root, or no mount namespace): the full-disk case is not run here");
    return;
  }
  const local = initCanvasManager(testCanvasConfig({ exportDir: dir }));
  const localServer = new McpServer({
    tools: [createCanvasImportTool(() => local), createCanvasExportTool(() => local)],
    pool,
    info: { name: "t", version: "0" },
    logger: silentLogger,
  });
  const ctx = () => ({ signal: new AbortController().signal });
  try {
    // 3,000 distinct molecules (a chain spelled by the row number's digits): Parquet's dictionaries cannot fold them into 16 KiB.
    const piece = ["C", "CC", "N", "O", "C(C)", "C(=O)", "C(F)", "C(Cl)", "CN", "CO"];
    const many = Array.from({ length: 3000 }, (_, i) => `c1ccc(${[...String(i + 1000)].map((d) => piece[Number(d)]).join("")}C)cc1`);
    const made = await localServer.runTool("canvas_import", { table: "big", smiles_list: many }, ctx());
    assert.ok(made.ok);
    for (const file of ["big.sdf", "big.csv", "big.parquet"]) {
      const outcome = await localServer.runTool("canvas_export", { canvas_id: made.value.canvas_id, table: "big", file }, ctx());
      assert.ok(!outcome.ok, `${file} cannot fit in 16 KiB`);
      assert.equal(outcome.error.code, "WRITE_FAILED", `${file}: ${outcome.error.message}`);
      assert.equal(outcome.error.details.reason, "disk_full");
      assert.ok(!outcome.error.message.includes(dir), "the server's path is not in the message");
      assertOnly(dir, []);
    }
    // A small export still fits afterwards (the space was given back).
    const small = await localServer.runTool("canvas_export", { canvas_id: made.value.canvas_id, sql: "SELECT * FROM big LIMIT 5", file: "small.csv" }, ctx());
    assert.ok(small.ok, small.ok ? "" : small.error.message);
    assertOnly(dir, ["small.csv"]);
  } finally {
    await local.close();
    execFileSync("umount", [dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  }
});
