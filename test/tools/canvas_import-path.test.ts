/**
 * canvas_import's path argument (issue 15 acceptance): off by default (TOOL_DISABLED naming
 * CHEMATIC_IMPORT_DIR); with the directory set, .smi, .csv, .sdf and .sdf.gz files inside it import, and
 * "../", absolute paths outside it, symlinks pointing out, directories, FIFOs, devices, oversized files (and
 * .gz content), unknown extensions and missing files are PATH_REFUSED with details.reason.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { loadCanvasConfig } from "../../src/config.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";

const pool = new WorkerPool({ size: 1 });
const root = realpathSync(mkdtempSync(join(tmpdir(), "chematic-import-")));
const dir = join(root, "import");
const MAX = 4096;
const on = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100, importDir: dir, importMaxBytes: MAX });
const off = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100 });

function serverFor(manager: CanvasManager): McpServer {
  const tool = createCanvasImportTool(() => manager);
  const tools = allTools({}).map((t) => (t.name === "canvas_import" ? tool : t));
  return new McpServer({ tools, pool, info: { name: "chematic-mcp", version: "test" }, logger: silentLogger });
}
const withDir = serverFor(on);
const withoutDir = serverFor(off);

const MOLBLOCK =
  "m1\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n";

before(() => {
  mkdirSync(dir);
  mkdirSync(join(dir, "sub"));
  mkdirSync(join(dir, "folder.smi"));
  writeFileSync(join(root, "secret.smi"), "CCO secret\n");
  writeFileSync(join(dir, "lib.smi"), "SMILES Name\nCCO ethanol\nc1ccccc1 benzene ring\nC1CC broken\n\n# a comment\n");
  writeFileSync(join(dir, "sub", "lib.csv"), "smiles,mw\nCCO,46.07\nCC(=O)O,60.05\n");
  writeFileSync(join(dir, "lib.sdf.gz"), gzipSync(`${MOLBLOCK}>  <n>\n1\n\n$$$$\n${MOLBLOCK.replace("m1", "m2")}>  <n>\n2\n\n$$$$\n`));
  writeFileSync(join(dir, "big.smi"), "C\n".repeat(MAX));
  writeFileSync(join(dir, "bomb.sdf.gz"), gzipSync(Buffer.alloc(MAX * 4, 32)));
  writeFileSync(join(dir, "notes.txt"), "CCO\n");
  symlinkSync(join(root, "secret.smi"), join(dir, "link-out.smi"));
  symlinkSync(root, join(dir, "up"));
  symlinkSync(join(dir, "lib.smi"), join(dir, "link-in.smi"));
  spawnSync("mkfifo", [join(dir, "pipe.smi")]);
});
after(async () => {
  await on.close();
  await off.close();
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

async function run(server: McpServer, args: Record<string, unknown>) {
  return server.runTool("canvas_import", args, { signal: new AbortController().signal });
}

async function refused(path: string): Promise<string> {
  const outcome = await run(withDir, { path });
  assert.ok(!outcome.ok, `${path} should be refused`);
  assert.equal(outcome.error.code, "PATH_REFUSED", `${path}: ${outcome.error.message}`);
  return outcome.error.details.reason as string;
}

describe("path import is off by default", () => {
  test("without CHEMATIC_IMPORT_DIR a path is TOOL_DISABLED naming the setting; the config default is off", async () => {
    assert.equal(loadCanvasConfig({}).importDir, null);
    const outcome = await run(withoutDir, { path: "lib.smi" });
    assert.ok(!outcome.ok);
    assert.equal(outcome.error.code, "TOOL_DISABLED");
    assert.equal(outcome.error.details.setting, "CHEMATIC_IMPORT_DIR");
  });

  test("CHEMATIC_IMPORT_DIR must name an existing directory", () => {
    assert.equal(loadCanvasConfig({ CHEMATIC_IMPORT_DIR: dir }).importDir, dir);
    assert.throws(() => loadCanvasConfig({ CHEMATIC_IMPORT_DIR: join(dir, "nope") }));
    assert.throws(() => loadCanvasConfig({ CHEMATIC_IMPORT_DIR: "relative/dir" }));
  });
});

describe("path import refuses what is not a file inside the directory", () => {
  test("../ and ..-segments: traversal", async () => {
    assert.equal(await refused("../secret.smi"), "traversal");
    assert.equal(await refused("sub/../../secret.smi"), "traversal");
    assert.equal(await refused("..\\secret.smi"), "traversal");
  });

  test("an absolute path outside the directory: outside (an absolute path inside is fine)", async () => {
    assert.equal(await refused(join(root, "secret.smi")), "outside");
    assert.equal(await refused("/etc/passwd"), "outside");
    assert.equal(await refused("/dev/zero"), "outside");
    const inside = await run(withDir, { path: join(dir, "lib.smi") });
    assert.ok(inside.ok);
  });

  test("a symlink pointing out, or a path through one: symlink_out (a symlink inside is fine)", async () => {
    assert.equal(await refused("link-out.smi"), "symlink_out");
    assert.equal(await refused("up/secret.smi"), "symlink_out");
    const inside = await run(withDir, { path: "link-in.smi" });
    assert.ok(inside.ok);
  });

  test("a FIFO, a directory, an oversized file or .gz content, another extension, a missing file", async () => {
    assert.equal(await refused("pipe.smi"), "not_regular");
    assert.equal(await refused("folder.smi"), "not_regular");
    assert.equal(await refused("big.smi"), "too_large");
    assert.equal(await refused("bomb.sdf.gz"), "too_large");
    assert.equal(await refused("notes.txt"), "extension");
    assert.equal(await refused("missing.smi"), "not_found");
  });
});

describe("path import reads .smi, .csv and .sdf.gz", () => {
  test(".smi: the name after the SMILES is the id; the header and comment lines are skipped", async () => {
    const outcome = await run(withDir, { path: "lib.smi" });
    assert.ok(outcome.ok, outcome.ok ? "" : outcome.error.message);
    const v = outcome.value as { counts: Record<string, number>; sample: Array<Record<string, unknown>>; columns: Array<{ name: string }> };
    assert.deepEqual(v.counts, { rows: 3, parsed: 2, failed: 1, table_rows: 3 });
    assert.deepEqual(v.sample[1], { row_id: 2, input: "c1ccccc1", smiles: "c1ccccc1", id: "benzene ring" });
    assert.deepEqual(
      v.columns.map((c) => c.name),
      ["row_id", "input", "smiles", "error", "id"],
    );
  });

  test(".csv in a subdirectory and .sdf.gz: typed columns", async () => {
    const csv = await run(withDir, { path: "sub/lib.csv" });
    assert.ok(csv.ok, csv.ok ? "" : csv.error.message);
    assert.deepEqual((csv.value as { columns: unknown[] }).columns.at(-1), { name: "mw", type: "DOUBLE" });
    const sdf = await run(withDir, { path: "lib.sdf.gz" });
    assert.ok(sdf.ok, sdf.ok ? "" : sdf.error.message);
    const v = sdf.value as { counts: Record<string, number>; sample: Array<Record<string, unknown>> };
    assert.deepEqual(v.counts, { rows: 2, parsed: 2, failed: 0, table_rows: 2 });
    assert.deepEqual(v.sample[0], { row_id: 1, title: "m1", smiles: "O", n: 1 });
  });
});
