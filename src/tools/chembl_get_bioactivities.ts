import { ToolError } from "../domain/errors.js";
import {
  chemblIdProperty,
  cursorProperty,
  decodeCursor,
  encodeCursor,
  optionalChemblId,
  optionalNumber,
  optionalText,
  queryFingerprint,
  textProperty,
} from "./chembl-inputs.js";
import { mdCells, mdColumns, mdFields, mdInline, mdPresent, mdSource, mdTable } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  SOURCE_SCHEMA,
  compactSource,
  fieldNames,
  fieldsProperty,
  projectRow,
  recordSchema,
  selectFields,
  type CompactSource,
  arr,
  int,
  markdownContent,
  nint,
  nnum,
  nstr,
  obj,
} from "./chembl-common.js";
import { callOptions, getChemblService, type ActivityQuery, type ChemblService, type PotencyView, type WalkResult } from "../domain/chembl/service.js";
import { ACTIVITY } from "../domain/chembl/records/activity.js";
import type { Activity, Source } from "../domain/chembl/types.js";
import { CANVAS_ID_PATTERN } from "../domain/canvas/ids.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { SPILL_UNAVAILABLE, spillActivities, spillBudgetMs } from "../domain/canvas/spill.js";
import { CANVAS_ID_ARGUMENT_MAX_LENGTH, CANVAS_ID_HEADER } from "./canvas-common.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  molecule_chembl_id?: string;
  target_chembl_id?: string;
  potency_view?: PotencyView | "";
  standard_type?: string;
  pchembl_value_min?: number;
  assay_type?: string;
  organism?: string;
  variant?: string;
  include_alternate_forms?: boolean;
  limit?: number;
  cursor?: string;
  canvas_id?: string;
  fields?: string[];
}

interface AppliedFilters {
  molecule_chembl_id: string | null;
  parent_molecule_chembl_id: string | null;
  include_alternate_forms: boolean;
  target_chembl_id: string | null;
  standard_type: string | null;
  pchembl_value_min: number | null;
  assay_type: string | null;
  organism: string | null;
  variant: string | null;
}

export interface BioactivitiesResult {
  activities: Array<Partial<Activity>>;
  potency_view: PotencyView;
  returned: number;
  offset: number;
  total_count: number | null;
  nextCursor: string | null;
  applied_filters: AppliedFilters;
  standard_types: string[];
  notice: string | null;
  canvas_id: string | null;
  table_name: string | null;
  staged_row_count: number | null;
  truncated: boolean;
  truncated_by: "row_cap" | "time_budget" | null;
  source: CompactSource;
  [k: string]: unknown;
}

/** Rows per inline page: about 2-3 KB each across both surfaces, so a full page stays well under the 1 MB response cap. */
const MAX_INLINE_ACTIVITIES = 100;
const CANVAS_ID_OR_BLANK_PATTERN = `^\\s*(${CANVAS_ID_PATTERN.slice(1, -1)})?\\s*$`;

/** variant input -> the filter: wild type, one mutation as ChEMBL writes it, or none. */
function parseVariant(v: string | undefined): ActivityQuery["variant"] | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  const low = s.toLowerCase().replace(/[\s_-]+/g, "");
  if (low === "any" || low === "all") return undefined;
  if (low === "wildtype" || low === "wt") return { kind: "wild_type" };
  return { kind: "mutation", mutation: s.toUpperCase().replace(/\s*,\s*/g, ",") };
}

type ActivityField = keyof Activity;
/** All columns a row can carry, in the schema's order. */
export const ACTIVITY_FIELDS: ActivityField[] = fieldNames(ACTIVITY);
/**
 * The columns of a default row: what ranking and provenance need (IDs, structure, the standardised
 * measurement and pchembl_value, assay and document, year) and the flags the skill's gates read. A flag
 * or a mutation that is null is left out of the row, so on most rows they cost nothing.
 */
export const DEFAULT_ACTIVITY_FIELDS: readonly ActivityField[] = [
  "activity_id",
  "molecule_chembl_id",
  "parent_molecule_chembl_id",
  "canonical_smiles",
  "standard_type",
  "standard_relation",
  "standard_value",
  "standard_units",
  "pchembl_value",
  "assay_chembl_id",
  "assay_type",
  "assay_variant_mutation",
  "document_chembl_id",
  "document_year",
  "target_chembl_id",
  "activity_comment",
  "data_validity_comment",
  "potential_duplicate",
];

const ACTIVITY_SCHEMA = recordSchema(ACTIVITY);

function selectedFields(fields: string[] | undefined): ActivityField[] {
  return selectFields(ACTIVITY_FIELDS, DEFAULT_ACTIVITY_FIELDS, fields);
}

function renderBioactivities(r: BioactivitiesResult): string {
  const f = r.applied_filters;
  const lines = [`**ChEMBL bioactivities** (${mdInline(r.potency_view)})`];
  const filters = mdPresent([
    ["molecule_chembl_id", f.molecule_chembl_id],
    ["parent_molecule_chembl_id", f.parent_molecule_chembl_id],
    ["include_alternate_forms", f.include_alternate_forms ? true : null],
    ["target_chembl_id", f.target_chembl_id],
    ["standard_type", f.standard_type],
    ["pchembl_value_min", f.pchembl_value_min],
    ["assay_type", f.assay_type],
    ["organism", f.organism],
    ["variant", f.variant],
  ]);
  if (filters) lines.push(filters);
  lines.push(
    mdFields([
      ["returned", r.returned],
      ["offset", r.offset],
      ["total_count", r.total_count],
      ["nextCursor", r.nextCursor],
      ["standard_types", r.standard_types.length > 0 ? r.standard_types.join(", ") : null],
    ]),
  );
  const staging = mdPresent([
    ["canvas_id", r.canvas_id === null ? null : { code: r.canvas_id }],
    ["table_name", r.table_name === null ? null : { code: r.table_name }],
    ["staged_row_count", r.staged_row_count],
    ["truncated", r.canvas_id === null ? null : r.truncated],
    ["truncated_by", r.truncated_by],
  ]);
  if (staging) lines.push(staging);
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  // The table has the answer's columns that hold a value on some row; ligand efficiency spreads into le, lle, bei, sei.
  const cells = r.activities.map((a) => mdCells(ACTIVITY, a, {}));
  const present = new Set(cells.flatMap((c) => Object.keys(c)));
  const columns = mdColumns(ACTIVITY).filter((k) => present.has(k));
  lines.push("", "**Activities**", mdTable(columns, cells), "", mdSource(r.source));
  return lines.join("\n");
}

/** The part of a bioactivities answer that says whether and where its rows were staged. */
interface Staging {
  canvas_id: string | null;
  table_name: string | null;
  staged_row_count: number | null;
  truncated: boolean;
  truncated_by: WalkResult["truncated_by"];
}

const NOT_STAGED: Staging = { canvas_id: null, table_name: null, staged_row_count: null, truncated: false, truncated_by: null };

export function createChemblGetBioactivitiesTool(
  service: () => ChemblService = getChemblService,
  canvases: () => CanvasManager = getCanvasManager,
): ServiceTool<Args, BioactivitiesResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_get_bioactivities",
    title: "ChEMBL: bioactivities",
    description:
      "Bioactivity measurements of a molecule, a target or the pair: with a pchembl_value, best first (potency_ranked), or the rest (null_potency). A view over one page is staged on a canvas.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        molecule_chembl_id: chemblIdProperty("The compound (CHEMBL25); this, the target, or both."),
        target_chembl_id: chemblIdProperty("The target (CHEMBL203)."),
        potency_view: {
          type: "string",
          enum: ["potency_ranked", "null_potency", ""],
          description: "Default potency_ranked.",
        },
        standard_type: textProperty("IC50, Ki, Kd, EC50...", 60),
        pchembl_value_min: {
          type: "number",
          minimum: 0,
          maximum: 15,
          description: "Minimum pchembl_value (6 = 1 µM).",
        },
        assay_type: {
          type: "string",
          enum: ["B", "F", "A", "T", "P", "U", ""],
          description: "B binding, F functional, A ADMET, T tox, P phys-chem, U.",
        },
        organism: textProperty("Target organism (Homo sapiens).", 120),
        variant: textProperty("wild_type, or a mutation (T790M; L858R,T790M).", 200),
        include_alternate_forms: {
          type: "boolean",
          description: "Add the molecule's parent, salts and hydrates.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: MAX_INLINE_ACTIVITIES,
          description: "Rows per page (default 25).",
        },
        cursor: cursorProperty(),
        fields: fieldsProperty(ACTIVITY_FIELDS),
        canvas_id: {
          type: "string",
          maxLength: CANVAS_ID_ARGUMENT_MAX_LENGTH,
          pattern: CANVAS_ID_OR_BLANK_PATTERN,
          "x-mcp-header": CANVAS_ID_HEADER,
          description: "Stage on this canvas (to join both views).",
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        activities: arr("The measurements of this page, in the view's order.", ACTIVITY_SCHEMA),
        potency_view: { type: "string", enum: ["potency_ranked", "null_potency"], description: "The view read." },
        returned: int("Rows in this page."),
        offset: int("Position of this page's first row in the view."),
        total_count: { type: ["integer", "null"], minimum: 0, description: "Rows in the whole view, as ChEMBL counts them." },
        nextCursor: nstr("Pass as cursor for the next page; null on the last page, and when the view was staged (query the canvas instead)."),
        applied_filters: obj("The filters as applied (IDs canonical; the family parent when alternate forms are included).", {
          molecule_chembl_id: nstr("The molecule asked for."),
          parent_molecule_chembl_id: nstr("The family parent filtered on (include_alternate_forms), or null."),
          include_alternate_forms: { type: "boolean", description: "Whether the family was included." },
          target_chembl_id: nstr("Target filter."),
          standard_type: nstr("Measurement type filter."),
          pchembl_value_min: nnum("Minimum pchembl_value."),
          assay_type: nstr("Assay type filter."),
          organism: nstr("Organism filter."),
          variant: nstr("wild_type, a mutation, or null (all)."),
        }),
        standard_types: arr(
          "The distinct standard_type values in this page, or in the whole staged table when staged (compare pchembl_value only within one).",
          {
            type: "string",
            description: "A standard type.",
          },
        ),
        notice: nstr("Guidance about this result (mixed types, empty view, duplicates, where the rows were staged), or null."),
        canvas_id: nstr("The canvas the view was staged on (query it with chembl_dataframe_query), or null when nothing was staged."),
        table_name: nstr("The staged table: bioactivities (potency_ranked) or bioactivities_null_potency (null_potency); null when nothing was staged."),
        staged_row_count: nint("Rows in the staged table, or null when nothing was staged."),
        truncated: {
          type: "boolean",
          description: "Whether the staged table holds fewer rows than the view (see truncated_by). Always false when nothing was staged.",
        },
        truncated_by: {
          type: ["string", "null"],
          enum: ["row_cap", "time_budget", null],
          description:
            "Why the staged table stops short: row_cap (CHEMBL_MAX_SPILL_ROWS reached) or time_budget (the walk ran out of time: the table holds the view's first staged_row_count rows in its order); null when complete.",
        },
        source: SOURCE_SCHEMA,
      },
      required: [
        "activities",
        "potency_view",
        "returned",
        "offset",
        "total_count",
        "nextCursor",
        "applied_filters",
        "standard_types",
        "notice",
        "canvas_id",
        "table_name",
        "staged_row_count",
        "truncated",
        "truncated_by",
        "source",
      ],
      additionalProperties: false,
    },
    errors: ["NOT_FOUND", "CANVAS_NOT_FOUND", "CANVAS_FULL", "QUOTA_EXCEEDED", ...CHEMBL_ERRORS],
    budgetMs: CHEMBL_BUDGET_MS,
    // With a progress token a spill may walk for the whole CHEMBL_SPILL_DEADLINE_MS (its progress keeps the client waiting).
    progressBudgetMs: () => Math.max(CHEMBL_BUDGET_MS, spillBudgetMs(service().config.spillDeadlineMs)),
    content: markdownContent(renderBioactivities),
    async run(args, ctx) {
      service().assertOnline();
      const moleculeChemblId = optionalChemblId(args.molecule_chembl_id);
      const targetChemblId = optionalChemblId(args.target_chembl_id);
      if (!moleculeChemblId && !targetChemblId) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "Give molecule_chembl_id, target_chembl_id, or both",
          { path: "/molecule_chembl_id" },
          "Find IDs with chembl_search_molecules or chembl_search_targets first.",
        );
      }
      const view: PotencyView = (optionalText(args.potency_view) as PotencyView | undefined) ?? "potency_ranked";
      const pchemblMin = optionalNumber(args.pchembl_value_min);
      if (pchemblMin !== undefined && view === "null_potency") {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "pchembl_value_min cannot apply to the null_potency view (its rows have no pchembl_value)",
          { path: "/pchembl_value_min" },
          "Drop pchembl_value_min, or use potency_view potency_ranked.",
        );
      }
      if (args.include_alternate_forms === true && moleculeChemblId === undefined) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "include_alternate_forms widens a molecule to its family: it needs molecule_chembl_id",
          { path: "/include_alternate_forms" },
          "Send molecule_chembl_id with include_alternate_forms, or drop include_alternate_forms for a target-only query.",
        );
      }
      const includeAlternateForms = args.include_alternate_forms === true;
      const standardType = optionalText(args.standard_type);
      const assayType = optionalText(args.assay_type);
      const organism = optionalText(args.organism);
      const variant = parseVariant(optionalText(args.variant));
      const limit = args.limit ?? service().config.defaultLimit;
      const query: ActivityQuery & { includeAlternateForms: boolean } = {
        moleculeChemblId,
        targetChemblId,
        view,
        standardType,
        pchemblMin,
        assayType,
        organism,
        variant,
        includeAlternateForms,
      };
      const fingerprint = queryFingerprint(["activities", query]);
      const cursor = optionalText(args.cursor);
      const canvasId = optionalText(args.canvas_id);
      const variantLabel = variant === undefined ? null : variant.kind === "wild_type" ? "wild_type" : variant.mutation;
      const filters = (parent: string | undefined): AppliedFilters => ({
        molecule_chembl_id: moleculeChemblId ?? null,
        parent_molecule_chembl_id: parent ?? null,
        include_alternate_forms: includeAlternateForms,
        target_chembl_id: targetChemblId ?? null,
        standard_type: standardType ?? null,
        pchembl_value_min: pchemblMin ?? null,
        assay_type: assayType ?? null,
        organism: organism ?? null,
        variant: variantLabel,
      });
      const notes = { view, moleculeChemblId, includeAlternateForms, fields: selectedFields(args.fields) };
      const manager = canvases();

      // A cursor page is always served inline: it stages nothing and leaves a supplied canvas untouched.
      const inline = async () => {
        const offset = decodeCursor(cursor, fingerprint);
        // parent_smiles costs a lookup: read only when the fields ask for it.
        const page = await service().activityPage(query, offset, limit, callOptions(ctx), { parents: notes.fields.includes("parent_smiles") });
        const extra: string[] = [];
        if (canvasId !== undefined) {
          extra.push(
            cursor !== undefined
              ? "A cursor page is served inline: canvas_id was left untouched."
              : `The canvas is off on this server (${manager.disabledReason}): canvas_id was ignored and the page is inline.`,
          );
        }
        return answer({
          rows: page.activities,
          offset,
          total: page.total_count,
          limit,
          fingerprint,
          filters: filters(page.query.parentMoleculeChemblId),
          notes,
          extra,
          staging: NOT_STAGED,
          source: page.source,
        });
      };
      if (cursor !== undefined) return inline();
      // Without a canvas_id, a fresh server loads DuckDB while the walk fetches its first pages.
      const available = canvasId === undefined && manager.mayBeAvailable() ? manager.available() : undefined;
      if (!available && !(await manager.available())) return inline();

      const target = canvasId !== undefined ? await manager.get(canvasId, ctx.owner ?? null) : undefined;
      const options = callOptions(ctx);
      const spilled = await spillActivities(service(), manager, {
        query,
        inlineLimit: limit,
        target,
        deadline: options.deadline ?? Date.now() + CHEMBL_BUDGET_MS,
        progressTracked: ctx.progressTracked === true,
        signal: ctx.signal,
        owner: ctx.owner ?? null,
        appliedFilters: (q) => filters(q.parentMoleculeChemblId),
        onProgress: (fetched, goal) => ctx.progress(fetched, goal, `fetched ${fetched} of ${goal} rows`),
        ...(available ? { available } : {}),
      });
      // DuckDB could not load after all: the first page inline, as when the canvas is off.
      if (spilled === SPILL_UNAVAILABLE) return inline();
      const { resolved, walk, staged } = spilled;
      const rows = walk.activities;
      const applied = filters(resolved.parentMoleculeChemblId);
      if (staged === null) {
        return answer({
          rows: rows.slice(0, limit),
          offset: 0,
          total: walk.total_count,
          limit,
          fingerprint,
          filters: applied,
          notes,
          extra: [],
          staging: NOT_STAGED,
          source: walk.source,
        });
      }
      const staging: Staging = {
        canvas_id: staged.canvas.id,
        table_name: staged.table.name,
        staged_row_count: staged.table.row_count,
        truncated: walk.truncated_by !== null,
        truncated_by: walk.truncated_by,
      };
      const extra = [stagedNotice(staging, walk.total_count, manager)];
      return answer({ rows, offset: 0, total: walk.total_count, limit, fingerprint, filters: applied, notes, extra, staging, source: walk.source });
    },
  };
}

function stagedNotice(s: Staging, total: number | null, manager: CanvasManager): string {
  const of = total !== null ? ` of ${total}` : "";
  let text =
    `Staged ${s.staged_row_count}${of} rows as table ${s.table_name} on canvas ${s.canvas_id}: query it with chembl_dataframe_query (one SQL SELECT; ` +
    `chembl_dataframe_describe lists the columns); activities shows its first rows. The canvas expires after ${Math.round(manager.idleMs / 60_000)} minutes idle.`;
  if (s.truncated_by === "row_cap")
    text += ` The table stops at the row cap (CHEMBL_MAX_SPILL_ROWS=${manager.maxSpillRows}): narrow the filters (standard_type, assay_type, organism) for the whole view.`;
  if (s.truncated_by === "time_budget")
    text += " The walk ran out of time: the table holds only the view's first rows in its order; narrow the filters or call again.";
  return text;
}

interface AnswerParts {
  /** The rows the answer covers: one inline page, or every staged row (the answer shows the first `limit`). */
  rows: Activity[];
  offset: number;
  total: number | null;
  limit: number;
  fingerprint: string;
  filters: AppliedFilters;
  notes: { view: PotencyView; moleculeChemblId: string | undefined; includeAlternateForms: boolean; fields: readonly ActivityField[] };
  extra: string[];
  staging: Staging;
  source: Source;
}

function answer(p: AnswerParts): BioactivitiesResult {
  const staged = p.staging.canvas_id !== null;
  const shown = staged ? p.rows.slice(0, p.limit) : p.rows;
  const returned = shown.length;
  const end = p.offset + returned;
  const more = staged ? false : p.total !== null ? end < p.total : returned === p.limit;
  const standardTypes = [...new Set(p.rows.map((a) => a.standard_type).filter((t): t is string => t !== null))].sort();
  const notices: string[] = [];
  const { view, moleculeChemblId, includeAlternateForms } = p.notes;
  if (p.rows.length === 0 && p.offset === 0) {
    notices.push(
      view === "potency_ranked"
        ? "No measurement with a pchembl_value matched; the null_potency view may hold inactive or non-molar results."
        : "No measurement without a pchembl_value matched; see the potency_ranked view.",
    );
    if (moleculeChemblId && !includeAlternateForms) notices.push("A salt or parent form may hold the data: retry with include_alternate_forms.");
  }
  if (view === "potency_ranked" && standardTypes.length > 1) {
    notices.push(
      `This ${staged ? "table" : "page"} mixes standard types (${standardTypes.join(", ")}): compare pchembl_value only within one; filter standard_type.`,
    );
  }
  if (p.rows.some((a) => a.potential_duplicate === true)) notices.push("Some rows are flagged potential_duplicate (likely repeats of another measurement).");
  notices.push(...p.extra);
  return {
    activities: shown.map((a) => projectRow(a, p.notes.fields)),
    potency_view: view,
    returned,
    offset: p.offset,
    total_count: p.total,
    nextCursor: more && returned > 0 ? encodeCursor(end, p.fingerprint) : null,
    applied_filters: p.filters,
    standard_types: standardTypes,
    notice: notices.length > 0 ? notices.join(" ") : null,
    ...p.staging,
    source: compactSource(p.source),
  };
}

export const chemblGetBioactivitiesTool = createChemblGetBioactivitiesTool();
