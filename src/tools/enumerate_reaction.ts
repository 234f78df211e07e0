import { enumerateReaction, REACTION_MAX_TEMPLATES, type EnumerationResult, type ReactionProduct } from "../domain/chem/reaction.js";
import type { ChemTool } from "../contract/tool.js";
import { MAX_ARRAY_LENGTH } from "../contract/limits.js";
import { ToolError } from "../domain/errors.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface EnumerateReactionArgs {
  reaction_smarts: string;
  reactants: string[][];
}

type EnumerateReactionResult = Omit<EnumerationResult, "products"> & { products: ReactionProduct[]; product_count: number; returned?: number; note?: string };

const BUDGET_MS = 30_000;
/** Time the enumeration may take, leaving the rest of the budget for the answer. */
const ENUMERATION_MS = 25_000;
/**
 * Bytes of product JSON one answer carries: the result travels twice (structuredContent and its text block)
 * within the 1 MiB response, so about 400 KB of products fit (some 5,000 drug-sized products).
 */
const PRODUCTS_RESPONSE_BYTES = 400_000;

export const enumerateReactionTool: ChemTool<EnumerateReactionArgs, EnumerateReactionResult> = {
  kind: "chem",
  toolset: "medchem",
  name: "enumerate_reaction",
  title: "Enumerate a reaction over reactant lists",
  description:
    "Run a reaction SMARTS on every combination of reactant lists (RDKit RunReactants): unique sanitised product SMILES with the reactants that made them. For library enumeration.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      reaction_smarts: {
        type: "string",
        minLength: 3,
        maxLength: 10_000,
        examples: ["[C:1](=O)[OH].[N;!H0:2]>>[C:1](=O)[N:2]"],
        description: "Mapped reaction SMARTS, e.g. [C:1](=O)[OH].[N;!H0:2]>>[C:1](=O)[N:2].",
      },
      reactants: {
        type: "array",
        minItems: 1,
        maxItems: REACTION_MAX_TEMPLATES,
        examples: [
          [
            ["CC(=O)O", "OC(=O)c1ccccc1"],
            ["NCC", "C1CCNCC1"],
          ],
        ],
        description: "A list per reactant template, in order.",
        items: {
          type: "array",
          minItems: 1,
          maxItems: MAX_ARRAY_LENGTH,
          items: smilesProperty("A reactant."),
          description: "One template's reactants.",
        },
      },
    },
    required: ["reaction_smarts", "reactants"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      products: {
        type: "array",
        description: "Distinct sanitised products (canonical SMILES, several product templates joined with '.'), in the order first made.",
        items: {
          type: "object",
          properties: {
            smiles: { type: "string" },
            reactant_indices: {
              type: "array",
              items: { type: "integer", minimum: 0 },
              description: "Index in each reactant list of the first combination giving it.",
            },
          },
          required: ["smiles", "reactant_indices"],
          additionalProperties: false,
        },
      },
      product_count: { type: "integer", minimum: 0, description: "Distinct products made." },
      returned: { type: "integer", minimum: 0, description: "Products in this answer, when fewer than product_count (the response size)." },
      combinations: { type: "integer", minimum: 0, description: "Combinations of the valid reactants." },
      combinations_run: { type: "integer", minimum: 0, description: "Combinations run." },
      sanitization_failures: { type: "integer", minimum: 0, description: "Outcomes dropped because a product did not sanitise." },
      truncated: { type: "boolean", description: "The run stopped early (see truncated_by)." },
      truncated_by: { type: "string", enum: ["max_products", "time_budget"] },
      invalid_reactants: {
        type: "array",
        description: "Reactants that do not parse (skipped).",
        items: {
          type: "object",
          properties: { template: { type: "integer" }, index: { type: "integer" }, code: { type: "string" }, message: { type: "string" } },
          required: ["template", "index", "code", "message"],
          additionalProperties: false,
        },
      },
      note: { type: "string" },
    },
    required: ["products", "product_count", "combinations", "combinations_run", "sanitization_failures", "truncated"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMARTS"],
  budgetMs: BUDGET_MS,
  run({ reaction_smarts, reactants }, { rdkit }) {
    const total = reactants.reduce((n, l) => n + l.length, 0);
    if (total > MAX_ARRAY_LENGTH)
      throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments: reactants holds ${total} molecules; at most ${MAX_ARRAY_LENGTH} in all`, {
        path: "/reactants",
        molecules: total,
      });
    const r = enumerateReaction(rdkit, reaction_smarts, reactants, { deadline: Date.now() + ENUMERATION_MS });
    let bytes = 0;
    let returned = 0;
    for (const p of r.products) {
      bytes += p.smiles.length + 40 + 8 * p.reactant_indices.length;
      if (bytes > PRODUCTS_RESPONSE_BYTES) break;
      returned++;
    }
    const { products, ...rest } = r;
    const out: EnumerateReactionResult = { products: products.slice(0, returned), product_count: products.length, ...rest };
    if (returned < products.length) {
      out.returned = returned;
      out.note = `${products.length} distinct products; the first ${returned} fit the answer. Split a reactant list to get the rest.`;
    }
    return out;
  },
};
