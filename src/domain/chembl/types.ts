/**
 * Flat domain types of ChEMBL records, as the tools answer them. Every field upstream may leave out is
 * nullable: null means ChEMBL did not say, never zero or false.
 */

/** Where an answer came from: every ChEMBL answer carries it (CC BY-SA 3.0 requires the attribution). */
export interface Source {
  /** The SQLite dump's file name when the offline source (CHEMBL_SQLITE) answered; absent for the web API. */
  dump?: string;
  database: "ChEMBL";
  /** The release the API reported on its status endpoint, e.g. "ChEMBL_36"; null when the status call failed. */
  release: string | null;
  release_date: string | null;
  license: "CC BY-SA 3.0";
  license_url: string;
  attribution: string;
}

export interface MoleculeRow {
  molecule_chembl_id: string | null;
  pref_name: string | null;
  parent_chembl_id: string | null;
  molecule_type: string | null;
  max_phase: number | null;
  first_approval: number | null;
  withdrawn_flag: boolean | null;
  black_box_warning: boolean | null;
  therapeutic_flag: boolean | null;
  canonical_smiles: string | null;
  standard_inchi_key: string | null;
  full_molformula: string | null;
  mw_freebase: number | null;
  alogp: number | null;
  psa: number | null;
  hba: number | null;
  hbd: number | null;
  num_ro5_violations: number | null;
  qed_weighted: number | null;
  similarity: number | null;
}

export interface TargetComponent {
  accession: string | null;
  component_type: string | null;
  relationship: string | null;
  description: string | null;
  gene_symbols: string[];
}

export interface TargetRow {
  target_chembl_id: string | null;
  pref_name: string | null;
  target_type: string | null;
  organism: string | null;
  tax_id: number | null;
  species_group_flag: boolean | null;
  component_count: number;
  components: TargetComponent[];
}

export interface Activity {
  activity_id: number | null;
  molecule_chembl_id: string | null;
  parent_molecule_chembl_id: string | null;
  molecule_pref_name: string | null;
  canonical_smiles: string | null;
  target_chembl_id: string | null;
  target_pref_name: string | null;
  target_organism: string | null;
  target_tax_id: number | null;
  assay_chembl_id: string | null;
  assay_type: string | null;
  assay_description: string | null;
  assay_variant_mutation: string | null;
  assay_variant_accession: string | null;
  document_chembl_id: string | null;
  document_journal: string | null;
  document_year: number | null;
  standard_type: string | null;
  standard_relation: string | null;
  standard_value: number | null;
  standard_upper_value: number | null;
  standard_units: string | null;
  pchembl_value: number | null;
  type: string | null;
  relation: string | null;
  value: number | null;
  units: string | null;
  activity_comment: string | null;
  data_validity_comment: string | null;
  data_validity_description: string | null;
  potential_duplicate: boolean | null;
  ligand_efficiency: { le: number | null; lle: number | null; bei: number | null; sei: number | null } | null;
  bao_label: string | null;
  action_type: string | null;
  src_id: number | null;
}

export interface AssayParameter {
  type: string | null;
  relation: string | null;
  value: number | null;
  units: string | null;
  text_value: string | null;
  comments: string | null;
}

export interface Assay {
  assay_chembl_id: string | null;
  description: string | null;
  assay_type: string | null;
  assay_type_description: string | null;
  assay_category: string | null;
  assay_test_type: string | null;
  assay_organism: string | null;
  assay_tax_id: number | null;
  assay_strain: string | null;
  assay_tissue: string | null;
  assay_cell_type: string | null;
  assay_subcellular_fraction: string | null;
  target_chembl_id: string | null;
  confidence_score: number | null;
  confidence_description: string | null;
  relationship_type: string | null;
  relationship_description: string | null;
  bao_format: string | null;
  bao_label: string | null;
  document_chembl_id: string | null;
  cell_chembl_id: string | null;
  tissue_chembl_id: string | null;
  src_id: number | null;
  variant: { mutation: string | null; accession: string | null; isoform: number | null; organism: string | null; version: number | null } | null;
  parameters: AssayParameter[];
}

export interface ChemblDocument {
  document_chembl_id: string | null;
  doc_type: string | null;
  title: string | null;
  authors: string | null;
  journal: string | null;
  journal_full_title: string | null;
  year: number | null;
  volume: string | null;
  issue: string | null;
  first_page: string | null;
  last_page: string | null;
  pubmed_id: number | null;
  doi: string | null;
  patent_id: string | null;
  abstract: string | null;
  abstract_truncated: boolean;
  src_id: number | null;
}

export interface Reference {
  ref_type: string | null;
  ref_id: string | null;
  ref_url: string | null;
}

export interface Mechanism {
  mec_id: number | null;
  molecule_chembl_id: string | null;
  parent_molecule_chembl_id: string | null;
  target_chembl_id: string | null;
  target_pref_name: string | null;
  target_type: string | null;
  mechanism_of_action: string | null;
  action_type: string | null;
  direct_interaction: boolean | null;
  disease_efficacy: boolean | null;
  molecular_mechanism: boolean | null;
  max_phase: number | null;
  mechanism_comment: string | null;
  selectivity_comment: string | null;
  binding_site_comment: string | null;
  refs: Reference[];
}

export interface Indication {
  drugind_id: number | null;
  molecule_chembl_id: string | null;
  parent_molecule_chembl_id: string | null;
  mesh_id: string | null;
  mesh_heading: string | null;
  efo_id: string | null;
  efo_term: string | null;
  max_phase_for_ind: number | null;
  refs: Reference[];
}

export interface Warning {
  warning_id: number | null;
  molecule_chembl_id: string | null;
  parent_molecule_chembl_id: string | null;
  warning_type: string | null;
  warning_class: string | null;
  warning_description: string | null;
  warning_country: string | null;
  warning_year: number | null;
  efo_term: string | null;
  efo_id: string | null;
  refs: Reference[];
}
