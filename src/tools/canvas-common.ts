/**
 * Schema fragments and plumbing shared by the chembl_dataframe_* tools.
 */
import { ToolError } from "../domain/errors.js";
import type { JsonSchema, ServiceContext, ToolAnnotations } from "../contract/tool.js";
import { CANVAS_ID_MAX_LENGTH, CANVAS_ID_PATTERN } from "../domain/canvas/ids.js";
import type { CanvasManager } from "../domain/canvas/manager.js";
import type { Canvas } from "../domain/canvas/canvas.js";

export const CANVAS_READ_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false };

/**
 * The header a 2026-07-28 client mirrors canvas_id into (Mcp-Param-Canvas-Id), so a load balancer can send a
 * canvas call to the replica holding the canvas without reading the body. Declared on a top-level string
 * property only: the spec makes an x-mcp-header anywhere else (under oneOf, items, $ref...) invalid, and a
 * conforming client then drops the whole tool (test/tools/registry.test.ts checks every tool).
 */
export const CANVAS_ID_HEADER = "Canvas-Id";

/** Longest canvas_id a schema accepts: the ID with some surrounding whitespace (trimmed before use). */
export const CANVAS_ID_ARGUMENT_MAX_LENGTH = CANVAS_ID_MAX_LENGTH + 16;

export function canvasIdProperty(): JsonSchema {
  return {
    type: "string",
    maxLength: CANVAS_ID_ARGUMENT_MAX_LENGTH,
    pattern: `^\\s*${CANVAS_ID_PATTERN.slice(1, -1)}\\s*$`,
    description: "The canvas.",
    "x-mcp-header": CANVAS_ID_HEADER,
  };
}

/**
 * The canvas a dataframe tool addresses, as the caller (ctx.owner) may see it: CANVAS_DISABLED when the
 * canvas is off, CANVAS_NOT_FOUND when unknown, expired, on another replica or another owner's.
 */
export async function canvasFor(manager: CanvasManager, id: unknown, ctx: Pick<ServiceContext, "owner">): Promise<Canvas> {
  if (!(await manager.available())) throw manager.disabledError();
  if (typeof id !== "string") throw new ToolError("INVALID_ARGUMENTS", "canvas_id is required", { path: "/canvas_id" });
  return manager.get(id.trim(), ctx.owner ?? null);
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
