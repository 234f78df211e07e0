/**
 * The set tools on a canvas table (issue 31 item 1): pick_diverse, matched_pairs, rgroup_decompose, find_mcs,
 * enumerate_stereoisomers, cluster_molecules, depict and canvas_annotate take canvas_id + table (+ smiles_column,
 * where), through the server and its real worker pool (schemas checked both ways). Each result equals the list
 * form's on the same molecules; per-row results are columns, the others new tables keyed by the source `_row`.
 * Bad input (a missing column, a where that is not a filter, a keyword as a table name, another owner's canvas)
 * is a typed error with a hint, and leaves the table as it was.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { initCanvasManager, type CanvasManager } from "../../src/domain/canvas/manager.js";
import { createPickDiverseTool, pickDiverseTool } from "../../src/tools/pick_diverse.js";
import { createMatchedPairsTool, runMatchedPairs } from "../../src/tools/matched_pairs.js";
import { createRgroupDecomposeTool, runRgroupDecompose } from "../../src/tools/rgroup_decompose.js";
import { createFindMcsTool, findMcsTool } from "../../src/tools/find_mcs.js";
import { createEnumerateStereoisomersTool, enumerateStereoisomersTool } from "../../src/tools/enumerate_stereoisomers.js";
import { createClusterMoleculesTool, clusterMoleculesTool } from "../../src/tools/cluster_molecules.js";
import { createCanvasAnnotateTool } from "../../src/tools/canvas_annotate.js";
import { depictTool } from "../../src/tools/depict.js";
import { murckoScaffoldTool } from "../../src/tools/murcko_scaffold.js";
import { createStandardizeTool, standardizeTool } from "../../src/tools/standardize.js";
import { createDruglikenessFiltersTool, druglikenessFiltersTool } from "../../src/tools/druglikeness_filters.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { ok } from "../fixtures/chembl/harness.js";
import { stageSmiles } from "../helpers/annotate.js";
import { testCanvasConfig } from "../helpers/canvas-config.js";

type Row = Record<string, unknown>;
let manager: CanvasManager;
let rdkit: RDKit;
let pool: WorkerPool;
let server: McpServer;

/** A small series with salts, stereo, a NULL and an unparsable row. */
const SMILES: Array<string | null> = [
  "Clc1ccc(CC(=O)O)cc1",
  "Fc1ccc(CC(=O)O)cc1",
  "Brc1ccc(CC(=O)O)cc1",
  "Cc1ccc(CC(=O)O)cc1",
  "COc1ccc(CC(=O)O)cc1",
  null,
  "Oc1ccc(CC(=O)O)cc1",
  "not a smiles",
  "N#Cc1ccc(CC(=O)O)cc1",
  "CC(O)C(N)C(=O)O",
  "C/C=C/C(Cl)CC",
  "[Na+].[O-]C(=O)Cc1ccc(I)cc1",
  "CCN(CC)CCNC(=O)c1ccc(N)cc1",
];
const CTX = () => ({ rdkit, progress: () => {} });

before(async () => {
  manager = initCanvasManager(testCanvasConfig());
  rdkit = await loadRDKit();
  pool = new WorkerPool({ size: 1 });
  const canvases = () => manager;
  server = new McpServer({
    tools: [
      createPickDiverseTool(canvases),
      createMatchedPairsTool(canvases),
      createRgroupDecomposeTool(canvases),
      createFindMcsTool(canvases),
      createEnumerateStereoisomersTool(canvases),
      createClusterMoleculesTool(canvases),
      createCanvasAnnotateTool(canvases),
      depictTool,
      createStandardizeTool(canvases),
      createDruglikenessFiltersTool(canvases),
    ],
    pool,
    info: { name: "test", version: "0" },
    logger: silentLogger,
  });
});
after(async () => {
  await pool.close();
  await manager.close();
});

async function call(name: string, args: Row, owner?: string): Promise<Row> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal, ...(owner !== undefined ? { owner } : {}) });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

async function refused(name: string, args: Row, owner?: string): Promise<{ code: string; message: string; hint?: string; details?: Row }> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal, ...(owner !== undefined ? { owner } : {}) });
  assert.ok(!outcome.ok, `${name} should have been refused`);
  return outcome.error;
}

async function rows(canvasId: string, sql: string): Promise<Row[]> {
  return (
    await ok(
      createChemblDataframeQueryTool(() => manager),
      { canvas_id: canvasId, sql, max_rows: 1000 },
    )
  ).value.rows as Row[];
}

/** The rows with SMILES text, in row order, as the canvas forms read them (id = the row's position = its _row). */
function withSmiles(filter: (i: number) => boolean = () => true): Array<{ i: number; s: string }> {
  return SMILES.map((s, i) => ({ s, i })).filter((r): r is { i: number; s: string } => r.s !== null && filter(r.i));
}

test("pick_diverse on a table writes the pick rank as a column, equal to the list form's picks; again: already there; another pick needs `as`", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("pick_diverse", { canvas_id: id, table: "library", n: 4 });
  assert.equal(value.column, "pick_rank");
  const pool_ = withSmiles();
  // The list form on the rows with SMILES (the unparsable one is left out there too).
  const list = pickDiverseTool.run({ smiles_list: pool_.map((r) => r.s), n: 4 }, CTX());
  assert.equal(value.picked, 4);
  assert.equal(value.pool, list.pool);
  const got = await rows(id, "SELECT id, pick_rank FROM library WHERE pick_rank IS NOT NULL ORDER BY pick_rank");
  assert.deepEqual(
    got.map((r) => r.id),
    list.picks.map((k) => pool_[k]!.i),
  );
  assert.deepEqual(
    value.first_rows,
    list.picks.map((k) => pool_[k]!.i),
  );
  const again = await call("pick_diverse", { canvas_id: id, table: "library", n: 4 });
  assert.match(String(again.note), /already hold this pick/);
  const other = await refused("pick_diverse", { canvas_id: id, table: "library", n: 3 });
  assert.equal(other.code, "INVALID_ARGUMENTS");
  assert.match(other.hint ?? "", /`as`/);
  const named = await call("pick_diverse", { canvas_id: id, table: "library", n: 3, as: "pick3", where: "id < 8" });
  assert.equal(named.column, "pick3");
  const inWhere = withSmiles((i) => i < 8);
  const list3 = pickDiverseTool.run({ smiles_list: inWhere.map((r) => r.s), n: 3 }, CTX());
  const got3 = await rows(id, "SELECT id FROM library WHERE pick3 IS NOT NULL ORDER BY pick3");
  assert.deepEqual(
    got3.map((r) => r.id),
    list3.picks.map((k) => inWhere[k]!.i),
  );
});

test("matched_pairs on a table writes every pair to a new table keyed by _row, equal to the list form's pairs, with deltas from value_column", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("matched_pairs", { canvas_id: id, table: "library", value_column: "id" });
  assert.equal(value.into, "library_pairs");
  const series = withSmiles();
  const list = runMatchedPairs(rdkit, { smiles_list: series.map((r) => r.s), values: series.map((r) => r.i), max_pairs: 10_000 }) as {
    pairs: Array<{ from: number; to: number; constant: string; transformation: string; delta?: number }>;
    total_pairs: number;
  };
  assert.equal(value.total_pairs, list.total_pairs);
  assert.ok(list.total_pairs >= 10, `a series of para-substituted phenylacetic acids pairs (${list.total_pairs})`);
  const got = await rows(id, "SELECT from_row, to_row, constant, transformation, delta FROM library_pairs");
  assert.deepEqual(
    got,
    list.pairs.map((p) => ({
      from_row: series[p.from]!.i,
      to_row: series[p.to]!.i,
      constant: p.constant,
      transformation: p.transformation,
      delta: p.delta ?? null,
    })),
  );
  // The sodium salt pairs as its parent (the iodo acid), as in the list form.
  assert.ok(got.some((r) => r.from_row === 11 || r.to_row === 11));
  assert.equal((value.sample as Row[]).length, 3);
  // Again: the table it made is replaced; a table it did not make is refused.
  await call("matched_pairs", { canvas_id: id, table: "library" });
  const clash = await refused("matched_pairs", { canvas_id: id, table: "library", into: "library" });
  assert.equal(clash.code, "INVALID_ARGUMENTS");
  assert.match(clash.hint ?? "", /into/);
});

test("rgroup_decompose on a table writes one row per matched molecule (source_row, smiles, core, r1...) to a new table, equal to the list form", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("rgroup_decompose", { canvas_id: id, table: "library", core: "c1ccc(CC(=O)O)cc1", where: "id < 10" });
  assert.equal(value.into, "library_rgroups");
  const series = withSmiles((i) => i < 10);
  const list = runRgroupDecompose(rdkit, { core: "c1ccc(CC(=O)O)cc1", smiles_list: series.map((r) => r.s) }) as {
    labels: string[];
    rows: Array<Record<string, string | number>>;
    unmatched: number[];
  };
  assert.equal(value.matched, list.rows.length);
  assert.equal(value.unmatched, list.unmatched.length);
  const labels = list.labels.filter((l) => l !== "Core");
  assert.deepEqual(
    value.labels,
    labels.map((l) => l.toLowerCase()),
  );
  const got = await rows(id, `SELECT * FROM library_rgroups ORDER BY source_row`);
  assert.deepEqual(
    got.map((r) => [r.source_row, ...labels.map((l) => r[l.toLowerCase()])]),
    list.rows.map((r) => [series[r.index as number]!.i, ...labels.map((l) => r[l] ?? null)]),
  );
});

test("find_mcs on a table's rows (where) equals the list form; more rows than it takes asks for a narrower where", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("find_mcs", { canvas_id: id, table: "library", where: "id IN (0, 1, 2, 3)" });
  const list = findMcsTool.run({ smiles_list: SMILES.slice(0, 4) as string[] }, CTX());
  for (const key of ["mcs", "mcs_smarts", "atom_count", "bond_count", "molecule_count"]) assert.deepEqual(value[key], list[key], key);
  assert.equal(value.rows_read, 4);
  const many = await stageSmiles(
    manager,
    Array.from({ length: 60 }, (_, i) => `${"C".repeat(i + 1)}c1ccccc1`),
  );
  const tooMany = await refused("find_mcs", { canvas_id: many, table: "library" });
  assert.equal(tooMany.code, "INVALID_ARGUMENTS");
  assert.match(tooMany.hint ?? "", /where/);
});

test("enumerate_stereoisomers on a table writes each row's isomers to a new table, equal to the list form", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("enumerate_stereoisomers", { canvas_id: id, table: "library", where: "id IN (9, 10)" });
  assert.equal(value.into, "library_stereoisomers");
  const got = await rows(id, "SELECT source_row, isomer_number, isomer_smiles FROM library_stereoisomers ORDER BY source_row, isomer_number");
  const want = [9, 10].flatMap((i) =>
    enumerateStereoisomersTool.run({ smiles: SMILES[i]! }, CTX()).isomers.map((s, k) => ({ source_row: i, isomer_number: k + 1, isomer_smiles: s })),
  );
  assert.deepEqual(got, want);
  assert.equal(value.isomers_written, want.length);
  assert.equal(want.length, 4 + 2, "two unassigned centres; one unassigned centre beside an assigned double bond");
});

test("cluster_molecules with where clusters only those rows (the others stay NULL), equal to the list form on them", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("cluster_molecules", { canvas_id: id, table: "library", where: "id < 9", threshold: 0.6 });
  const series = withSmiles((i) => i < 9);
  const list = clusterMoleculesTool.run({ smiles_list: series.map((r) => r.s), threshold: 0.6 }, CTX());
  assert.equal(value.cluster_count, list.cluster_count);
  assert.equal(value.rows_read, 9);
  const got = await rows(id, "SELECT id, cluster_id FROM library ORDER BY id");
  const want = new Map<number, number>();
  list.clusters.forEach((c, k) => c.members.forEach((m) => want.set(series[m]!.i, k)));
  for (const r of got) assert.equal(r.cluster_id, want.get(r.id as number) ?? null, `row ${String(r.id)}`);
});

test("canvas_annotate with where computes only the rows it keeps; depict draws a table's rows that where keeps", async () => {
  const id = await stageSmiles(manager, SMILES);
  const value = await call("canvas_annotate", { canvas_id: id, table: "library", columns: ["mw"], where: "id BETWEEN 2 AND 4" });
  assert.equal(value.rows_total, 3);
  const got = await rows(id, "SELECT id FROM library WHERE mw IS NOT NULL ORDER BY id");
  assert.deepEqual(
    got.map((r) => r.id),
    [2, 3, 4],
  );
  const grid = await call("depict", { canvas_id: id, table: "library", where: "mw IS NOT NULL", legend_column: "id", format: "svg" });
  assert.equal(grid.count, 3);
  assert.deepEqual(
    (grid.entries as Row[]).map((e) => e.input),
    [SMILES[2], SMILES[3], SMILES[4]],
  );
});

test("bad input: a missing column, a where that is not a filter, a keyword as a table name, another owner's canvas: typed errors with hints, the table as it was", async () => {
  const id = await stageSmiles(manager, SMILES);
  const columnsBefore = (await rows(id, "SELECT * FROM library LIMIT 1")).map((r) => Object.keys(r));
  const missing = await refused("pick_diverse", { canvas_id: id, table: "library", n: 2, smiles_column: "structure" });
  assert.equal(missing.code, "INVALID_ARGUMENTS");
  assert.match(missing.message, /no column structure/);
  assert.ok(missing.hint);
  const noValues = await refused("matched_pairs", { canvas_id: id, table: "library", value_column: "pic50" });
  assert.equal(noValues.code, "INVALID_ARGUMENTS");
  assert.match(noValues.message, /no column pic50/);
  for (const where of ["1=1; DROP TABLE library", "id > 0) UNION SELECT 1 FROM library WHERE (1=1", "id > 0 ORDER BY id", "mw <", "no_such_column > 1", ""]) {
    for (const [tool, extra] of [
      ["cluster_molecules", {}],
      ["pick_diverse", { n: 2 }],
      ["canvas_annotate", { columns: ["logp"] }],
    ] as const) {
      const e = await refused(tool, { canvas_id: id, table: "library", where, ...extra });
      assert.equal(e.code, "INVALID_ARGUMENTS", `${tool} ${where}: ${e.code} ${e.message}`);
      assert.ok(e.hint, `${tool} ${where}: a hint`);
    }
  }
  const keyword = await refused("matched_pairs", { canvas_id: id, table: "library", into: "select" });
  assert.equal(keyword.code, "INVALID_ARGUMENTS");
  assert.match(keyword.message, /keyword/);
  const stranger = await refused("pick_diverse", { canvas_id: id, table: "library", n: 2 }, "mallory");
  assert.equal(stranger.code, "CANVAS_NOT_FOUND");
  const noTable = await refused("rgroup_decompose", { canvas_id: id, table: "nothing", core: "c1ccccc1" });
  assert.equal(noTable.code, "INVALID_ARGUMENTS");
  // A pick that fails after its column was added (n past the pool) takes the column back off.
  const tooMany = await refused("pick_diverse", { canvas_id: id, table: "library", n: 50 });
  assert.equal(tooMany.code, "INVALID_ARGUMENTS");
  const after = (await rows(id, "SELECT * FROM library LIMIT 1")).map((r) => Object.keys(r).filter((k) => k !== "_row"));
  assert.deepEqual(after, columnsBefore);
  const tables = await rows(id, "SELECT 1 AS one");
  assert.equal(tables.length, 1);
});

test("standardize and druglikeness_filters on a table write their values as columns (canvas_annotate's kinds), equal to the list forms", async () => {
  const id = await stageSmiles(manager, SMILES);
  const std = await call("standardize", { canvas_id: id, table: "library" });
  assert.deepEqual(std.columns, [
    { name: "parent_smiles", type: "VARCHAR" },
    { name: "parent_inchikey", type: "VARCHAR" },
  ]);
  assert.equal(std.invalid_smiles_rows, 2);
  const cleaned = await call("standardize", { canvas_id: id, table: "library", strip_salts: false, keep_largest_fragment: false, neutralize: false });
  assert.deepEqual(cleaned.columns, [{ name: "standardized_smiles", type: "VARCHAR" }]);
  const mixed = await refused("standardize", { canvas_id: id, table: "library", neutralize: false });
  assert.equal(mixed.code, "INVALID_ARGUMENTS");
  const drug = await call("druglikeness_filters", { canvas_id: id, table: "library", parent: true, where: "id > 8" });
  assert.equal((drug.columns as Row[])[0]!.name, "parent_lipinski_pass");
  const got = await rows(id, "SELECT id, parent_smiles, standardized_smiles, parent_lipinski_pass, parent_ghose_pass FROM library ORDER BY id");
  for (const r of got) {
    const s = SMILES[r.id as number];
    if (s === null || s === undefined || s === "not a smiles") {
      assert.equal(r.parent_smiles, null);
      continue;
    }
    assert.equal(r.parent_smiles, standardizeTool.run({ smiles: s }, CTX()).parent_smiles, s);
    assert.equal(
      r.standardized_smiles,
      standardizeTool.run({ smiles: s, strip_salts: false, keep_largest_fragment: false, neutralize: false }, CTX()).parent_smiles,
      s,
    );
    if ((r.id as number) <= 8) assert.equal(r.parent_lipinski_pass, null);
    else {
      const list = druglikenessFiltersTool.run({ smiles: s, parent: true }, CTX());
      assert.equal(r.parent_lipinski_pass, list.rules.lipinski.pass, s);
      assert.equal(r.parent_ghose_pass, list.rules.ghose.pass, s);
    }
  }
});

test("the per-row canvas forms (murcko_scaffold, standardize, druglikeness_filters) work under canvas_annotate's budget, not the tool's single-molecule one", () => {
  const annotateBudget = createCanvasAnnotateTool(() => manager).budgetMs;
  for (const tool of [murckoScaffoldTool, standardizeTool, druglikenessFiltersTool]) {
    assert.ok(tool.budgetMs < annotateBudget, `${tool.name}: a single molecule's budget is short`);
    assert.equal(tool.mainForm?.budgetMs, annotateBudget, `${tool.name}: its canvas form steps through a table as canvas_annotate does`);
  }
});
