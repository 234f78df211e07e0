import { ToolError } from "../domain/errors.js";
import { cursorProperty, decodeCursor, encodeCursor, optionalNumber, optionalText, queryFingerprint } from "./chembl-inputs.js";
import { NO_LINE, mdCells, mdColumns, mdInline, mdPresent, mdSource, mdTable } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  MOLECULE_ROW_SCHEMA,
  DEFAULT_MOLECULE_FIELDS,
  fieldNames,
  fieldsProperty,
  selectFields,
  projectRow,
  dropNulls,
  SOURCE_SCHEMA,
  compactSource,
  type CompactSource,
  arr,
  int,
  markdownContent,
  nnum,
  nstr,
} from "./chembl-common.js";
import {
  callOptions,
  getChemblService,
  NAME_SEARCH_CEILING,
  SUBSTRUCTURE_CEILING,
  type ChemblService,
  type MoleculeSearchType,
} from "../domain/chembl/service.js";
import { checkStructure, smilesGrammarIssue, type StructureCheck } from "../domain/chembl/structure-check.js";
import { parseSmilesTool } from "./parse_smiles.js";
import { chemblStructureScanTool } from "./chembl_structure_scan.js";
import { MOLECULE } from "../domain/chembl/records/molecule.js";
import type { MoleculeRow } from "../domain/chembl/types.js";
import type { ServiceContext, ServiceTool } from "../contract/tool.js";
import type { StructureScanner } from "../domain/chembl/service.js";

interface Args {
  query?: string;
  smiles?: string;
  search_type?: MoleculeSearchType | "";
  similarity_threshold?: number;
  max_phase_min?: number;
  limit?: number;
  cursor?: string;
  fields?: string[];
}

export interface SearchMoleculesResult {
  search_type: MoleculeSearchType;
  query: string | null;
  smiles: string | null;
  similarity_threshold: number | null;
  max_phase_min: number | null;
  structure_check: StructureCheck | null;
  molecules: Array<Partial<MoleculeRow>>;
  returned: number;
  offset: number;
  total_count: number | null;
  totalCountCapped: boolean;
  nextCursor: string | null;
  notice: string | null;
  did_you_mean?: string[];
  source: CompactSource;
  [k: string]: unknown;
}

const INCHI_KEY = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/;
const CHEMBL_ID = /^CHEMBL\d{1,12}$/;
/** ChEMBL refuses a substructure query shorter than this. */
const MIN_SUBSTRUCTURE_LENGTH = 5;

const MOLECULE_FIELDS = fieldNames(MOLECULE);

/**
 * The chemistry pool as the service's structure-index scanner (offline similarity and substructure with
 * CHEMBL_SQLITE): the service plans the search, the pool's workers scan the shards.
 */
function poolScanner(ctx: ServiceContext): StructureScanner | undefined {
  const chem = ctx.chem;
  if (!chem?.runList) return undefined;
  return (items, budgetMs) => chem.runList!(chemblStructureScanTool, items, { budgetMs });
}

function renderSearchMolecules(r: SearchMoleculesResult): string {
  // One line says what was asked and what came back; offset 0 and a null nextCursor (the last page) are left out.
  const head = mdPresent([
    ["query", r.query],
    ["smiles", r.smiles === null || r.smiles === undefined ? null : { code: r.smiles }],
    ["similarity_threshold", r.similarity_threshold],
    ["max_phase_min", r.max_phase_min],
    ["structure_check", r.structure_check],
    ["returned", r.returned],
    ["offset", r.offset > 0 ? r.offset : null],
    ["total_count", r.total_count],
    ["totalCountCapped", r.totalCountCapped ? true : null],
    ["nextCursor", r.nextCursor ?? null],
  ]);
  const lines = [`**ChEMBL molecule search** (${mdInline(r.search_type)})`, head ?? NO_LINE];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  if (r.did_you_mean) lines.push(`- did_you_mean: ${r.did_you_mean.map((n) => mdInline(n)).join(", ")}`);
  const cells = r.molecules.map((m) => mdCells(MOLECULE, m, {}));
  const present = new Set(cells.flatMap((c) => Object.keys(c)));
  lines.push(
    "",
    mdTable(
      mdColumns(MOLECULE).filter((k) => present.has(k)),
      cells,
    ),
    "",
    mdSource(r.source),
  );
  return lines.join("\n");
}

export function createChemblSearchMoleculesTool(service: () => ChemblService = getChemblService): ServiceTool<Args, SearchMoleculesResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_search_molecules",
    title: "ChEMBL: search molecules",
    description:
      "Find ChEMBL compounds by text (query) or structure (smiles). Rows: molecule_chembl_id, parent_chembl_id, max_phase, structure, key properties.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          maxLength: 500,
          description: "Name, synonym, ChEMBL ID (CHEMBL25) or InChIKey.",
        },
        smiles: {
          type: "string",
          maxLength: 4000,
          description: "Structure to search.",
        },
        search_type: {
          type: "string",
          enum: ["name", "exact", "similarity", "substructure", ""],
          description: "Default: name with query, exact with smiles.",
        },
        similarity_threshold: {
          type: "integer",
          minimum: 40,
          maximum: 100,
          description: "Minimum similarity, percent (default 70).",
        },
        max_phase_min: {
          type: "number",
          minimum: 0,
          maximum: 4,
          description: "Minimum max_phase (4 approved).",
        },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Rows per page (default 25)." },
        cursor: cursorProperty(),
        fields: fieldsProperty(MOLECULE_FIELDS),
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        search_type: { type: "string", enum: ["name", "exact", "similarity", "substructure"], description: "The search that ran." },
        query: nstr("The query as used (name searches), or null."),
        smiles: nstr("The structure query (structure searches), or null."),
        similarity_threshold: { type: ["integer", "null"], description: "The similarity threshold (similarity search), or null." },
        max_phase_min: nnum("The max_phase filter, or null."),
        structure_check: {
          type: ["string", "null"],
          enum: ["rdkit", "smiles_grammar", null],
          description:
            "How the SMILES was checked locally before the search: rdkit, or the SMILES grammar when the chemistry pool was not reachable; null for name searches.",
        },
        molecules: arr("The molecules of this page, in ChEMBL's order (relevance or similarity).", MOLECULE_ROW_SCHEMA),
        returned: int("Molecules in this page."),
        offset: int("Position of this page's first molecule in the whole result."),
        total_count: { type: ["integer", "null"], minimum: 0, description: "Molecules matching, as ChEMBL counts them (a lower bound when totalCountCapped)." },
        totalCountCapped: {
          type: "boolean",
          description: "True when total_count sits at ChEMBL's search ceiling: the true number may be larger; refine the query.",
        },
        nextCursor: nstr("Pass as cursor to get the next page; null on the last page."),
        notice: nstr("Guidance about this result (no match, ceilings), or null."),
        did_you_mean: {
          type: "array",
          items: { type: "string" },
          description: "For a name that matched nothing, with the offline dump: the nearest names it holds (search one of them).",
        },
        source: SOURCE_SCHEMA,
      },
      // The query echo and notice are left out when null.
      required: ["search_type", "molecules", "returned", "offset", "total_count", "totalCountCapped", "nextCursor", "source"],
      additionalProperties: false,
    },
    errors: ["INVALID_STRUCTURE", ...CHEMBL_ERRORS],
    budgetMs: CHEMBL_BUDGET_MS,
    content: markdownContent(renderSearchMolecules),
    async run(args, ctx) {
      service().assertOnline();
      const query = optionalText(args.query);
      let smiles = optionalText(args.smiles);
      const requested = optionalText(args.search_type) as MoleculeSearchType | undefined;
      const type: MoleculeSearchType = requested ?? (query === undefined && smiles !== undefined ? "exact" : "name");
      if (type === "name") {
        if (query === undefined) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            "A name search needs `query` (a name, ChEMBL ID or InChIKey)",
            { path: "/query" },
            "Pass query, or pass smiles with search_type exact, similarity or substructure.",
          );
        }
        if (smiles !== undefined) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            "A name search takes `query` only; `smiles` was given too",
            { path: "/smiles" },
            "Send query alone for a name search, or smiles alone (with search_type exact, similarity or substructure) for a structure search.",
          );
        }
      } else {
        if (query !== undefined && smiles !== undefined) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            `A ${type} search takes the structure in \`smiles\`; \`query\` was given too`,
            { path: "/query" },
            `Send smiles alone with search_type ${type}; a name goes in query with search_type name.`,
          );
        }
        if (query !== undefined && smilesGrammarIssue(query) !== null) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            `A ${type} search needs a structure, and query "${query.length > 60 ? `${query.slice(0, 60)}...` : query}" is not SMILES (a name or an ID?)`,
            { path: "/query" },
            `Send the structure as smiles with search_type ${type} (look a name up first with search_type name or name_to_smiles), or use search_type name for the name.`,
          );
        }
        smiles ??= query; // a structure search with the SMILES put in `query`
        if (smiles === undefined) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            `A ${type} search needs \`smiles\``,
            { path: "/smiles" },
            "Pass the structure as smiles, or use search_type name with a query.",
          );
        }
      }
      const maxPhaseMin = optionalNumber(args.max_phase_min);
      const threshold = type === "similarity" ? (optionalNumber(args.similarity_threshold) ?? 70) : undefined;
      const limit = args.limit ?? service().config.defaultLimit;
      const nameQuery = type === "name" ? query! : undefined;
      const by =
        nameQuery === undefined
          ? undefined
          : CHEMBL_ID.test(nameQuery.toUpperCase())
            ? "chembl_id"
            : INCHI_KEY.test(nameQuery.toUpperCase())
              ? "inchi_key"
              : "text";
      const normalisedQuery = by === "chembl_id" || by === "inchi_key" ? nameQuery!.toUpperCase() : nameQuery;
      if (type === "name") smiles = undefined;
      const fingerprint = queryFingerprint(["molecules", type, normalisedQuery, smiles ?? null, threshold ?? null, maxPhaseMin ?? null]);
      const offset = decodeCursor(optionalText(args.cursor), fingerprint);

      let structureCheck: StructureCheck | null = null;
      if (type !== "name") {
        if (type === "substructure" && smiles!.length < MIN_SUBSTRUCTURE_LENGTH) {
          throw new ToolError(
            "INVALID_STRUCTURE",
            `ChEMBL's substructure search needs a query of at least ${MIN_SUBSTRUCTURE_LENGTH} characters (got ${smiles!.length})`,
            { reason: "too_short", min_length: MIN_SUBSTRUCTURE_LENGTH },
            "Use a larger substructure, or a similarity search for a small fragment.",
          );
        }
        const chem = ctx.chem;
        structureCheck = await checkStructure(smiles!, chem ? (s) => chem.run(parseSmilesTool, { smiles: s }) : undefined);
      }

      const result = await service().searchMolecules({ type, query: normalisedQuery, by, smiles, threshold, maxPhaseMin, limit, offset }, callOptions(ctx), {
        scan: poolScanner(ctx),
      });
      const ceiling = type === "name" && by === "text" ? NAME_SEARCH_CEILING : type === "substructure" ? SUBSTRUCTURE_CEILING : null;
      const returned = result.molecules.length;
      const end = offset + returned;
      const more = result.total_count !== null ? end < result.total_count : returned === limit;
      const reachable = ceiling === null || end < ceiling;
      const notices: string[] = [...(result.notices ?? [])];
      if (returned === 0 && offset === 0) {
        notices.push(
          type === "name" && result.didYouMean
            ? `No molecule matched. Did you mean ${result.didYouMean.slice(0, 3).join(", ")}? (did_you_mean lists the nearest names; search one of them.)`
            : type === "name"
              ? "No molecule matched. Try a synonym, the ChEMBL ID, an InChIKey, or a structure search."
              : type === "exact"
                ? "ChEMBL holds no molecule with this exact structure; try a similarity search."
                : "No molecule matched this structure search; lower the similarity threshold or use a smaller substructure.",
        );
        if (maxPhaseMin !== undefined) notices.push(`Only molecules with max_phase >= ${maxPhaseMin} were kept.`);
      }
      if (result.totalCountCapped) {
        notices.push(
          `ChEMBL stops counting at ${ceiling!.toLocaleString("en-US")} ${type === "name" ? "name-search" : "substructure"} hits, so the true total may be larger` +
            (type === "substructure" && maxPhaseMin !== undefined ? " (and the max_phase filter saw only the first hits)" : "") +
            "; refine the query.",
        );
      }
      const columns = selectFields(MOLECULE_FIELDS, DEFAULT_MOLECULE_FIELDS, args.fields);
      return dropNulls(
        {
          search_type: type,
          query: normalisedQuery ?? null,
          smiles: type === "name" ? null : (smiles ?? null),
          similarity_threshold: threshold ?? null,
          max_phase_min: maxPhaseMin ?? null,
          structure_check: structureCheck,
          molecules: result.molecules.map((m) => projectRow(m, columns)),
          returned,
          offset,
          total_count: result.total_count,
          totalCountCapped: result.totalCountCapped,
          nextCursor: more && reachable && returned > 0 ? encodeCursor(end, fingerprint) : null,
          notice: notices.length > 0 ? notices.join(" ") : null,
          ...(result.didYouMean ? { did_you_mean: result.didYouMean } : {}),
          source: compactSource(result.source),
        },
        ["nextCursor"],
      );
    },
  };
}

export const chemblSearchMoleculesTool = createChemblSearchMoleculesTool();
