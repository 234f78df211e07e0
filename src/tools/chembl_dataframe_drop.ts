import { mdFields } from "./chembl-markdown.js";
import { arr, markdownContent, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { canvasFor, canvasIdProperty } from "./canvas-common.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  canvas_id: string;
  table?: string;
}

export interface DataframeDropResult {
  canvas_id: string;
  dropped: string;
  remaining_tables: string[];
  [k: string]: unknown;
}

function renderDrop(r: DataframeDropResult): string {
  return [
    "**ChEMBL canvas drop**",
    mdFields([
      ["canvas_id", { code: r.canvas_id }],
      ["dropped", r.dropped],
      ["remaining_tables", r.remaining_tables.join(", ") || "none"],
    ]),
  ].join("\n");
}

/**
 * Registered only when CHEMBL_DATAFRAME_DROP_ENABLED is true (src/tools/index.ts): canvases expire on their
 * own after 30 minutes idle, so freeing one early is an operator's opt-in.
 */
export function createChemblDataframeDropTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, DataframeDropResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "chembl_dataframe_drop",
    title: "ChEMBL: drop a staged table",
    description: "Drop one table of a canvas, or the whole canvas, to free room before it expires.",
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false, destructiveHint: true },
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        table: {
          type: "string",
          maxLength: 63,
          pattern: "^([a-z][a-z0-9_]{0,62})?$",
          description: "The table; omit to drop the whole canvas.",
        },
      },
      required: ["canvas_id"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas."),
        dropped: str('The table dropped, or "canvas" when the whole canvas was closed.'),
        remaining_tables: arr("Tables left on the canvas (none after closing it).", { type: "string", description: "A table name." }),
      },
      required: ["canvas_id", "dropped", "remaining_tables"],
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 15_000,
    content: markdownContent(renderDrop),
    async run(args, ctx) {
      const manager = canvases();
      const canvas = await canvasFor(manager, args.canvas_id, ctx);
      const table = args.table?.trim();
      if (!table) {
        await manager.release(canvas.id, "dropped");
        return { canvas_id: canvas.id, dropped: "canvas", remaining_tables: [] };
      }
      await canvas.dropTable(table);
      return { canvas_id: canvas.id, dropped: table, remaining_tables: canvas.describe().map((t) => t.name) };
    },
  };
}

export const chemblDataframeDropTool = createChemblDataframeDropTool();
