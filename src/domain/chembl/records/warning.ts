/**
 * The drug warning record (chembl_get_drug_info's warnings: withdrawals, black boxes), declared once. Offline it
 * is read from the drug_warning row with its molecule's and its parent's ChEMBL IDs (x, sqlite/rest.ts) and its
 * list of warning_refs rows (refs).
 */
import { declareRecord } from "./record.js";
import { refsField } from "./reference.js";

export const WARNING = declareRecord({
  description: "One warning (withdrawal, black box).",
  compact: true,
  fields: [
    { name: "warning_id", type: "integer", description: "ChEMBL warning ID.", sqlite: "x.warning_id" },
    { name: "molecule_chembl_id", type: "string", description: "The form it hangs off.", sqlite: "x.molecule_chembl_id" },
    { name: "parent_molecule_chembl_id", type: "string", description: "Its parent.", sqlite: "x.parent_molecule_chembl_id" },
    { name: "warning_type", type: "string", description: "Withdrawn, Black Box Warning, ...", sqlite: "x.warning_type" },
    { name: "warning_class", type: "string", description: "Class, e.g. Hepatotoxicity, Cardiotoxicity.", sqlite: "x.warning_class" },
    { name: "warning_description", type: "string", description: "Description.", sqlite: "x.warning_description" },
    { name: "warning_country", type: "string", description: "Country or countries.", sqlite: "x.warning_country" },
    { name: "warning_year", type: "integer", description: "Year.", sqlite: "x.warning_year" },
    { name: "efo_term", type: "string", description: "EFO term of the adverse effect.", sqlite: "x.efo_term" },
    { name: "efo_id", type: "string", description: "EFO ID.", sqlite: "x.efo_id" },
    refsField("warning_refs"),
  ],
  markdown: {
    columns: [
      "warning_type",
      "warning_class",
      "warning_description",
      "warning_country",
      "warning_year",
      "efo_term",
      "efo_id",
      "molecule_chembl_id",
      "parent_molecule_chembl_id",
      "warning_id",
      "refs",
    ],
  },
});
