/**
 * The canvas forms of murcko_scaffold and cluster_molecules (issue 16's acceptance): on a staged bioactivity
 * table (SMILES in canonical_smiles, with a NULL and an unparsable row), through the server and its real worker
 * pool (schemas checked both ways), each writes its result as columns by row key: murcko_scaffold /
 * generic_scaffold, and cluster_id + is_centroid equal to the list form's clusters.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createMurckoScaffoldTool, murckoScaffoldTool } from "../../src/tools/murcko_scaffold.js";
import { createClusterMoleculesTool, clusterMoleculesTool } from "../../src/tools/cluster_molecules.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { ok } from "../fixtures/chembl/harness.js";
import { stageSmiles } from "../helpers/annotate.js";

type Row = Record<string, unknown>;
let manager: CanvasManager;
let rdkit: RDKit;
let pool: WorkerPool;
let server: McpServer;

const SMILES = [
  "CC(=O)Oc1ccccc1C(=O)O",
  "CC(=O)Oc1ccccc1C(=O)OC",
  "O=C(O)c1ccccc1O",
  null,
  "CCN(CC)CCNC(=O)c1ccc(N)cc1",
  "CCN(CC)CCOC(=O)c1ccc(N)cc1",
  "not a smiles",
  "CCCCO",
  "c1ccc2ccccc2c1",
  "Cc1ccc2ccccc2c1",
  "CC(=O)Oc1ccccc1C(=O)O",
];

before(async () => {
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  rdkit = await loadRDKit();
  pool = new WorkerPool({ size: 1 });
  server = new McpServer({
    tools: [createMurckoScaffoldTool(() => manager), createClusterMoleculesTool(() => manager)],
    pool,
    info: { name: "test", version: "0" },
    logger: silentLogger,
  });
});
after(async () => {
  await pool.close();
  await manager.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<Row> {
  const outcome = await server.runTool(name, args, { signal: new AbortController().signal });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

async function rows(canvasId: string, sql: string): Promise<Row[]> {
  return (
    await ok(
      createChemblDataframeQueryTool(() => manager),
      { canvas_id: canvasId, sql, max_rows: 1000 },
    )
  ).value.rows as Row[];
}

test("murcko_scaffold on a canvas table writes murcko_scaffold (and with generic, generic_scaffold) per row, equal to the single call; NULL where the SMILES does not parse", async () => {
  const id = await stageSmiles(manager, SMILES, "activities", "canonical_smiles");
  const value = await call("murcko_scaffold", { canvas_id: id, table: "activities" });
  assert.equal(value.smiles_column, "canonical_smiles");
  assert.deepEqual(value.columns, [{ name: "murcko_scaffold", type: "VARCHAR" }]);
  assert.equal(value.complete, true);
  assert.equal(value.invalid_smiles_rows, 2);
  await call("murcko_scaffold", { canvas_id: id, table: "activities", generic: true });
  const got = await rows(id, "SELECT id, murcko_scaffold, generic_scaffold FROM activities ORDER BY id");
  assert.equal(got.length, SMILES.length);
  for (const row of got) {
    const s = SMILES[row.id as number];
    if (s === null || s === "not a smiles") {
      assert.deepEqual([row.murcko_scaffold, row.generic_scaffold], [null, null]);
      continue;
    }
    const ctx = { rdkit, progress: () => {} };
    assert.equal(row.murcko_scaffold, murckoScaffoldTool.run({ smiles: s! }, ctx).scaffold, s);
    assert.equal(row.generic_scaffold, murckoScaffoldTool.run({ smiles: s!, generic: true }, ctx).scaffold, s);
  }
  const grouped = await rows(id, "SELECT murcko_scaffold, count(*) AS n FROM activities WHERE murcko_scaffold IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1");
  assert.deepEqual(grouped[0], { murcko_scaffold: "c1ccccc1", n: 6 });
});

test("cluster_molecules on a canvas table writes cluster_id and is_centroid, equal to the list form's clusters; a second call says it is done", async () => {
  const id = await stageSmiles(manager, SMILES, "activities", "canonical_smiles");
  const value = await call("cluster_molecules", { canvas_id: id, table: "activities", threshold: 0.5 });
  assert.deepEqual(value.columns, [
    { name: "cluster_id", type: "INTEGER" },
    { name: "is_centroid", type: "BOOLEAN" },
  ]);
  assert.equal(value.rows_read, SMILES.length);
  assert.equal(value.rows_clustered, SMILES.length);
  assert.equal(value.invalid_smiles_rows, 2);
  // The list form on the rows that have a SMILES (in row order): the invalid one is left out there too.
  const withSmiles = SMILES.map((s, i) => ({ s, i })).filter((r) => r.s !== null);
  const list = clusterMoleculesTool.run({ smiles_list: withSmiles.map((r) => r.s!), threshold: 0.5 }, { rdkit, progress: () => {} });
  assert.equal(value.cluster_count, list.cluster_count);
  const want = new Map<number, [number, boolean]>();
  list.clusters.forEach((c, k) => c.members.forEach((m, j) => want.set(withSmiles[m]!.i, [k, j === 0])));
  const got = await rows(id, "SELECT id, cluster_id, is_centroid FROM activities ORDER BY id");
  for (const row of got) {
    const w = want.get(row.id as number) ?? [null, null];
    assert.deepEqual([row.cluster_id, row.is_centroid], w, `row ${String(row.id)}`);
  }
  // Aspirin and its duplicate share a cluster.
  assert.equal(got[0]!.cluster_id, got[10]!.cluster_id);
  const again = await call("cluster_molecules", { canvas_id: id, table: "activities", threshold: 0.5 });
  assert.equal(again.rows_clustered, 0);
  assert.match(String(again.note), /already clustered/);
  // Another threshold on the same table: refused with a hint cluster_molecules can follow (it has no `as`).
  const other = await server.runTool("cluster_molecules", { canvas_id: id, table: "activities", threshold: 0.3 }, { signal: new AbortController().signal });
  assert.ok(!other.ok);
  assert.equal(other.error.code, "INVALID_ARGUMENTS");
  assert.match(other.error.message, /already clustered with another definition/);
  assert.doesNotMatch(other.error.hint ?? "", /`as`/);
});
