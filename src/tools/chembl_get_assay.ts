import { chemblIdList, chemblIdListProperty } from "./chembl-inputs.js";
import { mdCells, mdColumns, mdInline, mdSource, mdSparseTable } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  SOURCE_SCHEMA,
  compactSource,
  type CompactSource,
  dropEmpty,
  arr,
  batchNotice,
  markdownContent,
  nstr,
  recordSchema,
} from "./chembl-common.js";
import { callOptions, getChemblService, ID_LOOKUP_CAP, type ChemblService } from "../domain/chembl/service.js";
import { ASSAY } from "../domain/chembl/records/assay.js";
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

function renderAssays(r: AssayResult): string {
  const lines = ["**ChEMBL assays**"];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  if (r.not_found_ids.length > 0) lines.push(`- not_found_ids: ${mdInline(r.not_found_ids.join(", "))}`);
  if (r.deferred_ids.length > 0) lines.push(`- deferred_ids: ${mdInline(r.deferred_ids.join(", "))}`);
  // One row per assay; the variant and the assay parameters each in one cell.
  const rows = r.assays.map((a) =>
    mdCells(ASSAY, a, {
      variant: (variant) =>
        variant
          ? [variant.mutation, variant.accession, variant.isoform, variant.organism, variant.version]
              .filter((v) => v !== null && v !== undefined)
              .join(" · ") || undefined
          : undefined,
      parameters: (parameters) =>
        parameters
          .map((p) => [p.type, p.relation, p.value, p.units, p.text_value, p.comments].filter((v) => v !== null && v !== undefined).join(" "))
          .join("; ") || undefined,
    }),
  );
  lines.push("", mdSparseTable(mdColumns(ASSAY), rows), "", mdSource(r.source));
  return lines.join("\n");
}

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
        assays: arr("The assays found, in the order their IDs were given.", recordSchema(ASSAY)),
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
