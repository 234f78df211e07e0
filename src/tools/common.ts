/** Schema fragments and annotations the chemistry tools share (the `smiles` argument, read-only local hints). */
import type { ChemTool, JsonSchema, ToolAnnotations } from "../contract/tool.js";
import { inputFormatOf } from "../domain/chem/input-format.js";
import { MAX_STRING_BYTES } from "../contract/limits.js";
import { SMILES_MAX_LENGTH } from "../domain/chem/rdkit.js";

export { SMILES_MAX_LENGTH };

/** The longest molecule string: a molblock may be as long as the codec's string limit (a SMILES at most SMILES_MAX_LENGTH). */
export const MOLECULE_TEXT_MAX_LENGTH = MAX_STRING_BYTES;

/**
 * The `smiles` property every SMILES tool shares. Its description is short: the server's instructions say once that
 * a molecule argument takes SMILES, CXSMILES or a molblock (some twenty tools would repeat it to the model).
 */
export function smilesProperty(description = "The molecule."): JsonSchema {
  return { type: "string", minLength: 1, maxLength: MOLECULE_TEXT_MAX_LENGTH, description };
}

/** The `input_format` result property: named only when the molecule was not sent as SMILES (so SMILES answers are unchanged). */
const INPUT_FORMAT_PROPERTY: JsonSchema = {
  type: "string",
  enum: ["molblock", "cxsmiles"],
  description: "Present only when the molecule was sent as a molblock or CXSMILES instead of SMILES: which.",
};

/** The input schema of a tool whose only argument is one molecule. */
export const SMILES_ONLY_INPUT: JsonSchema = {
  type: "object",
  properties: { smiles: smilesProperty() },
  required: ["smiles"],
  additionalProperties: false,
};

export const READ_ONLY_LOCAL: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false };

/**
 * The tool with `input_format` in its results and output schema: a per-molecule tool (one `smiles`
 * argument) names the format when the molecule came as a molblock or CXSMILES, after its own keys. A SMILES
 * input's answer is untouched. Tools that read several molecules (tanimoto, find_mcs) are left as they are.
 */
export function withInputFormat<A, R>(tool: ChemTool<A, R>): ChemTool<A, R> {
  // The single-molecule result schema: the output itself, or the first branch of an output that is "single or grid" (depict).
  const branches = Array.isArray(tool.outputSchema.anyOf) ? (tool.outputSchema.anyOf as JsonSchema[]) : undefined;
  const single = branches ? branches[0] : tool.outputSchema;
  const properties = single?.properties as Record<string, JsonSchema> | undefined;
  const input = tool.inputSchema.properties as Record<string, JsonSchema> | undefined;
  if (!single || !properties || input?.smiles === undefined || input.smiles1 !== undefined || "input_format" in properties) return tool;
  const run: ChemTool<A, R>["run"] = (args, ctx) => {
    const value = tool.run(args, ctx);
    const smiles = (args as { smiles?: unknown }).smiles;
    if (typeof smiles !== "string" || value === null || typeof value !== "object") return value;
    const format = inputFormatOf(smiles);
    return format === "smiles" ? value : { ...value, input_format: format };
  };
  const patched: JsonSchema = { ...single, properties: { ...properties, input_format: INPUT_FORMAT_PROPERTY } };
  const outputSchema = branches ? { ...tool.outputSchema, anyOf: [patched, ...branches.slice(1)] } : patched;
  return { ...tool, run, outputSchema };
}

/**
 * A worker-only chemistry tool (not in tools/list: a service tool runs it through ChemRunner.runList): the shape every
 * such tool shares (read-only, local, schemas the registry does not expose), from what differs.
 */
export function workerOnlyTool<A, R>(
  spec: Pick<ChemTool<A, R>, "toolset" | "name" | "title" | "description" | "errors" | "run"> & { budgetMs?: number },
): ChemTool<A, R> {
  return {
    kind: "chem",
    annotations: READ_ONLY_LOCAL,
    inputSchema: { type: "object" },
    outputSchema: { type: "object" },
    budgetMs: 15_000,
    ...spec,
  };
}
