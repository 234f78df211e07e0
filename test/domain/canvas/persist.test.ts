/**
 * File-backed canvases survive a restart (issue 32, item 1): a canvas imported and annotated by one manager is
 * listed and reopened by a new manager on the same CHEMATIC_CANVAS_DIR (another run tag, as after a restart), with
 * the same rows and canvas_annotate's bookkeeping (the same call answers complete without recomputing); another
 * owner gets exactly the unknown-ID answer; a canvas whose database is gone answers reason lost (and is listed so);
 * a dropped one keeps answering dropped; what DuckDB holds and the sidecar does not (a write a kill interrupted) is
 * recovered, a half-made staging table dropped; the retention deletes what stayed unused for CHEMATIC_CANVAS_KEEP_DAYS.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { loadDuckDb } from "../../../src/domain/canvas/duckdb.js";
import { newCanvasId } from "../../../src/domain/canvas/ids.js";
import { loadRDKit } from "../../../src/domain/chem/rdkit.js";
import type { ToolError } from "../../../src/domain/errors.js";
import { createCanvasAnnotateTool } from "../../../src/tools/canvas_annotate.js";
import { createCanvasImportTool } from "../../../src/tools/canvas_import.js";
import { createChemblDataframeDescribeTool } from "../../../src/tools/chembl_dataframe_describe.js";
import { createChemblDataframeDropTool } from "../../../src/tools/chembl_dataframe_drop.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";
import { fails, ok, serviceContext } from "../../fixtures/chembl/harness.js";
import { localRunner, type LocalRunner } from "../../helpers/annotate.js";
import { testCanvasConfig } from "../../helpers/canvas-config.js";

const DAY = 86_400_000;
const SMILES = ["CCO", "c1ccccc1O", "CC(=O)Oc1ccccc1C(=O)O", "CCN(CC)CC", "O=C(O)c1ccccc1", "not a smiles", "C1CCCCC1", "CC(C)Cc1ccc(cc1)C(C)C(=O)O"];

let root: string;
let chem: LocalRunner;
const managers: CanvasManager[] = [];
before(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "chematic-persist-")));
  chem = await localRunner(await loadRDKit());
});
after(async () => {
  await Promise.all(managers.map((m) => m.close()));
  rmSync(root, { recursive: true, force: true });
});

/** A manager on `dir` as one run of the server (its own run tag), its clock at `now`. */
function server(dir: string, run: string, now: () => number = Date.now): CanvasManager {
  const m = new CanvasManager(testCanvasConfig({ dir, maxSpillRows: 1_000 }), { runTag: run, now });
  managers.push(m);
  return m;
}

function subdir(name: string): string {
  return realpathSync(mkdtempSync(join(root, `${name}-`)));
}

const ctx = (owner?: string) => serviceContext(40_000, owner === undefined ? { chem } : { chem, owner });
const tools = (m: CanvasManager) => ({
  importer: createCanvasImportTool(() => m),
  annotate: createCanvasAnnotateTool(() => m),
  query: createChemblDataframeQueryTool(() => m),
  describe: createChemblDataframeDescribeTool(() => m),
  drop: createChemblDataframeDropTool(() => m),
});

async function importAndAnnotate(m: CanvasManager, owner?: string): Promise<string> {
  const t = tools(m);
  const made = await ok(t.importer, { smiles_list: SMILES, table: "mols" }, ctx(owner));
  const id = made.value.canvas_id as string;
  const annotated = await ok(t.annotate, { canvas_id: id, table: "mols", columns: ["mw", "logp", "pains"] }, ctx(owner));
  assert.equal(annotated.value.complete, true);
  return id;
}

async function allRows(m: CanvasManager, id: string, owner?: string): Promise<unknown[]> {
  const r = await ok(tools(m).query, { canvas_id: id, sql: "SELECT * FROM mols ORDER BY _row", max_rows: 1_000 }, ctx(owner));
  return r.value.rows as unknown[];
}

describe("a file-backed canvas across a restart", () => {
  test("listed and reopened by its ID with the same rows; canvas_annotate's bookkeeping kept", async () => {
    const dir = subdir("restart");
    const first = server(dir, "RunA");
    const id = await importAndAnnotate(first);
    const before = await allRows(first, id);
    assert.equal(before.length, SMILES.length);
    const describedBefore = (await ok(tools(first).describe, { canvas_id: id }, ctx())).value;
    await first.close();
    assert.ok(existsSync(join(dir, `${id}.duckdb`)) && existsSync(join(dir, `${id}.json`)), "the canvas stays on disk");

    const second = server(dir, "RunB");
    const listed = await ok(tools(second).describe, {}, ctx());
    assert.deepEqual(listed.value.canvases, [
      {
        canvas_id: id,
        state: "on_disk",
        last_used_at: (listed.value.canvases as Array<{ last_used_at: string }>)[0]!.last_used_at,
        tables: [{ name: "mols", row_count: SMILES.length }],
      },
    ]);
    assert.match(listed.text, /\| `cv_[a-z0-9]+_RunA\w+` \| on\\_disk \| .+ \| mols \(8\) \|/);
    assert.equal(second.size, 0, "listing opens nothing");

    assert.deepEqual(await allRows(second, id), before, "the same rows");
    const describedAfter = (await ok(tools(second).describe, { canvas_id: id }, ctx())).value;
    assert.deepEqual(describedAfter, describedBefore, "the same tables, columns, descriptions and provenance");
    const computed = chem.listEntries;
    const again = await ok(tools(second).annotate, { canvas_id: id, table: "mols", columns: ["mw", "logp", "pains"] }, ctx());
    assert.equal(again.value.complete, true);
    assert.equal(again.value.rows_computed, 0, "nothing recomputed");
    assert.equal(chem.listEntries, computed);
    const more = await ok(tools(second).annotate, { canvas_id: id, table: "mols", columns: ["mw", "tpsa"] }, ctx());
    assert.equal(more.value.rows_computed, SMILES.length, "a new column is computed on every row, mw is not");
    assert.equal((await ok(tools(second).describe, {}, ctx())).value.canvases instanceof Array, true);
    assert.equal(((await ok(tools(second).describe, {}, ctx())).value.canvases as Array<{ state: string }>)[0]!.state, "open");
  });

  test("another owner gets exactly the unknown-ID answer; the owner reopens it", async () => {
    const dir = subdir("owners");
    const first = server(dir, "RunA");
    const id = await importAndAnnotate(first, "alice");
    await first.close();
    const second = server(dir, "RunB");
    const stranger = newCanvasId(first.origin);
    const theirs = await fails(tools(second).query, { canvas_id: id, sql: "SELECT 1" }, ctx("bob"));
    const unknown = await fails(tools(second).query, { canvas_id: stranger, sql: "SELECT 1" }, ctx("bob"));
    const same = (e: ToolError, shown: string) =>
      JSON.stringify({ code: e.code, message: e.message, hint: e.hint, details: e.details }).split(shown).join("<id>");
    assert.equal(same(theirs, id), same(unknown, stranger));
    assert.deepEqual((await ok(tools(second).describe, {}, ctx("bob"))).value.canvases, [], "bob lists nothing");
    assert.deepEqual(
      ((await ok(tools(second).describe, {}, ctx("alice"))).value.canvases as Array<{ canvas_id: string }>).map((c) => c.canvas_id),
      [id],
    );
    assert.equal((await allRows(second, id, "alice")).length, SMILES.length);
  });

  test("a canvas whose database is gone is lost (listed so); an earlier run's ID with no files is lost too; a drop stays a drop", async () => {
    const dir = subdir("lost");
    const first = server(dir, "RunA");
    const kept = await importAndAnnotate(first);
    const dropped = await importAndAnnotate(first);
    await ok(tools(first).drop, { canvas_id: dropped }, ctx());
    assert.ok(!existsSync(join(dir, `${dropped}.duckdb`)), "a drop deletes the data");
    await first.close();
    rmSync(join(dir, `${kept}.duckdb`));
    rmSync(join(dir, `${kept}.duckdb.wal`), { force: true });

    const second = server(dir, "RunB");
    const lost = await fails(tools(second).query, { canvas_id: kept, sql: "SELECT 1" }, ctx());
    assert.equal(lost.code, "CANVAS_NOT_FOUND");
    assert.equal(lost.details.reason, "lost");
    assert.match(lost.message, /database file is gone from the canvas directory \(CHEMATIC_CANVAS_DIR\)/);
    assert.match(lost.hint, /canvas_import/);
    assert.deepEqual(
      ((await ok(tools(second).describe, {}, ctx())).value.canvases as Array<{ canvas_id: string; state: string }>).map((c) => [c.canvas_id, c.state]),
      [[kept, "lost"]],
    );
    const never = await fails(tools(second).query, { canvas_id: newCanvasId(first.origin), sql: "SELECT 1" }, ctx());
    assert.equal(never.details.reason, "lost");
    assert.match(never.message, /its files are not in the canvas directory/);
    const drop = await fails(tools(second).query, { canvas_id: dropped, sql: "SELECT 1" }, ctx());
    assert.equal(drop.details.reason, "dropped");
  });

  test("what the sidecar missed (a write a kill interrupted) is recovered; a half-made staging table is dropped", async () => {
    const dir = subdir("recover");
    const first = server(dir, "RunA");
    const id = await importAndAnnotate(first);
    await first.close();
    // A write the sidecar never heard of, and a staging table left by a killed write, made straight in DuckDB.
    const duckdb = await loadDuckDb();
    const instance = await duckdb.DuckDBInstance.create(join(dir, `${id}.duckdb`));
    const connection = await instance.connect();
    await connection.run("CREATE TABLE extra AS SELECT range AS n, 'x' || range AS label FROM range(5)");
    await connection.run("CREATE TABLE _staging_0123456789ab (n INTEGER)");
    await connection.run("INSERT INTO mols (smiles) VALUES ('CC')");
    connection.closeSync();
    instance.closeSync();

    const second = server(dir, "RunB");
    const canvas = await second.get(id);
    assert.deepEqual([...canvas.tables.keys()].sort(), ["extra", "mols"]);
    const extra = canvas.tables.get("extra")!;
    assert.equal(extra.row_count, 5);
    assert.deepEqual(extra.provenance, { kind: "recovered" });
    assert.match(extra.columns[0]!.description, /^Recovered/);
    assert.ok(extra.bytes > 0);
    assert.equal(canvas.tables.get("mols")!.row_count, SMILES.length + 1, "row counts are DuckDB's");
    assert.ok(!(await canvas.inspect()).some((c) => c.table_name.startsWith("_staging_")));
    const resumed = await ok(tools(second).annotate, { canvas_id: id, table: "mols", columns: ["mw", "logp", "pains"] }, ctx());
    assert.equal(resumed.value.rows_computed, 1, "only the row the sidecar did not know is computed");
  });

  test("the retention deletes a canvas unused for CHEMATIC_CANVAS_KEEP_DAYS (it then answers expired), and later its tombstone", async () => {
    const dir = subdir("retention");
    let now = Date.now();
    const first = server(dir, "RunA", () => now);
    const old = await importAndAnnotate(first);
    now += 6 * DAY;
    const recent = await importAndAnnotate(first);
    await first.close();

    now += 2 * DAY;
    const second = server(dir, "RunB", () => now);
    assert.ok(!existsSync(join(dir, `${old}.duckdb`)), "8 days unused: deleted at start");
    assert.ok(existsSync(join(dir, `${recent}.duckdb`)), "2 days unused: kept");
    assert.equal((JSON.parse(readFileSync(join(dir, `${old}.json`), "utf8")) as { state: string }).state, "expired");
    const e = await fails(tools(second).query, { canvas_id: old, sql: "SELECT 1" }, ctx());
    assert.equal(e.details.reason, "expired");
    assert.match(e.message, /deleted after 7 days without use \(CHEMATIC_CANVAS_KEEP_DAYS\)/);
    assert.deepEqual(
      ((await ok(tools(second).describe, {}, ctx())).value.canvases as Array<{ canvas_id: string }>).map((c) => c.canvas_id),
      [recent],
    );
    await second.close();

    now += 8 * DAY;
    server(dir, "RunC", () => now);
    assert.deepEqual(readdirSync(dir), [`${recent}.json`], "the second's data gone (its tombstone new), the first's tombstone gone too");
  });

  test("a drop racing a reopen stays a drop (no empty canvas made again); a canvas dropped before its first table leaves nothing", async () => {
    const dir = subdir("race");
    const m = server(dir, "RunA");
    const id = await importAndAnnotate(m);
    const dropping = m.release(id, "dropped");
    const got = m.get(id).then(
      () => "reopened",
      (e: ToolError) => e.details.reason,
    );
    await dropping;
    assert.equal(await got, "dropped");
    assert.deepEqual(readdirSync(dir), [`${id}.json`], "its tombstone only");
    const empty = await m.create();
    await m.release(empty.id, "dropped");
    assert.deepEqual(readdirSync(dir), [`${id}.json`], "no file of a canvas never named to anyone");
  });

  test("idle expiry and eviction only close a file-backed canvas: the next call reopens it", async () => {
    const dir = subdir("idle");
    let now = Date.now();
    const m = new CanvasManager(testCanvasConfig({ dir, maxSpillRows: 1_000, maxCanvasesPerCaller: 1 }), { runTag: "RunA", now: () => now, idleMs: 60_000 });
    managers.push(m);
    const id = await importAndAnnotate(m);
    const rows = await allRows(m, id);
    now += 120_000;
    assert.deepEqual(m.sweep(), [id]);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(m.size, 0);
    assert.deepEqual(await allRows(m, id), rows, "reopened after expiry");
    const other = await importAndAnnotate(m);
    assert.deepEqual(m.ids(), [other], "a caller at its quota: its oldest canvas closed");
    assert.deepEqual(await allRows(m, id), rows, "reopened after eviction (evicting the other in turn)");
    assert.deepEqual(m.ids(), [id]);
  });
});
