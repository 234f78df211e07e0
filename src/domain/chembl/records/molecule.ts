/**
 * The molecule record (a chembl_search_molecules row, chembl://molecule/{id}, drug info's molecule and forms),
 * declared once. Offline it is read from molecule_dictionary (m), compound_structures (s), compound_properties (p)
 * and molecule_hierarchy with its parent's ChEMBL ID (h).
 */
import { toMaxPhase } from "../coerce.js";
import { declareRecord } from "./record.js";

export const MOLECULE = declareRecord({
  description: "One molecule: the default columns, plus those asked for in fields.",
  compact: true,
  // The order the service has always sent (the nested objects after the flat keys); the keys are those the fields read.
  only: [
    "molecule_chembl_id",
    "pref_name",
    "molecule_type",
    "max_phase",
    "first_approval",
    "withdrawn_flag",
    "black_box_warning",
    "therapeutic_flag",
    "molecule_hierarchy",
    "molecule_properties",
    "molecule_structures",
    "similarity",
  ],
  fields: [
    { name: "molecule_chembl_id", type: "string", description: "ChEMBL molecule ID.", sqlite: "m.chembl_id" },
    { name: "pref_name", type: "string", description: "Preferred name, or null for most research compounds.", sqlite: "m.pref_name" },
    {
      name: "parent_chembl_id",
      type: "string",
      description:
        "The family parent (the molecule itself when it is a parent; a salt names its parent). Merge data on it. Null when ChEMBL records no hierarchy.",
      // A missing hierarchy (ChEMBL leaves it null for some virtual parents) names no parent rather than guessing.
      api: "molecule_hierarchy.parent_chembl_id",
      sqlite: "h.parent_chembl_id",
    },
    { name: "molecule_type", type: "string", description: "Small molecule, Protein, Antibody, Oligonucleotide, ...", sqlite: "m.molecule_type" },
    {
      name: "max_phase",
      type: "number",
      description:
        "Highest development phase reached by this form: 4 approved (kept after a withdrawal), 3, 2, 1, 0.5 early phase 1, 0 preclinical, -1 unknown; null if unrecorded.",
      as: toMaxPhase,
      sqlite: "m.max_phase",
    },
    { name: "first_approval", type: "integer", description: "Year of first approval of this form, or null.", sqlite: "m.first_approval" },
    { name: "withdrawn_flag", type: "boolean", description: "ChEMBL's withdrawn flag for this form, or null.", sqlite: "m.withdrawn_flag" },
    { name: "black_box_warning", type: "boolean", description: "ChEMBL's black-box warning flag for this form, or null.", sqlite: "m.black_box_warning" },
    { name: "therapeutic_flag", type: "boolean", description: "Whether ChEMBL marks it as a therapeutic, or null.", sqlite: "m.therapeutic_flag" },
    {
      name: "canonical_smiles",
      type: "string",
      description: "ChEMBL's canonical SMILES (null for biologics).",
      api: "molecule_structures.canonical_smiles",
      sqlite: "s.canonical_smiles",
      markdown: "code",
    },
    {
      name: "standard_inchi_key",
      type: "string",
      description: "Standard InChIKey.",
      api: "molecule_structures.standard_inchi_key",
      sqlite: "s.standard_inchi_key",
    },
    {
      name: "full_molformula",
      type: "string",
      description: "Molecular formula of the full form (salt included).",
      api: "molecule_properties.full_molformula",
      sqlite: "p.full_molformula",
    },
    {
      name: "mw_freebase",
      type: "number",
      description: "Molecular weight of the parent (free base), g/mol.",
      api: "molecule_properties.mw_freebase",
      sqlite: "p.mw_freebase",
    },
    { name: "alogp", type: "number", description: "Calculated logP (ChEMBL).", api: "molecule_properties.alogp", sqlite: "p.alogp" },
    { name: "psa", type: "number", description: "Polar surface area, Å².", api: "molecule_properties.psa", sqlite: "p.psa" },
    { name: "hba", type: "integer", description: "H-bond acceptors.", api: "molecule_properties.hba", sqlite: "p.hba" },
    { name: "hbd", type: "integer", description: "H-bond donors.", api: "molecule_properties.hbd", sqlite: "p.hbd" },
    {
      name: "num_ro5_violations",
      type: "integer",
      description: "Rule-of-five violations.",
      api: "molecule_properties.num_ro5_violations",
      sqlite: "p.num_ro5_violations",
    },
    {
      name: "qed_weighted",
      type: "number",
      description: "QED (weighted) drug-likeness, 0 to 1.",
      api: "molecule_properties.qed_weighted",
      sqlite: "p.qed_weighted",
    },
    {
      name: "similarity",
      type: "number",
      description: "Tanimoto similarity to the query in percent (similarity search only; null otherwise).",
      // Only /similarity answers carry it; elsewhere ChEMBL drops the name from `only=` and the row reads null. The
      // dump has no such column: the offline similarity search adds it (service.ts).
      sqlite: null,
    },
  ],
});
