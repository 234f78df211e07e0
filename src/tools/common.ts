/** Schema fragments and annotations the chemistry tools share (the `smiles` argument, read-only local hints). */
import type { JsonSchema, ToolAnnotations } from "../contract/tool.js";

export const SMILES_MAX_LENGTH = 100_000;

/** The `smiles` property every SMILES tool shares. */
export function smilesProperty(description = "The molecule as a SMILES string, e.g. CC(=O)Oc1ccccc1C(=O)O (aspirin)."): JsonSchema {
  return { type: "string", minLength: 1, maxLength: SMILES_MAX_LENGTH, description };
}

/** The input schema of a tool whose only argument is one molecule. */
export const SMILES_ONLY_INPUT: JsonSchema = {
  type: "object",
  properties: { smiles: smilesProperty() },
  required: ["smiles"],
  additionalProperties: false,
};

export const READ_ONLY_LOCAL: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false };
