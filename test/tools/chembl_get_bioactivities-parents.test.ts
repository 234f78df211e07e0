/**
 * Staged bioactivity rows carry the parent (issue 31 item 2, the ChEMBL part): every row of a staged table has
 * parent_molecule_chembl_id and parent_smiles, the parent's canonical_smiles as ChEMBL records it, so canvas_annotate
 * computes a compound's own properties (not its salt's: gefitinib HCl's logP is not gefitinib's) and a GROUP BY on the
 * parent merges a compound with its salts.
 *
 * Acceptance on the offline dump (the fixture dump, with a compound tested as its hydrochloride and as itself,
 * test/fixtures/chembl/dump.ts addSaltFamily): stage a target's bioactivities, annotate parent_smiles with mw and logp,
 * group by parent_molecule_chembl_id: count, mean pchembl_value, mw and logp equal what the dump holds and native RDKit
 * computes on the parent SMILES read straight from the dump (Descriptors.MolWt, Crippen.MolLogP, rounded as
 * calc_properties rounds), and the salt and its parent are one group. Then the same on the shared ChEMBL 33 subset when
 * it is present and holds activities. Online (the fake web API): the parents not on a page are read in one batched
 * molecule lookup, and an inline page reads them only when its fields ask for parent_smiles.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { round, loadRDKit } from "../../src/domain/chem/rdkit.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { ChemblService } from "../../src/domain/chembl/service.js";
import { createChemblGetBioactivitiesTool } from "../../src/tools/chembl_get_bioactivities.js";
import { createCanvasAnnotateTool } from "../../src/tools/canvas_annotate.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { SALT_FAMILY, addSaltFamily, buildDump, loadDriver } from "../fixtures/chembl/dump.js";
import { MOLECULES } from "../fixtures/chembl/world.js";
import { DUMP_TIMEOUTS, ok, serviceContext, testConfig, testService } from "../fixtures/chembl/harness.js";
import { localRunner, type LocalRunner } from "../helpers/annotate.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../helpers/oracle.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;
/** The real ChEMBL 33 subset beside the project, when present (never copied into it). */
const SHARED_DUMP = join(projectRoot(), "..", "shared", "reference", "chembl", "sqlite", "therapy-normalization_chembl_33_subset.db");

type Row = Record<string, unknown>;
type Db = { prepare(sql: string): { all(...a: unknown[]): Row[] }; close(): void };

let dir: string;
let manager: CanvasManager;
let chem: LocalRunner;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "chembl-parents-"));
  manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  chem = await localRunner(await loadRDKit());
});
after(async () => {
  await manager?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Each activity of the target's potency_ranked view grouped by its parent, straight from the dump, with the parent's SMILES. */
function groupsInDump(path: string, target: string): Array<{ parent: string; n: number; mean: number; smiles: string | null }> {
  const db = new (Driver as unknown as new (path: string, options: { readonly: boolean }) => Db)(path, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT pm.chembl_id AS parent, count(*) AS n, avg(a.pchembl_value) AS mean, cs.canonical_smiles AS smiles
         FROM activities a JOIN assays s ON s.assay_id = a.assay_id JOIN target_dictionary t ON t.tid = s.tid
         LEFT JOIN molecule_hierarchy h ON h.molregno = a.molregno
         JOIN molecule_dictionary pm ON pm.molregno = COALESCE(h.parent_molregno, a.molregno)
         LEFT JOIN compound_structures cs ON cs.molregno = pm.molregno
         WHERE t.chembl_id = ? AND a.pchembl_value IS NOT NULL GROUP BY pm.chembl_id, cs.canonical_smiles ORDER BY pm.chembl_id`,
      )
      .all(target) as Array<{ parent: string; n: number; mean: number; smiles: string | null }>;
  } finally {
    db.close();
  }
}

/** Native RDKit's MolWt and MolLogP of each SMILES, unrounded (null where it does not parse). */
async function nativeMwLogp(smiles: string[]): Promise<Array<{ mw: number; logp: number } | null>> {
  const program = [
    "import json, sys",
    "from rdkit import Chem",
    "from rdkit.Chem import Crippen, Descriptors",
    "out = []",
    "for s in json.load(sys.stdin):",
    "    m = Chem.MolFromSmiles(s)",
    "    out.append(None if m is None else {'mw': Descriptors.MolWt(m), 'logp': Crippen.MolLogP(m)})",
    "print(json.dumps(out))",
  ].join("\n");
  return JSON.parse(await oracleOutput({ program }, { input: JSON.stringify(smiles) })) as Array<{ mw: number; logp: number } | null>;
}

/**
 * Stages the target's bioactivities from `service`, annotates parent_smiles, groups by parent and compares each group
 * with the dump and native RDKit. Returns the staged table's canvas and the groups.
 */
async function stageAnnotateGroup(service: ChemblService, dumpPath: string, target: string): Promise<{ canvasId: string; groups: Row[] }> {
  const bioactivities = createChemblGetBioactivitiesTool(
    () => service,
    () => manager,
  );
  // limit 1: the view is larger than one inline page, so it is staged on a new canvas.
  const staged = await ok(bioactivities, { target_chembl_id: target, limit: 1 }, serviceContext(60_000));
  const canvasId = staged.value.canvas_id as string;
  assert.equal(staged.value.table_name, "bioactivities");
  assert.equal(staged.value.truncated, false);
  const annotate = createCanvasAnnotateTool(() => manager);
  const annotated = await ok(
    annotate,
    { canvas_id: canvasId, table: "bioactivities", smiles_column: "parent_smiles", columns: ["mw", "logp"] },
    serviceContext(60_000, { chem }),
  );
  assert.equal(annotated.value.complete, true);
  const canvas = await manager.get(canvasId);
  const { rows: groups } = await canvas.query(
    `SELECT parent_molecule_chembl_id AS parent, count(*) AS n, avg(pchembl_value) AS mean, any_value(parent_smiles) AS smiles,
       min(mw) AS mw, max(mw) AS mw_max, min(logp) AS logp, max(logp) AS logp_max, count(DISTINCT parent_smiles) AS structures
     FROM bioactivities GROUP BY parent_molecule_chembl_id ORDER BY parent_molecule_chembl_id`,
    { maxRows: 10_000, maxBytes: 16 * 1024 * 1024 },
  );
  const expected = groupsInDump(dumpPath, target);
  assert.ok(expected.length > 0, `the dump has potency values on ${target}`);
  const native = await nativeMwLogp(expected.map((e) => e.smiles ?? ""));
  assert.deepEqual(
    groups.map((g) => ({
      parent: g.parent,
      n: Number(g.n),
      mean: round(Number(g.mean), 9),
      smiles: g.smiles,
      structures: Number(g.structures),
      mw: g.mw === g.mw_max ? g.mw : "differs within the group",
      logp: g.logp === g.logp_max ? g.logp : "differs within the group",
    })),
    expected.map((e, i) => ({
      parent: e.parent,
      n: e.n,
      mean: round(e.mean, 9),
      smiles: e.smiles,
      structures: e.smiles === null ? 0 : 1,
      mw: native[i] ? round(native[i].mw, 3) : null,
      logp: native[i] ? round(native[i].logp, 3) : null,
    })),
    "each parent's group: count and mean pchembl_value as the dump holds them, mw and logp native RDKit's on the parent's SMILES",
  );
  return { canvasId, groups };
}

describe("staged bioactivities carry the parent, offline", { skip }, () => {
  let dumpPath: string;
  let offline: ChemblService;
  before(() => {
    dumpPath = join(dir, "chembl_36.db");
    buildDump(dumpPath, Driver!);
    addSaltFamily(dumpPath, Driver!);
    offline = new ChemblService(
      { ...testConfig({ baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl), ...DUMP_TIMEOUTS, offline: true, sqlitePath: dumpPath },
      { random: () => 0.5 },
    );
  });
  after(() => offline?.close());

  test("a target's staged rows, annotated on parent_smiles and grouped by parent, equal the dump and native RDKit; the salt and its parent are one group", async (t) => {
    const reason = await nativeRDKitMissing("from rdkit.Chem import Crippen, Descriptors");
    if (reason !== undefined) return skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    const { canvasId, groups } = await stageAnnotateGroup(offline, dumpPath, SALT_FAMILY.target);
    const family = groups.find((g) => g.parent === SALT_FAMILY.parent.id)!;
    assert.equal(Number(family.n), SALT_FAMILY.activities.length, "two salt rows and one parent row in one group");
    assert.equal(family.smiles, SALT_FAMILY.parent.smiles);
    const canvas = await manager.get(canvasId);
    const { rows } = await canvas.query(
      `SELECT molecule_chembl_id, canonical_smiles, parent_smiles FROM bioactivities WHERE parent_molecule_chembl_id = '${SALT_FAMILY.parent.id}' ORDER BY activity_id`,
      { maxRows: 10, maxBytes: 1 << 20 },
    );
    assert.deepEqual(rows, [
      { molecule_chembl_id: SALT_FAMILY.salt.id, canonical_smiles: SALT_FAMILY.salt.smiles, parent_smiles: SALT_FAMILY.parent.smiles },
      { molecule_chembl_id: SALT_FAMILY.salt.id, canonical_smiles: SALT_FAMILY.salt.smiles, parent_smiles: SALT_FAMILY.parent.smiles },
      { molecule_chembl_id: SALT_FAMILY.parent.id, canonical_smiles: SALT_FAMILY.parent.smiles, parent_smiles: SALT_FAMILY.parent.smiles },
    ]);
    // Every staged row has both, the whole table over (no row left without its parent's structure).
    const { rows: missing } = await canvas.query("SELECT count(*) AS n FROM bioactivities WHERE parent_molecule_chembl_id IS NULL OR parent_smiles IS NULL", {
      maxRows: 1,
      maxBytes: 1 << 20,
    });
    assert.equal(Number(missing[0]!.n), 0);
  });

  test("the shared ChEMBL 33 subset, when present and holding activities: the same comparison", async (t) => {
    if (!existsSync(SHARED_DUMP)) return t.skip(`${SHARED_DUMP} is absent: this part runs only beside the shared reference data`);
    const db = new (Driver as unknown as new (path: string, options: { readonly: boolean }) => Db)(SHARED_DUMP, { readonly: true });
    let target: string | undefined;
    let tables: string[];
    try {
      tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => String(r.name));
      const needed = ["activities", "assays", "target_dictionary", "molecule_hierarchy", "compound_structures", "docs"];
      if (needed.every((n) => tables.includes(n)))
        target = db
          .prepare(
            `SELECT t.chembl_id AS id FROM activities a JOIN assays s ON s.assay_id = a.assay_id JOIN target_dictionary t ON t.tid = s.tid
             WHERE a.pchembl_value IS NOT NULL GROUP BY t.chembl_id ORDER BY count(*) DESC LIMIT 1`,
          )
          .all()[0]?.id as string | undefined;
    } finally {
      db.close();
    }
    if (target === undefined)
      return t.skip(`the shared ChEMBL 33 subset holds no bioactivities to stage (its tables: ${tables.join(", ")}); only the fixture dump was compared`);
    const reason = await nativeRDKitMissing("from rdkit.Chem import Crippen, Descriptors");
    if (reason !== undefined) return skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    const shared = new ChemblService(
      { ...testConfig({ baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl), ...DUMP_TIMEOUTS, offline: true, sqlitePath: SHARED_DUMP },
      { random: () => 0.5 },
    );
    try {
      await stageAnnotateGroup(shared, SHARED_DUMP, target);
    } finally {
      await shared.close();
    }
  });
});

describe("staged bioactivities carry the parent, from the web API", () => {
  let fake: FakeChembl;
  let web: ChemblService;
  before(async () => {
    fake = await new FakeChembl("new").start();
    web = testService(fake);
  });
  after(() => fake?.stop());

  const structureOf = (id: string) =>
    (MOLECULES.find((m) => m.molecule_chembl_id === id)!.molecule_structures as { canonical_smiles: string }).canonical_smiles;

  test("the parents not on the page are read in one batched molecule lookup; every staged row has its parent's structure", async () => {
    const bioactivities = createChemblGetBioactivitiesTool(
      () => web,
      () => manager,
    );
    fake.requests.length = 0;
    const staged = await ok(bioactivities, { target_chembl_id: "CHEMBL1808", limit: 1 }, serviceContext(30_000));
    const lookups = fake.requests.filter((r) => r.path === "molecule");
    assert.equal(lookups.length, 1, `one molecule lookup: ${lookups.map((r) => r.url).join(" ")}`);
    assert.equal(lookups[0]!.query.get("molecule_chembl_id__in"), "CHEMBL1237", "only the parent no row of the page is");
    assert.equal(lookups[0]!.query.get("only"), "molecule_chembl_id,molecule_structures");
    const canvas = await manager.get(staged.value.canvas_id as string);
    const { rows } = await canvas.query("SELECT molecule_chembl_id, parent_molecule_chembl_id, parent_smiles FROM bioactivities ORDER BY activity_id", {
      maxRows: 100,
      maxBytes: 1 << 20,
    });
    assert.ok(rows.length >= 3);
    for (const r of rows) assert.equal(r.parent_smiles, structureOf(r.parent_molecule_chembl_id as string), String(r.molecule_chembl_id));
    assert.ok(
      rows.some((r) => r.molecule_chembl_id !== r.parent_molecule_chembl_id),
      "a salt or form measured on the target",
    );
  });

  test("an inline page reads parent_smiles only when its fields ask for it, and keeps its default columns without it", async () => {
    const bioactivities = createChemblGetBioactivitiesTool(
      () => web,
      () => new CanvasManager({ enabled: false, dir: null, maxSpillRows: 10 }),
    );
    fake.requests.length = 0;
    const plain = await ok(bioactivities, { molecule_chembl_id: "CHEMBL419213" }, serviceContext(30_000));
    assert.ok((plain.value.activities as Row[]).every((a) => !("parent_smiles" in a)));
    assert.equal(fake.requests.filter((r) => r.query.has("molecule_chembl_id__in")).length, 0, "no lookup for the default columns");
    const asked = await ok(bioactivities, { molecule_chembl_id: "CHEMBL419213", fields: ["parent_smiles"] }, serviceContext(30_000));
    const [row] = asked.value.activities as Row[];
    assert.deepEqual(
      [row!.molecule_chembl_id, row!.canonical_smiles, row!.parent_molecule_chembl_id, row!.parent_smiles],
      ["CHEMBL419213", structureOf("CHEMBL419213"), "CHEMBL1237", structureOf("CHEMBL1237")],
    );
    assert.match(asked.text, /\| parent_smiles \|/);
  });
});
