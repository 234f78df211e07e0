/**
 * The six ChEMBL tools against the local fake, through their schemas as the server checks them:
 * inputs (any-case IDs, aliases, lone strings, blanks), outputs (nullable where upstream is sparse),
 * paging, the drug-family rules, partial results, the markdown twin, and sanitising in every fault mode.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { mdCode, mdInline, mdValue } from "../../src/tools/chembl-markdown.js";
import { FakeChembl, FAULT_BODIES, type FaultMode } from "../fixtures/chembl/fake-server.js";
import { ASPIRIN_SMILES, CANARY, HOSTILE_NAME } from "../fixtures/chembl/world.js";
import { callTool, chemblTools, fails, ok, serviceContext, testService } from "../fixtures/chembl/harness.js";
import type { AnyTool, ChemRunner } from "../../src/contract/tool.js";

let fake: FakeChembl;
let tools: ReturnType<typeof chemblTools>;
before(async () => (fake = await new FakeChembl("new").start()));
after(() => fake.stop());
beforeEach(() => {
  fake.reset();
  fake.flavour = "new";
  tools = chemblTools(testService(fake));
});

type Row = Record<string, unknown>;
const rows = (v: Row, key: string) => v[key] as Row[];

describe("chembl_search_molecules", () => {
  test("by name: rows name their parent, numbers are numbers, the answer names the release", async () => {
    const { value } = await ok(tools.searchMolecules, { query: "aspirin", fields: ["alogp"] });
    const [m] = rows(value, "molecules");
    assert.equal(m!.molecule_chembl_id, "CHEMBL25");
    assert.equal(m!.parent_chembl_id, "CHEMBL25");
    assert.equal(m!.max_phase, 4);
    assert.equal(m!.alogp, 1.31);
    assert.ok(!("similarity" in m!), "a null column is left out of the row");
    assert.equal(value.search_type, "name");
    assert.ok(!("structure_check" in value), "a null echo is left out");
    assert.equal((value.source as Row).release, "ChEMBL_36");
  });

  test("a salt names its parent", async () => {
    const { value } = await ok(tools.searchMolecules, { query: "lisinopril dihydrate" });
    const [m] = rows(value, "molecules");
    assert.equal(m!.molecule_chembl_id, "CHEMBL419213");
    assert.equal(m!.parent_chembl_id, "CHEMBL1237");
  });

  test("an ID in any case with whitespace, and an InChIKey, are looked up as such", async () => {
    const byId = await ok(tools.searchMolecules, { query: "  chembl25 " });
    assert.equal(rows(byId.value, "molecules")[0]!.molecule_chembl_id, "CHEMBL25");
    assert.equal(fake.requestsTo("molecule")[0]!.query.get("molecule_chembl_id"), "CHEMBL25");
    const byKey = await ok(tools.searchMolecules, { query: "bsynrymutxbxsq-uhfffaoysa-n" });
    assert.equal(rows(byKey.value, "molecules")[0]!.molecule_chembl_id, "CHEMBL25");
  });

  test("exact (flexmatch), similarity and substructure; a lone smiles means exact", async () => {
    const exact = await ok(tools.searchMolecules, { smiles: "OC(=O)c1ccccc1OC(C)=O" });
    assert.equal(exact.value.search_type, "exact");
    assert.equal(rows(exact.value, "molecules")[0]!.molecule_chembl_id, "CHEMBL25");
    assert.equal(exact.value.structure_check, "smiles_grammar");
    const sim = await ok(tools.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 70 });
    assert.deepEqual(
      rows(sim.value, "molecules").map((m) => [m.molecule_chembl_id, m.similarity]),
      [
        ["CHEMBL25", 100],
        ["CHEMBL999999", 72.22222222222223],
      ],
    );
    const sub = await ok(tools.searchMolecules, { smiles: "c1ccccc1C(=O)O", search_type: "substructure" });
    assert.equal(sub.value.total_count, 3);
  });

  test("max_phase_min applies to every search type", async () => {
    const cases: Array<Record<string, unknown>> = [
      { query: "aspirin" },
      { query: "CHEMBL25" },
      { smiles: ASPIRIN_SMILES, search_type: "exact" },
      { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40 },
      { smiles: "c1ccccc1C(=O)O", search_type: "substructure" },
    ];
    for (const args of cases) {
      fake.reset();
      const { value } = await ok(tools.searchMolecules, { ...args, max_phase_min: 4 });
      const searched = fake.requests.filter((r) => r.path !== "status" && r.query.get("limit") !== "1");
      assert.equal(searched.length, 1, JSON.stringify(args));
      assert.equal(searched[0]!.query.get("max_phase__gte"), "4", JSON.stringify(args));
      for (const m of rows(value, "molecules")) assert.ok((m.max_phase as number) >= 4, JSON.stringify(args));
    }
  });

  test("totals at ChEMBL's ceilings are flagged totalCountCapped, including a max_phase-filtered substructure", async () => {
    fake.totalOverride.set("molecule/search", 10_000);
    const name = await ok(tools.searchMolecules, { query: "a" });
    assert.equal(name.value.totalCountCapped, true);
    assert.match(name.value.notice as string, /10,000/);
    fake.totalOverride.clear();
    fake.totalOverride.set("substructure", 30_000);
    const sub = await ok(tools.searchMolecules, { smiles: "c1ccccc1C(=O)O", search_type: "substructure", max_phase_min: 4 });
    assert.equal(sub.value.totalCountCapped, true);
    assert.ok(
      fake.requestsTo("substructure").some((r) => r.query.get("max_phase__gte") === null && r.query.get("limit") === "1"),
      "unfiltered count asked",
    );
    fake.totalOverride.clear();
    const plain = await ok(tools.searchMolecules, { query: "aspirin" });
    assert.equal(plain.value.totalCountCapped, false);
  });

  test("a broken SMILES fails fast as INVALID_STRUCTURE without asking ChEMBL", async () => {
    for (const smiles of ["C1CC(", "c1ccccc1)", "CC(=O)Xq", "C1CCCC"]) {
      fake.reset();
      const e = await fails(tools.searchMolecules, { smiles, search_type: "similarity" });
      assert.equal(e.code, "INVALID_STRUCTURE", smiles);
      assert.equal(typeof e.details.position, "number");
      assert.equal(fake.requests.length, 0, smiles);
    }
    const short = await fails(tools.searchMolecules, { smiles: "CCO", search_type: "substructure" });
    assert.equal(short.code, "INVALID_STRUCTURE");
    assert.equal(fake.requests.length, 0);
  });

  test("with the chemistry pool hook, RDKit checks the structure (INVALID_SMILES becomes INVALID_STRUCTURE)", async () => {
    const calls: unknown[] = [];
    const chem: ChemRunner = {
      run: async (tool, args) => {
        calls.push([tool.name, args]);
        if ((args as { smiles?: string }).smiles === "C1=CC=CC=C1=C")
          throw new ToolError("INVALID_SMILES", "Invalid SMILES 'C1=CC=CC=C1=C': explicit valence", { position: 11 });
        return { valid: true } as never;
      },
    };
    const good = await ok(tools.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity" }, serviceContext(20_000, { chem }));
    assert.equal(good.value.structure_check, "rdkit");
    const e = await fails(tools.searchMolecules, { smiles: "C1=CC=CC=C1=C", search_type: "substructure" }, serviceContext(20_000, { chem }));
    assert.equal(e.code, "INVALID_STRUCTURE");
    assert.equal(e.details.check, "rdkit");
    assert.deepEqual(calls[0], ["parse_smiles", { smiles: ASPIRIN_SMILES }]);
  });

  test("a structure ChEMBL refuses comes back INVALID_STRUCTURE, sanitised", async () => {
    const r = await callTool(tools.searchMolecules, { smiles: "C1CCCCC1[Xx]", search_type: "similarity" });
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.code, "INVALID_STRUCTURE");
      assert.ok(!r.payload.includes(CANARY) && !r.payload.includes("error_message"));
    }
  });

  test("cursor paging walks the whole result; a cursor of another query is refused", async () => {
    const first = await ok(tools.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40, limit: 2 });
    assert.equal(rows(first.value, "molecules").length, 2);
    assert.equal(first.value.total_count, 3);
    const next = await ok(tools.searchMolecules, {
      smiles: ASPIRIN_SMILES,
      search_type: "similarity",
      similarity_threshold: 40,
      limit: 2,
      cursor: first.value.nextCursor,
    });
    assert.deepEqual(
      rows(next.value, "molecules").map((m) => m.molecule_chembl_id),
      ["CHEMBL324340"],
    );
    assert.equal(next.value.offset, 2);
    assert.equal(next.value.nextCursor, null);
    const e = await fails(tools.searchMolecules, { query: "aspirin", cursor: first.value.nextCursor });
    assert.equal(e.code, "INVALID_ARGUMENTS");
    const junk = await fails(tools.searchMolecules, { query: "aspirin", cursor: "not-a-cursor" });
    assert.equal(junk.code, "INVALID_ARGUMENTS");
  });

  test("empty strings from form clients read as absent", async () => {
    const { value } = await ok(tools.searchMolecules, { query: "aspirin", smiles: "", search_type: "", cursor: "" });
    assert.equal(value.search_type, "name");
    const e = await fails(tools.searchMolecules, { query: "", smiles: "" });
    assert.equal(e.code, "INVALID_ARGUMENTS");
  });

  test("a sparse record leaves its null fields out (absent reads as null, never 0)", async () => {
    const { value } = await ok(tools.searchMolecules, { query: "CHEMBL3989520", fields: ["all"] });
    const [m] = rows(value, "molecules");
    assert.equal(m!.molecule_chembl_id, "CHEMBL3989520");
    for (const k of ["pref_name", "max_phase", "mw_freebase", "parent_chembl_id"]) assert.ok(!(k in m!), k);
  });
});

describe("chembl_search_targets", () => {
  test("a one-word query that matches no name is retried as a gene symbol", async () => {
    const { value } = await ok(tools.searchTargets, { query: "egfr", organism: "homo sapiens" });
    assert.equal(value.matched_by, "gene_symbol");
    assert.deepEqual(
      rows(value, "targets").map((t) => t.target_chembl_id),
      ["CHEMBL203", "CHEMBL2111431"],
    );
    const egfr = rows(value, "targets")[0]!;
    assert.deepEqual((egfr.components as Row[])[0]!.gene_symbols, ["EGFR", "ERBB1", "ERBB"]);
    assert.match(value.notice as string, /SINGLE PROTEIN/);
  });

  test("a UniProt accession or a target ID given as query is used as such", async () => {
    const acc = await ok(tools.searchTargets, { query: "p00533", target_type: "single protein" });
    assert.equal(acc.value.matched_by, "accession");
    assert.deepEqual(
      rows(acc.value, "targets").map((t) => t.target_chembl_id),
      ["CHEMBL203"],
    );
    assert.equal(fake.requestsTo("target")[0]!.query.get("target_components__accession"), "P00533");
    const id = await ok(tools.searchTargets, { query: "chembl1808" });
    assert.equal(id.value.matched_by, "target_chembl_id");
    assert.equal(rows(id.value, "targets")[0]!.pref_name, "Angiotensin-converting enzyme");
  });

  test("name fragments match, ordered by ID, paged by cursor", async () => {
    const p1 = await ok(tools.searchTargets, { query: "cyclooxygenase", limit: 1 });
    assert.equal(p1.value.matched_by, "pref_name");
    assert.equal(p1.value.total_count, 2);
    const p2 = await ok(tools.searchTargets, { query: "cyclooxygenase", limit: 1, cursor: p1.value.nextCursor });
    assert.deepEqual(
      [...rows(p1.value, "targets"), ...rows(p2.value, "targets")].map((t) => t.target_chembl_id),
      ["CHEMBL221", "CHEMBL230"],
    );
    assert.equal(p2.value.nextCursor, null);
  });

  test("nothing to search for is INVALID_ARGUMENTS", async () => {
    assert.equal((await fails(tools.searchTargets, { organism: "Homo sapiens" })).code, "INVALID_ARGUMENTS");
  });
});

describe("chembl_get_bioactivities", () => {
  test("potency_ranked: only rows with pchembl_value, best first, ties by activity_id; mixed types flagged", async () => {
    const { value } = await ok(tools.bioactivities, { target_chembl_id: "chembl203 " });
    const acts = rows(value, "activities");
    assert.deepEqual(
      acts.map((a) => a.activity_id),
      [40002, 40001, 40003, 40004, 31864, 40007],
    );
    for (const a of acts) assert.equal(typeof a.pchembl_value, "number");
    assert.deepEqual(value.standard_types, ["IC50", "Ki"]);
    assert.match(value.notice as string, /mixes standard types/);
    assert.match(value.notice as string, /potential_duplicate/);
    assert.equal((value.applied_filters as Row).target_chembl_id, "CHEMBL203");
  });

  test("null_potency: exactly the rows without one; absent values stay null", async () => {
    const { value } = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", potency_view: "null_potency" });
    const acts = rows(value, "activities");
    assert.deepEqual(
      acts.map((a) => a.activity_id),
      [31863, 31867, 40005, 40006],
    );
    const nd = acts.find((a) => a.activity_id === 31867)!;
    assert.ok(!("standard_value" in nd) && !("pchembl_value" in nd), "null values are left out, not 0");
    assert.equal(nd.activity_comment, "Not Determined");
    assert.equal(acts.find((a) => a.activity_id === 40006)!.data_validity_comment, "Outside typical range");
  });

  test("standard_type, pchembl_value_min and the contradictory filter", async () => {
    const { value } = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", standard_type: "ic50", pchembl_value_min: 7 });
    assert.deepEqual(
      rows(value, "activities").map((a) => a.activity_id),
      [40002, 40003],
    );
    const e = await fails(tools.bioactivities, { target_chembl_id: "CHEMBL203", potency_view: "null_potency", pchembl_value_min: 6 });
    assert.equal(e.code, "INVALID_ARGUMENTS");
  });

  test("variant keeps wild type or one mutation", async () => {
    const wt = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", variant: "wild-type" });
    assert.ok(rows(wt.value, "activities").every((a) => a.assay_variant_mutation === undefined));
    assert.equal((wt.value.applied_filters as Row).variant, "wild_type");
    const mut = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", variant: "t790m" });
    assert.deepEqual(
      rows(mut.value, "activities").map((a) => a.activity_id),
      [40002],
    );
    const dbl = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", variant: "L858R, T790M" });
    assert.deepEqual(
      rows(dbl.value, "activities").map((a) => a.activity_id),
      [40003],
    );
  });

  test("include_alternate_forms widens a salt to its family by parent", async () => {
    const own = await ok(tools.bioactivities, { molecule_chembl_id: "CHEMBL419213" });
    assert.deepEqual(
      rows(own.value, "activities").map((a) => a.activity_id),
      [50001],
    );
    const family = await ok(tools.bioactivities, { molecule_chembl_id: "CHEMBL419213", include_alternate_forms: true, target_chembl_id: "CHEMBL1808" });
    assert.deepEqual(
      rows(family.value, "activities").map((a) => a.activity_id),
      [50003, 50001, 50002],
    );
    assert.equal((family.value.applied_filters as Row).parent_molecule_chembl_id, "CHEMBL1237");
    for (const a of rows(family.value, "activities")) assert.equal(a.parent_molecule_chembl_id, "CHEMBL1237");
    const e = await fails(tools.bioactivities, { molecule_chembl_id: "CHEMBL12345678", include_alternate_forms: true });
    assert.equal(e.code, "NOT_FOUND");
  });

  test("cursor paging over a long view returns every row once, in order", async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { value } = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL235", limit: 20, ...(cursor ? { cursor } : {}) });
      assert.equal(value.total_count, 57);
      seen.push(...rows(value, "activities").map((a) => a.activity_id as number));
      cursor = (value.nextCursor as string | null) ?? undefined;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 57);
    const offsets = fake.requestsTo("activity").map((r) => r.query.get("offset"));
    assert.deepEqual(offsets, ["0", "20", "40"]);
  });

  test("no molecule and no target is INVALID_ARGUMENTS; an empty view says where else to look", async () => {
    assert.equal((await fails(tools.bioactivities, { molecule_chembl_id: "", target_chembl_id: "" })).code, "INVALID_ARGUMENTS");
    const { value } = await ok(tools.bioactivities, { molecule_chembl_id: "CHEMBL1201644" });
    assert.equal(value.returned, 0);
    assert.match(value.notice as string, /null_potency/);
    assert.match(value.notice as string, /include_alternate_forms/);
  });
});

describe("chembl_get_drug_info", () => {
  test("a salt: mechanisms and indications read across the parent's family, the salt's own phase and approval", async () => {
    const { value } = await ok(tools.drugInfo, { molecule_chembl_id: "chembl419213" });
    assert.equal(value.molecule_chembl_id, "CHEMBL419213");
    assert.equal(value.parent_chembl_id, "CHEMBL1237");
    assert.equal(value.max_phase, 4);
    assert.equal(value.first_approval, 1988);
    assert.deepEqual(
      rows(value, "mechanisms").map((m) => [m.mechanism_of_action, m.target_chembl_id, m.target_pref_name, m.direct_interaction]),
      [["Angiotensin-converting enzyme inhibitor", "CHEMBL1808", "Angiotensin-converting enzyme", true]],
    );
    assert.deepEqual(
      rows(value, "indications").map((i) => [i.mesh_heading, i.max_phase_for_ind]),
      [
        ["Hypertension", 4],
        ["Heart Failure", 4],
        ["Diabetes Mellitus, Type 2", 2],
      ],
    );
    assert.deepEqual(
      rows(value, "family").map((f) => [f.molecule_chembl_id, f.is_parent]),
      [
        ["CHEMBL1237", true],
        ["CHEMBL419213", false],
        ["CHEMBL4594260", false],
      ],
    );
    assert.equal(value.withdrawn, false);
    assert.equal(value.black_box_warning, false);
    assert.equal((value.mechanisms_status as Row).status, "complete");
  });

  test("a deuterated analog keeps its own (absent) phase: never its parent's approval", async () => {
    const { value } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL4594260" });
    assert.equal(value.max_phase, null);
    assert.equal(value.first_approval, null);
    assert.equal(rows(value, "mechanisms").length, 1, "the family's mechanism is still shown");
  });

  test("a withdrawn drug keeps max_phase 4, its withdrawn flag and the warning record", async () => {
    const { value } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL122" });
    assert.equal(value.max_phase, 4);
    assert.equal(value.withdrawn, true);
    assert.deepEqual(
      rows(value, "warnings").map((w) => [w.warning_type, w.warning_year, w.warning_class]),
      [["Withdrawn", 2004, "Cardiotoxicity"]],
    );
    assert.match(value.notice as string, /Withdrawn/);
  });

  test("a black-box warning is reported from the flag and the warning record", async () => {
    const { value } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL121" });
    assert.equal(value.black_box_warning, true);
    assert.equal(value.withdrawn, false);
  });

  test("partial results: a failing section is marked failed (absent, not empty); the rest is answered", async () => {
    fake.fault = { mode: "502", path: /^mechanism$/ };
    const { value, text } = await ok(tools.drugInfo, { molecule_chembl_id: "CHEMBL25" });
    assert.deepEqual(value.mechanisms_status, { status: "failed", total_count: null, error_code: "UPSTREAM_UNAVAILABLE" });
    assert.equal((value.indications_status as Row).status, "complete");
    assert.equal(rows(value, "indications").length, 1);
    assert.match(value.notice as string, /mechanisms \(UPSTREAM_UNAVAILABLE\)/);
    assert.ok(!text.includes(CANARY));
  });

  test("an unknown molecule is NOT_FOUND", async () => {
    assert.equal((await fails(tools.drugInfo, { molecule_chembl_id: "CHEMBL12345678" })).code, "NOT_FOUND");
  });
});

describe("chembl_get_assay and chembl_get_documents", () => {
  test("a lone string, the singular alias, any case; misses in not_found_ids; order kept", async () => {
    const lone = await ok(tools.assay, { assay_chembl_ids: " chembl872939 " });
    const [a] = rows(lone.value, "assays");
    assert.equal(a!.assay_chembl_id, "CHEMBL872939");
    assert.deepEqual(a!.variant, { mutation: "T790M", accession: "P00533", isoform: null, organism: "Homo sapiens", version: 2 });
    assert.deepEqual((a!.parameters as Row[])[0], { type: "CONC", relation: "=", value: 10, units: "uM", text_value: null, comments: null });
    const alias = await ok(tools.assay, { assay_chembl_id: ["CHEMBL771355", "chembl663853", "CHEMBL1", ""] });
    assert.deepEqual(
      rows(alias.value, "assays").map((x) => x.assay_chembl_id),
      ["CHEMBL771355", "CHEMBL663853"],
    );
    assert.deepEqual(alias.value.not_found_ids, ["CHEMBL1"]);
    assert.equal(rows(alias.value, "assays")[0]!.confidence_score, 1);
    assert.equal(rows(alias.value, "assays")[0]!.assay_tax_id, 10116);
    assert.match(alias.value.notice as string, /not_found_ids/);
    assert.equal(lone.value.notice, null);
  });

  test("more than 100 distinct IDs: the rest are deferred", async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `CHEMBL${800000 + i}`);
    const { value } = await ok(tools.documents, { document_chembl_ids: ["CHEMBL1137930", ...ids] });
    assert.equal(rows(value, "documents").length, 1);
    assert.equal((value.not_found_ids as string[]).length, 99);
    assert.equal((value.deferred_ids as string[]).length, 21);
  });

  test("documents: a patent without journal fields leaves them out (absent is null); pubmed ids are numbers", async () => {
    const { value } = await ok(tools.documents, { document_chembl_id: "CHEMBL3301361" });
    const [d] = rows(value, "documents");
    assert.ok(!("journal" in d!) && !("pubmed_id" in d!));
    assert.equal(d!.patent_id, "US-1234567-A");
    const { value: v2 } = await ok(tools.documents, { document_chembl_ids: ["CHEMBL1146658"] });
    assert.equal(rows(v2, "documents")[0]!.pubmed_id, 15000002);
    assert.equal(rows(v2, "documents")[0]!.abstract_truncated, true);
  });

  test("no IDs at all is INVALID_ARGUMENTS", async () => {
    assert.equal((await fails(tools.assay, { assay_chembl_ids: [] })).code, "INVALID_ARGUMENTS");
    assert.equal((await fails(tools.documents, {})).code, "INVALID_ARGUMENTS");
  });
});

describe("markdown twin", () => {
  /** Every scalar leaf of the structured result must appear, rendered, in the text block. */
  function assertSameData(value: unknown, text: string, path = ""): void {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      if (value.every((v) => typeof v === "string") && value.length > 0) {
        for (const v of value) assert.ok(text.includes(mdValue(v)), `${path}: ${String(v)}`);
        return;
      }
      value.forEach((v, i) => assertSameData(v, text, `${path}/${i}`));
      return;
    }
    if (typeof value === "object") {
      for (const [k, v] of Object.entries(value as Row)) assertSameData(v, text, `${path}/${k}`);
      return;
    }
    const rendered = [mdValue(value as string | number | boolean), typeof value === "string" ? mdCode(value) : ""].filter((r) => r !== "");
    assert.ok(
      rendered.some((r) => text.includes(r)),
      `${path}: ${String(value)} missing from the markdown`,
    );
  }

  const calls: Array<[keyof ReturnType<typeof chemblTools>, Record<string, unknown>]> = [
    ["searchMolecules", { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40 }],
    ["searchTargets", { query: "EGFR" }],
    ["bioactivities", { target_chembl_id: "CHEMBL203" }],
    ["bioactivities", { target_chembl_id: "CHEMBL203", potency_view: "null_potency" }],
    ["drugInfo", { molecule_chembl_id: "CHEMBL419213" }],
    ["drugInfo", { molecule_chembl_id: "CHEMBL122" }],
    ["assay", { assay_chembl_ids: ["CHEMBL872937", "CHEMBL872939", "CHEMBL1"] }],
    ["documents", { document_chembl_ids: ["CHEMBL1146658", "CHEMBL3301361"] }],
  ];

  for (const [name, args] of calls) {
    test(`${name} ${JSON.stringify(args)}: the text block is markdown carrying the same data`, async () => {
      const { value, text } = await ok(tools[name] as AnyTool, args);
      assert.match(text, /^\*\*ChEMBL /);
      assertSameData(value, text);
    });
  }

  test("mdInline and mdCode", () => {
    assert.equal(mdInline("a_b *c* [d](e) <f> & g | h ~ $ \\ `i`\n# j"), "a\\_b \\*c\\* \\[d\\](e) \\<f> \\& g \\| h \\~ \\$ \\\\ \\`i\\` # j");
    assert.equal(mdInline("Epidermal growth factor receptor and ErbB2 (HER1 and HER2)"), "Epidermal growth factor receptor and ErbB2 (HER1 and HER2)");
    assert.equal(mdCode("C/C=C\\C(=O)O"), "`C/C=C\\C(=O)O`");
    assert.equal(mdCode("a`b"), "``a`b``");
    assert.equal(mdCode("`x"), "`` `x ``");
    assert.equal(mdCode("<b>\n#"), "`<b> #`");
  });

  test("upstream strings render inert: no HTML, no links, no emphasis, no new blocks", async () => {
    const outs = [
      (await ok(tools.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity" })).text,
      (await ok(tools.assay, { assay_chembl_ids: "CHEMBL872937" })).text,
      (await ok(tools.documents, { document_chembl_ids: "CHEMBL1146658" })).text,
    ];
    for (const text of outs) {
      assert.ok(text.includes("EVIL"), "the hostile record is in this answer");
      assert.ok(!/(^|[^\\])<img/.test(text), "no raw HTML");
      assert.ok(!/(^|[^\\])\[click\]\(/.test(text), "no live link");
      assert.ok(!/(^|[^\\])\*\*EVIL/.test(text), "no live emphasis");
      assert.ok(!/(^|[^\\])`code/.test(text), "no live code span");
      for (const line of text.split("\n")) {
        assert.ok(!/^\s*#/.test(line), `no heading line: ${line}`);
        assert.ok(!line.includes("HEADING") || !line.startsWith("HEADING"), "the newline did not start a block");
      }
      assert.ok(text.includes("\\<img src=x onerror=alert(1)>"));
    }
    assert.equal(HOSTILE_NAME.includes("\n"), true);
  });
});

describe("OFFLINE", () => {
  test("every ChEMBL tool answers OFFLINE, before anything else", async () => {
    const offline = chemblTools(testService(fake, { offline: true }));
    const argsFor: Record<string, Record<string, unknown>> = {
      searchMolecules: { smiles: "C1CC(", search_type: "similarity" },
      searchTargets: {},
      bioactivities: {},
      drugInfo: { molecule_chembl_id: "CHEMBL25" },
      assay: { assay_chembl_ids: "CHEMBL1" },
      documents: {},
    };
    for (const [name, tool] of Object.entries(offline)) {
      const e = await fails(tool as AnyTool, argsFor[name]!);
      assert.equal(e.code, "OFFLINE", name);
    }
    assert.equal(fake.requests.length, 0);
  });
});

describe("release flavours", () => {
  test("the old (ChEMBL 25) and new (ChEMBL 36) wire formats give the same answers", async () => {
    const calls: Array<[AnyTool, Record<string, unknown>]> = [
      [tools.searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40 }],
      [tools.searchMolecules, { query: "rofecoxib" }],
      [tools.searchTargets, { query: "egfr" }],
      [tools.bioactivities, { target_chembl_id: "CHEMBL203" }],
      [tools.bioactivities, { target_chembl_id: "CHEMBL203", potency_view: "null_potency" }],
      [tools.drugInfo, { molecule_chembl_id: "CHEMBL419213" }],
      [tools.drugInfo, { molecule_chembl_id: "CHEMBL122" }],
      [tools.assay, { assay_chembl_ids: ["CHEMBL872939", "CHEMBL771355"] }],
      [tools.documents, { document_chembl_ids: ["CHEMBL1146658"] }],
    ];
    const answers: Record<string, unknown[]> = { old: [], new: [] };
    for (const flavour of ["old", "new"] as const) {
      fake.flavour = flavour;
      const t = chemblTools(testService(fake));
      const byName = new Map(Object.values(t).map((x) => [x.name, x]));
      for (const [tool, args] of calls) {
        const { value } = await ok(byName.get(tool.name)! as AnyTool, args);
        assert.equal((value.source as Row).release, flavour === "old" ? "ChEMBL_25" : "ChEMBL_36");
        answers[flavour]!.push({ ...value, source: undefined });
      }
    }
    assert.deepEqual(answers.old, answers.new);
  });
});

describe("sanitising", () => {
  const everyCall: Array<[keyof ReturnType<typeof chemblTools>, Record<string, unknown>]> = [
    ["searchMolecules", { query: "aspirin" }],
    ["searchMolecules", { smiles: ASPIRIN_SMILES, search_type: "similarity" }],
    ["searchTargets", { query: "kinase" }],
    ["bioactivities", { molecule_chembl_id: "CHEMBL25", include_alternate_forms: true }],
    ["drugInfo", { molecule_chembl_id: "CHEMBL25" }],
    ["assay", { assay_chembl_ids: "CHEMBL663853" }],
    ["documents", { document_chembl_ids: "CHEMBL1137930" }],
  ];
  const upstreamTexts = [
    CANARY,
    ...Object.values(FAULT_BODIES).flatMap((b) => [b.slice(0, 40)]),
    "Something has gone wrong",
    "Proxy Error",
    "error_message",
    "<html",
    "<!doctype",
    "gunicorn",
  ];

  for (const mode of ["500-html", "502", "hang", "truncated", "429", "404-empty", "400-json"] as FaultMode[]) {
    test(`fault ${mode}: no answer of any tool carries upstream text`, async () => {
      const t = chemblTools(testService(fake, { requestTimeoutMs: 150, deadlineMs: 1_200 }));
      fake.fault = { mode, retryAfter: "0" };
      const results = await Promise.all(everyCall.map(([name, args]) => callTool(t[name] as AnyTool, args)));
      for (const [i, r] of results.entries()) {
        const answer = r.ok ? `${JSON.stringify(r.value)}\n${r.text}` : r.payload;
        for (const needle of upstreamTexts) assert.ok(!answer.includes(needle), `${everyCall[i]![0]} in ${mode} leaked "${needle}": ${answer.slice(0, 400)}`);
        if (!r.ok) {
          assert.ok(
            ["UPSTREAM_UNAVAILABLE", "RATE_LIMITED", "DEADLINE_EXCEEDED", "NOT_FOUND", "INVALID_STRUCTURE"].includes(r.error.code),
            `${mode}: ${r.error.code}`,
          );
          assert.ok(r.error.hint.length > 20);
        }
      }
      assert.ok(
        results.some((r) => !r.ok),
        `${mode}: the fault was seen`,
      );
    });
  }
});
