/**
 * The assay record (a chembl_get_assay row) with its variant and parameters, declared once. Offline it is read
 * from the assays row with the IDs and descriptions its lookups join in (s, sqlite/rest.ts), its variant_sequences
 * row (v) and its list of assay_parameters rows (parameters, each p).
 */
import { toInteger } from "../coerce.js";
import { declareRecord } from "./record.js";

const MAX_ASSAY_PARAMETERS = 20;

/** ChEMBL's target confidence runs 0 to 9; anything else reads null. */
function confidenceScore(v: unknown): number | null {
  const score = toInteger(v);
  return score !== null && score >= 0 && score <= 9 ? score : null;
}

export const ASSAY_VARIANT = declareRecord({
  fields: [
    { name: "mutation", type: "string", description: "Mutation(s), e.g. T790M.", sqlite: "v.mutation" },
    { name: "accession", type: "string", description: "UniProt accession.", sqlite: "v.accession" },
    { name: "isoform", type: "integer", description: "Isoform.", sqlite: "v.isoform" },
    { name: "organism", type: "string", description: "Organism.", sqlite: "v.organism" },
    { name: "version", type: "integer", description: "Sequence version.", sqlite: "v.version" },
  ],
});

/** A parameter's standardised value where ChEMBL has one, else the value as published. */
export const ASSAY_PARAMETER = declareRecord({
  description: "One parameter.",
  fields: [
    { name: "type", type: "string", description: "Parameter type.", api: ["standard_type", "type"], sqlite: ["p.standard_type", "p.type"] },
    { name: "relation", type: "string", description: "Relation.", api: ["standard_relation", "relation"], sqlite: ["p.standard_relation", "p.relation"] },
    { name: "value", type: "number", description: "Value.", api: ["standard_value", "value"], sqlite: ["p.standard_value", "p.value"] },
    { name: "units", type: "string", description: "Units.", api: ["standard_units", "units"], sqlite: ["p.standard_units", "p.units"] },
    {
      name: "text_value",
      type: "string",
      description: "Text value.",
      api: ["standard_text_value", "text_value"],
      sqlite: ["p.standard_text_value", "p.text_value"],
    },
    { name: "comments", type: "string", description: "Comment.", sqlite: "p.comments" },
  ],
});

export const ASSAY = declareRecord({
  description: "One assay.",
  compact: true,
  fields: [
    { name: "assay_chembl_id", type: "string", description: "ChEMBL assay ID.", sqlite: "s.chembl_id" },
    { name: "description", type: "string", description: "What was measured, as curated.", sqlite: "s.description" },
    { name: "assay_type", type: "string", description: "B binding, F functional, A ADMET, T tox, P phys-chem, U.", sqlite: "s.assay_type" },
    { name: "assay_type_description", type: "string", description: "The assay type in words.", sqlite: "s.assay_type_description" },
    { name: "assay_category", type: "string", description: "Category (e.g. screening, confirmatory), or null.", sqlite: "s.assay_category" },
    { name: "assay_test_type", type: "string", description: "In vitro, In vivo, Ex vivo, or null.", sqlite: "s.assay_test_type" },
    { name: "assay_organism", type: "string", description: "Organism the assay used.", sqlite: "s.assay_organism" },
    { name: "assay_tax_id", type: "integer", description: "Its taxonomy ID.", sqlite: "s.assay_tax_id" },
    { name: "assay_strain", type: "string", description: "Strain.", sqlite: "s.assay_strain" },
    { name: "assay_tissue", type: "string", description: "Tissue.", sqlite: "s.assay_tissue" },
    { name: "assay_cell_type", type: "string", description: "Cell type.", sqlite: "s.assay_cell_type" },
    { name: "assay_subcellular_fraction", type: "string", description: "Subcellular fraction.", sqlite: "s.assay_subcellular_fraction" },
    { name: "target_chembl_id", type: "string", description: "The target assigned.", sqlite: "s.target_chembl_id" },
    {
      name: "confidence_score",
      type: "integer",
      description: "ChEMBL's target confidence, 0 (no target) to 9 (single protein, direct).",
      as: confidenceScore,
      sqlite: "s.confidence_score",
    },
    { name: "confidence_description", type: "string", description: "That score in words.", sqlite: "s.confidence_description" },
    {
      name: "relationship_type",
      type: "string",
      description: "D direct, H homologue, M molecular, N non-molecular, U unassigned.",
      sqlite: "s.relationship_type",
    },
    { name: "relationship_description", type: "string", description: "That relationship in words.", sqlite: "s.relationship_description" },
    { name: "bao_format", type: "string", description: "BioAssay Ontology format ID.", sqlite: "s.bao_format" },
    { name: "bao_label", type: "string", description: "Its label.", sqlite: "s.bao_label" },
    { name: "document_chembl_id", type: "string", description: "The source document (chembl_get_documents).", sqlite: "s.document_chembl_id" },
    { name: "cell_chembl_id", type: "string", description: "ChEMBL cell line ID.", sqlite: "s.cell_chembl_id" },
    { name: "tissue_chembl_id", type: "string", description: "ChEMBL tissue ID.", sqlite: "s.tissue_chembl_id" },
    { name: "src_id", type: "integer", description: "ChEMBL source ID.", sqlite: "s.src_id" },
    {
      name: "variant",
      type: "object",
      of: ASSAY_VARIANT,
      description: "The target variant tested, or null (wild type or unrecorded).",
      api: "variant_sequence",
      sqlite: "v",
      markdown: "cell",
    },
    {
      name: "parameters",
      type: "array",
      nullable: false,
      items: ASSAY_PARAMETER,
      max: MAX_ASSAY_PARAMETERS,
      description: `Assay parameters (at most ${MAX_ASSAY_PARAMETERS}), e.g. concentration or time.`,
      api: "assay_parameters",
      sqlite: "parameters",
      markdown: "cell",
    },
  ],
  markdown: {
    columns: [
      "assay_chembl_id",
      "assay_type",
      "assay_type_description",
      "assay_category",
      "assay_test_type",
      "confidence_score",
      "confidence_description",
      "relationship_type",
      "relationship_description",
      "target_chembl_id",
      "assay_organism",
      "assay_tax_id",
      "assay_strain",
      "assay_tissue",
      "assay_cell_type",
      "assay_subcellular_fraction",
      "cell_chembl_id",
      "tissue_chembl_id",
      "bao_format",
      "bao_label",
      "document_chembl_id",
      "src_id",
      "variant",
      "parameters",
      "description",
    ],
  },
});
