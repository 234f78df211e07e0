import { ToolError } from "../domain/errors.js";
import {
  chemblIdProperty,
  cursorProperty,
  decodeCursor,
  encodeCursor,
  optionalChemblId,
  optionalText,
  queryFingerprint,
  textProperty,
} from "./chembl-inputs.js";
import { mdCells, mdColumns, mdFields, mdInline, mdSource, mdSparseTable } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  SOURCE_SCHEMA,
  compactSource,
  type CompactSource,
  TARGET_ROW_SCHEMA,
  compactTarget,
  arr,
  int,
  markdownContent,
  nstr,
} from "./chembl-common.js";
import { callOptions, getChemblService, type ChemblService, type TargetMatch } from "../domain/chembl/service.js";
import { TARGET } from "../domain/chembl/records/target.js";
import type { TargetComponent, TargetRow } from "../domain/chembl/types.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  query?: string;
  gene_symbol?: string;
  accession?: string;
  target_chembl_id?: string;
  organism?: string;
  target_type?: string;
  limit?: number;
  cursor?: string;
}

export interface SearchTargetsResult {
  targets: Array<Partial<TargetRow>>;
  matched_by: TargetMatch;
  returned: number;
  offset: number;
  total_count: number | null;
  nextCursor: string | null;
  notice: string | null;
  source: CompactSource;
  [k: string]: unknown;
}

/** UniProt accession format (uniprot.org/help/accession_numbers). */
const UNIPROT = /^([OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2})$/;
const CHEMBL_ID = /^CHEMBL\d{1,12}$/;

function renderSearchTargets(r: SearchTargetsResult): string {
  const lines = [
    "**ChEMBL target search**",
    mdFields([
      ["matched_by", r.matched_by],
      ["returned", r.returned],
      ["offset", r.offset],
      ["total_count", r.total_count],
      ["nextCursor", r.nextCursor ?? undefined],
    ]),
  ];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  // One row per target; its components in one cell ("accession · type · relationship · description · gene symbols", "; " between).
  const rows = r.targets.map((t) =>
    mdCells(TARGET, t, {
      components: (components) =>
        components
          .map((c: Partial<TargetComponent>) =>
            [c.accession, c.component_type, c.relationship, c.description, c.gene_symbols && c.gene_symbols.length > 0 ? c.gene_symbols.join(", ") : null]
              .filter((v): v is string => typeof v === "string" && v !== "")
              .join(" · "),
          )
          .join("; ") || undefined,
    }),
  );
  lines.push("", "**Targets**", mdSparseTable(mdColumns(TARGET), rows));
  lines.push("", mdSource(r.source));
  return lines.join("\n");
}

export function createChemblSearchTargetsTool(service: () => ChemblService = getChemblService): ServiceTool<Args, SearchTargetsResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_search_targets",
    title: "ChEMBL: search targets",
    description: "Find the ChEMBL target ID of a protein, gene symbol or UniProt accession; rows list components with accessions and gene symbols.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        query: textProperty("Name fragment, accession or target ID.", 200),
        gene_symbol: textProperty("Gene symbol (EGFR).", 40),
        accession: textProperty("UniProt accession (P00533).", 20),
        target_chembl_id: chemblIdProperty("Target ID (CHEMBL203)."),
        organism: textProperty("Organism (Homo sapiens).", 120),
        target_type: textProperty("e.g. SINGLE PROTEIN.", 60),
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Rows per page (default 25)." },
        cursor: cursorProperty(),
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        targets: arr("The targets of this page, ordered by target ChEMBL ID.", TARGET_ROW_SCHEMA),
        matched_by: {
          type: "string",
          enum: ["pref_name", "gene_symbol", "accession", "target_chembl_id", "filters"],
          description: "What the main criterion matched: the target name, a gene symbol, a UniProt accession or the target ID.",
        },
        returned: int("Targets in this page."),
        offset: int("Position of this page's first target."),
        total_count: { type: ["integer", "null"], minimum: 0, description: "Targets matching, as ChEMBL counts them." },
        nextCursor: nstr("Pass as cursor to get the next page; null on the last page."),
        notice: nstr("Guidance about this result, or null."),
        source: SOURCE_SCHEMA,
      },
      required: ["targets", "matched_by", "returned", "offset", "total_count", "nextCursor", "notice", "source"],
      additionalProperties: false,
    },
    errors: CHEMBL_ERRORS,
    budgetMs: CHEMBL_BUDGET_MS,
    content: markdownContent(renderSearchTargets),
    async run(args, ctx) {
      service().assertOnline();
      let query = optionalText(args.query);
      const geneSymbol = optionalText(args.gene_symbol);
      let accession = optionalText(args.accession)?.toUpperCase();
      let targetChemblId = optionalChemblId(args.target_chembl_id);
      // A query shaped like an ID is used as that ID.
      if (query && CHEMBL_ID.test(query.toUpperCase()) && !targetChemblId) {
        targetChemblId = query.toUpperCase();
        query = undefined;
      } else if (query && UNIPROT.test(query.toUpperCase()) && !accession) {
        accession = query.toUpperCase();
        query = undefined;
      }
      if (!query && !geneSymbol && !accession && !targetChemblId) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "Give query, gene_symbol, accession or target_chembl_id",
          { path: "/query" },
          "Pass a target name, a gene symbol or a UniProt accession.",
        );
      }
      const organism = optionalText(args.organism);
      const targetType = optionalText(args.target_type)?.toUpperCase();
      const limit = args.limit ?? service().config.defaultLimit;
      const fingerprint = queryFingerprint([
        "targets",
        query ?? null,
        geneSymbol ?? null,
        accession ?? null,
        targetChemblId ?? null,
        organism ?? null,
        targetType ?? null,
      ]);
      const offset = decodeCursor(optionalText(args.cursor), fingerprint);
      const result = await service().searchTargets({ query, geneSymbol, accession, targetChemblId, organism, targetType, limit, offset }, callOptions(ctx));
      const returned = result.targets.length;
      const end = offset + returned;
      const more = result.total_count !== null ? end < result.total_count : returned === limit;
      const notices: string[] = [];
      if (returned === 0 && offset === 0)
        notices.push("No target matched. Try a shorter name fragment, the gene symbol, the UniProt accession, or drop organism/target_type.");
      if (result.matched_by === "gene_symbol" && query) notices.push(`No target name contains "${query}", so it was matched as a gene symbol.`);
      if (result.targets.some((t) => t.target_type === "SINGLE PROTEIN") && result.targets.some((t) => t.target_type !== "SINGLE PROTEIN")) {
        notices.push("The protein appears in several targets: pick the SINGLE PROTEIN one for its own measurements; complexes and families hold others.");
      }
      return {
        targets: result.targets.map(compactTarget),
        matched_by: result.matched_by,
        returned,
        offset,
        total_count: result.total_count,
        nextCursor: more && returned > 0 ? encodeCursor(end, fingerprint) : null,
        notice: notices.length > 0 ? notices.join(" ") : null,
        source: compactSource(result.source),
      };
    },
  };
}

export const chemblSearchTargetsTool = createChemblSearchTargetsTool();
