/**
 * The drug indication record (chembl_get_drug_info's indications), declared once. Offline it is read from the
 * drug_indication row with its molecule's and its parent's ChEMBL IDs (x, sqlite/rest.ts) and its list of
 * indication_refs rows (refs).
 */
import { toMaxPhase } from "../coerce.js";
import { declareRecord } from "./record.js";
import { refsField } from "./reference.js";

export const INDICATION = declareRecord({
  description: "One indication.",
  compact: true,
  fields: [
    { name: "drugind_id", type: "integer", description: "ChEMBL indication ID.", sqlite: "x.drugind_id" },
    { name: "molecule_chembl_id", type: "string", description: "The form it hangs off.", sqlite: "x.molecule_chembl_id" },
    { name: "parent_molecule_chembl_id", type: "string", description: "Its parent.", sqlite: "x.parent_molecule_chembl_id" },
    { name: "mesh_id", type: "string", description: "MeSH ID.", sqlite: "x.mesh_id" },
    { name: "mesh_heading", type: "string", description: "MeSH heading.", sqlite: "x.mesh_heading" },
    { name: "efo_id", type: "string", description: "EFO ID.", sqlite: "x.efo_id" },
    { name: "efo_term", type: "string", description: "EFO term.", sqlite: "x.efo_term" },
    {
      name: "max_phase_for_ind",
      type: "number",
      description: "Highest phase reached for this indication.",
      as: toMaxPhase,
      sqlite: "x.max_phase_for_ind",
    },
    refsField("indication_refs"),
  ],
  markdown: {
    columns: ["mesh_heading", "mesh_id", "efo_term", "efo_id", "max_phase_for_ind", "molecule_chembl_id", "parent_molecule_chembl_id", "drugind_id", "refs"],
  },
});
