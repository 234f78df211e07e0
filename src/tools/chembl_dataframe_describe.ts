import { mdCode, mdFields, mdInline, mdSource, mdTable } from "./chembl-markdown.js";
import { SOURCE_SCHEMA, compactSource, type CompactSource, arr, int, markdownContent, nint, nstr, obj, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasListing, type CanvasManager } from "../domain/canvas/manager.js";
import { CANVAS_READ_ANNOTATIONS, canvasFor, canvasIdProperty } from "./canvas-common.js";
import type { Source } from "../domain/chembl/types.js";
import type { JsonSchema, ServiceTool } from "../contract/tool.js";

interface Args {
  canvas_id?: string;
}

interface DescribedTable {
  name: string;
  row_count: number;
  staged_at: string;
  potency_view: string | null;
  total_count: number | null;
  truncated: boolean;
  truncated_by: string | null;
  applied_filters: Record<string, unknown> | null;
  source: CompactSource | null;
  columns: Array<{ name: string; type: string; description: string }>;
  /** For a canvas_import table only. */
  import?: { sources: string[]; calls: number };
}

/** One canvas described (canvas_id given), or the caller's canvases listed (canvas_id omitted). */
export interface DataframeDescribeResult {
  canvas_id?: string;
  tables?: DescribedTable[];
  idle_expiry_minutes?: number;
  canvases?: CanvasListing[];
  [k: string]: unknown;
}

function renderDescribe(r: DataframeDescribeResult): string {
  if (r.canvases) return renderList(r.canvases);
  return renderCanvas(r as Required<Pick<DataframeDescribeResult, "canvas_id" | "tables" | "idle_expiry_minutes">>);
}

function renderCanvas(r: { canvas_id: string; tables: DescribedTable[]; idle_expiry_minutes: number }): string {
  const lines = [
    "**ChEMBL canvas**",
    mdFields([
      ["canvas_id", { code: r.canvas_id }],
      ["tables", r.tables.length],
      ["idle_expiry_minutes", r.idle_expiry_minutes],
    ]),
  ];
  if (r.tables.length === 0) lines.push("- no tables (dropped); stage one with chembl_get_bioactivities and this canvas_id");
  for (const t of r.tables) {
    lines.push(
      "",
      `**Table** ${mdCode(t.name)}`,
      mdFields([
        ["row_count", t.row_count],
        ["staged_at", t.staged_at],
        ["potency_view", t.potency_view],
        ["total_count", t.total_count],
        ["truncated", t.truncated],
        ["truncated_by", t.truncated_by],
      ]),
    );
    if (t.applied_filters) {
      lines.push(
        `- applied_filters: ${Object.entries(t.applied_filters)
          .map(([k, v]) => `${k}: ${v === null ? "null" : mdInline(String(v))}`)
          .join(" · ")}`,
      );
    }
    if (t.source) lines.push(`- ${mdSource(t.source)}`);
    lines.push("- columns:");
    for (const c of t.columns) lines.push(`  - ${mdCode(c.name)} ${c.type}: ${mdInline(c.description)}`);
  }
  return lines.join("\n");
}

/** The caller's canvases as one small table: where each is, when last used, its tables and their rows. */
function renderList(canvases: CanvasListing[]): string {
  return [
    `**Your canvases** (${canvases.length})`,
    mdTable(
      ["canvas_id", "state", "last_used_at", "tables"],
      canvases.map((c) => ({
        canvas_id: { code: c.canvas_id },
        state: c.state,
        last_used_at: c.last_used_at,
        tables: c.tables.map((t) => `${t.name} (${t.row_count})`).join(", ") || "none",
      })),
    ),
  ].join("\n");
}

/** The schema with `keys` no longer required. */
function optional(keys: string[], schema: JsonSchema): JsonSchema {
  return { ...schema, required: (schema.required as string[]).filter((k) => !keys.includes(k)) };
}

export function createChemblDataframeDescribeTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, DataframeDescribeResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "chembl_dataframe_describe",
    title: "ChEMBL: describe a canvas",
    description: "List a canvas's tables with their columns (types, meanings), row counts and provenance. Omit canvas_id to list your canvases.",
    annotations: CANVAS_READ_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: { canvas_id: canvasIdProperty() },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas."),
        tables: arr(
          "Its tables, by name.",
          optional(
            ["import"],
            obj("One table.", {
              name: str("Table name (use it in SQL)."),
              row_count: int("Rows staged."),
              staged_at: str("When it was staged (ISO 8601)."),
              potency_view: nstr("The chembl_get_bioactivities view it holds (potency_ranked or null_potency)."),
              total_count: nint("Rows in the whole view, as ChEMBL counted them."),
              truncated: { type: "boolean", description: "Whether the table holds fewer rows than the view." },
              truncated_by: nstr("row_cap or time_budget when truncated, else null."),
              applied_filters: { type: ["object", "null"], description: "The filters the view was read with (as chembl_get_bioactivities reports them)." },
              source: { ...SOURCE_SCHEMA, type: ["object", "null"] },
              columns: arr(
                "Its columns, in order.",
                obj("One column.", { name: str("Column name."), type: str("DuckDB type."), description: str("What it holds.") }),
              ),
              import: obj("Present only for a canvas_import table.", {
                sources: arr("What it was imported from (smiles_list, sdf, csv, path:<kind>).", { type: "string", description: "A source." }),
                calls: int("Import calls that made it (1 + appends)."),
              }),
            }),
          ),
        ),
        idle_expiry_minutes: int("The canvas closes after this many minutes without a call that uses it."),
        canvases: arr(
          "Without canvas_id: your canvases, most recently used first.",
          obj("One canvas.", {
            canvas_id: str("The canvas."),
            state: {
              type: "string",
              enum: ["open", "on_disk", "lost"],
              description: "open; on_disk (closed, reopened by its canvas_id); lost (its files are gone).",
            },
            last_used_at: str("When a call last used it (ISO 8601)."),
            tables: arr("Its tables.", obj("One table.", { name: str("Table name."), row_count: int("Rows.") })),
          }),
        ),
      },
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 10_000,
    content: markdownContent(renderDescribe),
    async run(args, ctx) {
      const manager = canvases();
      if (args.canvas_id === undefined) {
        if (!(await manager.available())) throw manager.disabledError();
        return { canvases: manager.list(ctx.owner ?? null) };
      }
      const canvas = await canvasFor(manager, args.canvas_id, ctx);
      return {
        canvas_id: canvas.id,
        tables: canvas.describe().map((t) => {
          const p = t.provenance;
          const described: DescribedTable = {
            name: t.name,
            row_count: t.row_count,
            staged_at: t.staged_at,
            potency_view: typeof p.potency_view === "string" ? p.potency_view : null,
            total_count: typeof p.total_count === "number" ? p.total_count : null,
            truncated: p.truncated === true,
            truncated_by: typeof p.truncated_by === "string" ? p.truncated_by : null,
            applied_filters: p.applied_filters && typeof p.applied_filters === "object" ? (p.applied_filters as Record<string, unknown>) : null,
            source: p.source && typeof p.source === "object" ? compactSource(p.source as Source) : null,
            columns: t.columns.map((c) => ({ name: c.name, type: c.type, description: c.description })),
          };
          if (p.kind === "import") described.import = { sources: (p.sources as string[] | undefined) ?? [], calls: typeof p.calls === "number" ? p.calls : 1 };
          return described;
        }),
        idle_expiry_minutes: Math.round(manager.idleMs / 60_000),
      };
    },
  };
}

export const chemblDataframeDescribeTool = createChemblDataframeDescribeTool();
