/**
 * The mechanism-of-action record (chembl_get_drug_info's mechanisms), declared once. Offline it is read from the
 * drug_mechanism row with its molecule's ChEMBL ID and max_phase, its parent's ChEMBL ID and its target's ChEMBL ID
 * (x, sqlite/rest.ts) and its list of mechanism_refs rows (refs).
 */
import { toMaxPhase } from "../coerce.js";
import { declareRecord } from "./record.js";
import { refsField } from "./reference.js";

export const MECHANISM = declareRecord({
  description: "One mechanism of action.",
  compact: true,
  fields: [
    { name: "mec_id", type: "integer", description: "ChEMBL mechanism ID.", sqlite: "x.mec_id" },
    { name: "molecule_chembl_id", type: "string", description: "The form the record hangs off (a salt or the parent).", sqlite: "x.molecule_chembl_id" },
    { name: "parent_molecule_chembl_id", type: "string", description: "Its parent.", sqlite: "x.parent_molecule_chembl_id" },
    { name: "target_chembl_id", type: "string", description: "The target acted on.", sqlite: "x.target_chembl_id" },
    // The target's name and type come from a second lookup (drug-info.ts), not from the mechanism record.
    { name: "target_pref_name", type: "string", description: "Target name (null when the name lookup failed).", api: null },
    { name: "target_type", type: "string", description: "Target type.", api: null },
    { name: "mechanism_of_action", type: "string", description: "Mechanism, e.g. Cyclooxygenase inhibitor.", sqlite: "x.mechanism_of_action" },
    { name: "action_type", type: "string", description: "INHIBITOR, AGONIST, ANTAGONIST, ...", sqlite: "x.action_type" },
    { name: "direct_interaction", type: "boolean", description: "Whether the drug binds the target directly.", sqlite: "x.direct_interaction" },
    { name: "disease_efficacy", type: "boolean", description: "Whether the target is thought to drive the efficacy.", sqlite: "x.disease_efficacy" },
    { name: "molecular_mechanism", type: "boolean", description: "Whether the mechanism is molecular.", sqlite: "x.molecular_mechanism" },
    { name: "max_phase", type: "number", description: "Max phase recorded with the mechanism.", as: toMaxPhase, sqlite: "x.molecule_max_phase" },
    { name: "mechanism_comment", type: "string", description: "Curator comment.", sqlite: "x.mechanism_comment" },
    { name: "selectivity_comment", type: "string", description: "Selectivity comment.", sqlite: "x.selectivity_comment" },
    { name: "binding_site_comment", type: "string", description: "Binding site comment.", sqlite: "x.binding_site_comment" },
    refsField("mechanism_refs"),
  ],
  markdown: {
    columns: [
      "mechanism_of_action",
      "action_type",
      "target_chembl_id",
      "target_pref_name",
      "target_type",
      "molecule_chembl_id",
      "parent_molecule_chembl_id",
      "mec_id",
      "max_phase",
      "direct_interaction",
      "disease_efficacy",
      "molecular_mechanism",
      "mechanism_comment",
      "selectivity_comment",
      "binding_site_comment",
      "refs",
    ],
  },
});
