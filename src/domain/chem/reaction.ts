/**
 * Reaction enumeration: a reaction SMARTS run on every combination of its reactants (one list per reactant
 * template), as native RDKit's AllChem.ReactionFromSmarts(smarts).RunReactants((m1, m2, ...)) per
 * combination, through MinimalLib's get_rxn / run_reactants. MinimalLib hands back the products unsanitised
 * (as RunReactants does); each outcome's products are written as SMILES, joined with "." when the reaction has
 * several product templates, and read again by get_mol, which sanitises: an outcome that does not sanitise
 * (e.g. a carbon past its valence) is dropped and counted. Products are canonical SMILES, de-duplicated over the
 * whole run; each keeps the reactant indices of its first combination (itertools.product order: the last list
 * varies fastest).
 */
import { ToolError } from "../errors.js";
import { parseSmiles, rewrittenSmiles, withErrorLog, type RDKit, type RDKitMol } from "./rdkit.js";

/** Unique products kept (then `truncated`). */
const REACTION_MAX_PRODUCTS = 10_000;
/** Outcomes of one combination, as native RunReactants' default maxProducts. */
const REACTION_MAX_OUTCOMES_PER_COMBINATION = 1_000;
/** Reactant templates a reaction may have. */
export const REACTION_MAX_TEMPLATES = 4;
/** Atoms of one reactant. */
const REACTANT_MAX_ATOMS = 1_000;

export interface ReactionProduct {
  smiles: string;
  reactant_indices: number[];
}

interface InvalidReactant {
  template: number;
  index: number;
  code: string;
  message: string;
}

export interface EnumerationResult {
  products: ReactionProduct[];
  /** Combinations of the valid reactants (the cartesian product's size). */
  combinations: number;
  /** Combinations run (fewer than `combinations` when truncated). */
  combinations_run: number;
  /** Outcomes dropped because a product did not sanitise. */
  sanitization_failures: number;
  truncated: boolean;
  truncated_by?: "max_products" | "time_budget";
  invalid_reactants?: InvalidReactant[];
}

/**
 * The number of reactant templates of a reaction SMARTS: the "."-separated parts before the first ">", a
 * component-level group "(...)" counting as one, dots inside brackets and recursive SMARTS not counted.
 */
export function reactantTemplateCount(smarts: string): number {
  const end = smarts.indexOf(">");
  if (end < 0) return 0;
  const left = smarts.slice(0, end);
  if (left.trim().length === 0) return 0;
  let depth = 0;
  let bracket = 0;
  let count = 1;
  for (const ch of left) {
    if (ch === "[") bracket++;
    else if (ch === "]") bracket = Math.max(0, bracket - 1);
    else if (bracket === 0 && ch === "(") depth++;
    else if (bracket === 0 && ch === ")") depth = Math.max(0, depth - 1);
    else if (bracket === 0 && depth === 0 && ch === ".") count++;
  }
  return count;
}

export function enumerateReaction(
  rdkit: RDKit,
  smarts: string,
  reactants: readonly (readonly string[])[],
  options: { deadline: number; maxProducts?: number },
): EnumerationResult {
  const maxProducts = options.maxProducts ?? REACTION_MAX_PRODUCTS;
  const templates = reactantTemplateCount(smarts);
  if (templates === 0)
    throw new ToolError("INVALID_SMARTS", "Invalid reaction SMARTS: it has no reactant templates before '>>'", { argument: "reaction_smarts" });
  if (templates > REACTION_MAX_TEMPLATES)
    throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments: the reaction has ${templates} reactant templates; at most ${REACTION_MAX_TEMPLATES}`, {
      path: "/reaction_smarts",
      templates,
    });
  if (reactants.length !== templates)
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Invalid arguments: the reaction has ${templates} reactant template${templates === 1 ? "" : "s"} and reactants holds ${reactants.length} list${reactants.length === 1 ? "" : "s"}; send one list per template, in template order`,
      { path: "/reactants", templates, lists: reactants.length },
    );
  const { value: rxn, log } = withErrorLog(rdkit, () => {
    try {
      return rdkit.get_rxn(smarts);
    } catch {
      return null;
    }
  });
  if (rxn === null) {
    const reason =
      log
        .replace(/^\[[0-9:.]+\]\s*/gm, "")
        .trim()
        .split("\n")[0] || "RDKit could not parse it";
    throw new ToolError("INVALID_SMARTS", `Invalid reaction SMARTS: ${reason}`, { argument: "reaction_smarts", rdkit_message: reason });
  }
  const mols: RDKitMol[][] = reactants.map(() => []);
  const indices: number[][] = reactants.map(() => []);
  const invalid: InvalidReactant[] = [];
  try {
    for (const [t, list] of reactants.entries()) {
      for (const [i, smiles] of list.entries()) {
        try {
          mols[t]!.push(parseSmiles(rdkit, smiles, { maxAtoms: REACTANT_MAX_ATOMS, argName: `reactants[${t}][${i}]` }));
          indices[t]!.push(i);
        } catch (err) {
          if (!(err instanceof ToolError)) throw err;
          invalid.push({ template: t, index: i, code: err.code, message: err.message });
        }
      }
    }
    const sizes = mols.map((m) => m.length);
    const combinations = sizes.reduce((a, b) => a * b, 1);
    const seen = new Map<string, number[]>();
    let run = 0;
    let failures = 0;
    let truncatedBy: EnumerationResult["truncated_by"];
    const odometer = sizes.map(() => 0);
    outer: for (let c = 0; c < combinations; c++) {
      if (Date.now() > options.deadline) {
        truncatedBy = "time_budget";
        break;
      }
      const list = new rdkit.MolList();
      let outcomes;
      try {
        for (const [t, k] of odometer.entries()) list.append(mols[t]![k]!);
        outcomes = rxn.run_reactants(list, REACTION_MAX_OUTCOMES_PER_COMBINATION);
      } finally {
        list.delete();
      }
      run++;
      const combo = odometer.map((k, t) => indices[t]![k]!);
      try {
        for (let o = 0; o < outcomes.size(); o++) {
          // One combination may give up to 1,000 outcomes of large products: the deadline is checked for each.
          if (Date.now() > options.deadline) {
            truncatedBy = "time_budget";
            break outer;
          }
          const products = outcomes.get(o);
          if (products === undefined) continue;
          const parts: string[] = [];
          try {
            for (let p = 0; p < products.size(); p++) {
              const product = products.at(p);
              if (product === null) continue;
              try {
                parts.push(product.get_smiles());
              } finally {
                product.delete();
              }
            }
          } finally {
            products.delete();
          }
          // The products' canonical SMILES after sanitisation, undefined when they do not sanitise.
          const smiles = rewrittenSmiles(rdkit, parts.join("."));
          if (smiles === undefined) {
            failures++;
            continue;
          }
          if (seen.has(smiles)) continue;
          if (seen.size >= maxProducts) {
            truncatedBy = "max_products";
            break outer;
          }
          seen.set(smiles, combo);
        }
      } finally {
        outcomes.delete();
      }
      // Next combination: the last list varies fastest (itertools.product order).
      for (let t = odometer.length - 1; t >= 0; t--) {
        odometer[t]!++;
        if (odometer[t]! < sizes[t]!) break;
        odometer[t] = 0;
      }
    }
    return {
      products: [...seen].map(([smiles, reactant_indices]) => ({ smiles, reactant_indices })),
      combinations,
      combinations_run: run,
      sanitization_failures: failures,
      truncated: truncatedBy !== undefined,
      ...(truncatedBy !== undefined ? { truncated_by: truncatedBy } : {}),
      ...(invalid.length > 0 ? { invalid_reactants: invalid } : {}),
    };
  } finally {
    for (const list of mols) for (const m of list) m.delete();
    rxn.delete();
  }
}
