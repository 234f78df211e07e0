/**
 * The activity record (a chembl_get_bioactivities row, and a row of the staged bioactivity tables), declared once.
 * Offline a page of activities is read from the activities rows (a) with their ligand_eff row (le) and
 * data_validity_lookup row (dv), and the entities they name as the page reads them (sqlite/rest.ts, entities):
 * the molecule with its parent and structure (m), the assay with its target, variant and BAO label (s), the
 * document (d). The parent's structure (parent_smiles) is in neither source's activity: walk.ts fills it from the
 * parent's molecule record when asked (staging always asks).
 */
import { isObj, toText } from "../coerce.js";
import { declareRecord } from "./record.js";

export const LIGAND_EFFICIENCY = declareRecord({
  fields: [
    { name: "le", type: "number", description: "LE.", sqlite: "le.le" },
    { name: "lle", type: "number", description: "LLE (lipophilic efficiency).", sqlite: "le.lle" },
    { name: "bei", type: "number", description: "BEI.", sqlite: "le.bei" },
    { name: "sei", type: "number", description: "SEI.", sqlite: "le.sei" },
  ],
});

export const ACTIVITY = declareRecord({
  description: "One measurement: the default columns, plus those asked for in fields.",
  compact: true,
  fields: [
    { name: "activity_id", type: "integer", description: "ChEMBL activity ID (unique; the walk's tie-breaker).", sqlite: "a.activity_id" },
    { name: "molecule_chembl_id", type: "string", description: "The form measured (may be a salt).", sqlite: "m.molecule_chembl_id" },
    {
      name: "parent_molecule_chembl_id",
      type: "string",
      description: "Its family parent: merge on it across salts and forms.",
      sqlite: "m.parent_molecule_chembl_id",
    },
    { name: "molecule_pref_name", type: "string", description: "Molecule name, or null.", sqlite: "m.molecule_pref_name" },
    { name: "canonical_smiles", type: "string", description: "Structure of the form measured.", sqlite: "m.canonical_smiles", markdown: "code" },
    {
      name: "parent_smiles",
      type: "string",
      description: "Structure of the family parent as ChEMBL records it (the salt-free compound): compute properties on it.",
      // Neither the web API's activity nor the dump's activity row holds it: walk.ts reads it from the parent's molecule record.
      api: null,
      markdown: "code",
    },
    { name: "target_chembl_id", type: "string", description: "Target ID.", sqlite: "s.target_chembl_id" },
    { name: "target_pref_name", type: "string", description: "Target name.", sqlite: "s.target_pref_name" },
    { name: "target_organism", type: "string", description: "Target organism (null for non-protein targets).", sqlite: "s.target_organism" },
    { name: "target_tax_id", type: "integer", description: "Target taxonomy ID.", sqlite: "s.target_tax_id" },
    { name: "assay_chembl_id", type: "string", description: "The assay (chembl_get_assay).", sqlite: "s.assay_chembl_id" },
    { name: "assay_type", type: "string", description: "B binding, F functional, A ADMET, T tox, P phys-chem, U.", sqlite: "s.assay_type" },
    { name: "assay_description", type: "string", description: "Assay description.", sqlite: "s.assay_description" },
    {
      name: "assay_variant_mutation",
      type: "string",
      description: "Mutation of the target variant tested (e.g. T790M), or null for wild type / unrecorded.",
      sqlite: "s.assay_variant_mutation",
    },
    { name: "assay_variant_accession", type: "string", description: "UniProt accession of that variant.", sqlite: "s.assay_variant_accession" },
    {
      name: "document_chembl_id",
      type: "string",
      description: "The source publication or dataset (chembl_get_documents).",
      sqlite: "d.document_chembl_id",
    },
    { name: "document_journal", type: "string", description: "Journal.", sqlite: "d.document_journal" },
    { name: "document_year", type: "integer", description: "Publication year.", sqlite: "d.document_year" },
    {
      name: "standard_type",
      type: "string",
      description: "Standardised measurement type (IC50, Ki, EC50, Kd, Inhibition, ...).",
      sqlite: "a.standard_type",
    },
    { name: "standard_relation", type: "string", description: "=, <, >, <=, >= (censored values are not exact).", sqlite: "a.standard_relation" },
    {
      name: "standard_value",
      type: "number",
      description: "Standardised value (null when only a comment was recorded).",
      sqlite: "a.standard_value",
    },
    { name: "standard_upper_value", type: "number", description: "Upper bound of a range, or null.", sqlite: "a.standard_upper_value" },
    { name: "standard_units", type: "string", description: "Units of standard_value (nM, %, ...).", sqlite: "a.standard_units" },
    {
      name: "pchembl_value",
      type: "number",
      description: "-log10 of the molar potency; comparable only within one standard_type; null in the null_potency view.",
      sqlite: "a.pchembl_value",
    },
    { name: "type", type: "string", description: "Measurement type as published.", sqlite: "a.type" },
    { name: "relation", type: "string", description: "Relation as published.", sqlite: "a.relation" },
    { name: "value", type: "number", description: "Value as published.", sqlite: "a.value" },
    { name: "units", type: "string", description: "Units as published.", sqlite: "a.units" },
    {
      name: "activity_comment",
      type: "string",
      description: "Curator comment (e.g. Not Active, Not Determined).",
      sqlite: "a.activity_comment",
    },
    {
      name: "data_validity_comment",
      type: "string",
      description: "Data validity warning (e.g. Outside typical range, Potential transcription error), or null.",
      sqlite: "a.data_validity_comment",
    },
    { name: "data_validity_description", type: "string", description: "What that warning means.", sqlite: "dv.description" },
    {
      name: "potential_duplicate",
      type: "boolean",
      description: "Whether ChEMBL flags it as a likely repeat of another measurement.",
      sqlite: "a.potential_duplicate",
    },
    {
      name: "ligand_efficiency",
      type: "object",
      of: LIGAND_EFFICIENCY,
      description: "Ligand efficiency indices, or null.",
      sqlite: "le",
      markdown: "spread",
    },
    { name: "bao_label", type: "string", description: "BioAssay Ontology format label.", sqlite: "s.bao_label" },
    {
      name: "action_type",
      type: "string",
      description: "Action type (e.g. INHIBITOR), or null.",
      // The web API may send it as an object holding action_type, or as the text itself (the dump's column).
      read: (raw) => (isObj(raw.action_type) ? toText(raw.action_type.action_type) : toText(raw.action_type)),
      sqlite: "a.action_type",
    },
    { name: "src_id", type: "integer", description: "ChEMBL source ID.", sqlite: "a.src_id" },
  ],
});
