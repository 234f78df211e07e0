/**
 * Coercion at the boundary: every ChEMBL record is read here, once, into the flat domain types of
 * types.ts, each value through its coercion (coerce.ts): absent, empty or unreadable becomes null, never 0 or false.
 *
 * Each record kind has a field list that the service sends as `only=` (ChEMBL drops an unknown name
 * silently, so the list must be exactly what the normaliser reads). The raw record type is derived from
 * the list, so reading a field that is not listed fails the typecheck; a test checks the other way (every
 * listed field is read).
 */
import { isObj, listOf, toFlag, toInteger, toMaxPhase, toNumber, toText } from "./coerce.js";
import type { Activity, Assay, ChemblDocument, Indication, Mechanism, MoleculeRow, Reference, TargetComponent, TargetRow, Warning } from "./types.js";

type RawOf<F extends readonly string[]> = Partial<Record<F[number], unknown>>;
type Obj = Record<string, unknown>;

function objOf(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function refsOf(v: unknown): Reference[] {
  return listOf(v).map((r) => ({ ref_type: toText(r.ref_type), ref_id: toText(r.ref_id), ref_url: toText(r.ref_url) }));
}

// ---------------------------------------------------------------------------------------------------
// Molecules (the search-row shape, shared by chembl_search_molecules and chembl://molecule/{id})

export const MOLECULE_FIELDS = [
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
  // Only /similarity answers carry it; elsewhere ChEMBL drops the name from `only=` and the row reads null.
  "similarity",
] as const;
export type RawMolecule = RawOf<typeof MOLECULE_FIELDS>;

export function normalizeMolecule(raw: RawMolecule): MoleculeRow {
  const id = toText(raw.molecule_chembl_id);
  const hierarchy = objOf(raw.molecule_hierarchy);
  const props = objOf(raw.molecule_properties);
  const structures = objOf(raw.molecule_structures);
  return {
    molecule_chembl_id: id,
    pref_name: toText(raw.pref_name),
    // A missing hierarchy (ChEMBL leaves it null for some virtual parents) names no parent rather than guessing.
    parent_chembl_id: toText(hierarchy.parent_chembl_id),
    molecule_type: toText(raw.molecule_type),
    max_phase: toMaxPhase(raw.max_phase),
    first_approval: toInteger(raw.first_approval),
    withdrawn_flag: toFlag(raw.withdrawn_flag),
    black_box_warning: toFlag(raw.black_box_warning),
    therapeutic_flag: toFlag(raw.therapeutic_flag),
    canonical_smiles: toText(structures.canonical_smiles),
    standard_inchi_key: toText(structures.standard_inchi_key),
    full_molformula: toText(props.full_molformula),
    mw_freebase: toNumber(props.mw_freebase),
    alogp: toNumber(props.alogp),
    psa: toNumber(props.psa),
    hba: toInteger(props.hba),
    hbd: toInteger(props.hbd),
    num_ro5_violations: toInteger(props.num_ro5_violations),
    qed_weighted: toNumber(props.qed_weighted),
    similarity: toNumber(raw.similarity),
  };
}

// ---------------------------------------------------------------------------------------------------
// Targets

export const TARGET_FIELDS = ["target_chembl_id", "pref_name", "target_type", "organism", "tax_id", "species_group_flag", "target_components"] as const;
export type RawTarget = RawOf<typeof TARGET_FIELDS>;

/** Components listed per target row; a complex or ribosome can hold dozens (component_count says how many). */
export const MAX_COMPONENTS_PER_TARGET = 25;

export function normalizeTarget(raw: RawTarget): TargetRow {
  const all = listOf(raw.target_components);
  const components: TargetComponent[] = all.slice(0, MAX_COMPONENTS_PER_TARGET).map((c) => {
    const synonyms = listOf(c.target_component_synonyms);
    const genes = new Set<string>();
    for (const s of synonyms) {
      const type = toText(s.syn_type);
      const name = toText(s.component_synonym); // trims: ChEMBL gene symbols can carry trailing spaces
      if (name && (type === "GENE_SYMBOL" || type === "GENE_SYMBOL_OTHER")) genes.add(name);
    }
    return {
      accession: toText(c.accession),
      component_type: toText(c.component_type),
      relationship: toText(c.relationship),
      description: toText(c.component_description),
      gene_symbols: [...genes],
    };
  });
  return {
    target_chembl_id: toText(raw.target_chembl_id),
    pref_name: toText(raw.pref_name),
    target_type: toText(raw.target_type),
    organism: toText(raw.organism),
    tax_id: toInteger(raw.tax_id),
    species_group_flag: toFlag(raw.species_group_flag),
    component_count: all.length,
    components,
  };
}

// ---------------------------------------------------------------------------------------------------
// Activities

export const ACTIVITY_FIELDS = [
  "activity_id",
  "molecule_chembl_id",
  "parent_molecule_chembl_id",
  "molecule_pref_name",
  "canonical_smiles",
  "target_chembl_id",
  "target_pref_name",
  "target_organism",
  "target_tax_id",
  "assay_chembl_id",
  "assay_type",
  "assay_description",
  "assay_variant_mutation",
  "assay_variant_accession",
  "document_chembl_id",
  "document_journal",
  "document_year",
  "standard_type",
  "standard_relation",
  "standard_value",
  "standard_upper_value",
  "standard_units",
  "pchembl_value",
  "type",
  "relation",
  "value",
  "units",
  "activity_comment",
  "data_validity_comment",
  "data_validity_description",
  "potential_duplicate",
  "ligand_efficiency",
  "bao_label",
  "action_type",
  "src_id",
] as const;
export type RawActivity = RawOf<typeof ACTIVITY_FIELDS>;

export function normalizeActivity(raw: RawActivity): Activity {
  const le = isObj(raw.ligand_efficiency) ? raw.ligand_efficiency : null;
  const action = raw.action_type;
  return {
    activity_id: toInteger(raw.activity_id),
    molecule_chembl_id: toText(raw.molecule_chembl_id),
    parent_molecule_chembl_id: toText(raw.parent_molecule_chembl_id),
    molecule_pref_name: toText(raw.molecule_pref_name),
    canonical_smiles: toText(raw.canonical_smiles),
    target_chembl_id: toText(raw.target_chembl_id),
    target_pref_name: toText(raw.target_pref_name),
    target_organism: toText(raw.target_organism),
    target_tax_id: toInteger(raw.target_tax_id),
    assay_chembl_id: toText(raw.assay_chembl_id),
    assay_type: toText(raw.assay_type),
    assay_description: toText(raw.assay_description),
    assay_variant_mutation: toText(raw.assay_variant_mutation),
    assay_variant_accession: toText(raw.assay_variant_accession),
    document_chembl_id: toText(raw.document_chembl_id),
    document_journal: toText(raw.document_journal),
    document_year: toInteger(raw.document_year),
    standard_type: toText(raw.standard_type),
    standard_relation: toText(raw.standard_relation),
    standard_value: toNumber(raw.standard_value),
    standard_upper_value: toNumber(raw.standard_upper_value),
    standard_units: toText(raw.standard_units),
    pchembl_value: toNumber(raw.pchembl_value),
    type: toText(raw.type),
    relation: toText(raw.relation),
    value: toNumber(raw.value),
    units: toText(raw.units),
    activity_comment: toText(raw.activity_comment),
    data_validity_comment: toText(raw.data_validity_comment),
    data_validity_description: toText(raw.data_validity_description),
    potential_duplicate: toFlag(raw.potential_duplicate),
    ligand_efficiency: le ? { le: toNumber(le.le), lle: toNumber(le.lle), bei: toNumber(le.bei), sei: toNumber(le.sei) } : null,
    bao_label: toText(raw.bao_label),
    action_type: isObj(action) ? toText(action.action_type) : toText(action),
    src_id: toInteger(raw.src_id),
  };
}

// ---------------------------------------------------------------------------------------------------
// Assays

export const ASSAY_FIELDS = [
  "assay_chembl_id",
  "description",
  "assay_type",
  "assay_type_description",
  "assay_category",
  "assay_test_type",
  "assay_organism",
  "assay_tax_id",
  "assay_strain",
  "assay_tissue",
  "assay_cell_type",
  "assay_subcellular_fraction",
  "target_chembl_id",
  "confidence_score",
  "confidence_description",
  "relationship_type",
  "relationship_description",
  "bao_format",
  "bao_label",
  "document_chembl_id",
  "cell_chembl_id",
  "tissue_chembl_id",
  "src_id",
  "variant_sequence",
  "assay_parameters",
] as const;
export type RawAssay = RawOf<typeof ASSAY_FIELDS>;

export const MAX_ASSAY_PARAMETERS = 20;

export function normalizeAssay(raw: RawAssay): Assay {
  const variant = isObj(raw.variant_sequence) ? raw.variant_sequence : null;
  const score = toInteger(raw.confidence_score);
  return {
    assay_chembl_id: toText(raw.assay_chembl_id),
    description: toText(raw.description),
    assay_type: toText(raw.assay_type),
    assay_type_description: toText(raw.assay_type_description),
    assay_category: toText(raw.assay_category),
    assay_test_type: toText(raw.assay_test_type),
    assay_organism: toText(raw.assay_organism),
    assay_tax_id: toInteger(raw.assay_tax_id),
    assay_strain: toText(raw.assay_strain),
    assay_tissue: toText(raw.assay_tissue),
    assay_cell_type: toText(raw.assay_cell_type),
    assay_subcellular_fraction: toText(raw.assay_subcellular_fraction),
    target_chembl_id: toText(raw.target_chembl_id),
    confidence_score: score !== null && score >= 0 && score <= 9 ? score : null,
    confidence_description: toText(raw.confidence_description),
    relationship_type: toText(raw.relationship_type),
    relationship_description: toText(raw.relationship_description),
    bao_format: toText(raw.bao_format),
    bao_label: toText(raw.bao_label),
    document_chembl_id: toText(raw.document_chembl_id),
    cell_chembl_id: toText(raw.cell_chembl_id),
    tissue_chembl_id: toText(raw.tissue_chembl_id),
    src_id: toInteger(raw.src_id),
    variant: variant
      ? {
          mutation: toText(variant.mutation),
          accession: toText(variant.accession),
          isoform: toInteger(variant.isoform),
          organism: toText(variant.organism),
          version: toInteger(variant.version),
        }
      : null,
    parameters: listOf(raw.assay_parameters)
      .slice(0, MAX_ASSAY_PARAMETERS)
      .map((p) => ({
        type: toText(p.standard_type) ?? toText(p.type),
        relation: toText(p.standard_relation) ?? toText(p.relation),
        value: toNumber(p.standard_value) ?? toNumber(p.value),
        units: toText(p.standard_units) ?? toText(p.units),
        text_value: toText(p.standard_text_value) ?? toText(p.text_value),
        comments: toText(p.comments),
      })),
  };
}

// ---------------------------------------------------------------------------------------------------
// Documents

export const DOCUMENT_FIELDS = [
  "document_chembl_id",
  "doc_type",
  "title",
  "authors",
  "journal",
  "journal_full_title",
  "year",
  "volume",
  "issue",
  "first_page",
  "last_page",
  "pubmed_id",
  "doi",
  "patent_id",
  "abstract",
  "src_id",
] as const;
export type RawDocument = RawOf<typeof DOCUMENT_FIELDS>;

/** Abstracts are cut here (whole words, with abstract_truncated) so a 100-document answer stays small. */
export const MAX_ABSTRACT_CHARS = 1200;

export function normalizeDocument(raw: RawDocument): ChemblDocument {
  const abstract = toText(raw.abstract);
  let cut = abstract;
  if (abstract && abstract.length > MAX_ABSTRACT_CHARS) {
    const head = abstract.slice(0, MAX_ABSTRACT_CHARS);
    const space = head.lastIndexOf(" ");
    cut = `${(space > MAX_ABSTRACT_CHARS * 0.8 ? head.slice(0, space) : head).trimEnd()}…`;
  }
  return {
    document_chembl_id: toText(raw.document_chembl_id),
    doc_type: toText(raw.doc_type),
    title: toText(raw.title),
    authors: toText(raw.authors),
    journal: toText(raw.journal),
    journal_full_title: toText(raw.journal_full_title),
    year: toInteger(raw.year),
    volume: toText(raw.volume),
    issue: toText(raw.issue),
    first_page: toText(raw.first_page),
    last_page: toText(raw.last_page),
    pubmed_id: toInteger(raw.pubmed_id),
    doi: toText(raw.doi),
    patent_id: toText(raw.patent_id),
    abstract: cut,
    abstract_truncated: abstract !== cut,
    src_id: toInteger(raw.src_id),
  };
}

// ---------------------------------------------------------------------------------------------------
// Drug records: mechanisms, indications, warnings (read across a parent's family)

export const MECHANISM_FIELDS = [
  "mec_id",
  "molecule_chembl_id",
  "parent_molecule_chembl_id",
  "target_chembl_id",
  "mechanism_of_action",
  "action_type",
  "direct_interaction",
  "disease_efficacy",
  "molecular_mechanism",
  "max_phase",
  "mechanism_comment",
  "selectivity_comment",
  "binding_site_comment",
  "mechanism_refs",
] as const;
export type RawMechanism = RawOf<typeof MECHANISM_FIELDS>;

export function normalizeMechanism(raw: RawMechanism): Mechanism {
  return {
    mec_id: toInteger(raw.mec_id),
    molecule_chembl_id: toText(raw.molecule_chembl_id),
    parent_molecule_chembl_id: toText(raw.parent_molecule_chembl_id),
    target_chembl_id: toText(raw.target_chembl_id),
    target_pref_name: null,
    target_type: null,
    mechanism_of_action: toText(raw.mechanism_of_action),
    action_type: toText(raw.action_type),
    direct_interaction: toFlag(raw.direct_interaction),
    disease_efficacy: toFlag(raw.disease_efficacy),
    molecular_mechanism: toFlag(raw.molecular_mechanism),
    max_phase: toMaxPhase(raw.max_phase),
    mechanism_comment: toText(raw.mechanism_comment),
    selectivity_comment: toText(raw.selectivity_comment),
    binding_site_comment: toText(raw.binding_site_comment),
    refs: refsOf(raw.mechanism_refs),
  };
}

export const INDICATION_FIELDS = [
  "drugind_id",
  "molecule_chembl_id",
  "parent_molecule_chembl_id",
  "mesh_id",
  "mesh_heading",
  "efo_id",
  "efo_term",
  "max_phase_for_ind",
  "indication_refs",
] as const;
export type RawIndication = RawOf<typeof INDICATION_FIELDS>;

export function normalizeIndication(raw: RawIndication): Indication {
  return {
    drugind_id: toInteger(raw.drugind_id),
    molecule_chembl_id: toText(raw.molecule_chembl_id),
    parent_molecule_chembl_id: toText(raw.parent_molecule_chembl_id),
    mesh_id: toText(raw.mesh_id),
    mesh_heading: toText(raw.mesh_heading),
    efo_id: toText(raw.efo_id),
    efo_term: toText(raw.efo_term),
    max_phase_for_ind: toMaxPhase(raw.max_phase_for_ind),
    refs: refsOf(raw.indication_refs),
  };
}

export const WARNING_FIELDS = [
  "warning_id",
  "molecule_chembl_id",
  "parent_molecule_chembl_id",
  "warning_type",
  "warning_class",
  "warning_description",
  "warning_country",
  "warning_year",
  "efo_term",
  "efo_id",
  "warning_refs",
] as const;
export type RawWarning = RawOf<typeof WARNING_FIELDS>;

export function normalizeWarning(raw: RawWarning): Warning {
  return {
    warning_id: toInteger(raw.warning_id),
    molecule_chembl_id: toText(raw.molecule_chembl_id),
    parent_molecule_chembl_id: toText(raw.parent_molecule_chembl_id),
    warning_type: toText(raw.warning_type),
    warning_class: toText(raw.warning_class),
    warning_description: toText(raw.warning_description),
    warning_country: toText(raw.warning_country),
    warning_year: toInteger(raw.warning_year),
    efo_term: toText(raw.efo_term),
    efo_id: toText(raw.efo_id),
    refs: refsOf(raw.warning_refs),
  };
}

/** The ChEMBL release as /status names it ("ChEMBL_36") and its date. */
export const STATUS_FIELDS = ["chembl_db_version", "chembl_release_date"] as const;
export type RawStatus = RawOf<typeof STATUS_FIELDS>;

export function normalizeStatus(raw: RawStatus): { release: string | null; release_date: string | null } {
  return { release: toText(raw.chembl_db_version), release_date: toText(raw.chembl_release_date) };
}
