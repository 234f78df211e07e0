/**
 * No internal error a user can cause (issue 37 item 7), proven by fault injection, never a real full disk: DuckDB
 * writes that fail with ENOSPC (a full disk under CHEMATIC_CANVAS_DIR) answer CANVAS_FULL reason disk_full and leave
 * the canvas as it was; a canvas file that cannot be made likewise; an import file that goes away before it is read,
 * one whose read fails mid-way (EIO) and a .sdf.gz that is not gzip answer PATH_REFUSED with their reason. The
 * server keeps serving after each.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { McpServer } from "../../../src/server/server.js";
import { WorkerPool } from "../../../src/server/pool.js";
import { allTools } from "../../../src/tools/index.js";
import { silentLogger } from "../../../src/logger.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { loadDuckDb, type DuckDbModule } from "../../../src/domain/canvas/duckdb.js";
import { readImportFile } from "../../../src/domain/canvas/import.js";
import { ToolError } from "../../../src/domain/errors.js";
import { createCanvasImportTool } from "../../../src/tools/canvas_import.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";

const ENOSPC = 'IO Error: Could not write file "/srv/canvas/session/c1.duckdb.wal": No space left on device';

/** DuckDB as installed, except that while `faults.write` is set a CREATE TABLE or INSERT fails as on a full disk. */
function faultyDuckDb(faults: { write: boolean; create: boolean }) {
  // Methods of an instance are bound to it (DuckDB's objects keep private state); a module's or a class's members
  // are passed as they are (binding a class would lose its static methods).
  const wrap = <T extends object>(target: T, override: Partial<Record<string | symbol, unknown>>, bind = true): T =>
    new Proxy(target, {
      get(t, key) {
        if (key in override) return override[key];
        const v = Reflect.get(t, key, t) as unknown;
        return bind && typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  return async (): Promise<DuckDbModule> => {
    const api = await loadDuckDb();
    const connection = (c: object) =>
      wrap(c, {
        run: (sql: string, ...rest: unknown[]) => {
          if (faults.write && /^\s*(CREATE TABLE|INSERT)/i.test(sql)) return Promise.reject(new Error(ENOSPC));
          return (c as { run: (...a: unknown[]) => Promise<unknown> }).run(sql, ...rest);
        },
      });
    const instance = (i: object) => wrap(i, { connect: async () => connection(await (i as { connect: () => Promise<object> }).connect()) });
    const DuckDBInstance = wrap(
      api.DuckDBInstance,
      {
        create: async (...args: unknown[]) => {
          if (faults.create) throw Object.assign(new Error("IO Error: Cannot open file: No space left on device"), { code: "ENOSPC" });
          return instance(await (api.DuckDBInstance.create as (...a: unknown[]) => Promise<object>)(...args));
        },
      },
      false,
    );
    return wrap<DuckDbModule>(api, { DuckDBInstance }, false);
  };
}

const pool = new WorkerPool({ size: 1 });
const root = realpathSync(mkdtempSync(join(tmpdir(), "chematic-faults-")));
const faults = { write: false, create: false };
const manager = new CanvasManager({ enabled: true, dir: root, maxSpillRows: 100, importDir: root }, { loader: faultyDuckDb(faults) });
const server = new McpServer({
  tools: allTools({}).map((t) =>
    t.name === "canvas_import"
      ? createCanvasImportTool(() => manager)
      : t.name === "chembl_dataframe_query"
        ? createChemblDataframeQueryTool(() => manager)
        : t,
  ),
  pool,
  info: { name: "chematic-mcp", version: "test" },
  logger: silentLogger,
});
after(async () => {
  await manager.close();
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>) {
  return server.runTool(name, args, { signal: new AbortController().signal });
}

test("a full disk under CHEMATIC_CANVAS_DIR: CANVAS_FULL reason disk_full, the canvas as it was, the server serving", async () => {
  const made = await call("canvas_import", { smiles_list: ["CCO", "c1ccccc1"], table: "mols" });
  assert.ok(made.ok, JSON.stringify(made));
  const canvasId = (made.value as { canvas_id: string }).canvas_id;
  faults.write = true;
  try {
    const appended = await call("canvas_import", { canvas_id: canvasId, smiles_list: ["CCN"], table: "mols", mode: "append" });
    assert.ok(!appended.ok);
    assert.equal(appended.error.code, "CANVAS_FULL");
    assert.equal(appended.error.details.reason, "disk_full");
    assert.match(appended.error.hint ?? "", /CHEMATIC_CANVAS_DIR/);
    assert.ok(!String(appended.error.details.duckdb_error).includes(root), "no canvas path in the answer");
    const fresh = await call("canvas_import", { smiles_list: ["CCN"] });
    assert.ok(!fresh.ok && fresh.error.code === "CANVAS_FULL", JSON.stringify(fresh));
  } finally {
    faults.write = false;
  }
  const rows = await call("chembl_dataframe_query", { canvas_id: canvasId, sql: "SELECT count(*) AS n FROM mols" });
  assert.ok(rows.ok, JSON.stringify(rows));
  assert.equal(Number((rows.value as { rows: Array<{ n: number }> }).rows[0]!.n), 2, "the table is as it was before the failed write");
  const again = await call("canvas_import", { canvas_id: canvasId, smiles_list: ["CCN"], table: "mols", mode: "append" });
  assert.ok(again.ok, "with room again, the same write succeeds");
});

test("no room for a new canvas file: CANVAS_FULL reason disk_full", async () => {
  faults.create = true;
  try {
    const r = await call("canvas_import", { smiles_list: ["CCO"] });
    assert.ok(!r.ok);
    assert.equal(r.error.code, "CANVAS_FULL");
    assert.equal(r.error.details.reason, "disk_full");
  } finally {
    faults.create = false;
  }
});

test("an import file that goes away, fails mid-read or is not gzip: PATH_REFUSED with its reason", async () => {
  writeFileSync(join(root, "lib.smi"), "CCO ethanol\n");
  const refusal = async (io: Parameters<typeof readImportFile>[3], file = "lib.smi") => {
    try {
      await readImportFile(root, file, 1 << 20, io);
    } catch (e) {
      assert.ok(e instanceof ToolError, String(e));
      return e;
    }
    return assert.fail("the read should fail");
  };
  const gone = await refusal({ open: () => Promise.reject(Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" })) });
  assert.equal(gone.code, "PATH_REFUSED");
  assert.equal(gone.details.reason, "not_found");
  const eio = await refusal({
    open: async (...args: Parameters<typeof open>) => {
      const handle = await open(...args);
      return new Proxy(handle, {
        get(t, key) {
          if (key === "readFile") return () => Promise.reject(Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" }));
          const v = Reflect.get(t, key, t) as unknown;
          return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
    },
  });
  assert.equal(eio.details.reason, "read_failed");
  assert.equal(eio.details.error_code, "EIO");
  // A .sdf.gz cut short in copying, through the tool: a named refusal, and the server keeps serving.
  writeFileSync(join(root, "cut.sdf.gz"), gzipSync("m1\n  x\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n$$$$\n").subarray(0, 20));
  const cut = await call("canvas_import", { path: "cut.sdf.gz" });
  assert.ok(!cut.ok);
  assert.equal(cut.error.code, "PATH_REFUSED");
  assert.equal(cut.error.details.reason, "bad_gzip");
  assert.ok((await call("canvas_import", { path: "lib.smi" })).ok, "still serving");
});
