/**
 * The ChEMBL part of the server's `instructions` (initialize and server/discover): the cross-tool chains
 * and the traps, said once here instead of in every tool description.
 */
export const CHEMBL_INSTRUCTIONS =
  "ChEMBL tools (chembl_*) read curated bioactivity, drug and target data from the ChEMBL API. " +
  "Chains: a protein, gene symbol or UniProt accession -> chembl_search_targets -> target_chembl_id -> chembl_get_bioactivities; " +
  "a compound name, InChIKey or SMILES -> chembl_search_molecules -> molecule_chembl_id -> chembl_get_bioactivities or chembl_get_drug_info; " +
  "a bioactivity row's assay_chembl_id -> chembl_get_assay (type, organism, 0-9 confidence score) and its document_chembl_id -> chembl_get_documents " +
  "(title, journal, year, PMID, DOI; follow the PMID or DOI in a literature tool). " +
  "Traps: pchembl_value (-log10 molar) is comparable only within one standard_type: rank IC50 against IC50, never IC50 against Ki or EC50 (filter standard_type). " +
  "The default potency_view potency_ranked holds only measurements with a pchembl_value; inactive, censored (>, <) and non-molar results sit in the " +
  "null_potency view, so read both before calling a compound selective or inactive. " +
  "A drug's data is split across its salts and alternate forms: merge on parent_molecule_chembl_id (include_alternate_forms widens a molecule to its family). " +
  "Mutant measurements mix with wild-type ones unless you set variant. " +
  "max_phase 4 means approved at some time and survives a withdrawal: check withdrawn and the warnings in chembl_get_drug_info before calling a drug marketed. " +
  "Absent upstream values are null, never 0. Every ChEMBL answer names its release; ChEMBL data is licensed CC BY-SA 3.0: attribute ChEMBL " +
  "(and its release) whenever you reproduce it.";
