import { chemblIdList, chemblIdListProperty } from "./chembl-inputs.js";
import { mdInline, mdSource, mdSparseTable } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  SOURCE_SCHEMA,
  compactSource,
  type CompactSource,
  dropEmpty,
  rowObj,
  arr,
  batchNotice,
  markdownContent,
  nint,
  nnum,
  nstr,
  obj,
} from "./chembl-common.js";
import { callOptions, getChemblService, ID_LOOKUP_CAP, type ChemblService } from "../domain/chembl/service.js";
import type { Assay } from "../domain/chembl/types.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  assay_chembl_ids?: string | string[];
  assay_chembl_id?: string | string[];
}

export interface AssayResult {
  assays: Array<Partial<Assay>>;
  not_found_ids: string[];
  deferred_ids: string[];
  notice: string | null;
  source: CompactSource;
  [k: string]: unknown;
}

export function renderAssays(r: AssayResult): string {
  const lines = ["**ChEMBL assays**"];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  if (r.not_found_ids.length > 0) lines.push(`- not_found_ids: ${mdInline(r.not_found_ids.join(", "))}`);
  if (r.deferred_ids.length > 0) lines.push(`- deferred_ids: ${mdInline(r.deferred_ids.join(", "))}`);
  // One row per assay; the variant and the assay parameters each in one cell.
  const rows = r.assays.map((a) => {
    const { variant, parameters, ...rest } = a;
    const variantCell = variant
      ? [variant.mutation, variant.accession, variant.isoform, variant.organism, variant.version].filter((v) => v !== null && v !== undefined).join(" · ") ||
        undefined
      : undefined;
    const parameterCell =
      (parameters ?? [])
        .map((p) => [p.type, p.relation, p.value, p.units, p.text_value, p.comments].filter((v) => v !== null && v !== undefined).join(" "))
        .join("; ") || undefined;
    return { ...rest, variant: variantCell, parameters: parameterCell };
  });
  lines.push(
    "",
    mdSparseTable(
      [
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
      rows,
    ),
    "",
    mdSource(r.source),
  );
  return lines.join("\n");
}

const ASSAY_SCHEMA = rowObj("One assay.", {
  assay_chembl_id: nstr("ChEMBL assay ID."),
  description: nstr("What was measured, as curated."),
  assay_type: nstr("B binding, F functional, A ADMET, T tox, P phys-chem, U."),
  assay_type_description: nstr("The assay type in words."),
  assay_category: nstr("Category (e.g. screening, confirmatory), or null."),
  assay_test_type: nstr("In vitro, In vivo, Ex vivo, or null."),
  assay_organism: nstr("Organism the assay used."),
  assay_tax_id: nint("Its taxonomy ID."),
  assay_strain: nstr("Strain."),
  assay_tissue: nstr("Tissue."),
  assay_cell_type: nstr("Cell type."),
  assay_subcellular_fraction: nstr("Subcellular fraction."),
  target_chembl_id: nstr("The target assigned."),
  confidence_score: nint("ChEMBL's target confidence, 0 (no target) to 9 (single protein, direct)."),
  confidence_description: nstr("That score in words."),
  relationship_type: nstr("D direct, H homologue, M molecular, N non-molecular, U unassigned."),
  relationship_description: nstr("That relationship in words."),
  bao_format: nstr("BioAssay Ontology format ID."),
  bao_label: nstr("Its label."),
  document_chembl_id: nstr("The source document (chembl_get_documents)."),
  cell_chembl_id: nstr("ChEMBL cell line ID."),
  tissue_chembl_id: nstr("ChEMBL tissue ID."),
  src_id: nint("ChEMBL source ID."),
  variant: obj(
    "The target variant tested, or null (wild type or unrecorded).",
    {
      mutation: nstr("Mutation(s), e.g. T790M."),
      accession: nstr("UniProt accession."),
      isoform: nint("Isoform."),
      organism: nstr("Organism."),
      version: nint("Sequence version."),
    },
    true,
  ),
  parameters: arr(
    "Assay parameters (at most 20), e.g. concentration or time.",
    obj("One parameter.", {
      type: nstr("Parameter type."),
      relation: nstr("Relation."),
      value: nnum("Value."),
      units: nstr("Units."),
      text_value: nstr("Text value."),
      comments: nstr("Comment."),
    }),
  ),
});

export function createChemblGetAssayTool(service: () => ChemblService = getChemblService): ServiceTool<Args, AssayResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_get_assay",
    title: "ChEMBL: assays",
    description:
      "Assay details behind bioactivity rows (up to 1000 IDs; 100 a call, the rest in deferred_ids): type, target and confidence score, organism, tissue, cell, variant, parameters, document.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        assay_chembl_ids: chemblIdListProperty("Assay IDs (CHEMBL674637), a list or one."),
        assay_chembl_id: chemblIdListProperty("Alias of assay_chembl_ids."),
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        assays: arr("The assays found, in the order their IDs were given.", ASSAY_SCHEMA),
        not_found_ids: arr("IDs looked up that ChEMBL holds no assay for.", { type: "string", description: "An assay ID." }),
        deferred_ids: arr(`Distinct IDs past the first ${ID_LOOKUP_CAP}, not looked up: call again with them.`, {
          type: "string",
          description: "An assay ID.",
        }),
        notice: nstr("Present when IDs were not found or deferred."),
        source: SOURCE_SCHEMA,
      },
      required: ["assays", "not_found_ids", "deferred_ids", "notice", "source"],
      additionalProperties: false,
    },
    errors: CHEMBL_ERRORS,
    budgetMs: CHEMBL_BUDGET_MS,
    content: markdownContent(renderAssays),
    async run(args, ctx) {
      service().assertOnline();
      const ids = chemblIdList(args as Record<string, unknown>, "assay_chembl_ids", "assay_chembl_id");
      const lookup = await service().getAssays(ids, callOptions(ctx));
      return {
        assays: lookup.items.map((a) => dropEmpty(a)),
        not_found_ids: lookup.not_found_ids,
        deferred_ids: lookup.deferred_ids,
        notice: batchNotice("assay", lookup.items.length, lookup.not_found_ids.length, lookup.deferred_ids.length),
        source: compactSource(lookup.source),
      };
    },
  };
}

export const chemblGetAssayTool = createChemblGetAssayTool();
