import { cutsOf, fragmentMol, pairMolecules, type Cut } from "../domain/chem/mmpa.js";
import { parseSmiles } from "../domain/chem/rdkit.js";
import { SALT_WARNINGS_PROPERTY, comparisonParent, saltStandardisedWarning } from "./molecule-input.js";
import type { RDKit } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

/**
 * Molecules per call. Measured on this WASM build (2 shared cores, under load): single cuts of 1,000 drug-sized
 * molecules (the ChEMBL series of RDKit's Contrib/FreeWilson, about 30 heavy atoms) take 38 s, 1,000 NCI
 * molecules 12 s; fragmentation (get_mmpa_frags and writing its pieces) is most of it. So 500 single-cut
 * molecules fit the 40 s budget with room. With up to 3 cuts, 300 of those molecules took 86 s, so 100 (about 29 s).
 */
const MMP_MAX_MOLECULES = 500;
export const MMP_MAX_MULTI_CUT = 100;
const MMP_MAX_ATOMS = 100;
const MMP_MAX_PAIRS = 10_000;
const DEFAULT_MAX_PAIRS = 1_000;
/** Hussain & Rea's default bound on a change (RDKit Contrib/mmpa indexing.py, --maxsize 10 heavy atoms). */
const DEFAULT_MAX_VARIABLE_ATOMS = 10;
const MAX_VARIABLE_ATOMS = 50;
/** Transformations summarised at most (the most frequent first). */
const MMP_MAX_SUMMARY = 500;

interface Args {
  smiles_list: string[];
  max_cuts?: number;
  max_pairs?: number;
  values?: Array<number | null>;
  max_variable_atoms?: number;
}

interface Summary {
  transformation: string;
  count: number;
  mean: number;
  sd?: number;
}

function tidy(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

export const matchedPairsTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "medchem",
  name: "matched_pairs",
  title: "Matched molecular pairs",
  description:
    "Matched molecular pairs in a set (Hussain-Rea on RDKit MMPA): pairs differing by one local change, with the transformation; with values, each pair's delta and per-transformation statistics. A salt pairs as its parent.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles_list: {
        type: "array",
        minItems: 2,
        maxItems: MMP_MAX_MOLECULES,
        items: smilesProperty("A molecule."),
        examples: [["c1ccccc1Cl", "c1ccccc1F", "c1ccccc1", "CCOc1ccccc1F"]],
        description: "The set; pairs name molecules by index.",
      },
      max_cuts: {
        type: "integer",
        minimum: 1,
        maximum: 3,
        default: 1,
        description: "1 substituents; 2-3 also linkers and cores (fewer molecules).",
      },
      max_pairs: {
        type: "integer",
        minimum: 1,
        maximum: MMP_MAX_PAIRS,
        default: DEFAULT_MAX_PAIRS,
        description: "Most pairs listed.",
      },
      max_variable_atoms: {
        type: "integer",
        minimum: 0,
        maximum: MAX_VARIABLE_ATOMS,
        default: DEFAULT_MAX_VARIABLE_ATOMS,
        description: "Largest change, in heavy atoms.",
      },
      values: {
        type: "array",
        minItems: 2,
        maxItems: MMP_MAX_MOLECULES,
        items: { type: ["number", "null"], description: "Or null." },
        description: "One per molecule (e.g. pchembl), for deltas.",
      },
    },
    required: ["smiles_list"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      pairs: {
        type: "array",
        description: "The matched pairs, by from then to index.",
        items: {
          type: "object",
          properties: {
            from: { type: "integer", minimum: 0, description: "Index of the molecule the transformation starts from." },
            to: { type: "integer", minimum: 0, description: "Index of the molecule it gives." },
            constant: { type: "string", description: "The shared constant part as SMILES, attachment points [*:n]." },
            transformation: { type: "string", description: "Reaction SMILES: variable part of from >> variable part of to." },
            cuts: { type: "integer", minimum: 1, maximum: 3, description: "Bonds cut (present when max_cuts > 1)." },
            delta: { type: "number", description: "value(to) - value(from) (present when values are given for both)." },
          },
          required: ["from", "to", "constant", "transformation"],
          additionalProperties: false,
        },
      },
      total_pairs: { type: "integer", minimum: 0, description: "Pairs found in all (more than listed when truncated)." },
      truncated: { type: "boolean", description: "Present and true when more than max_pairs pairs were found." },
      transformations: {
        type: "array",
        description: `With values: per transformation over all pairs with both values, count, mean delta and sample sd (count > 1); most frequent first, at most ${MMP_MAX_SUMMARY}.`,
        items: {
          type: "object",
          properties: {
            transformation: { type: "string" },
            count: { type: "integer", minimum: 1 },
            mean: { type: "number" },
            sd: { type: "number" },
          },
          required: ["transformation", "count", "mean"],
          additionalProperties: false,
        },
      },
      transformations_total: {
        type: "integer",
        minimum: 0,
        description: "With values: distinct transformations with a delta (more than listed past the cap).",
      },
      invalid: {
        type: "array",
        description: "Entries that could not be read (present only when some could not).",
        items: {
          type: "object",
          properties: { index: { type: "integer", minimum: 0 }, code: { type: "string" }, message: { type: "string" } },
          required: ["index", "code", "message"],
          additionalProperties: false,
        },
      },
      warnings: SALT_WARNINGS_PROPERTY,
    },
    required: ["pairs", "total_pairs"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 40_000,
  run(args, { rdkit }) {
    return runMatchedPairs(rdkit, args);
  },
};

/** The matched pairs as the tool answers them (exported for tests, which pass an RDKit instance). */
export function runMatchedPairs(rdkit: RDKit, args: Args): Record<string, unknown> {
  const maxCuts = args.max_cuts ?? 1;
  const maxPairs = args.max_pairs ?? DEFAULT_MAX_PAIRS;
  const values = args.values;
  if (maxCuts > 1 && args.smiles_list.length > MMP_MAX_MULTI_CUT) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Invalid arguments: max_cuts ${maxCuts} takes at most ${MMP_MAX_MULTI_CUT} molecules; smiles_list holds ${args.smiles_list.length}`,
      { path: "/smiles_list", molecules: args.smiles_list.length, max_molecules: MMP_MAX_MULTI_CUT, max_cuts: maxCuts },
      `Send at most ${MMP_MAX_MULTI_CUT} molecules with max_cuts 2 or 3 (e.g. one series), or use max_cuts 1 for up to ${MMP_MAX_MOLECULES}.`,
    );
  }
  if (values !== undefined && values.length !== args.smiles_list.length) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Invalid arguments: values holds ${values.length} numbers for ${args.smiles_list.length} molecules`,
      { path: "/values", values: values.length, molecules: args.smiles_list.length },
      "Send one value per molecule of smiles_list, in the same order (null where unknown).",
    );
  }
  const cache = new Map<string, string | undefined>();
  const sizes = new Map<string, number>();
  const canonical: Array<string | undefined> = [];
  const cuts: Cut[][] = [];
  const invalid: Array<{ index: number; code: string; message: string }> = [];
  const standardised: Array<{ argument: string; parent_smiles: string }> = [];
  args.smiles_list.forEach((smiles, index) => {
    let mol;
    try {
      mol = parseSmiles(rdkit, smiles, { maxAtoms: MMP_MAX_ATOMS, argName: `smiles_list[${index}]` });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalid.push({ index, code: err.code, message: err.message });
      canonical.push(undefined);
      cuts.push([]);
      return;
    }
    try {
      // A salt pairs as its parent (named in a SALT_STANDARDISED warning); its counter-ion would keep it from every pair.
      const parent = comparisonParent(rdkit, smiles, mol);
      if (parent !== undefined) {
        mol.delete();
        mol = parseSmiles(rdkit, parent, { maxAtoms: MMP_MAX_ATOMS, argName: `smiles_list[${index}]` });
        standardised.push({ argument: `smiles_list[${index}]`, parent_smiles: parent });
      }
      canonical.push(mol.get_smiles());
      cuts.push(fragmentMol(mol, maxCuts).flatMap((f) => cutsOf(rdkit, f, cache, sizes)));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalid.push({ index, code: err.code, message: err.message });
      canonical.push(undefined);
      cuts.push([]);
    } finally {
      mol.delete();
    }
  });
  const all = pairMolecules(rdkit, canonical, cuts, cache, args.max_variable_atoms ?? DEFAULT_MAX_VARIABLE_ATOMS);
  const valueOf = (i: number) => {
    const v = values?.[i];
    return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };
  const deltaOf = (from: number, to: number) => {
    const a = valueOf(from);
    const b = valueOf(to);
    return a !== undefined && b !== undefined ? b - a : undefined;
  };
  const pairs = all.slice(0, maxPairs).map((p) => {
    const delta = deltaOf(p.from, p.to);
    return {
      from: p.from,
      to: p.to,
      constant: p.constant,
      transformation: p.transformation,
      ...(maxCuts > 1 ? { cuts: p.cuts } : {}),
      ...(delta !== undefined ? { delta: tidy(delta) } : {}),
    };
  });
  const out: Record<string, unknown> = { pairs, total_pairs: all.length, ...(all.length > maxPairs ? { truncated: true } : {}) };
  if (values !== undefined) {
    const groups = new Map<string, number[]>();
    for (const p of all) {
      const d = deltaOf(p.from, p.to);
      if (d === undefined) continue;
      const list = groups.get(p.transformation) ?? [];
      list.push(d);
      groups.set(p.transformation, list);
    }
    const summary: Summary[] = [...groups].map(([transformation, ds]) => {
      const mean = ds.reduce((s, x) => s + x, 0) / ds.length;
      const sd = ds.length > 1 ? Math.sqrt(ds.reduce((s, x) => s + (x - mean) ** 2, 0) / (ds.length - 1)) : undefined;
      return { transformation, count: ds.length, mean: tidy(mean), ...(sd !== undefined ? { sd: tidy(sd) } : {}) };
    });
    summary.sort((a, b) => b.count - a.count || (a.transformation < b.transformation ? -1 : a.transformation > b.transformation ? 1 : 0));
    out.transformations = summary.slice(0, MMP_MAX_SUMMARY);
    out.transformations_total = summary.length;
  }
  if (invalid.length > 0) out.invalid = invalid;
  const warning = saltStandardisedWarning(standardised);
  if (warning) out.warnings = [warning];
  return out;
}
