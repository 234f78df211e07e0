import { fingerprintWords, morganBitVector, popcount, tanimoto } from "../domain/chem/morgan.js";
import type { MorganOptions } from "../domain/chem/morgan.js";
import { ToolError } from "../domain/errors.js";
import { estimateInputAtoms, round, withMol } from "../domain/chem/rdkit.js";
import type { RDKit } from "../domain/chem/rdkit.js";
import { morganOptionProperties, morganOptionsOf } from "./ecfp4.js";
import type { MorganArgs } from "./ecfp4.js";
import { type ChemTool, type ProgressReporter } from "../contract/tool.js";
import { splitSdf } from "../domain/chem/input-format.js";
import { MOLECULE_TEXT_MAX_LENGTH, READ_ONLY_LOCAL, smilesProperty } from "./common.js";
import { SALT_WARNINGS_PROPERTY, comparisonParent, saltStandardisedWarning } from "./molecule-input.js";

const MAX_LIST = 10_000;
const MAX_TOP_K = 1_000;
const DEFAULT_TOP_K = 100;
/** Invalid list entries described one by one (the rest are only counted). */
export const MAX_INVALID_LISTED = 100;
/** List SMILES longer than this are not echoed in results or invalid entries (the index identifies them). */
export const MAX_ECHO_LENGTH = 300;
const PROGRESS_EVERY = 500;
/**
 * Atom cap of one list entry (by the SMILES upper-bound estimate, before RDKit sees it). Set when RDKit's
 * linked 64 KiB stack trapped on chains of about 850 atoms (a trap would abort the whole list); on the
 * 8 MiB stack the workers now give it (engine-stack.ts) it is a bound on work instead, since up to
 * 10,000 entries share one call's budget. Larger entries are refused one by one; the pair form takes any
 * molecule under the general cap.
 */
export const MAX_LIST_ENTRY_ATOMS = 700;

interface Args extends MorganArgs {
  smiles1?: string;
  smiles2?: string;
  smiles?: string;
  smiles_list?: string[];
  sdf?: string;
  threshold?: number;
  top_k?: number;
}

interface BulkHit {
  index: number;
  smiles?: string;
  title?: string;
  similarity: number;
}

interface InvalidEntry {
  index: number;
  smiles?: string;
  title?: string;
  code: string;
  message: string;
}

const METHOD =
  "Tanimoto coefficient |A and B| / |A or B| of RDKit Morgan bit vectors (ECFP4 at radius 2, 2048 bits), as RDKit's DataStructs.TanimotoSimilarity";

function present(args: Args, key: keyof Args): boolean {
  return args[key] !== undefined;
}

/** Which form the arguments use; refuses a mix of both or neither. */
function formOf(args: Args): "pair" | "bulk" {
  const pairKeys = (["smiles1", "smiles2"] as const).filter((k) => present(args, k));
  const bulkKeys = (["smiles", "smiles_list", "sdf", "threshold", "top_k"] as const).filter((k) => present(args, k));
  if (pairKeys.length > 0 && bulkKeys.length > 0) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Give either the pair form (smiles1, smiles2) or the bulk form (smiles, smiles_list, threshold, top_k), not both: got ${[...pairKeys, ...bulkKeys].join(", ")}`,
      { path: `/${bulkKeys[0]}`, forms: { pair: ["smiles1", "smiles2"], bulk: ["smiles", "smiles_list"] } },
    );
  }
  if (pairKeys.length > 0) {
    for (const k of ["smiles1", "smiles2"] as const) {
      if (!present(args, k)) throw new ToolError("INVALID_ARGUMENTS", `The pair form needs both smiles1 and smiles2: ${k} is missing`, { path: `/${k}` });
    }
    return "pair";
  }
  if (bulkKeys.length > 0) {
    if (present(args, "smiles_list") && present(args, "sdf"))
      throw new ToolError("INVALID_ARGUMENTS", "Give the candidates as smiles_list or as sdf, not both", { path: "/sdf" });
    const list = present(args, "sdf") ? "sdf" : "smiles_list";
    for (const k of ["smiles", list] as const) {
      if (!present(args, k))
        throw new ToolError("INVALID_ARGUMENTS", `The bulk form needs both smiles (the query) and smiles_list (or sdf): ${k} is missing`, { path: `/${k}` });
    }
    return "bulk";
  }
  throw new ToolError("INVALID_ARGUMENTS", "Give smiles1 and smiles2 (two molecules), or smiles and smiles_list (one query against a list)", {
    path: "/",
    forms: { pair: ["smiles1", "smiles2"], bulk: ["smiles", "smiles_list"] },
  });
}

function pairSimilarity(rdkit: RDKit, args: Args, options: MorganOptions): Record<string, unknown> {
  const standardised: Array<{ argument: string; parent_smiles: string }> = [];
  const fp = (smiles: string, argName: string) => comparedFingerprint(rdkit, smiles, argName, options, standardised);
  const a = fp(args.smiles1!, "smiles1");
  const b = fp(args.smiles2!, "smiles2");
  const similarity = tanimoto(a, b);
  const warning = saltStandardisedWarning(standardised);
  return {
    form: "pair",
    similarity: round(similarity, 3),
    similarity_percent: round(similarity * 100, 2),
    popcount1: popcount(a),
    popcount2: popcount(b),
    radius: options.radius,
    n_bits: options.nBits,
    method: METHOD,
    ...(warning ? { warnings: [warning] } : {}),
  };
}

/**
 * The fingerprint a comparison uses: of the molecule as given, or of its standardised parent when it has several
 * fragments (then named in `standardised`).
 */
function comparedFingerprint(
  rdkit: RDKit,
  smiles: string,
  argName: string,
  options: MorganOptions,
  standardised: Array<{ argument: string; parent_smiles: string }>,
): Uint32Array {
  return withMol(
    rdkit,
    smiles,
    (mol) => {
      const parent = comparisonParent(rdkit, smiles, mol);
      if (parent === undefined) return fingerprintWords(morganBitVector(mol, options));
      standardised.push({ argument: argName, parent_smiles: parent });
      return withMol(rdkit, parent, (p) => fingerprintWords(morganBitVector(p, options)), { argName });
    },
    { argName },
  );
}

const echo = (smiles: string): { smiles?: string } => (smiles.length <= MAX_ECHO_LENGTH ? { smiles } : {});

/** The candidates of the bulk form: smiles_list, or the records of sdf (with their titles, and why a record is no molecule). */
function candidates(args: Args): { list: string[]; titles?: string[]; problems?: (string | undefined)[] } {
  if (args.sdf === undefined) return { list: args.smiles_list! };
  const records = splitSdf(args.sdf);
  if (records.length === 0) throw new ToolError("INVALID_ARGUMENTS", "sdf holds no record", { path: "/sdf" });
  return { list: records.map((r) => r.molblock ?? ""), titles: records.map((r) => r.title), problems: records.map((r) => r.problem) };
}

function bulkSimilarity(rdkit: RDKit, args: Args, options: MorganOptions, progress: ProgressReporter): Record<string, unknown> {
  const { list, titles, problems } = candidates(args);
  if (list.length > MAX_LIST) {
    throw new ToolError("INVALID_ARGUMENTS", `${titles ? "sdf" : "smiles_list"} holds ${list.length} entries; at most ${MAX_LIST}`, {
      path: titles ? "/sdf" : "/smiles_list",
    });
  }
  // A candidate is named by its SMILES when short, and an sdf record by its title when it has one.
  const named = (i: number): { smiles?: string; title?: string } => {
    const title = titles?.[i];
    return title ? { ...echo(list[i]!), title } : echo(list[i]!);
  };
  const threshold = args.threshold ?? 0;
  const topK = args.top_k ?? DEFAULT_TOP_K;
  if (!(threshold >= 0 && threshold <= 1)) throw new ToolError("INVALID_ARGUMENTS", "threshold must be between 0 and 1", { path: "/threshold" });
  if (!(Number.isInteger(topK) && topK >= 1 && topK <= MAX_TOP_K)) {
    throw new ToolError("INVALID_ARGUMENTS", `top_k must be an integer from 1 to ${MAX_TOP_K}`, { path: "/top_k" });
  }
  const standardised: Array<{ argument: string; parent_smiles: string }> = [];
  const query = comparedFingerprint(rdkit, args.smiles!, "smiles", options, standardised);
  const queryCount = popcount(query);

  const similarities = new Float64Array(list.length).fill(-1);
  const invalid: InvalidEntry[] = [];
  let invalidCount = 0;
  let above = 0;
  for (let i = 0; i < list.length; i++) {
    if (i % PROGRESS_EVERY === 0 && i > 0) progress(i, list.length, `${i} of ${list.length} molecules compared`);
    const smiles = list[i]!;
    let words: Uint32Array;
    try {
      const problem = problems?.[i];
      if (problem !== undefined) throw new ToolError("INVALID_SMILES", `Invalid SDF record ${i + 1}: ${problem}`, { argument: `sdf record ${i + 1}` });
      const estimate = estimateInputAtoms(smiles);
      if (estimate > MAX_LIST_ENTRY_ATOMS) {
        throw new ToolError(
          "MOLECULE_TOO_LARGE",
          `List entry of up to ${estimate} atoms; list entries may have at most ${MAX_LIST_ENTRY_ATOMS} (compare it with the pair form)`,
          {
            argument: `smiles_list[${i}]`,
            atom_count_estimate: estimate,
            max_atoms: MAX_LIST_ENTRY_ATOMS,
          },
        );
      }
      words = comparedFingerprint(rdkit, smiles, titles ? `sdf record ${i + 1}` : `smiles_list[${i}]`, options, standardised);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalidCount++;
      if (invalid.length < MAX_INVALID_LISTED) invalid.push({ index: i, ...named(i), code: err.code, message: err.message });
      continue;
    }
    const s = tanimoto(query, words, queryCount);
    similarities[i] = s;
    if (s >= threshold) above++;
  }
  progress(list.length, list.length, `${list.length} molecules compared`);

  // Rank the hits: similarity descending (unrounded), then list order.
  const hits: number[] = [];
  for (let i = 0; i < list.length; i++) if (similarities[i]! >= 0 && similarities[i]! >= threshold) hits.push(i);
  hits.sort((p, q) => similarities[q]! - similarities[p]! || p - q);
  const results: BulkHit[] = hits.slice(0, topK).map((i) => ({ index: i, ...named(i), similarity: round(similarities[i]!, 3) }));
  const warning = saltStandardisedWarning(standardised);
  return {
    form: "bulk",
    results,
    count_above_threshold: above,
    returned: results.length,
    truncated: above > results.length,
    compared: list.length - invalidCount,
    invalid_count: invalidCount,
    invalid,
    threshold,
    top_k: topK,
    radius: options.radius,
    n_bits: options.nBits,
    method: METHOD,
    ...(warning ? { warnings: [warning] } : {}),
  };
}

const similarityProp = { type: "number", minimum: 0, maximum: 1, description: "Tanimoto similarity, 0 to 1 (3 dp)." };

export const tanimotoTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "tanimoto",
  title: "Tanimoto similarity (ECFP4)",
  description:
    "ECFP4 Tanimoto similarity, equal to RDKit: smiles1 + smiles2 for a pair, or smiles + smiles_list (or sdf) ranked best first. A salt counts as its parent. Above 0.7 close analogues, below 0.3 unrelated.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles1: smilesProperty("Pair: first molecule."),
      smiles2: smilesProperty("Pair: second molecule."),
      smiles: smilesProperty("List: the query."),
      smiles_list: {
        type: "array",
        minItems: 1,
        maxItems: MAX_LIST,
        items: { type: "string", maxLength: MOLECULE_TEXT_MAX_LENGTH, description: "A candidate." },
        description: "List: the candidates.",
      },
      sdf: {
        type: "string",
        minLength: 1,
        maxLength: MOLECULE_TEXT_MAX_LENGTH,
        description: "List: candidates as SDF.",
      },
      threshold: {
        type: "number",
        minimum: 0,
        maximum: 1,
        default: 0,
        description: "List: minimum similarity.",
      },
      top_k: {
        type: "integer",
        minimum: 1,
        maximum: MAX_TOP_K,
        default: DEFAULT_TOP_K,
        description: "List: best hits kept.",
      },
      ...morganOptionProperties(false),
    },
    dependentRequired: { smiles1: ["smiles2"], smiles2: ["smiles1"], smiles_list: ["smiles"], sdf: ["smiles"] },
    // The query needs its candidates: smiles_list, unless they come as sdf.
    if: { not: { required: ["sdf"] } },
    then: { dependentRequired: { smiles: ["smiles_list"] } },
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      warnings: SALT_WARNINGS_PROPERTY,
      form: { type: "string", enum: ["pair", "bulk"], description: "Which form was answered." },
      similarity: { ...similarityProp, description: "Pair form: Tanimoto similarity, 0 to 1 (3 dp)." },
      similarity_percent: { type: "number", minimum: 0, maximum: 100, description: "Pair form: similarity x 100 (2 dp)." },
      popcount1: { type: "integer", minimum: 0, description: "Pair form: bits set in the first fingerprint." },
      popcount2: { type: "integer", minimum: 0, description: "Pair form: bits set in the second fingerprint." },
      results: {
        type: "array",
        description: "Bulk form: hits, most similar first (ties in list order).",
        items: {
          type: "object",
          properties: {
            index: { type: "integer", minimum: 0, description: "Position in smiles_list (0-based)." },
            smiles: { type: "string", description: `The list entry (left out when longer than ${MAX_ECHO_LENGTH} characters).` },
            title: { type: "string", description: "With sdf: the record's title line, when it has one." },
            similarity: similarityProp,
          },
          required: ["index", "similarity"],
          additionalProperties: false,
        },
      },
      count_above_threshold: { type: "integer", minimum: 0, description: "Bulk form: valid entries with similarity >= threshold." },
      returned: { type: "integer", minimum: 0, description: "Bulk form: number of results." },
      truncated: { type: "boolean", description: "Bulk form: more entries passed the threshold than top_k allowed." },
      compared: { type: "integer", minimum: 0, description: "Bulk form: list entries that parsed and were compared." },
      invalid_count: { type: "integer", minimum: 0, description: "Bulk form: list entries that could not be used." },
      invalid: {
        type: "array",
        description: `Bulk form: the first ${MAX_INVALID_LISTED} unusable entries with the reason (the rest are only counted).`,
        items: {
          type: "object",
          properties: {
            index: { type: "integer", minimum: 0, description: "Position in smiles_list." },
            smiles: { type: "string", description: "The entry (left out when long)." },
            title: { type: "string", description: "With sdf: the record's title line, when it has one." },
            code: { type: "string", description: "Error code, e.g. INVALID_SMILES or MOLECULE_TOO_LARGE." },
            message: { type: "string", description: "What is wrong with it." },
          },
          required: ["index", "code", "message"],
          additionalProperties: false,
        },
      },
      threshold: { type: "number", description: "Bulk form: threshold used." },
      top_k: { type: "integer", description: "Bulk form: top_k used." },
      radius: { type: "integer", description: "Morgan radius used." },
      n_bits: { type: "integer", description: "Fingerprint length used." },
      method: { type: "string", description: "What was computed." },
    },
    required: ["form", "radius", "n_bits", "method"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 55_000,
  run(args, { rdkit, progress }) {
    const options = morganOptionsOf(args);
    return formOf(args) === "pair" ? pairSimilarity(rdkit, args, options) : bulkSimilarity(rdkit, args, options, progress);
  },
};
