import { chemblIdList, chemblIdListProperty } from "./chembl-inputs.js";
import { NO_LINE, mdFields, mdInline, mdSource } from "./chembl-markdown.js";
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
  nstr,
} from "./chembl-common.js";
import { callOptions, getChemblService, ID_LOOKUP_CAP, type ChemblService } from "../domain/chembl/service.js";
import { MAX_ABSTRACT_CHARS } from "../domain/chembl/records/document.js";
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

export function renderDocuments(r: DocumentsResult): string {
  const lines = ["**ChEMBL documents**"];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  if (r.not_found_ids.length > 0) lines.push(`- not_found_ids: ${mdInline(r.not_found_ids.join(", "))}`);
  if (r.deferred_ids.length > 0) lines.push(`- deferred_ids: ${mdInline(r.deferred_ids.join(", "))}`);
  lines.push("");
  for (const d of r.documents) {
    lines.push(
      `**${mdInline(d.document_chembl_id ?? "document")}**`,
      d.title ? `- title: ${mdInline(d.title)}` : NO_LINE,
      d.authors ? `- authors: ${mdInline(d.authors)}` : NO_LINE,
      mdFields([
        ["document_chembl_id", d.document_chembl_id],
        ["doc_type", d.doc_type],
        ["journal", d.journal],
        ["journal_full_title", d.journal_full_title],
        ["year", d.year],
        ["volume", d.volume],
        ["issue", d.issue],
        ["first_page", d.first_page],
        ["last_page", d.last_page],
      ]),
      mdFields([
        ["pubmed_id", d.pubmed_id],
        ["doi", d.doi],
        ["patent_id", d.patent_id],
        ["src_id", d.src_id],
        ["abstract_truncated", d.abstract_truncated],
      ]),
      d.abstract ? `- abstract: ${mdInline(d.abstract)}` : NO_LINE,
      "",
    );
  }
  lines.push(mdSource(r.source));
  return lines.join("\n");
}

const DOCUMENT_SCHEMA = rowObj("One document.", {
  document_chembl_id: nstr("ChEMBL document ID."),
  doc_type: nstr("PUBLICATION, PATENT, DATASET, BOOK, ..."),
  title: nstr("Title."),
  authors: nstr("Authors as ChEMBL lists them."),
  journal: nstr("Journal (abbreviated)."),
  journal_full_title: nstr("Journal, full title."),
  year: nint("Publication year."),
  volume: nstr("Volume."),
  issue: nstr("Issue."),
  first_page: nstr("First page."),
  last_page: nstr("Last page."),
  pubmed_id: nint("PubMed ID (follow it in a literature tool)."),
  doi: nstr("DOI."),
  patent_id: nstr("Patent number (patents)."),
  abstract: nstr(`Abstract, cut at about ${MAX_ABSTRACT_CHARS} characters (see abstract_truncated).`),
  abstract_truncated: { type: "boolean", description: "Whether the abstract was cut." },
  src_id: nint("ChEMBL source ID."),
});

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
        documents: arr("The documents found, in the order their IDs were given.", DOCUMENT_SCHEMA),
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
