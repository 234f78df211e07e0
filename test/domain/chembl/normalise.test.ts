/**
 * Coercion at the boundary, and the tie between each `only=` field list and the keys its normaliser
 * reads (ChEMBL drops an unknown `only` name silently, so a list out of step loses data without a sound).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ACTIVITY_FIELDS,
  ASSAY_FIELDS,
  DOCUMENT_FIELDS,
  INDICATION_FIELDS,
  MECHANISM_FIELDS,
  MOLECULE_FIELDS,
  STATUS_FIELDS,
  TARGET_FIELDS,
  WARNING_FIELDS,
  normalizeActivity,
  normalizeAssay,
  normalizeDocument,
  normalizeIndication,
  normalizeMechanism,
  normalizeMolecule,
  normalizeStatus,
  normalizeTarget,
  normalizeWarning,
} from "../../../src/domain/chembl/normalise.js";
import { toFlag, toInteger, toMaxPhase, toNumber, toText } from "../../../src/domain/chembl/coerce.js";

test("numbers: strings become numbers, absent or empty or junk becomes null, a real zero stays zero", () => {
  assert.equal(toNumber("5.60"), 5.6);
  assert.equal(toNumber(" 2500.0 "), 2500);
  assert.equal(toNumber("1e-3"), 0.001);
  assert.equal(toNumber("-0.30"), -0.3);
  assert.equal(toNumber(7.41), 7.41);
  assert.equal(toNumber(0), 0);
  assert.equal(toNumber("0"), 0);
  for (const v of [undefined, null, "", "   ", "N/A", "5.6.1", "0x10", "Infinity", NaN, true, {}, []]) assert.equal(toNumber(v), null, String(v));
  assert.equal(toInteger("9606"), 9606);
  assert.equal(toInteger("4.0"), 4);
  assert.equal(toInteger("4.5"), null);
  assert.equal(toInteger(""), null);
});

test("max_phase: 4 and '4.0' are 4; 0.5 and -1 are kept; anything else is null, never 0", () => {
  assert.equal(toMaxPhase(4), 4);
  assert.equal(toMaxPhase("4.0"), 4);
  assert.equal(toMaxPhase("0.5"), 0.5);
  assert.equal(toMaxPhase("-1"), -1);
  assert.equal(toMaxPhase(0), 0);
  for (const v of [null, undefined, "", "5", "phase 4", 3.5]) assert.equal(toMaxPhase(v), null, String(v));
});

test("flags: booleans, 0/1, '0'/'1', 'True'/'False'; ChEMBL's -1 and anything else are null", () => {
  for (const v of [true, 1, "1", "True", "true", "Y"]) assert.equal(toFlag(v), true, String(v));
  for (const v of [false, 0, "0", "False", "N"]) assert.equal(toFlag(v), false, String(v));
  for (const v of [-1, "-1", 2, "", null, undefined, "maybe"]) assert.equal(toFlag(v), null, String(v));
});

test("text: trimmed; empty is null", () => {
  assert.equal(toText("  EGFR "), "EGFR");
  assert.equal(toText(""), null);
  assert.equal(toText("   "), null);
  assert.equal(toText(null), null);
  assert.equal(toText(42), "42");
});

test("a sparse molecule record (most fields absent, empty strings) reads as nulls, never zeros", () => {
  const m = normalizeMolecule({
    molecule_chembl_id: "CHEMBL1",
    pref_name: "",
    max_phase: "",
    molecule_properties: { mw_freebase: "", hba: null },
    molecule_hierarchy: null,
  });
  assert.equal(m.molecule_chembl_id, "CHEMBL1");
  for (const [k, v] of Object.entries(m)) if (k !== "molecule_chembl_id") assert.equal(v, null, k);
});

test("a sparse activity reads as nulls: no standard_value means null, not 0", () => {
  const a = normalizeActivity({ activity_id: 31867, standard_value: null, pchembl_value: "", potential_duplicate: 0 });
  assert.equal(a.activity_id, 31867);
  assert.equal(a.standard_value, null);
  assert.equal(a.pchembl_value, null);
  assert.equal(a.potential_duplicate, false);
  assert.equal(a.ligand_efficiency, null);
  assert.equal(a.target_tax_id, null);
});

test("release drift: an old and a new activity normalise alike", () => {
  const oldA = normalizeActivity({
    activity_id: 1,
    potential_duplicate: false,
    pchembl_value: "7.41",
    target_tax_id: 9606,
    ligand_efficiency: { bei: "17.13", le: "0.33", lle: "5.9", sei: "5.99" },
  });
  const newA = normalizeActivity({
    activity_id: 1,
    potential_duplicate: 0,
    pchembl_value: "7.41",
    target_tax_id: "9606",
    ligand_efficiency: { bei: "17.13", le: "0.33", lle: "5.9", sei: "5.99" },
  });
  assert.deepEqual(oldA, newA);
  assert.deepEqual(newA.ligand_efficiency, { le: 0.33, lle: 5.9, bei: 17.13, sei: 5.99 });
});

test("target components: gene symbols trimmed and de-duplicated, UniProt synonyms left out, components capped", () => {
  const t = normalizeTarget({
    target_chembl_id: "CHEMBL203",
    target_components: [
      {
        accession: "P00533",
        target_component_synonyms: [
          { component_synonym: "EGFR ", syn_type: "GENE_SYMBOL" },
          { component_synonym: "EGFR", syn_type: "GENE_SYMBOL_OTHER" },
          { component_synonym: "Epidermal growth factor receptor", syn_type: "UNIPROT" },
        ],
      },
      ...Array.from({ length: 40 }, () => ({ accession: null, component_type: "RNA" })),
    ],
  });
  assert.deepEqual(t.components[0]!.gene_symbols, ["EGFR"]);
  assert.equal(t.component_count, 41);
  assert.equal(t.components.length, 25);
  assert.equal(t.tax_id, null);
});

/** Records every key a normaliser reads from the raw record (top level). */
function keysRead(normalise: (raw: never) => unknown): string[] {
  const seen = new Set<string>();
  const raw = new Proxy(
    {},
    {
      get(_t, key) {
        if (typeof key === "string") seen.add(key);
        return undefined;
      },
    },
  );
  normalise(raw as never);
  return [...seen].sort();
}

test("each only= field list equals the keys its normaliser reads", () => {
  const pairs: Array<[string, readonly string[], (raw: never) => unknown]> = [
    ["molecule", MOLECULE_FIELDS, normalizeMolecule],
    ["target", TARGET_FIELDS, normalizeTarget],
    ["activity", ACTIVITY_FIELDS, normalizeActivity],
    ["assay", ASSAY_FIELDS, normalizeAssay],
    ["document", DOCUMENT_FIELDS, normalizeDocument],
    ["mechanism", MECHANISM_FIELDS, normalizeMechanism],
    ["drug_indication", INDICATION_FIELDS, normalizeIndication],
    ["drug_warning", WARNING_FIELDS, normalizeWarning],
    ["status", STATUS_FIELDS, normalizeStatus],
  ];
  for (const [name, fields, normalise] of pairs) {
    assert.deepEqual(keysRead(normalise), [...fields].sort(), `${name}: only= list and normaliser disagree`);
    assert.equal(new Set(fields).size, fields.length, `${name}: no duplicates`);
  }
});

test("documents: long abstracts are cut on a word with abstract_truncated; short ones are whole", () => {
  const long = normalizeDocument({ document_chembl_id: "CHEMBL1", abstract: "word ".repeat(400), pubmed_id: "15000002" });
  assert.equal(long.abstract_truncated, true);
  assert.ok(long.abstract!.length <= 1201 && long.abstract!.endsWith("…"));
  assert.equal(long.pubmed_id, 15000002);
  const short = normalizeDocument({ document_chembl_id: "CHEMBL1", abstract: "Short." });
  assert.equal(short.abstract_truncated, false);
  assert.equal(short.abstract, "Short.");
});

test("assays: confidence score outside 0-9 is null; string numbers coerced", () => {
  assert.equal(normalizeAssay({ confidence_score: "9" }).confidence_score, 9);
  assert.equal(normalizeAssay({ confidence_score: 12 }).confidence_score, null);
  assert.equal(normalizeAssay({ assay_tax_id: "10116" }).assay_tax_id, 10116);
});
