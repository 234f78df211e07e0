/**
 * Offline ChEMBL (issue 18, items 1, 2 and 5): the same fixture world served by the fake web API and by a
 * SQLite file in the official dump schema (test/fixtures/chembl/dump.ts); every ChEMBL tool and the
 * chembl:// resources must give equal structured answers from both, provenance aside (the offline answer
 * names its dump in source.served_from and reads its release from the dump's version table). Name search
 * parity covers exact names, synonyms, ChEMBL IDs and InChIKeys; exact-structure parity covers the
 * InChIKey computed locally with RDKit. Known differences (README, "Offline ChEMBL") are stripped by name.
 * Skips, saying why, when the optional driver better-sqlite3 is not installed.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { ChemblService } from "../../../src/domain/chembl/service.js";
import { chemblResourceProvider } from "../../../src/resources/chembl.js";
import { createChemblGetBioactivitiesTool } from "../../../src/tools/chembl_get_bioactivities.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";
import type { AnyTool } from "../../../src/contract/tool.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { buildDump, harmoniseWorld, loadDriver } from "../../fixtures/chembl/dump.js";
import { ASPIRIN_SMILES } from "../../fixtures/chembl/world.js";
import { DUMP_TIMEOUTS, callTool, chemblTools, fails, ok, serviceContext, testConfig, testService } from "../../fixtures/chembl/harness.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;

let fake: FakeChembl;
let dir: string;
let dumpPath: string;
let web: ChemblService;
let offline: ChemblService;
let webCanvas: CanvasManager;
let offlineCanvas: CanvasManager;

/** Fields the dump does not hold (README, "Offline ChEMBL"): stripped from both answers before comparing. */
const KNOWN_DIFFERENCES = new Set(["journal_full_title"]);

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "source" || k === "canvas_id" || k === "elapsed_ms" || KNOWN_DIFFERENCES.has(k)) continue;
      out[k] = strip(x);
    }
    return out;
  }
  // Canvas ids appear inside notices too.
  return typeof v === "string" ? v.replace(/cv_[A-Za-z0-9_-]+/g, "cv_*") : v;
}

describe("offline ChEMBL from the official SQLite dump: parity with the web API", { skip }, () => {
  before(async () => {
    harmoniseWorld();
    fake = await new FakeChembl("new").start();
    dir = mkdtempSync(join(tmpdir(), "chembl-dump-"));
    dumpPath = join(dir, "chembl_36.db");
    buildDump(dumpPath, Driver!);
    web = testService(fake);
    // The dump answers under CHEMATIC_OFFLINE (offline: true here); the web base URL is never called.
    offline = new ChemblService(
      { ...testConfig(fake), ...DUMP_TIMEOUTS, offline: true, sqlitePath: dumpPath, apiBaseUrl: "http://127.0.0.1:9/unused" },
      { random: () => 0.5 },
    );
    webCanvas = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
    offlineCanvas = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  });
  after(async () => {
    await offline?.close();
    await webCanvas?.close();
    await offlineCanvas?.close();
    await fake?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function both(pick: (t: ReturnType<typeof chemblTools>) => AnyTool, args: Record<string, unknown>) {
    const w = await ok(pick(chemblTools(web)), args);
    const o = await ok(pick(chemblTools(offline)), args);
    return { w: w.value, o: o.value };
  }

  const CASES: Array<[string, (t: ReturnType<typeof chemblTools>) => AnyTool, Record<string, unknown>]> = [
    ["molecule by exact name", (t) => t.searchMolecules, { query: "aspirin" }],
    ["molecule by synonym", (t) => t.searchMolecules, { query: "Zestril" }],
    ["molecule by name, forms ranked after the exact name", (t) => t.searchMolecules, { query: "lisinopril" }],
    ["molecule by name with max_phase_min", (t) => t.searchMolecules, { query: "lisinopril", max_phase_min: 4 }],
    ["molecule by ChEMBL ID", (t) => t.searchMolecules, { query: "chembl25" }],
    ["molecule by InChIKey", (t) => t.searchMolecules, { query: "RZJQGNCSTQAWON-UHFFFAOYSA-N" }],
    ["molecule: no hit", (t) => t.searchMolecules, { query: "CHEMBL12345678" }],
    ["exact structure (InChIKey computed locally)", (t) => t.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "exact" }],
    ["exact structure, another spelling", (t) => t.searchMolecules, { smiles: "OC(=O)c1ccccc1OC(C)=O", search_type: "exact" }],
    ["exact structure, all fields", (t) => t.searchMolecules, { smiles: ASPIRIN_SMILES, fields: ["all"] }],
    ["targets by name", (t) => t.searchTargets, { query: "epidermal growth factor" }],
    ["targets by gene symbol (trailing space in ChEMBL)", (t) => t.searchTargets, { gene_symbol: "egfr" }],
    ["targets: a one-word query falls back to gene symbols", (t) => t.searchTargets, { query: "PTGS2" }],
    ["targets by accession", (t) => t.searchTargets, { accession: "P00533" }],
    ["targets by ChEMBL ID", (t) => t.searchTargets, { target_chembl_id: "CHEMBL2111431" }],
    ["targets by organism and type", (t) => t.searchTargets, { query: "receptor", organism: "homo sapiens", target_type: "SINGLE PROTEIN" }],
    ["bioactivities of a target, ranked", (t) => t.bioactivities, { target_chembl_id: "CHEMBL203" }],
    ["bioactivities of a target, null potency", (t) => t.bioactivities, { target_chembl_id: "CHEMBL203", potency_view: "null_potency" }],
    ["bioactivities, wild type only", (t) => t.bioactivities, { target_chembl_id: "CHEMBL203", variant: "wild_type" }],
    ["bioactivities, one mutation", (t) => t.bioactivities, { target_chembl_id: "CHEMBL203", variant: "T790M" }],
    ["bioactivities, standard type and pchembl_min", (t) => t.bioactivities, { target_chembl_id: "CHEMBL203", standard_type: "ic50", pchembl_value_min: 6 }],
    ["bioactivities of a molecule", (t) => t.bioactivities, { molecule_chembl_id: "CHEMBL1237" }],
    ["bioactivities of a family", (t) => t.bioactivities, { molecule_chembl_id: "CHEMBL419213", include_alternate_forms: true }],
    ["bioactivities, organism and assay type", (t) => t.bioactivities, { target_chembl_id: "CHEMBL1808", organism: "Homo sapiens", assay_type: "F" }],
    ["bioactivities, a whole view in one page", (t) => t.bioactivities, { target_chembl_id: "CHEMBL235", limit: 60 }],
    ["drug info of a salt (mechanism on the salt, indications on the parent)", (t) => t.drugInfo, { molecule_chembl_id: "CHEMBL419213" }],
    ["drug info of a withdrawn drug with a warning", (t) => t.drugInfo, { molecule_chembl_id: "CHEMBL122" }],
    ["drug info of a black-box drug", (t) => t.drugInfo, { molecule_chembl_id: "CHEMBL121" }],
    ["drug info of aspirin", (t) => t.drugInfo, { molecule_chembl_id: "CHEMBL25" }],
    ["assays by ID, a miss among them", (t) => t.assay, { assay_chembl_ids: ["CHEMBL872939", "CHEMBL771355", "CHEMBL663853", "CHEMBL1"] }],
    ["documents by ID", (t) => t.documents, { document_chembl_ids: ["CHEMBL1146658", "CHEMBL3301361", "CHEMBL1137930", "CHEMBL2"] }],
  ];

  for (const [name, pick, args] of CASES) {
    test(`parity: ${name}`, async () => {
      const { w, o } = await both(pick, args);
      assert.deepEqual(strip(o), strip(w));
    });
  }

  test("parity: a second bioactivities page by its cursor", async () => {
    const args = { target_chembl_id: "CHEMBL235", limit: 10 };
    const w1 = await ok(
      createChemblGetBioactivitiesTool(
        () => web,
        () => new CanvasManager({ enabled: false, dir: null, maxSpillRows: 1 }),
      ),
      args,
    );
    const o1 = await ok(
      createChemblGetBioactivitiesTool(
        () => offline,
        () => new CanvasManager({ enabled: false, dir: null, maxSpillRows: 1 }),
      ),
      args,
    );
    assert.deepEqual(strip(o1.value), strip(w1.value));
    const cursor = w1.value.nextCursor as string;
    assert.equal(o1.value.nextCursor, cursor, "the cursor does not depend on the source");
    const w2 = await ok(chemblTools(web).bioactivities, { ...args, cursor });
    const o2 = await ok(chemblTools(offline).bioactivities, { ...args, cursor });
    assert.deepEqual(strip(o2.value), strip(w2.value));
  });

  test("parity: a spill stages the same rows on the canvas", async () => {
    const args = { target_chembl_id: "CHEMBL235", limit: 5 };
    const w = await ok(
      createChemblGetBioactivitiesTool(
        () => web,
        () => webCanvas,
      ),
      args,
    );
    const o = await ok(
      createChemblGetBioactivitiesTool(
        () => offline,
        () => offlineCanvas,
      ),
      args,
    );
    assert.equal(o.value.staged_row_count, 57);
    assert.deepEqual(strip(o.value), strip(w.value));
    const sql = "SELECT * FROM bioactivities ORDER BY activity_id";
    const wq = await ok(
      createChemblDataframeQueryTool(() => webCanvas),
      { canvas_id: w.value.canvas_id, sql },
    );
    const oq = await ok(
      createChemblDataframeQueryTool(() => offlineCanvas),
      { canvas_id: o.value.canvas_id, sql },
    );
    assert.deepEqual(strip(oq.value), strip(wq.value));
  });

  test("parity: chembl:// resources", async () => {
    // Not CHEMBL3989520: the world's sparse record leaves out flags the dump's schema holds NOT NULL.
    for (const uri of ["chembl://molecule/CHEMBL419213", "chembl://molecule/CHEMBL25", "chembl://target/CHEMBL2111431", "chembl://target/CHEMBL203"]) {
      const [w] = await chemblResourceProvider(web).read(uri, serviceContext());
      const [o] = await chemblResourceProvider(offline).read(uri, serviceContext());
      assert.deepEqual(strip(JSON.parse((o as { text: string }).text)), strip(JSON.parse((w as { text: string }).text)), uri);
    }
    await assert.rejects(
      chemblResourceProvider(offline).read("chembl://molecule/CHEMBL12345678", serviceContext()),
      (e: unknown) => (e as { code?: string }).code === "NOT_FOUND",
    );
  });

  test("parity: misses are NOT_FOUND from both", async () => {
    const w = await fails(chemblTools(web).drugInfo, { molecule_chembl_id: "CHEMBL12345678" });
    const o = await fails(chemblTools(offline).drugInfo, { molecule_chembl_id: "CHEMBL12345678" });
    assert.equal(o.code, w.code);
    assert.equal(o.code, "NOT_FOUND");
  });

  test("the offline answer names its dump and the release of the dump's version table", async () => {
    const { value } = await ok(chemblTools(offline).searchMolecules, { query: "aspirin" });
    const source = value.source as Record<string, unknown>;
    assert.equal(source.served_from, "chembl_36.db");
    assert.equal(source.release, "ChEMBL_36");
    assert.equal(source.release_date, "2025-07-28");
    const webSource = (await ok(chemblTools(web).searchMolecules, { query: "aspirin" })).value.source as Record<string, unknown>;
    assert.equal("served_from" in webSource, false, "the web API's answers carry no served_from");
  });

  test("similarity and substructure without a structure index (and the network off) say how to build it", async () => {
    for (const search_type of ["similarity", "substructure"]) {
      const r = await callTool(chemblTools(offline).searchMolecules, { smiles: "c1ccccc1C(=O)O", search_type });
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.code, "UPSTREAM_UNAVAILABLE");
        assert.equal((r.error.details as Record<string, unknown>).reason, "no_structure_index");
        assert.match(r.error.hint ?? "", /chematic-mcp chembl index/);
      }
    }
  });

  test("the dump is opened read-only: its bytes are unchanged and the lookup index lives in a sidecar file", async () => {
    const info = await offline.dumpInfo()!;
    assert.equal(info.release, "ChEMBL_36");
    assert.equal(info.size_bytes, statSync(dumpPath).size);
    assert.ok(info.sidecar && info.sidecar !== dumpPath, String(info.sidecar));
    assert.ok(readdirSync(dir).includes("chembl_36.db.chematic-index.sqlite"), readdirSync(dir).join(","));
    const db = new Driver!(dumpPath) as unknown as { prepare(s: string): { all(): unknown[] }; close(): void };
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'").all();
    db.close();
    assert.deepEqual(indexes, [], "nothing was written into the dump");
  });
});
