import { TABLE_APP_URI } from "../contract/apps.js";
import { mdCode, mdFields, mdInline } from "./chembl-markdown.js";
import { arr, int, markdownContent, nstr, obj, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { QueryResult } from "../domain/canvas/queries.js";
import { CANVAS_READ_ANNOTATIONS, canvasFor, canvasIdProperty } from "./canvas-common.js";
import { MAX_SQL_LENGTH } from "../domain/canvas/sql-guard.js";
import type { JsonValue } from "../domain/canvas/values.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  canvas_id: string;
  sql: string;
  max_rows?: number;
}

export interface DataframeQueryResult extends Omit<QueryResult, "rows"> {
  canvas_id: string;
  rows: Array<Record<string, JsonValue>>;
  max_rows: number;
  max_bytes: number;
  attribution: string | null;
  [k: string]: unknown;
}

const MAX_QUERY_ROWS = 1000;
const DEFAULT_QUERY_ROWS = 200;
/**
 * Output bytes of the rows (JSON), so that each surface of the answer (the structured rows, their markdown twin,
 * which is shorter: no key per cell) stays within what a host takes (MAX_ANSWER_BYTES, 80,000).
 */
const MAX_QUERY_BYTES = 60_000;

function cell(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return mdInline(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return mdCode(JSON.stringify(v));
}

function renderQuery(r: DataframeQueryResult): string {
  const lines = [
    "**ChEMBL canvas query**",
    mdFields([
      ["canvas_id", { code: r.canvas_id }],
      ["returned", r.returned],
      ["truncated", r.truncated],
      ["truncated_by", r.truncated_by],
      ["max_rows", r.max_rows],
      ["max_bytes", r.max_bytes],
      ["elapsed_ms", r.elapsed_ms],
    ]),
    `- columns: ${r.columns.length > 0 ? r.columns.map((c) => `${mdInline(c.name)} (${mdInline(c.type)})`).join(" · ") : "none"}`,
    "",
  ];
  if (r.columns.length > 0) {
    lines.push(`| ${r.columns.map((c) => mdInline(c.name)).join(" | ")} |`, `|${r.columns.map(() => "---").join("|")}|`);
    for (const row of r.rows) lines.push(`| ${r.columns.map((c) => cell(row[c.name])).join(" | ")} |`);
    if (r.rows.length === 0) lines.push("", "No rows.");
  }
  if (r.attribution) lines.push("", `- attribution: ${mdInline(r.attribution)}`);
  return lines.join("\n");
}

export function createChemblDataframeQueryTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, DataframeQueryResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "chembl_dataframe_query",
    ui: { resourceUri: TABLE_APP_URI },
    title: "ChEMBL: SQL over a canvas",
    description: "Run one read-only DuckDB SELECT over a canvas's tables to rank, group, count and join rows without reading them all.",
    annotations: CANVAS_READ_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        sql: {
          type: "string",
          minLength: 1,
          maxLength: MAX_SQL_LENGTH,
          description: "One SELECT or WITH, e.g. SELECT target_chembl_id, max(pchembl_value) FROM bioactivities GROUP BY 1",
        },
        max_rows: {
          type: "integer",
          minimum: 1,
          maximum: MAX_QUERY_ROWS,
          description: `Most rows returned (default ${DEFAULT_QUERY_ROWS}).`,
        },
      },
      required: ["canvas_id", "sql"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas queried."),
        columns: arr(
          "The result's columns, in order (duplicate names get a suffix).",
          obj("One column.", { name: str("Column name."), type: str("DuckDB type, e.g. DOUBLE, VARCHAR, BIGINT.") }),
        ),
        rows: arr("The result rows as objects keyed by column name.", { type: "object", description: "One row." }),
        returned: int("Rows returned."),
        truncated: { type: "boolean", description: "Whether the result had more rows than returned (see truncated_by)." },
        truncated_by: {
          type: ["string", "null"],
          enum: ["row_cap", "byte_cap", null],
          description: "row_cap (max_rows reached), byte_cap (60,000 bytes of rows reached), or null when complete.",
        },
        max_rows: int("The row cap applied."),
        max_bytes: int("The byte cap applied to the rows' JSON."),
        elapsed_ms: int("Time the query took."),
        attribution: nstr("The ChEMBL attribution and licence of the staged data (CC BY-SA 3.0): keep it with anything reproduced from these rows."),
      },
      required: ["canvas_id", "columns", "rows", "returned", "truncated", "truncated_by", "max_rows", "max_bytes", "elapsed_ms", "attribution"],
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND", "QUERY_REFUSED", "QUERY_TIMEOUT", "QUEUE_TIMEOUT"],
    budgetMs: 25_000,
    content: markdownContent(renderQuery),
    async run(args, ctx) {
      const manager = canvases();
      const canvas = await canvasFor(manager, args.canvas_id, ctx);
      const maxRows = args.max_rows ?? DEFAULT_QUERY_ROWS;
      const result = await canvas.query(args.sql, { maxRows, maxBytes: MAX_QUERY_BYTES, signal: ctx.signal });
      const attributions = [
        ...new Set(
          canvas
            .describe()
            .map((t) => (t.provenance.source as { attribution?: string } | undefined)?.attribution)
            .filter((a): a is string => !!a),
        ),
      ];
      return {
        canvas_id: canvas.id,
        ...result,
        max_rows: maxRows,
        max_bytes: MAX_QUERY_BYTES,
        attribution: attributions.length > 0 ? attributions.join(" ") : null,
      };
    },
  };
}

export const chemblDataframeQueryTool = createChemblDataframeQueryTool();
