/**
 * The record declarations (src/domain/chembl/records/) against what is derived from them: the offline source fills
 * every API key a record's reader reads (its `only=` list), nested records too; a record with its own markdown
 * layout places each field in it once; and the dump's rows become the API's shape as declared (an object null
 * without its row, a row read by position, a value the dump does not hold read as null).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { onlyOf, normalizeActivity } from "../../../src/domain/chembl/normalise.js";
import { ACTIVITY, LIGAND_EFFICIENCY } from "../../../src/domain/chembl/records/activity.js";
import { ASSAY, ASSAY_PARAMETER, ASSAY_VARIANT } from "../../../src/domain/chembl/records/assay.js";
import { DOCUMENT } from "../../../src/domain/chembl/records/document.js";
import { INDICATION } from "../../../src/domain/chembl/records/indication.js";
import { MECHANISM } from "../../../src/domain/chembl/records/mechanism.js";
import { MOLECULE } from "../../../src/domain/chembl/records/molecule.js";
import type { RecordDecl } from "../../../src/domain/chembl/records/record.js";
import { REFERENCE } from "../../../src/domain/chembl/records/reference.js";
import { TARGET, TARGET_COMPONENT } from "../../../src/domain/chembl/records/target.js";
import { WARNING } from "../../../src/domain/chembl/records/warning.js";
import { columnsOf, wireShape } from "../../../src/domain/chembl/sqlite/wire.js";

const RECORDS: Record<string, RecordDecl> = { MOLECULE, TARGET, ACTIVITY, ASSAY, DOCUMENT, MECHANISM, INDICATION, WARNING };
const NESTED: Record<string, RecordDecl> = { TARGET_COMPONENT, LIGAND_EFFICIENCY, ASSAY_VARIANT, ASSAY_PARAMETER, REFERENCE };

test("the offline source fills exactly the API keys each record's reader reads", () => {
  for (const [name, decl] of Object.entries({ ...RECORDS, ...NESTED })) {
    assert.deepEqual([...wireShape(decl).keys].sort(), [...onlyOf(decl)].sort(), name);
  }
});

test("a record laid out in its own order places each of its fields once", () => {
  for (const [name, decl] of Object.entries(RECORDS)) {
    const layout = decl.markdown;
    if (layout === undefined) continue;
    const placed = "columns" in layout ? layout.columns : layout.lines.flat();
    assert.deepEqual([...placed].sort(), decl.fields.map((f) => f.name).sort(), name);
  }
});

test("a page row read by position becomes an activity record: ligand efficiency only with its row, missing entities null", () => {
  const a = columnsOf(ACTIVITY, "a");
  const le = columnsOf(ACTIVITY, "le");
  const at = (columns: string[], from: number) => Object.fromEntries(columns.map((c, i) => [c, from + i]));
  const shape = wireShape(ACTIVITY, { a: at(a, 0), le: at(le, a.length), dv: { description: a.length + le.length } });
  const row: unknown[] = a.map((c) => (c === "activity_id" ? 31867 : c === "pchembl_value" ? 7.4 : c === "action_type" ? "INHIBITOR" : null));
  row.push(0.33, 5.9, 17.13, 5.99, "Outside typical range.");
  // The hot path: values under the shape's keys, as an activity page holds them.
  const values = shape.values({ a: row, le: row, dv: row, s: { assay_type: "B" } });
  const withLe = normalizeActivity(Object.fromEntries(shape.keys.map((k, i) => [k, values[i]])));
  assert.equal(withLe.activity_id, 31867);
  assert.equal(withLe.pchembl_value, 7.4);
  assert.equal(withLe.action_type, "INHIBITOR");
  assert.equal(withLe.assay_type, "B");
  assert.equal(withLe.molecule_chembl_id, null, "no molecule row");
  assert.equal(withLe.data_validity_description, "Outside typical range.");
  assert.deepEqual(withLe.ligand_efficiency, { le: 0.33, lle: 5.9, bei: 17.13, sei: 5.99 });
  const withoutLe = normalizeActivity(shape.record({ a: row, dv: row }));
  assert.equal(withoutLe.ligand_efficiency, null, "no ligand_eff row: no object, not one of nulls");
});

test("nested records: an object null without its row, a list from its items' rows, a value the dump lacks null", () => {
  const assay = wireShape(ASSAY).record({ s: { chembl_id: "CHEMBL1" }, parameters: [{ p: { standard_type: "TIME", type: "Time", value: 2 } }] });
  assert.equal(assay.variant_sequence, null);
  assert.deepEqual(assay.assay_parameters, [
    {
      standard_type: "TIME",
      type: "Time",
      standard_relation: null,
      relation: null,
      standard_value: null,
      value: 2,
      standard_units: null,
      units: null,
      standard_text_value: null,
      text_value: null,
      comments: null,
    },
  ]);
  const document = wireShape(DOCUMENT).record({ d: { chembl_id: "CHEMBL2", abstract: "Short." } });
  assert.equal(document.journal_full_title, null);
  assert.equal(document.abstract, "Short.");
  const molecule = wireShape(MOLECULE).record({ m: { chembl_id: "CHEMBL3" }, h: { parent_chembl_id: "CHEMBL4" } });
  assert.deepEqual(molecule.molecule_hierarchy, { parent_chembl_id: "CHEMBL4" });
  assert.equal(molecule.molecule_structures, null);
});
