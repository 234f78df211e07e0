/**
 * pick_diverse: MaxMin diversity picking on ECFP4, equal to RDKit's MaxMinPicker.LazyBitVectorPick with
 * the same first picks (src/domain/chem/diversity.ts).
 */
import { ToolError } from "../domain/errors.js";
import { maxMinPicks, minDistanceTo, seededFirstPick } from "../domain/chem/diversity.js";
import type { ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { ECFP4_METHOD, INVALID_SCHEMA, listFingerprints, smilesListProperty, type InvalidEntry } from "./cluster_molecules.js";

const MAX_PICK_POOL = 10_000;
const MAX_FIRST_PICKS = 1_000;
/**
 * Most picks one call makes: on 2 cores 1,000 of 10,000 take 15 s and 3,000 19 s (12 s of them fingerprints);
 * nearly all 10,000 would take 76 s, past the 50 s budget.
 */
const MAX_PICKS = 2_000;

interface Args {
  smiles_list: string[];
  n: number;
  first_picks?: number[];
  seed?: number;
}

interface Result {
  picks: number[];
  min_distance?: number;
  pool: number;
  invalid_count?: number;
  invalid?: InvalidEntry[];
  method: string;
  [k: string]: unknown;
}

export const pickDiverseTool: ChemTool<Args, Result> = {
  kind: "chem",
  toolset: "medchem",
  name: "pick_diverse",
  title: "Diverse subset (MaxMin, ECFP4)",
  description:
    "Pick n diverse molecules by MaxMin on ECFP4, equal to RDKit's MaxMinPicker: the picks (input indices, in order) and the last pick's distance. For a subset to test, buy or show.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles_list: smilesListProperty(MAX_PICK_POOL, "The pool to pick from."),
      n: { type: "integer", minimum: 1, maximum: MAX_PICKS, description: "How many to pick, first_picks included." },
      first_picks: {
        type: "array",
        maxItems: MAX_FIRST_PICKS,
        uniqueItems: true,
        items: { type: "integer", minimum: 0, maximum: MAX_PICK_POOL - 1 },
        default: [0],
        description: "Indices picked first; [] with seed for a random start.",
      },
      seed: {
        type: "integer",
        minimum: 0,
        maximum: 2_147_483_647,
        description: "Seed of the random first pick.",
      },
    },
    required: ["smiles_list", "n"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      picks: { type: "array", items: { type: "integer", minimum: 0 }, description: "Indices into smiles_list in pick order." },
      min_distance: {
        type: "number",
        description: "The last pick's distance (1 - Tanimoto) to the nearest earlier pick, 3 dp (left out when only first_picks were picked).",
      },
      pool: { type: "integer", minimum: 0, description: "Entries picked from (those that parsed)." },
      invalid_count: { type: "integer", minimum: 1, description: "Entries left out (only when there are some)." },
      invalid: INVALID_SCHEMA,
      method: { type: "string", description: "What was computed." },
    },
    required: ["picks", "pool", "method"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 50_000,
  run({ smiles_list, n, first_picks = [0], seed }, { rdkit, progress }) {
    if (seed !== undefined && first_picks.length > 0) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        "seed draws the first pick: give it with first_picks []",
        { path: "/seed" },
        "Send first_picks: [] with seed, or leave seed out.",
      );
    }
    if (seed === undefined && first_picks.length === 0) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        "first_picks [] needs a seed (a first pick drawn without one would not be reproducible)",
        { path: "/first_picks" },
        "Give seed (e.g. 42), or name the first picks.",
      );
    }
    first_picks.forEach((p, k) => {
      if (p >= smiles_list.length) {
        throw new ToolError("INVALID_ARGUMENTS", `first_picks[${k}] is ${p}; smiles_list has ${smiles_list.length} entries`, { path: `/first_picks/${k}` });
      }
    });
    const { fps, indices, invalid, invalidCount } = listFingerprints(rdkit, smiles_list, progress);
    const position = new Map(indices.map((input, k) => [input, k]));
    const first = first_picks.map((p, k) => {
      const at = position.get(p);
      if (at === undefined) {
        throw new ToolError("INVALID_SMILES", `first_picks[${k}] names entry ${p}, which does not parse`, {
          path: `/first_picks/${k}`,
          argument: `smiles_list[${p}]`,
        });
      }
      return at;
    });
    if (n > fps.length) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        `n is ${n} but only ${fps.length} entries of smiles_list parse`,
        { path: "/n", pool: fps.length },
        `Ask for at most ${fps.length}, or fix the entries under details.`,
      );
    }
    if (seed !== undefined) first.push(seededFirstPick(fps.length, seed));
    const picked = maxMinPicks(fps, n, first);
    const picks = picked.map((k) => indices[k]!);
    const result: Result = { picks, pool: fps.length, method: `MaxMin (RDKit MaxMinPicker.LazyBitVectorPick) on ${ECFP4_METHOD}` };
    if (picked.length > first.length) {
      const last = picked[picked.length - 1]!;
      result.min_distance = Math.round(minDistanceTo(fps, last, picked.slice(0, -1)) * 1000) / 1000;
    }
    if (invalidCount > 0) Object.assign(result, { invalid_count: invalidCount, invalid });
    progress(smiles_list.length, smiles_list.length, `${picks.length} picked`);
    return result;
  },
};
