/**
 * canvas_annotate: columns written on a staged table, NULLs for SMILES that do not parse, resumable steps
 * (complete: false, the same call continues, rows already annotated not recomputed), the default SMILES column
 * of a staged ChEMBL table, typed errors, and one run through the real worker pool (the worker-only row tool).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createCanvasAnnotateTool, planColumns } from "../../src/tools/canvas_annotate.js";
import type { ToolError } from "../../src/domain/errors.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";
import { painsCheckTool } from "../../src/tools/pains_check.js";
import { druglikenessFiltersTool } from "../../src/tools/druglikeness_filters.js";
import { saScoreTool } from "../../src/tools/sa_score.js";
import { standardizeTool } from "../../src/tools/standardize.js";
import { DRUG_RULE_KEYS } from "../../src/domain/chem/druglikeness.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { fails, ok, serviceContext } from "../fixtures/chembl/harness.js";
import { localRunner, stageSmiles, type LocalRunner } from "../helpers/annotate.js";

type Row = Record<string, unknown>;
let manager: CanvasManager;
let rdkit: RDKit;
let chem: LocalRunner;
const annotate = () => createCanvasAnnotateTool(() => manager);
const query = () => createChemblDataframeQueryTool(() => manager);
const ctx = () => serviceContext(40_000, { chem });

async function rows(canvasId: string, sql: string): Promise<Row[]> {
  return (await ok(query(), { canvas_id: canvasId, sql, max_rows: 1000 })).value.rows as Row[];
}

before(async () => {
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  rdkit = await loadRDKit();
  chem = await localRunner(rdkit);
});
after(() => manager.close());

describe("canvas_annotate", () => {
  test("adds the property columns, each equal to calc_properties, with NULLs (counted) where the SMILES does not parse", async () => {
    const smiles = ["CC(=O)Oc1ccccc1C(=O)O", "c1ccccc1O", "not a smiles", null, "O=C(C)Oc1ccccc1"];
    const id = await stageSmiles(manager, smiles);
    const { value } = await ok(annotate(), { canvas_id: id, table: "library", columns: ["mw", "logp", "tpsa", "hbd", "formula", "qed"] }, ctx());
    assert.equal(value.complete, true);
    assert.equal(value.rows_total, 5);
    assert.equal(value.rows_computed, 5);
    assert.equal(value.invalid_smiles_rows, 2);
    assert.equal(value.smiles_column, "smiles");
    const got = await rows(id, "SELECT id, mw, logp, tpsa, hbd, formula, qed FROM library ORDER BY id");
    for (const row of got) {
      const s = smiles[row.id as number];
      if (s === null || s === "not a smiles") {
        assert.deepEqual([row.mw, row.logp, row.formula, row.qed], [null, null, null, null]);
        continue;
      }
      const single = calcPropertiesTool.run({ smiles: s! }, { rdkit, progress: () => {} }) as Row;
      for (const k of ["mw", "logp", "tpsa", "hbd", "formula", "qed"]) assert.equal(row[k], single[k], `${s} ${k}`);
    }
    const types = Object.fromEntries((await manager.get(id)).describe()[0]!.columns.map((c) => [c.name, c.type]));
    assert.deepEqual([types.mw, types.hbd, types.formula], ["DOUBLE", "INTEGER", "VARCHAR"]);
  });

  test("pains adds pains_count INTEGER and pains_names VARCHAR[] equal to pains_check", async () => {
    const smiles = ["O=C(C=Cc1ccccc1)c1ccccc1", "c1ccc2c(c1)N=C(S2)N", "CCO", "Oc1ccc(N=Nc2ccccc2)cc1"];
    const id = await stageSmiles(manager, smiles);
    await ok(annotate(), { canvas_id: id, table: "library", columns: ["pains", "brenk"] }, ctx());
    const got = await rows(id, "SELECT id, pains_count, pains_names, brenk_count FROM library ORDER BY id");
    for (const row of got) {
      const single = painsCheckTool.run({ smiles: smiles[row.id as number]! }, { rdkit, progress: () => {} }) as { alert_count: number; alerts: string[] };
      assert.equal(row.pains_count, single.alert_count);
      assert.deepEqual(row.pains_names, single.alerts);
    }
    const [described] = await rows(id, "SELECT typeof(pains_names) AS t, typeof(pains_count) AS c FROM library LIMIT 1");
    assert.deepEqual(described, { t: "VARCHAR[]", c: "INTEGER" });
  });

  test("resumable: a call cut by its budget answers complete: false with rows done and left; the same call continues and never recomputes a row", async () => {
    const smiles = Array.from({ length: 450 }, (_, i) => "C".repeat((i % 20) + 1) + "O");
    const id = await stageSmiles(manager, smiles);
    const args = { canvas_id: id, table: "library", columns: ["mw", "murcko_scaffold", { kind: "substructure_matches", smarts: "[OX2H]", as: "alcohols" }] };
    chem.listEntries = 0;
    chem.cutAfter = 200;
    try {
      const first = (await ok(annotate(), args, ctx())).value;
      assert.deepEqual([first.complete, first.rows_done, first.rows_left, first.rows_computed], [false, 200, 250, 200]);
      assert.match(String(first.note), /call canvas_annotate again with the same arguments/);
      const [partial] = await rows(id, "SELECT count(mw) AS n FROM library");
      assert.equal(Number(partial!.n), 200);
      const second = (await ok(annotate(), args, ctx())).value;
      assert.deepEqual([second.complete, second.rows_done, second.rows_left], [false, 400, 50]);
      const third = (await ok(annotate(), args, ctx())).value;
      assert.deepEqual([third.complete, third.rows_done, third.rows_left, third.rows_computed], [true, 450, 0, 50]);
      assert.equal(chem.listEntries, 450, "each row computed once");
      const again = (await ok(annotate(), args, ctx())).value;
      assert.deepEqual([again.complete, again.rows_computed], [true, 0]);
      assert.equal(chem.listEntries, 450);
    } finally {
      delete chem.cutAfter;
    }
    const [check] = await rows(id, "SELECT count(*) FILTER (WHERE alcohols = 1) AS ones, count(*) FILTER (WHERE murcko_scaffold = '') AS acyclic FROM library");
    assert.deepEqual([Number(check!.ones), Number(check!.acyclic)], [450, 450]);
  });

  test("rows appended to an annotated table (list columns included) are computed by the next call alone; an imported column named like a computed one is renamed", async () => {
    const importer = createCanvasImportTool(() => manager);
    const first = (await ok(importer, { smiles_list: ["CCO", "c1ccccc1O"], table: "hits" }, ctx())).value;
    const id = first.canvas_id as string;
    const args = { canvas_id: id, table: "hits", columns: ["mw", "pains", "murcko_scaffold"] };
    assert.equal((await ok(annotate(), args, ctx())).value.rows_computed, 2);
    // A CSV whose columns are called like ours: mw is canvas_annotate's on this table, potency is data.
    const more = (await ok(importer, { canvas_id: id, table: "hits", mode: "append", csv: "smiles,mw,potency\nO=C(O)c1ccccc1O,1.5,7.2\n" }, ctx())).value;
    assert.deepEqual(more.renamed, { mw: "mw_2" });
    chem.listEntries = 0;
    const again = (await ok(annotate(), args, ctx())).value;
    assert.deepEqual([again.complete, again.rows_total, again.rows_computed], [true, 3, 1]);
    assert.equal(chem.listEntries, 1, "the first two rows are not recomputed");
    const got = await rows(id, "SELECT smiles, mw, mw_2, potency, pains_count, pains_names, murcko_scaffold FROM hits ORDER BY row_id");
    assert.deepEqual(
      got.map((r) => [r.smiles, r.mw_2, r.potency, r.pains_count, r.pains_names, r.murcko_scaffold]),
      [
        ["CCO", null, null, 0, [], ""],
        ["Oc1ccccc1", null, null, 0, [], "c1ccccc1"],
        ["O=C(O)c1ccccc1O", 1.5, 7.2, 0, [], "c1ccccc1"],
      ],
    );
    assert.equal(got[2]!.mw, (calcPropertiesTool.run({ smiles: "O=C(O)c1ccccc1O" }, { rdkit, progress: () => {} }) as { mw: number }).mw);
  });

  test("a table with canonical_smiles and no smiles column (a staged ChEMBL table) is read from canonical_smiles by default", async () => {
    const id = await stageSmiles(manager, ["CCO", "c1ccccc1"], "bioactivities", "canonical_smiles");
    const { value } = await ok(annotate(), { canvas_id: id, table: "bioactivities", columns: ["heavy_atom_count", "inchikey"] }, ctx());
    assert.equal(value.smiles_column, "canonical_smiles");
    const got = await rows(id, "SELECT heavy_atom_count, inchikey FROM bioactivities ORDER BY id");
    assert.deepEqual(got, [
      { heavy_atom_count: 3, inchikey: "LFQSCWFLJHTTHZ-UHFFFAOYSA-N" },
      { heavy_atom_count: 6, inchikey: "UHOVQNZJYSORNB-UHFFFAOYSA-N" },
    ]);
  });

  test("typed errors: unknown table, unknown SMILES column, unknown kind, duplicate names, a taken name, an SQL keyword as a name, a parameterised kind without `as`, a bad SMARTS", async () => {
    const id = await stageSmiles(manager, ["CCO"]);
    const call = (args: Row) => fails(annotate(), { canvas_id: id, table: "library", ...args }, ctx());
    let e = await call({ table: "nope", columns: ["mw"] });
    assert.deepEqual([e.code, e.details.path], ["INVALID_ARGUMENTS", "/table"]);
    e = await call({ smiles_column: "nope", columns: ["mw"] });
    assert.deepEqual([e.code, e.details.path], ["INVALID_ARGUMENTS", "/smiles_column"]);
    // The schema's enum refuses an unknown kind before the tool runs (the server answers INVALID_ARGUMENTS); the tool checks it too.
    await assert.rejects(call({ columns: ["mass"] }), /must be equal to one of the allowed values/);
    assert.throws(
      () => planColumns(["mass" as never]),
      (x: ToolError) => x.code === "INVALID_ARGUMENTS" && x.details.path === "/columns/0",
    );
    e = await call({ columns: ["mw", { kind: "logp", as: "mw" }] });
    assert.deepEqual([e.code, e.details.column], ["INVALID_ARGUMENTS", "mw"]);
    e = await call({ columns: [{ kind: "mw", as: "id" }] });
    assert.deepEqual([e.code, e.details.path, e.details.column], ["INVALID_ARGUMENTS", "/columns", "id"]);
    e = await call({ columns: [{ kind: "ecfp4_similarity", query_smiles: "CCO", as: "order" }] });
    assert.deepEqual([e.code, e.details.path, e.details.name], ["INVALID_ARGUMENTS", "/columns", "order"], "an SQL keyword as a column name");
    e = await call({ columns: [{ kind: "ecfp4_similarity", query_smiles: "CCO" }] });
    assert.deepEqual([e.code, e.details.path], ["INVALID_ARGUMENTS", "/columns/0"]);
    e = await call({ columns: [{ kind: "substructure_matches", smarts: "[C", as: "x" }] });
    assert.equal(e.code, "INVALID_SMARTS");
    e = await call({ columns: [{ kind: "ecfp4_similarity", query_smiles: "C1CC", as: "sim" }] });
    assert.equal(e.code, "INVALID_SMILES");
    await ok(annotate(), { canvas_id: id, table: "library", columns: [{ kind: "ecfp4_similarity", query_smiles: "CCO", as: "sim" }] }, ctx());
    e = await call({ columns: [{ kind: "ecfp4_similarity", query_smiles: "CCN", as: "sim" }] });
    assert.deepEqual([e.code, e.details.column], ["INVALID_ARGUMENTS", "sim"]);
    assert.match(e.message, /another definition/);
  });

  test("through the real worker pool (the worker-only row tool), with progress, parameters checked in a worker even when no other chemistry tool is registered", async () => {
    const pool = new WorkerPool({ size: 2 });
    try {
      const server = new McpServer({ tools: [annotate()], pool, info: { name: "test", version: "0" }, logger: silentLogger });
      const id = await stageSmiles(manager, ["CCO", "c1ccccc1C(=O)O", "C1CC"]);
      const progress: number[] = [];
      const outcome = await server.runTool(
        "canvas_annotate",
        { canvas_id: id, table: "library", columns: ["tpsa", "generic_scaffold", { kind: "substructure_matches", smarts: "c", as: "aromatic_atoms" }] },
        { signal: new AbortController().signal, progress: (p) => progress.push(p) },
      );
      assert.ok(outcome.ok, JSON.stringify(outcome));
      assert.equal(outcome.value.invalid_smiles_rows, 1);
      assert.ok(progress.length > 0);
      const got = await rows(id, "SELECT tpsa, generic_scaffold, aromatic_atoms FROM library ORDER BY id");
      assert.deepEqual(got, [
        { tpsa: 20.23, generic_scaffold: "", aromatic_atoms: 0 },
        { tpsa: 37.3, generic_scaffold: "C1CCCCC1", aromatic_atoms: 6 },
        { tpsa: null, generic_scaffold: null, aromatic_atoms: null },
      ]);
      const bad = await server.runTool(
        "canvas_annotate",
        { canvas_id: id, table: "library", columns: [{ kind: "substructure_matches", smarts: "[C", as: "bad" }] },
        { signal: new AbortController().signal },
      );
      assert.ok(!bad.ok && bad.error.code === "INVALID_SMARTS", JSON.stringify(bad));
    } finally {
      await pool.close();
    }
  });

  test("parent: true names a kind's columns parent_..., puts parent in the definition, and parent_inchikey is inchikey with parent: true", () => {
    const { columns, kinds } = planColumns([
      "mw",
      { kind: "mw", parent: true },
      { kind: "logp", parent: false },
      { kind: "pains", parent: true },
      { kind: "tpsa", parent: true, as: "ptpsa" },
      "parent_inchikey",
      "druglikeness",
      { kind: "substructure_matches", smarts: "c", as: "aromatic_atoms", parent: true },
    ] as never);
    assert.deepEqual(
      columns.map((c) => [c.name, c.type, c.definition]),
      [
        ["mw", "DOUBLE", '{"kind":"mw"}'],
        ["parent_mw", "DOUBLE", '{"kind":"mw","parent":true}'],
        ["logp", "DOUBLE", '{"kind":"logp"}'],
        ["parent_pains_count", "INTEGER", '{"kind":"pains","parent":true}'],
        ["parent_pains_names", "VARCHAR[]", '{"kind":"pains","parent":true}'],
        ["ptpsa", "DOUBLE", '{"kind":"tpsa","parent":true}'],
        ["parent_inchikey", "VARCHAR", '{"kind":"inchikey","parent":true}'],
        ...DRUG_RULE_KEYS.map((k) => [`${k}_pass`, "BOOLEAN", '{"kind":"druglikeness"}']),
        ["aromatic_atoms", "INTEGER", '{"kind":"substructure_matches","smarts":"c","parent":true}'],
      ],
    );
    assert.deepEqual(kinds[5], { kind: "inchikey", parent: true }, "the worker computes parent_inchikey as inchikey on the parent");
    const by = Object.fromEntries(columns.map((c) => [c.name, c.description]));
    assert.match(by.parent_mw!, /^Of the standardised parent \(parent: true\): .*g\/mol/);
    assert.match(by.ptpsa!, /Å²/);
    // One column, whichever way it is asked for: the same name and definition.
    const alias = planColumns([{ kind: "inchikey", parent: true }] as never).columns[0]!;
    assert.deepEqual([alias.name, alias.definition], ["parent_inchikey", '{"kind":"inchikey","parent":true}']);
    assert.match(planColumns(["fsp3"] as never).columns[0]!.description, /Unit: unitless fraction, 0 to 1/);
  });

  test("bad parent requests: a parent that is no boolean, parent on the parent's own kinds, as on druglikeness, and a name taken by the molecule's column", async () => {
    const id = await stageSmiles(manager, ["CCO.Cl"]);
    const call = (args: Row) => fails(annotate(), { canvas_id: id, table: "library", ...args }, ctx());
    const refused = (columns: unknown[], path: string) =>
      assert.throws(
        () => planColumns(columns as never),
        (x: ToolError) => x.code === "INVALID_ARGUMENTS" && x.details.path === path && typeof x.hint === "string",
      );
    refused([{ kind: "mw", parent: "yes" }], "/columns/0/parent");
    refused(["mw", { kind: "parent_smiles", parent: true }], "/columns/1/parent");
    refused([{ kind: "parent_inchikey", parent: true }], "/columns/0/parent");
    refused([{ kind: "druglikeness", as: "rules" }], "/columns/0");
    refused(["nonsense_kind"], "/columns/0");
    // The schema refuses them before the tool runs.
    await assert.rejects(call({ columns: [{ kind: "mw", parent: "yes" }] }), /must be boolean/);
    await assert.rejects(call({ columns: [{ kind: "fsp3_ratio" }] }), /must be equal to one of the allowed values/);
    // Both spellings of the parent's InChIKey in one call are one column named twice.
    let e = await call({ columns: ["parent_inchikey", { kind: "inchikey", parent: true }] });
    assert.deepEqual([e.code, e.details.column], ["INVALID_ARGUMENTS", "parent_inchikey"]);
    // A name holding the molecule's value is not reused for the parent's.
    await ok(annotate(), { canvas_id: id, table: "library", columns: [{ kind: "mw", as: "weight" }] }, ctx());
    e = await call({ columns: [{ kind: "mw", as: "weight", parent: true }] });
    assert.deepEqual([e.code, e.details.column], ["INVALID_ARGUMENTS", "weight"]);
    assert.match(e.message, /another definition/);
    // parent: false is the molecule's column itself.
    await ok(annotate(), { canvas_id: id, table: "library", columns: [{ kind: "mw", as: "weight", parent: false }] }, ctx());
  });

  test("the new kinds equal their tools: standardize's parent_smiles and its cleaned-up form, druglikeness_filters' verdicts, sa_score's stereocentres, the tools' parent: true", async () => {
    const smiles = [
      "CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)[O-].[Na+]",
      "Cl.CN(C)CCCN1c2ccccc2CCc2ccccc21",
      "CS(=O)(=O)O.CN1CCC[C@H]1c1cccnc1",
      "[NH3+]CC(=O)[O-]",
      "C[N+](C)(C)CC(=O)[O-]",
      "CC(F)C(C)F",
      "C/C=C/C[C@@H](N)C(=O)O",
      "Cl[Pt](Cl)([NH3])[NH3]",
      "CC(=O)O[Zn]OC(C)=O",
      "C[Mg]Br",
      "[CH3:1]C(=O)[O-].[Na+]",
      "C1COCCOCCOCCOCCOCCO1",
      "not a smiles",
    ];
    const id = await stageSmiles(manager, smiles);
    const descriptors = ["fsp3", "ring_count", "aromatic_ring_count", "stereocentre_count", "unassigned_stereocentre_count", "formal_charge", "druglikeness"];
    const columns = [
      "parent_smiles",
      "parent_inchikey",
      "standardized_smiles",
      ...descriptors,
      ...[...descriptors, "mw", "qed"].map((kind) => ({ kind, parent: true })),
    ];
    const { value } = await ok(annotate(), { canvas_id: id, table: "library", columns }, ctx());
    assert.equal(value.invalid_smiles_rows, 1);
    const got = await rows(id, "SELECT * FROM library ORDER BY id");
    const run = (tool: { run: (args: never, c: never) => unknown }, args: Row) => tool.run(args as never, { rdkit, progress: () => {} } as never) as Row;
    for (const row of got) {
      const s = smiles[row.id as number]!;
      if (s === "not a smiles") {
        assert.ok(
          Object.entries(row).every(([k, v]) => ["id", "smiles", "_row"].includes(k) || v === null),
          "every cell of a row that does not parse is NULL",
        );
        continue;
      }
      const parent = run(standardizeTool, { smiles: s });
      assert.equal(row.parent_smiles, parent.parent_smiles, `${s} parent_smiles`);
      assert.equal(
        row.standardized_smiles,
        run(standardizeTool, { smiles: s, strip_salts: false, keep_largest_fragment: false, neutralize: false }).parent_smiles,
      );
      assert.equal(row.parent_formal_charge, parent.net_charge, `${s} parent_formal_charge is standardize's net_charge`);
      for (const [prefix, p] of [
        ["", false],
        ["parent_", true],
      ] as const) {
        const rules = run(druglikenessFiltersTool, { smiles: s, parent: p }).rules as Record<string, { pass: boolean }>;
        for (const k of DRUG_RULE_KEYS) assert.equal(row[`${prefix}${k}_pass`], rules[k]!.pass, `${s} ${prefix}${k}_pass`);
        const sa = run(saScoreTool, { smiles: s, parent: p }) as { counts: { stereocenters: number } };
        assert.equal(row[`${prefix}stereocentre_count`], sa.counts.stereocenters, `${s} ${prefix}stereocentre_count`);
      }
      const props = run(calcPropertiesTool, { smiles: s, parent: true });
      assert.deepEqual([row.parent_mw, row.parent_qed], [props.mw, props.qed], `${s} parent_mw, parent_qed`);
    }
    const at = (s: string) => got.find((r) => smiles[r.id as number] === s)!;
    assert.deepEqual(
      [at("[NH3+]CC(=O)[O-]").formal_charge, at("C[N+](C)(C)CC(=O)[O-]").parent_smiles, at("CC(F)C(C)F").unassigned_stereocentre_count],
      [0, "C[N+](C)(C)CC(=O)[O-]", 2],
    );
    assert.equal(at("CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)[O-].[Na+]").parent_inchikey, "HEFNNWSXXWATRW-SNVBAGLBSA-N", "(R)-ibuprofen");
    assert.equal(at("[CH3:1]C(=O)[O-].[Na+]").parent_smiles, "O=C(O)[CH3:1]", "atom maps kept, as standardize keeps them");
    assert.equal(at("Cl[Pt](Cl)([NH3])[NH3]").parent_smiles, "[NH3]->[Pt](<-[NH3])([Cl])[Cl]", "a metal complex with no organic parent is itself");
  });
});
