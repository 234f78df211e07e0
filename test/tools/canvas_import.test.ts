/**
 * canvas_import (issue 15, items 1 and 3): 1,000 molecules of RDKit's NCI first_5K.smi imported as a SMILES
 * list, as CSV and as SDF written by native RDKit (in appended calls within the 256 KiB string limit), each
 * row's canonical smiles equal to native RDKit's (scripts/oracle-import.py under /usr/bin/python3), typed
 * columns, counts and error codes for bad rows; then SQL over the imported table and a join with a staged
 * bioactivity table on canonical SMILES.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { MAX_STRING_BYTES } from "../../src/contract/limits.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { createChemblDataframeDescribeTool } from "../../src/tools/chembl_dataframe_describe.js";
import { createChemblDataframeDropTool } from "../../src/tools/chembl_dataframe_drop.js";
import type { AnyTool } from "../../src/contract/tool.js";
import { nativeRDKitMissing, oracleOutput, runOracle, skipOracle } from "../helpers/oracle.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";

export function serverWith(manager: CanvasManager, pool: WorkerPool): McpServer {
  const bound: Record<string, AnyTool> = {
    canvas_import: createCanvasImportTool(() => manager),
    chembl_dataframe_query: createChemblDataframeQueryTool(() => manager),
    chembl_dataframe_describe: createChemblDataframeDescribeTool(() => manager),
    chembl_dataframe_drop: createChemblDataframeDropTool(() => manager),
  };
  const tools = allTools({}, { dataframeDrop: true }).map((t) => bound[t.name] ?? t);
  return new McpServer({ tools, pool, info: { name: "chematic-mcp", version: "test" }, logger: silentLogger });
}

const pool = new WorkerPool({ size: 2 });
const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1000, maxTableRows: 2_000 });
const server = serverWith(manager, pool);
after(async () => {
  await manager.close();
  await pool.close();
});

type Value = Record<string, unknown> & {
  canvas_id: string;
  table: string;
  counts: { rows: number; parsed: number; failed: number; table_rows: number };
  columns: Array<{ name: string; type: string }>;
  sample: Array<Record<string, unknown>>;
  failures?: Array<{ row_id: number; input: string; error: string; message: string }>;
};

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}
const importCall = (args: Record<string, unknown>) => call("canvas_import", args) as Promise<Value>;

async function failure(name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal });
  assert.ok(!outcome.ok, `${name} should fail`);
  return outcome.error;
}

/** Through chembl_dataframe_query (at most 1,000 rows). */
async function sql(canvasId: string, query: string): Promise<Array<Record<string, unknown>>> {
  const v = (await call("chembl_dataframe_query", { canvas_id: canvasId, sql: query, max_rows: 1000 })) as { rows: Array<Record<string, unknown>> };
  return v.rows;
}

/** Straight from the canvas, for whole tables (the same guarded query, larger caps). */
async function allRows(canvasId: string, query: string): Promise<Array<Record<string, unknown>>> {
  const r = await (await manager.get(canvasId)).query(query, { maxRows: 10_000, maxBytes: 64 * 1024 * 1024 });
  return r.rows;
}

interface OracleRow {
  smiles: string;
  canonical: string | null;
  sdf?: string;
  sdf_canonical?: string | null;
}

let lines: string[] = [];
let oracle: OracleRow[] | undefined;
let oracleMissing = "";

before(async () => {
  if (!existsSync(NCI)) {
    oracleMissing = `${NCI} is not installed`;
    return;
  }
  lines = readFileSync(NCI, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, 1000);
  const missing = await nativeRDKitMissing();
  if (missing !== undefined) {
    oracleMissing = `native RDKit is not installed: ${missing}`;
    return;
  }
  const run = await runOracle({ script: "oracle-import.py" }, { input: lines.join("\n") });
  if (run.status !== 0) {
    oracleMissing = `native RDKit failed: ${run.stderr.split("\n").slice(-3).join(" ")}`;
    return;
  }
  oracle = run.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as OracleRow);
});

const BAD = ["C1CC", "not a smiles", ""];

/**
 * Every imported smiles equals native RDKit 2022.09's canonical SMILES, but where rdkit/rdkit#8318 (2025.03) makes
 * the WASM build (2026.09) write it otherwise: atoms bonded to a metal get their H counts in brackets ([Cl][Hg],
 * [CH2][Sn]). Excused only when the molecule has an atom bonded to a metal (QueryOps' metal query, which that change
 * uses) and each RDKit reads the other's string back to exactly its own (scripts/oracle-workbench.py's round trip).
 */
async function checkCanonical(got: string[], inputs: string[], native: Array<string | null>): Promise<void> {
  const diverging: number[] = [];
  got.forEach((g, i) => {
    if (g !== native[i]) diverging.push(i);
  });
  if (diverging.length === 0) return;
  const reads = JSON.parse(
    await oracleOutput({ script: "oracle-workbench.py" }, { input: JSON.stringify({ roundtrip: diverging.map((i) => got[i]) }) }),
  ) as Array<{ canonical: string; metal_bonded: boolean } | null>;
  for (const [k, i] of diverging.entries()) {
    const where = `row ${i + 1}: ${inputs[i]} -> ${got[i]}, native ${native[i]}`;
    assert.ok(reads[k]?.metal_bonded, `${where}: no atom bonded to a metal`);
    assert.equal(reads[k].canonical, native[i], `${where}: native RDKit reads ours as another molecule`);
    const back = await call("canonical_smiles", { smiles: native[i]! });
    assert.equal(back.canonical, got[i], `${where}: we read native's as another molecule`);
  }
}

describe("canvas_import from smiles_list", () => {
  test("1,000 NCI molecules and three bad ones: counts, typed columns, canonical smiles equal native RDKit's, error codes for the bad rows", async (t) => {
    if (!oracle) return skipOracle(t, oracleMissing);
    const smiles = lines.map((l) => l.split(/\s+/)[0]!);
    const v = await importCall({ smiles_list: [...smiles, ...BAD], table: "nci" });
    assert.match(v.canvas_id, /^cv_/);
    assert.equal(v.table, "nci");
    assert.deepEqual(v.counts, { rows: 1003, parsed: 1000, failed: 3, table_rows: 1003 });
    assert.deepEqual(v.columns, [
      { name: "row_id", type: "BIGINT" },
      { name: "input", type: "VARCHAR" },
      { name: "smiles", type: "VARCHAR" },
      { name: "error", type: "VARCHAR" },
    ]);
    assert.equal(v.sample.length, 3);
    assert.deepEqual(v.sample[0], { row_id: 1, input: smiles[0], smiles: oracle[0]!.canonical });
    assert.equal(v.failures!.length, 3);
    assert.deepEqual(
      v.failures!.map((f) => [f.row_id, f.error]),
      [
        [1001, "INVALID_SMILES"],
        [1002, "INVALID_SMILES"],
        [1003, "INVALID_SMILES"],
      ],
    );
    const rows = await allRows(v.canvas_id, "SELECT row_id, input, smiles, error FROM nci ORDER BY row_id");
    assert.equal(rows.length, 1003);
    rows.slice(0, 1000).forEach((r, i) => {
      assert.equal(r.input, smiles[i]);
      assert.equal(r.error, null, `row ${i + 1} ${smiles[i]}`);
    });
    await checkCanonical(
      rows.slice(0, 1000).map((r) => r.smiles as string),
      smiles,
      oracle.map((o) => o.canonical),
    );
    assert.deepEqual(
      rows.slice(1000).map((r) => [r.input, r.smiles, r.error]),
      [
        ["C1CC", null, "INVALID_SMILES"],
        ["not a smiles", null, "INVALID_SMILES"],
        ["", null, "INVALID_SMILES"],
      ],
    );
  });
});

describe("canvas_import from sdf", () => {
  test("1,000 records written by native RDKit, in appended calls each within the 256 KiB string limit: tags as typed columns named as the tags, titles in title, canonical smiles native RDKit's", async (t) => {
    if (!oracle) return skipOracle(t, oracleMissing);
    // Batches of whole records, each under the codec's string limit.
    const batches: string[] = [];
    let current = "";
    for (const o of oracle) {
      if (Buffer.byteLength(current + o.sdf!, "utf8") > MAX_STRING_BYTES) {
        batches.push(current);
        current = "";
      }
      current += o.sdf!;
    }
    batches.push(current);
    assert.ok(batches.length >= 3, `${batches.length} calls`);
    // A record without M  END, at the end of the last call: an error row, not a failed call.
    batches[batches.length - 1] += "broken\n  no counts line\n$$$$\n";
    let canvasId: string | undefined;
    let last: Value | undefined;
    for (const [k, sdf] of batches.entries()) {
      last = await importCall(k === 0 ? { sdf, table: "nci_sdf" } : { sdf, table: "nci_sdf", mode: "append", canvas_id: canvasId });
      canvasId = last.canvas_id;
    }
    assert.equal(last!.counts.table_rows, 1001);
    assert.equal(last!.failures!.at(-1)!.error, "INVALID_SMILES");
    assert.deepEqual(last!.columns, [
      { name: "row_id", type: "BIGINT" },
      { name: "title", type: "VARCHAR", role: "title" },
      { name: "smiles", type: "VARCHAR" },
      { name: "error", type: "VARCHAR" },
      { name: "NSC", type: "BIGINT" },
      { name: "HEAVY", type: "DOUBLE" },
      { name: "KIND", type: "VARCHAR" },
    ]);
    const rows = await allRows(canvasId!, 'SELECT row_id, title, smiles, error, "NSC", "HEAVY", "KIND" FROM nci_sdf ORDER BY row_id');
    assert.equal(rows.length, 1001);
    const smiles = lines.map((l) => l.split(/\s+/)[0]!);
    rows.slice(0, 1000).forEach((r, i) => {
      const nsc = Number(lines[i]!.split(/\s+/)[1]);
      assert.equal(r.row_id, i + 1);
      assert.equal(r.title, `mol-${nsc}`);
      assert.equal(r.NSC, nsc);
      assert.equal(typeof r.HEAVY, "number");
      assert.ok(r.KIND === "ring" || r.KIND === "chain");
      assert.equal(r.error, null, `row ${i + 1}`);
    });
    await checkCanonical(
      rows.slice(0, 1000).map((r) => r.smiles as string),
      smiles,
      oracle.map((o) => o.sdf_canonical ?? null),
    );
    assert.deepEqual([rows[1000]!.title, rows[1000]!.smiles, rows[1000]!.error], ["broken", null, "INVALID_SMILES"]);
  });

  test("a tag named like one of our columns is renamed (case-insensitively) and the rename holds across appends", async () => {
    const record = (smiles: string, tags: Record<string, string>) =>
      `t\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 ${smiles}   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n` +
      Object.entries(tags)
        .map(([k, v]) => `>  <${k}>\n${v}\n\n`)
        .join("") +
      "$$$$\n";
    const first = await importCall({ sdf: record("C", { SMILES: "C", "my tag": "1" }), table: "tags" });
    assert.deepEqual(first.renamed, { SMILES: "SMILES_2" });
    assert.deepEqual(
      first.columns.slice(4).map((c) => c.name),
      ["SMILES_2", "my tag"],
    );
    const more = await importCall({ canvas_id: first.canvas_id, sdf: record("N", { SMILES: "N", "my tag": "x" }), table: "tags", mode: "append" });
    assert.deepEqual(
      more.columns.slice(4).map((c) => [c.name, c.type]),
      [
        ["SMILES_2", "VARCHAR"],
        ["my tag", "VARCHAR"],
      ],
    );
    const rows = await sql(first.canvas_id, 'SELECT smiles, "SMILES_2", "my tag" FROM tags ORDER BY row_id');
    assert.deepEqual(rows, [
      { smiles: "C", SMILES_2: "C", "my tag": "1" },
      { smiles: "N", SMILES_2: "N", "my tag": "x" },
    ]);
  });
});

function csvField(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

describe("canvas_import from csv", () => {
  test("1,000 rows with an id column, integer, float, text and mixed columns: types inferred per column, empty cells NULL, canonical smiles native RDKit's", async (t) => {
    if (!oracle) return skipOracle(t, oracleMissing);
    const header = "name,SMILES,nsc,heavy,kind,note";
    const body = lines.map((l, i) => {
      const [smiles, nsc] = l.split(/\s+/) as [string, string];
      const heavy = oracle![i]!.sdf ? String((oracle![i]!.sdf.match(/HEAVY>[^\n]*\n([^\n]+)/) ?? [])[1] ?? "") : "";
      const note = i === 3 ? 'see, "quoted"' : i % 10 === 0 ? "" : String(i);
      return [`mol-${nsc}`, smiles, nsc, heavy, i % 2 ? "odd" : "even", note].map(csvField).join(",");
    });
    const csv = [header, ...body, "bad-1,C1CC,9,1.5,odd,", "bad-2,,10,,even,x"].join("\r\n") + "\r\n";
    const v = await importCall({ csv, smiles_column: "SMILES", id_column: "name", table: "nci_csv" });
    assert.deepEqual(v.counts, { rows: 1002, parsed: 1000, failed: 2, table_rows: 1002 });
    assert.deepEqual(v.columns, [
      { name: "row_id", type: "BIGINT" },
      { name: "input", type: "VARCHAR" },
      { name: "smiles", type: "VARCHAR" },
      { name: "error", type: "VARCHAR" },
      { name: "id", type: "VARCHAR" },
      { name: "nsc", type: "BIGINT" },
      { name: "heavy", type: "DOUBLE" },
      { name: "kind", type: "VARCHAR" },
      { name: "note", type: "VARCHAR" },
    ]);
    // DuckDB holds the declared types.
    const types = (await manager.get(v.canvas_id)).inspect();
    assert.deepEqual(
      (await types).filter((c) => c.table_name === "nci_csv").map((c) => c.data_type),
      ["BIGINT", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "BIGINT", "DOUBLE", "VARCHAR", "VARCHAR"],
    );
    const rows = await allRows(v.canvas_id, "SELECT * FROM nci_csv ORDER BY row_id");
    await checkCanonical(
      rows.slice(0, 1000).map((r) => r.smiles as string),
      lines.map((l) => l.split(/\s+/)[0]!),
      oracle.map((o) => o.canonical),
    );
    rows.slice(0, 1000).forEach((r, i) => {
      const [, nsc] = lines[i]!.split(/\s+/) as [string, string];
      assert.equal(r.id, `mol-${nsc}`);
      assert.equal(r.nsc, Number(nsc));
      assert.equal(typeof r.heavy, "number");
      assert.equal(r.note, i === 3 ? 'see, "quoted"' : i % 10 === 0 ? null : String(i));
    });
    assert.deepEqual(
      rows.slice(1000).map((r) => [r.id, r.input, r.smiles, r.error]),
      [
        ["bad-1", "C1CC", null, "INVALID_SMILES"],
        ["bad-2", "", null, "INVALID_SMILES"],
      ],
    );
    // The sum of an integer column is a number: numbers stay numbers.
    const [sum] = await sql(v.canvas_id, "SELECT sum(nsc) AS s, avg(heavy) > 0 AS positive FROM nci_csv");
    assert.equal(sum!.positive, true);
    assert.equal(typeof sum!.s, "number");
  });

  test("a missing smiles_column or id_column is INVALID_ARGUMENTS naming the columns there are", async () => {
    const e = await failure("canvas_import", { csv: "a,b\nCCO,1\n", smiles_column: "smiles" });
    assert.equal(e.code, "INVALID_ARGUMENTS");
    assert.deepEqual(e.details.columns, ["a", "b"]);
    const id = await failure("canvas_import", { csv: "smiles,b\nCCO,1\n", id_column: "name" });
    assert.equal(id.details.path, "/id_column");
  });

  test("a table named like a DuckDB keyword (semi, order, left: every query would need quotes) is INVALID_ARGUMENTS; a name merely containing one is fine", async () => {
    for (const table of ["semi", "order", "left", "select", "join"]) {
      const e = await failure("canvas_import", { smiles_list: ["CCO"], table });
      assert.deepEqual([e.code, e.details.path, e.details.name], ["INVALID_ARGUMENTS", "/table", table], table);
      assert.match(e.message, /SQL keyword/);
    }
    const fine = await importCall({ smiles_list: ["CCO"], table: "semi_set" });
    assert.equal((await sql(fine.canvas_id, "SELECT smiles FROM semi_set"))[0]!.smiles, "CCO");
  });
});

describe("canvas_import modes and SQL over imported tables", () => {
  test("create refuses an existing table; append needs canvas_id and an imported table; appended rows continue row_id and add new columns", async () => {
    const first = await importCall({ smiles_list: ["CCO", "c1ccccc1"], table: "lib" });
    const again = await failure("canvas_import", { canvas_id: first.canvas_id, smiles_list: ["C"], table: "lib" });
    assert.equal(again.code, "INVALID_ARGUMENTS");
    assert.equal((await failure("canvas_import", { smiles_list: ["C"], table: "lib", mode: "append" })).details.path, "/canvas_id");
    assert.equal((await failure("canvas_import", { canvas_id: first.canvas_id, smiles_list: ["C"], table: "nope", mode: "append" })).code, "INVALID_ARGUMENTS");
    const more = await importCall({ canvas_id: first.canvas_id, csv: "smiles,score\nOCC,7\nCC(=O)O,2.5\n", table: "lib", mode: "append" });
    assert.deepEqual(more.counts, { rows: 2, parsed: 2, failed: 0, table_rows: 4 });
    assert.deepEqual(more.columns.at(-1), { name: "score", type: "DOUBLE" });
    const rows = await sql(first.canvas_id, "SELECT row_id, smiles, score FROM lib ORDER BY row_id");
    assert.deepEqual(rows, [
      { row_id: 1, smiles: "CCO", score: null },
      { row_id: 2, smiles: "c1ccccc1", score: null },
      { row_id: 3, smiles: "CCO", score: 7 },
      { row_id: 4, smiles: "CC(=O)O", score: 2.5 },
    ]);
    // More rows than the table holds: CANVAS_FULL before any chemistry, and the table is unchanged.
    const full = await failure("canvas_import", {
      canvas_id: first.canvas_id,
      smiles_list: Array.from({ length: 1999 }, () => "C"),
      table: "lib",
      mode: "append",
    });
    assert.equal(full.code, "CANVAS_FULL");
    assert.equal(full.details.max_table_rows, 2000);
    assert.equal((await sql(first.canvas_id, "SELECT count(*) AS n FROM lib"))[0]!.n, 4);
  });

  test("chembl_dataframe_describe lists an imported table; chembl_dataframe_query joins it with a staged bioactivity table on canonical SMILES", async () => {
    const lib = await importCall({ smiles_list: ["OCC", "c1ccccc1O", "CC(=O)Oc1ccccc1C(=O)O", "C1CC"], table: "library" });
    const canvas = await manager.get(lib.canvas_id);
    await canvas.stage(
      "bioactivities",
      [
        { name: "molecule_chembl_id", type: "VARCHAR", description: "molecule" },
        { name: "canonical_smiles", type: "VARCHAR", description: "smiles" },
        { name: "pchembl_value", type: "DOUBLE", description: "potency" },
      ],
      [
        ["CHEMBL545", "CCO", 4.1],
        ["CHEMBL25", "CC(=O)Oc1ccccc1C(=O)O", 5.5],
        ["CHEMBL14060", "Oc1ccccc1", 3.2],
        ["CHEMBL1", "CCCC", 9],
      ],
      { potency_view: "potency_ranked", total_count: 4, truncated: false, truncated_by: null },
    );
    const described = (await call("chembl_dataframe_describe", { canvas_id: lib.canvas_id })) as { tables: Array<Record<string, unknown>> };
    const imported = described.tables.find((t) => t.name === "library")!;
    assert.equal(imported.row_count, 4);
    assert.deepEqual(imported.import, { sources: ["smiles_list"], calls: 1 });
    assert.deepEqual(
      (imported.columns as Array<{ name: string }>).map((c) => c.name),
      ["row_id", "input", "smiles", "error"],
    );
    const joined = await sql(
      lib.canvas_id,
      "SELECT l.row_id, b.molecule_chembl_id, b.pchembl_value FROM library l JOIN bioactivities b ON b.canonical_smiles = l.smiles ORDER BY l.row_id",
    );
    assert.deepEqual(joined, [
      { row_id: 1, molecule_chembl_id: "CHEMBL545", pchembl_value: 4.1 },
      { row_id: 2, molecule_chembl_id: "CHEMBL14060", pchembl_value: 3.2 },
      { row_id: 3, molecule_chembl_id: "CHEMBL25", pchembl_value: 5.5 },
    ]);
    // The same lock-down: no file reads from an imported table's canvas either.
    const refused = await failure("chembl_dataframe_query", { canvas_id: lib.canvas_id, sql: "SELECT * FROM read_csv('/etc/passwd')" });
    assert.equal(refused.code, "QUERY_REFUSED");
  });

  test("chembl_dataframe_drop drops an imported table", async () => {
    const lib = await importCall({ smiles_list: ["CCO"], table: "scratch" });
    const dropped = (await call("chembl_dataframe_drop", { canvas_id: lib.canvas_id, table: "scratch" })) as { dropped: string; remaining_tables: string[] };
    assert.deepEqual(dropped, { canvas_id: lib.canvas_id, dropped: "scratch", remaining_tables: [] });
  });
});

test("a file too wide gets a named refusal before its rows are read: QUERY_REFUSED too_many_columns, CSV columns and SDF data items (issue 37 item 4)", async () => {
  const header = ["smiles", ...Array.from({ length: 10_000 }, (_, i) => `d${i + 1}`)].join(",");
  const row = ["CCO", ...Array.from({ length: 10_000 }, () => "1")].join(",");
  const wide = await failure("canvas_import", { csv: `${header}\n${row}\n${row}\n` });
  assert.equal(wide.code, "QUERY_REFUSED");
  assert.equal(wide.details.reason, "too_many_columns");
  assert.equal(wide.details.columns, 10_000);
  assert.equal(wide.details.max_columns, 1_000);
  assert.match(wide.message, /CHEMATIC_IMPORT_MAX_COLUMNS/);
  // At the cap it is imported; one past it is refused.
  const cols = (n: number) => ["smiles", ...Array.from({ length: n }, (_, i) => `d${i + 1}`)].join(",");
  const vals = (n: number) => ["CCO", ...Array.from({ length: n }, () => "1")].join(",");
  const fits = await importCall({ csv: `${cols(1_000)}\n${vals(1_000)}\n` });
  assert.equal(fits.counts.rows, 1);
  assert.equal((await failure("canvas_import", { csv: `${cols(1_001)}\n${vals(1_001)}\n` })).details.columns, 1_001);
  // An SDF whose records bring more distinct data items than the cap.
  const record = (k: number) =>
    `m${k}\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n` +
    Array.from({ length: 11 }, (_, j) => `> <tag_${k}_${j}>\n1\n\n`).join("") +
    "$$$$\n";
  const sdf = Array.from({ length: 100 }, (_, k) => record(k)).join("");
  const sdfRefused = await failure("canvas_import", { sdf });
  assert.equal(sdfRefused.code, "QUERY_REFUSED");
  assert.equal(sdfRefused.details.reason, "too_many_columns");
  // The setting: a manager allowing 5 columns refuses a 6-column CSV.
  const narrow = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1000, importMaxColumns: 5 });
  try {
    const narrowServer = serverWith(narrow, pool);
    const outcome = await narrowServer.runTool("canvas_import", { csv: `${cols(6)}\n${vals(6)}\n` }, { signal: new AbortController().signal });
    assert.ok(!outcome.ok && outcome.error.details.max_columns === 5, JSON.stringify(outcome));
  } finally {
    await narrow.close();
  }
});
