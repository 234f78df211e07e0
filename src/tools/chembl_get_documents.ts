import { chemblIdList, chemblIdListProperty } from "./chembl-inputs.js";
import { mdInline, mdLines, mdSource } from "./chembl-markdown.js";
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
import { DOCUMENT } from "../domain/chembl/records/document.js";
import type { ChemblDocument } from "../domain/chembl/types.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  document_chembl_ids?: string | string[];
  document_chembl_id?: string | string[];
}

export interface DocumentsResult {
  documents: Array<Partial<ChemblDocument>>;
  not_found_ids: string[];
  deferred_ids: string[];
  notice: string | null;
  source: CompactSource;
  [k: string]: unknown;
}

function renderDocuments(r: DocumentsResult): string {
  const lines = ["**ChEMBL documents**"];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  if (r.not_found_ids.length > 0) lines.push(`- not_found_ids: ${mdInline(r.not_found_ids.join(", "))}`);
  if (r.deferred_ids.length > 0) lines.push(`- deferred_ids: ${mdInline(r.deferred_ids.join(", "))}`);
  lines.push("");
  for (const d of r.documents) lines.push(`**${mdInline(d.document_chembl_id ?? "document")}**`, ...mdLines(DOCUMENT, d), "");
  lines.push(mdSource(r.source));
  return lines.join("\n");
}

export function createChemblGetDocumentsTool(service: () => ChemblService = getChemblService): ServiceTool<Args, DocumentsResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_get_documents",
    title: "ChEMBL: documents",
    description:
      "The publications, patents or datasets behind document IDs (up to 1000; 100 a call, the rest in deferred_ids): title, authors, journal, year, PubMed ID, DOI, abstract.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        document_chembl_ids: chemblIdListProperty("Document IDs (CHEMBL1137930), a list or one."),
        document_chembl_id: chemblIdListProperty("Alias of document_chembl_ids."),
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        documents: arr("The documents found, in the order their IDs were given.", recordSchema(DOCUMENT)),
        not_found_ids: arr("IDs looked up that ChEMBL holds no document for.", { type: "string", description: "A document ID." }),
        deferred_ids: arr(`Distinct IDs past the first ${ID_LOOKUP_CAP}, not looked up: call again with them.`, {
          type: "string",
          description: "A document ID.",
        }),
        notice: nstr("Present when IDs were not found or deferred."),
        source: SOURCE_SCHEMA,
      },
      required: ["documents", "not_found_ids", "deferred_ids", "notice", "source"],
      additionalProperties: false,
    },
    errors: CHEMBL_ERRORS,
    budgetMs: CHEMBL_BUDGET_MS,
    content: markdownContent(renderDocuments),
    async run(args, ctx) {
      service().assertOnline();
      const ids = chemblIdList(args as Record<string, unknown>, "document_chembl_ids", "document_chembl_id");
      const lookup = await service().getDocuments(ids, callOptions(ctx));
      return {
        documents: lookup.items.map((d) => dropEmpty(d)),
        not_found_ids: lookup.not_found_ids,
        deferred_ids: lookup.deferred_ids,
        notice: batchNotice("document", lookup.items.length, lookup.not_found_ids.length, lookup.deferred_ids.length),
        source: compactSource(lookup.source),
      };
    },
  };
}

export const chemblGetDocumentsTool = createChemblGetDocumentsTool();
