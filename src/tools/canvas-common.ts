/**
 * Schema fragments and plumbing shared by the chembl_dataframe_* tools.
 */
import { ToolError } from "../domain/errors.js";
import type { JsonSchema, ToolAnnotations } from "../contract/tool.js";
import { CANVAS_ID_PATTERN, type CanvasManager, type Canvas } from "../domain/canvas/canvas.js";

export const CANVAS_READ_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false };

export function canvasIdProperty(): JsonSchema {
  return {
    type: "string",
    maxLength: 40,
    pattern: `^\\s*${CANVAS_ID_PATTERN.slice(1, -1)}\\s*$`,
    description: "The canvas_id chembl_get_bioactivities returned when it staged a view (cv_ followed by 24 characters).",
  };
}

/** The canvas a dataframe tool addresses: CANVAS_DISABLED when the canvas is off, CANVAS_NOT_FOUND when unknown or expired. */
export async function canvasFor(manager: CanvasManager, id: unknown): Promise<Canvas> {
  if (!(await manager.available())) throw manager.disabledError();
  if (typeof id !== "string") throw new ToolError("INVALID_ARGUMENTS", "canvas_id is required", { path: "/canvas_id" });
  return manager.get(id.trim());
}

/**
 * The SMILES column a canvas tool reads when the call names none: `smiles` (imported tables), or
 * `canonical_smiles` on a table that has it and no `smiles` (a staged ChEMBL table).
 */
export function defaultSmilesColumn(canvas: Canvas, table: string, given: string | undefined): string {
  if (given !== undefined) return given;
  const meta = canvas.tables.get(table);
  return meta && !meta.columns.some((c) => c.name === "smiles") && meta.columns.some((c) => c.name === "canonical_smiles") ? "canonical_smiles" : "smiles";
}
